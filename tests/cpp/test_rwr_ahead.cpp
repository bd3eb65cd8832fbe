// RWR's loop launched ahead of its look (src/algo/rwr.cpp): where the steps run asynchronously,
// iteration m + 1 starts before the host reads iteration m's differences, and the columns it
// keeps, copies out and compacts are mapped across that iteration. The CPU steps never run ahead;
// here a wrapper that says they do drives the same loop on the CPU, so the mapping is checked
// without a device: a batch whose queries finish at different iterations, and one stopped by
// max_iterations, give the bits and the counts of the plain loop, and each column those of a
// single run.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "algo/algorithms.hpp"
#include "core/algo_steps.hpp"
#include "core/backend.hpp"
#include "core/objects.hpp"
#include "psv/psv.h"
#include "check.h"

using namespace psv;

namespace {

// The CPU steps, said to run ahead; read_post's slots are the wrapper's own, so a slot posted
// for iteration m + 1 must not overwrite the one of m that the loop is still reading.
class AheadSteps final : public AlgoSteps {
public:
    explicit AheadSteps(AlgoSteps &s) : s_(s) {}
    void pagerank_scale(int64_t n, const float *r, const float *inv, float *w, double *dangling,
                        const LoopState *state) override {
        s_.pagerank_scale(n, r, inv, w, dangling, state);
    }
    void pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                         const float *personal, LoopState *state) override {
        s_.pagerank_update(n, t, r, damping, dangling, personal, state);
    }
    void pagerank_update_scale(int64_t n, const float *t, float *r, double damping, double *dangling,
                               const float *personal, const float *inv, float *w, LoopState *state) override {
        s_.pagerank_update_scale(n, t, r, damping, dangling, personal, inv, w, state);
    }
    void run_loop(const std::function<void()> &iteration, LoopState *state, int64_t entries, LoopState &final_host,
                  bool skips_whole) override {
        s_.run_loop(iteration, state, entries, final_host, skips_whole);
    }
    void sum(int64_t n, const float *x, double *out) override { s_.sum(n, x, out); }
    void normalize_diff(int64_t n, float *x, const double *total, const float *prev, double *diff) override {
        s_.normalize_diff(n, x, total, prev, diff);
    }
    void rwr_start(int64_t n, int32_t k, const int64_t *queries, const float *inv, float *R, float *U) override {
        s_.rwr_start(n, k, queries, inv, R, U);
    }
    void rwr_update(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *U, const float *inv,
                    double c, const int64_t *queries, double *diffs) override {
        s_.rwr_update(n, k, T, R, R_new, U, inv, c, queries, diffs);
    }
    void copy_columns(int64_t n, const float *src, int32_t src_k, float *dst, int32_t dst_k, int32_t m,
                      const int32_t *src_cols, const int32_t *dst_cols) override {
        s_.copy_columns(n, src, src_k, dst, dst_k, m, src_cols, dst_cols);
    }
    bool runs_ahead() const override { return true; }
    void read_post(const void *src, size_t bytes, int slot) override {
        std::vector<unsigned char> &v = slots_[slot & 1];
        v.assign(static_cast<const unsigned char *>(src), static_cast<const unsigned char *>(src) + bytes);
        ++posts;
    }
    const void *read_wait(int slot) override { return slots_[slot & 1].data(); }
    void write_post(void *dst, const void *src, size_t bytes) override {
        s_.write_post(dst, src, bytes);
        ++writes;
    }
    int64_t writes = 0;
    int64_t posts = 0;

private:
    AlgoSteps &s_;
    std::vector<unsigned char> slots_[2];
};

// Three parts that mix at different speeds (a random graph, a path, a ring with chords), so the
// queries converge at different iterations and leave the batch one or a few at a time.
psv_matrix *graph(psv_context *ctx, int64_t &n) {
    std::mt19937_64 rng(7);
    std::vector<int64_t> r, c;
    const auto edge = [&](int64_t a, int64_t b) { r.push_back(a), c.push_back(b); };
    for (int64_t e = 0; e < 6000; ++e) edge((int64_t)(rng() % 1000), (int64_t)(rng() % 1000));
    for (int64_t i = 1000; i + 1 < 1400; ++i) edge(i, i + 1);
    for (int64_t i = 1400; i < 2000; ++i) {
        edge(i, i + 1 < 2000 ? i + 1 : 1400);
        if (i % 37 == 0) edge(i, 1400 + (i * 13) % 600);
    }
    n = 2000;
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, n, n, (int64_t)r.size(), r.data(), c.data(), nullptr, PSV_NOOP, &A) ==
            PSV_SUCCESS);
    return A;
}

