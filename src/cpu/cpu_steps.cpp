// The CPU backend's algorithm steps (AlgoSteps in core/algo_steps.hpp): OpenMP loops whose sums run
// over fixed chunks combined in order, so results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/algo_steps.hpp"
#include "cpu/cpu_backend.hpp"

namespace psv {
namespace cpu {

namespace {

class CpuAlgoSteps final : public AlgoSteps {
public:
    void pagerank_scale(int64_t n, const float *r, const float *inv_outdeg, float *w, double *dangling,
                        const LoopState *state) override;
    void pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                         const float *personal, LoopState *state) override;
    void pagerank_update_scale(int64_t n, const float *t, float *r, double damping, double *dangling,
                               const float *personal, const float *inv_outdeg, float *w, LoopState *state) override;
    void run_loop(const std::function<void()> &iteration, LoopState *state, int64_t entries,
                  LoopState &final_host, bool skips_whole) override;
    void sum(int64_t n, const float *x, double *out) override;
    void normalize_diff(int64_t n, float *x, const double *total, const float *prev,
                        double *diff) override;
    void rwr_start(int64_t n, int32_t k, const int64_t *queries, const float *inv_degree, float *R,
                   float *U) override;
    void rwr_update(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *U,
                    const float *inv_degree, double c, const int64_t *queries, double *diffs) override;
    void copy_columns(int64_t n, const float *src, int32_t src_k, float *dst, int32_t dst_k, int32_t m,
                      const int32_t *src_cols, const int32_t *dst_cols) override;
    void write_post(void *dst, const void *src, size_t bytes) override {
        if (bytes) std::memcpy(dst, src, bytes);
    }
    bool runs_ahead() const override { return false; }
    void read_post(const void *src, size_t bytes, int slot) override {
        std::vector<unsigned char> &s = slots_[slot & 1];
        s.resize(bytes);
        if (bytes) std::memcpy(s.data(), src, bytes);
    }
    const void *read_wait(int slot) override { return slots_[slot & 1].data(); }

private:
    std::vector<unsigned char> slots_[2];  // read_post's copies
};

}  // namespace

void CpuAlgoSteps::pagerank_scale(int64_t n, const float *r, const float *inv, float *w, double *dangling,
                                  const LoopState *state) {
    if (state && state->done) return;
    const double d = chunked_sum(n, [&](int64_t i) {
        w[i] = r[i] * inv[i];
        return inv[i] == 0.0f ? (double)r[i] : 0.0;
    });
    if (dangling) *dangling = d;
}

void CpuAlgoSteps::pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                                 const float *personal, LoopState *state) {
    if (state->done) return;
    const float d = (float)damping;
    const float scale = (float)((1.0 - damping) + damping * (*dangling));
    const float uniform = scale * (float)(1.0 / (double)n);
    const double diff = chunked_sum(n, [&](int64_t i) {
        const float base = personal ? scale * personal[i] : uniform;
        const float rn = base + d * t[i];
        const double dd = std::fabs((double)rn - (double)r[i]);
        r[i] = rn;
        return dd;
    });
    state->diff = diff;
    ++state->iterations;
    state->converged = diff <= state->tolerance;
    state->done = state->converged || state->iterations >= state->max_iterations;
}

// The two steps in turn (the same sums, in the same order, as the three-step loop).
void CpuAlgoSteps::pagerank_update_scale(int64_t n, const float *t, float *r, double damping, double *dangling,
                                         const float *personal, const float *inv, float *w, LoopState *state) {
    if (state->done) return;
    pagerank_update(n, t, r, damping, dangling, personal, state);
    pagerank_scale(n, r, inv, w, dangling, nullptr);
}

void CpuAlgoSteps::run_loop(const std::function<void()> &iteration, LoopState *state, int64_t, LoopState &final_host,
                            bool) {
    while (!state->done) iteration();
    final_host = *state;
}

void CpuAlgoSteps::sum(int64_t n, const float *x, double *out) {
    *out = chunked_sum(n, [&](int64_t i) { return (double)x[i]; });
}

void CpuAlgoSteps::normalize_diff(int64_t n, float *x, const double *total, const float *prev, double *diff) {
    const double tot = *total;
    const float inv = tot != 0 ? (float)(1.0 / tot) : 1.0f;
    const double d = chunked_sum(n, [&](int64_t i) {
        x[i] *= inv;
        return prev ? std::fabs((double)x[i] - (double)prev[i]) : 0.0;
    });
    if (prev) *diff = d;
}

void CpuAlgoSteps::rwr_start(int64_t n, int32_t k, const int64_t *queries, const float *inv, float *R, float *U) {
    std::fill(R, R + n * k, 0.0f);
    std::fill(U, U + n * k, 0.0f);
    for (int32_t j = 0; j < k; ++j) {
        const int64_t q = queries[j];
        R[q * k + j] = 1.0f;
        U[q * k + j] = 1.0f * inv[q];
    }
}

void CpuAlgoSteps::rwr_update(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *U,
                              const float *inv, double c, const int64_t *queries, double *diffs) {
    // One pass over the n x k block (one parallel region, not k): per fixed chunk of rows a
    // partial difference per query, combined in chunk order -- the same sums, bit for bit, as a
    // chunked_sum per query.
    const float cf = (float)c, restart = (float)(1.0 - c);
    const int64_t nchunks = (n + kChunk - 1) / kChunk;
    std::vector<double> part((size_t)nchunks * k, 0.0);
#pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < nchunks; ++ch) {
        double *p = part.data() + (size_t)ch * k;
        const int64_t end = std::min(n, (ch + 1) * kChunk);
        for (int64_t i = ch * kChunk; i < end; ++i) {
            for (int32_t j = 0; j < k; ++j) {
                const int64_t e = i * k + j;
                const float rn = cf * T[e] + (i == queries[j] ? restart : 0.0f);
                p[j] += std::fabs((double)rn - (double)R[e]);
                R_new[e] = rn;
                U[e] = rn * inv[i];
            }
        }
    }
    for (int32_t j = 0; j < k; ++j) {
        double s = 0;
        for (int64_t ch = 0; ch < nchunks; ++ch) s += part[(size_t)ch * k + j];
        diffs[j] = s;
    }
}

void CpuAlgoSteps::copy_columns(int64_t n, const float *src, int32_t src_k, float *dst, int32_t dst_k, int32_t m,
                                const int32_t *src_cols, const int32_t *dst_cols) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
        for (int32_t t = 0; t < m; ++t) dst[i * dst_k + dst_cols[t]] = src[i * src_k + src_cols[t]];
}

}  // namespace cpu

std::unique_ptr<AlgoSteps> create_cpu_algo_steps(Backend &be) {
    if (be.kind() != PSV_BACKEND_CPU) fail(PSV_ERROR_INVALID_VALUE, "not a CPU backend");
    return std::make_unique<cpu::CpuAlgoSteps>();
}

std::unique_ptr<AlgoSteps> create_algo_steps(Backend &be) {
    return be.kind() == PSV_BACKEND_CUDA ? cuda::create_algo_steps(be) : create_cpu_algo_steps(be);
}

}  // namespace psv
