// The CUDA implementation of the algorithms' steps (AlgoSteps, src/core/algo_steps.hpp): one launch
// each, the reductions deterministic (vector/reduce.cuh).
#include "core/algo_steps.hpp"
#include "cuda/internal.hpp"
#include "cuda/runtime/backend.cuh"
#include "cuda/vector/reduce.cuh"

namespace psv {
namespace cuda {

namespace {

class CudaAlgoSteps final : public AlgoSteps {
public:
    explicit CudaAlgoSteps(CudaBackend &be) : be_(be) {}
    void pagerank_scale(int64_t n, const float *r, const float *inv_outdeg, float *w,
                        double *dangling) override;
    void pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                         const float *personal, double *diff) override;
    void sum(int64_t n, const float *x, double *out) override;
    void normalize_diff(int64_t n, float *x, const double *total, const float *prev,
                        double *diff) override;
    void rwr_update(int64_t n, int32_t k, const float *T, float *R, double c,
                    const int64_t *queries_host, double *diffs) override;

private:
    CudaBackend &be_;
};

struct PrScale {
    const float *r, *inv;
    float *w;
    __device__ double operator()(int64_t i, int) const {
        const float iv = inv[i], ri = r[i];
        w[i] = ri * iv;
        return iv == 0.0f ? (double)ri : 0.0;
    }
};

void CudaAlgoSteps::pagerank_scale(int64_t n, const float *r, const float *inv, float *w, double *dangling) {
    if (n <= 0) {
        if (dangling) be_.set_bytes(dangling, 0, 8);
        return;
    }
    be_.activate();
    Buffer tmp;
    double *out = dangling;
    if (!out) {
        tmp = Buffer(&be_, 8);
        out = tmp.as<double>();
    }
    launch_mapreduce<double, PlusD>(be_, n, PrScale{r, inv, w}, 0.0, out);
}

struct PrUpdate {
    const float *t;
    float *r;
    const float *personal;
    const double *dangling;
    double damping, inv_n;
    __device__ double operator()(int64_t i, int) const {
        const float d = (float)damping;
        const float scale = (float)((1.0 - damping) + damping * (*dangling));
        const float base = personal ? scale * personal[i] : scale * (float)inv_n;
        const float rn = base + d * t[i];
        const double dd = fabs((double)rn - (double)r[i]);
        r[i] = rn;
        return dd;
    }
};

void CudaAlgoSteps::pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                                  const float *personal, double *diff) {
    if (n <= 0) {
        be_.set_bytes(diff, 0, 8);
        return;
    }
    be_.activate();
    launch_mapreduce<double, PlusD>(be_, n, PrUpdate{t, r, personal, dangling, damping, 1.0 / (double)n}, 0.0, diff);
}

struct SumF {
    const float *x;
    __device__ double operator()(int64_t i, int) const { return (double)x[i]; }
};

void CudaAlgoSteps::sum(int64_t n, const float *x, double *out) {
    if (n <= 0) {
        be_.set_bytes(out, 0, 8);
        return;
    }
    be_.activate();
    launch_mapreduce<double, PlusD>(be_, n, SumF{x}, 0.0, out);
}

struct NormDiff {
    float *x;
    const double *total;
    const float *prev;
    __device__ double operator()(int64_t i, int) const {
        const double tot = *total;
        const float inv = tot != 0 ? (float)(1.0 / tot) : 1.0f;
        const float v = x[i] * inv;
        x[i] = v;
        return prev ? fabs((double)v - (double)prev[i]) : 0.0;
    }
};

void CudaAlgoSteps::normalize_diff(int64_t n, float *x, const double *total, const float *prev, double *diff) {
    if (n <= 0) {
        if (prev && diff) be_.set_bytes(diff, 0, 8);
        return;
    }
    be_.activate();
    Buffer tmp;
    double *out = diff;
    if (!prev || !out) {
        tmp = Buffer(&be_, 8);
        out = tmp.as<double>();
    }
    launch_mapreduce<double, PlusD>(be_, n, NormDiff{x, total, prev}, 0.0, out);
}

struct RwrUpdate {
    const float *T;
    float *R;
    const int64_t *queries;  // device, k
    int32_t k;
    double c;
    __device__ double operator()(int64_t i, int j) const {
        const float cf = (float)c, restart = (float)(1.0 - c);
        const int64_t p = i * k + j;
        const float rn = cf * T[p] + (i == queries[j] ? restart : 0.0f);
        const double dd = fabs((double)rn - (double)R[p]);
        R[p] = rn;
        return dd;
    }
};

void CudaAlgoSteps::rwr_update(int64_t n, int32_t k, const float *T, float *R, double c, const int64_t *queries,
                             double *diffs) {
    if (k <= 0) return;
    be_.activate();
    if (n <= 0) {
        be_.set_bytes(diffs, 0, (size_t)k * 8);
        return;
    }
    Buffer q(&be_, (size_t)k * 8);
    be_.upload(q.get(), queries, (size_t)k * 8);
    if (k > 65535) fail(PSV_ERROR_INVALID_VALUE, "at most 65535 queries at once on the CUDA backend");
    // Lanes of one launch write disjoint entries (column j of R): no conflict.
    launch_mapreduce<double, PlusD>(be_, n, RwrUpdate{T, R, q.as<int64_t>(), k, c}, 0.0, diffs, k);
    be_.sync();  // q is freed on return
}

}  // namespace

std::unique_ptr<AlgoSteps> create_algo_steps(Backend &be) {
    if (!is_cuda(be)) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA context");
    return std::make_unique<CudaAlgoSteps>(static_cast<CudaBackend &>(be));
}

}  // namespace cuda
}  // namespace psv