struct Run {
    std::vector<float> rel;
    std::vector<int32_t> its;
    bool all = false;
};

Run batch(Backend &be, AlgoSteps &st, const RwrGraph &g, const std::vector<int64_t> &q, double tol, int32_t maxit) {
    Run out;
    const int32_t k = (int32_t)q.size();
    out.rel.resize((size_t)g.S->nrows * k);
    out.its.resize((size_t)k);
    out.all = rwr(be, st, g, q.data(), k, 0.9, tol, maxit, out.rel.data(), out.its.data());
    return out;
}

void same(const Run &a, const Run &b, const char *what) {
    CHECK_MSG(a.its == b.its, "%s: the iteration counts differ", what);
    CHECK_MSG(a.all == b.all, "%s: converged %d against %d", what, (int)a.all, (int)b.all);
    CHECK_MSG(a.rel.size() == b.rel.size() && std::memcmp(a.rel.data(), b.rel.data(), a.rel.size() * 4) == 0,
              "%s: the relevance differs", what);
}

}  // namespace

int main() {
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
    int64_t n = 0;
    psv_matrix *A = graph(ctx, n);
    {  // g's buffers go back before the matrix and the context
        Backend &be = *ctx->core->backend;
        AlgoSteps &plain = *ctx->core->steps;
        CHECK(!plain.runs_ahead());
        AheadSteps ahead(plain);
        RwrGraph g = rwr_graph(be, *A->store);
        const std::vector<int64_t> q = {3, 1000, 1399, 1200, 1500, 17, 1999, 1001, 640, 1700, 1250};

        // queries finishing at different iterations: same bits, same counts
        const Run p = batch(be, plain, g, q, 1e-6, 400), a = batch(be, ahead, g, q, 1e-6, 400);
        same(p, a, "converging batch");
        CHECK(p.all);
        int32_t lo = p.its[0], hi = p.its[0];
        for (int32_t v : p.its) lo = std::min(lo, v), hi = std::max(hi, v);
        CHECK_MSG(lo < hi, "the queries all took %d iterations: nothing was compacted", (int)lo);
        // one read-back an iteration: the most iterations of one query, and the one launched ahead
        CHECK_MSG(ahead.posts == hi + 1, "%lld read-backs for %d iterations", (long long)ahead.posts, (int)hi);
        // each compaction's queries go through write_post (staged, not waited for)
        CHECK(ahead.writes > 0);

        // stopped by max_iterations, some queries converged before it
        ahead.posts = 0;
        const Run pc = batch(be, plain, g, q, 1e-6, lo + 2), ac = batch(be, ahead, g, q, 1e-6, lo + 2);
        same(pc, ac, "batch cut at max_iterations");
        CHECK(!pc.all);
        CHECK_MSG(ahead.posts == lo + 2, "%lld read-backs for max_iterations %d", (long long)ahead.posts, (int)(lo + 2));
        for (size_t j = 0; j < q.size(); ++j)
            CHECK_MSG(pc.its[j] == (p.its[j] <= lo + 2 ? p.its[j] : -(lo + 2)), "query %zu: %d iterations", j, (int)pc.its[j]);

        // one iteration at most
        same(batch(be, plain, g, q, 1e-6, 1), batch(be, ahead, g, q, 1e-6, 1), "max_iterations 1");

        // single queries launched ahead: the counts and the bits of the plain single runs
        for (size_t j = 0; j < q.size(); j += 3) {
            Buffer r0, r1;
            int32_t i0 = 0, i1 = 0;
            rwr_single(be, plain, g, q[j], 0.9, 1e-6, 400, r0, i0);
            rwr_single(be, ahead, g, q[j], 0.9, 1e-6, 400, r1, i1);
            CHECK_MSG(i0 == i1 && i0 == p.its[j], "query %zu: %d / %d iterations, batch %d", j, (int)i0, (int)i1, (int)p.its[j]);
            CHECK_MSG(std::memcmp(r0.get(), r1.get(), (size_t)n * 4) == 0, "query %zu: a single run ahead differs", j);
        }
    }
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return check_exit();
}
