// Rank contexts (psv_unique_id, psv_context_create_rank) on the backend PSV_TEST_BACKEND names,
// each rank a thread of this process (the sockets and the collectives are those of separate
// processes). Each rank builds from its own share of the tuples (interleaved, so an entry may be
// in two shares); PageRank, HITS, RWR, RWR batch, psv_mxv (weighted, masked), reductions, element
// reads and writes, extraction and info against a one-part context; identical results run to
// run; a bad tuple on one rank failing every rank alike (no hang) with the context usable after;
// a rank leaving; joins that must fail (unknown id, rank 0 twice, duplicate rank, nranks
// disagreeing, a rank missing) within PSV_SOCKET_TIMEOUT. CUDA: every rank on device 0 through
// host exchange (an id made for the CPU), and one rank through NCCL where the build has it.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "psv/psv.h"  // before check.h: its test_backend()
#include "check.h"
#include "api/internal.h"
#include "dist_common.hpp"

namespace {

// The graph's tuples, with a weight each for the weighted product.
struct Weighted : Graph {
    std::vector<double> w;
};

Weighted rmat_weighted(int scale, int edges, uint64_t seed) {
    Weighted g;
    static_cast<Graph &>(g) = rmat(scale, edges, seed);
    for (size_t e = 0; e < g.rows.size(); ++e) g.w.push_back(0.25 + (double)(e % 7));
    return g;
}

std::vector<float> get_f32(const psv_vector *v) {
    int64_t n = 0;
    psv_vector_size(v, &n);
    std::vector<float> x((size_t)n);
    if (psv_vector_get(v, x.data(), n) != PSV_SUCCESS) x.clear();
    return x;
}

// What one context computes on the graph (each rank fills its own copy).
struct Results {
    psv_status build = 0, pagerank = 0, hits = 0, rwr = 0, batch = 0, mxv = 0, misc = 0;
    std::vector<float> rank, hubs, auth, rel, batch_rel, y;
    std::vector<double> wy;
    int32_t pr_it = 0, hits_it = 0;
    int64_t nvals = 0, wnvals = 0, info_nvals = 0, y_nvals = 0;
    double sum = 0;
    float element = 0;
    psv_status element_status = 0;
    std::vector<int64_t> tr, tc;
};

// share: the tuples of g this context builds from (every tuple for a one-part context)
Results compute(psv_context *ctx, const Weighted &g, int32_t rank, int32_t nranks) {
    Results r;
    std::vector<int64_t> rows, cols;
    std::vector<double> w;
    for (size_t e = 0; e < g.rows.size(); ++e)
        if ((int32_t)(e % (size_t)nranks) == rank) {
            rows.push_back(g.rows[e]);
            cols.push_back(g.cols[e]);
            w.push_back(g.w[e]);
        }
    psv_matrix *A = nullptr, *W = nullptr;
    r.build = psv_matrix_build(ctx, PSV_FP32, g.n, g.n, (int64_t)rows.size(), rows.data(), cols.data(), nullptr,
                               PSV_NOOP, &A);
    if (r.build == PSV_SUCCESS)
        r.build = psv_matrix_build(ctx, PSV_FP64, g.n, g.n, (int64_t)rows.size(), rows.data(), cols.data(), w.data(),
                                   PSV_PLUS, &W);
    if (r.build != PSV_SUCCESS) {
        psv_matrix_free(&A);
        return r;
    }
    psv_matrix_nvals(A, &r.nvals);
    psv_matrix_nvals(W, &r.wnvals);
    psv_matrix_info info;
    r.misc = psv_matrix_info_get(A, &info);
    r.info_nvals = info.nvals;
    int64_t cap = r.nvals;
    r.tr.resize((size_t)cap);
    r.tc.resize((size_t)cap);
    if (r.misc == PSV_SUCCESS) r.misc = psv_matrix_extract_tuples(A, r.tr.data(), r.tc.data(), nullptr, &cap);

    psv_vector *pr = nullptr, *h = nullptr, *a = nullptr, *rel = nullptr;
    r.pagerank = psv_pagerank(&pr, &r.pr_it, A, 0.85, 1e-7, 100);
    if (pr) {
        r.rank = get_f32(pr);
        r.misc = r.misc ? r.misc : psv_vector_reduce(&r.sum, PSV_PLUS, pr) == PSV_SUCCESS ? 0 : -1;
        r.element_status = psv_vector_get_element(pr, g.n / 3, &r.element);
    }
    r.hits = psv_hits(&h, &a, &r.hits_it, A, 1e-7, 100);
    if (h) r.hubs = get_f32(h);
    if (a) r.auth = get_f32(a);
    int32_t it = 0;
    r.rwr = psv_rwr(&rel, &it, A, 1, 0.15, 1e-7, 100);
    if (rel) r.rel = get_f32(rel);
    const int64_t q[3] = {0, 5, g.n - 1};
    r.batch_rel.resize((size_t)g.n * 3);
    int32_t its[3];
    r.batch = psv_rwr_batch(r.batch_rel.data(), its, A, q, 3, 0.15, 1e-7, 100);

    // y<mask> = W x (plus-times, fp64), mask: every third entry set; then an element written
    psv_semiring *s = nullptr;
    psv_vector *x = nullptr, *y = nullptr, *m = nullptr;
    r.mxv = psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP64, &s);
    if (r.mxv == PSV_SUCCESS) r.mxv = psv_vector_create(ctx, PSV_FP64, g.n, &x);
    if (r.mxv == PSV_SUCCESS) r.mxv = psv_vector_create(ctx, PSV_FP64, g.n, &y);
    if (r.mxv == PSV_SUCCESS) r.mxv = psv_vector_create(ctx, PSV_BOOL, g.n, &m);
    if (r.mxv == PSV_SUCCESS) {
        std::vector<double> xv((size_t)g.n);
        for (int64_t i = 0; i < g.n; ++i) xv[i] = 1.0 + (double)(i % 5);
        r.mxv = psv_vector_set(x, xv.data(), g.n);
        std::vector<int64_t> mi;
        std::vector<uint8_t> mv;
        for (int64_t i = 0; i < g.n; i += 3) {
            mi.push_back(i);
            mv.push_back(1);
        }
        if (r.mxv == PSV_SUCCESS) r.mxv = psv_vector_build(m, mi.data(), mv.data(), (int64_t)mi.size());
    }
    if (r.mxv == PSV_SUCCESS) r.mxv = psv_mxv(y, m, PSV_NOOP, s, W, x, 0);
    if (r.mxv == PSV_SUCCESS) {
        const double v = 42.0;
        r.mxv = psv_vector_set_element(y, 1, &v);  // not in the mask's set: written by its holder only
    }
    if (r.mxv == PSV_SUCCESS) r.mxv = psv_vector_nvals(y, &r.y_nvals);
    if (r.mxv == PSV_SUCCESS) {
        r.wy.resize((size_t)g.n);
        r.mxv = psv_vector_get(y, r.wy.data(), g.n);
    }
    psv_vector_free(&x);
    psv_vector_free(&y);
    psv_vector_free(&m);
    psv_semiring_free(&s);
    psv_vector_free(&pr);
    psv_vector_free(&h);
    psv_vector_free(&a);
    psv_vector_free(&rel);
    psv_matrix_free(&A);
    psv_matrix_free(&W);
    return r;
}

// Run body(rank, ctx) on nranks threads joined by one id; statuses of the joins in join[].
void on_ranks(psv_backend id_backend, psv_backend backend, int32_t nranks,
              const std::function<void(int32_t, psv_context *)> &body, std::vector<psv_status> &join) {
    psv_id id;
    REQUIRE(psv_unique_id(id_backend, &id) == PSV_SUCCESS);
    join.assign((size_t)nranks, PSV_SUCCESS);
    std::vector<std::thread> t;
    for (int32_t r = 0; r < nranks; ++r)
        t.emplace_back([&, r] {
            psv_context *ctx = nullptr;
            join[r] = psv_context_create_rank(backend, &id, nranks, r, 0, &ctx);
            if (join[r] == PSV_SUCCESS) body(r, ctx);
            psv_context_free(&ctx);
        });
    for (auto &x : t) x.join();
}

void compare(const Results &got, const Results &want, int32_t nranks, int32_t rank) {
    CHECK_MSG(got.build == PSV_SUCCESS && got.pagerank == PSV_SUCCESS && (got.hits == PSV_SUCCESS || got.hits == PSV_NOT_CONVERGED) &&
                  got.rwr == PSV_SUCCESS && got.batch == PSV_SUCCESS && got.mxv == PSV_SUCCESS && got.misc == PSV_SUCCESS,
              "%d ranks, rank %d: statuses %d %d %d %d %d %d %d", (int)nranks, (int)rank, (int)got.build, (int)got.pagerank,
              (int)got.hits, (int)got.rwr, (int)got.batch, (int)got.mxv, (int)got.misc);
    if (got.build != PSV_SUCCESS) return;
    CHECK(got.nvals == want.nvals && got.wnvals == want.wnvals && got.info_nvals == want.nvals);
    CHECK(got.tr == want.tr && got.tc == want.tc);
    CHECK_MSG(got.rank.size() == want.rank.size() && rel_l1(got.rank, want.rank) <= 1e-6,
              "%d ranks: PageRank L1 %.3g", (int)nranks, rel_l1(got.rank, want.rank));
    CHECK(std::abs(got.pr_it - want.pr_it) <= 1);
    CHECK(std::fabs(got.sum - want.sum) <= 1e-6 && got.element_status == want.element_status &&
          std::fabs(got.element - want.element) <= 1e-6 * std::fabs(want.element) + 1e-12);
    CHECK_MSG(rel_l1(got.hubs, want.hubs) <= 1e-6 && rel_l1(got.auth, want.auth) <= 1e-6, "%d ranks: HITS L1 %.3g %.3g (%d, %d iterations)", (int)nranks, rel_l1(got.hubs, want.hubs), rel_l1(got.auth, want.auth), (int)got.hits_it, (int)want.hits_it);
    CHECK_MSG(rel_l1(got.rel, want.rel) <= 1e-6 && rel_l1(got.batch_rel, want.batch_rel) <= 1e-6, "%d ranks: RWR", (int)nranks);
    CHECK(got.y_nvals == want.y_nvals);
    double d = 0, t = 0;
    for (size_t i = 0; i < want.wy.size(); ++i) {
        d += std::fabs(got.wy[i] - want.wy[i]);
        t += std::fabs(want.wy[i]);
    }
    CHECK_MSG(got.wy.size() == want.wy.size() && d <= 1e-12 * t, "%d ranks: weighted mxv L1 %.3g", (int)nranks, d / t);
}

void test_against_one_part(psv_backend be, psv_backend id_backend, const Weighted &g) {
    psv_context *one = nullptr;
    REQUIRE(psv_context_create(be, 0, &one) == PSV_SUCCESS);
    const Results want = compute(one, g, 0, 1);
    psv_context_free(&one);
    const bool small = std::getenv("PSV_GPU_TEST_SMALL") != nullptr;  // under the sanitizers
    for (int32_t P : small ? std::vector<int32_t>{1, 3} : std::vector<int32_t>{1, 2, 3, 5}) {
        std::vector<Results> got((size_t)P);
        std::vector<psv_status> join;
        on_ranks(id_backend, be, P, [&](int32_t r, psv_context *ctx) { got[r] = compute(ctx, g, r, P); }, join);
        for (int32_t r = 0; r < P; ++r) {
            CHECK_MSG(join[r] == PSV_SUCCESS, "%d ranks: rank %d joined with %d", (int)P, (int)r, (int)join[r]);
            compare(got[r], want, P, r);
        }
        if (P == 3 && !small) {  // run to run: bit-identical
            std::vector<Results> again((size_t)P);
            on_ranks(id_backend, be, P, [&](int32_t r, psv_context *ctx) { again[r] = compute(ctx, g, r, P); }, join);
            CHECK(again[0].rank == got[0].rank && again[2].hubs == got[2].hubs && again[1].wy == got[1].wy);
        }
    }
}

// A bad tuple on one rank fails every rank with its status; the contexts stay usable.
void test_failure_agrees(psv_backend be, psv_backend id_backend) {
    std::vector<psv_status> bad(3), good(3), join;
    std::vector<std::string> msg(3);
    on_ranks(id_backend, be, 3, [&](int32_t r, psv_context *ctx) {
        const int64_t rows[2] = {0, 1}, cols[2] = {1, r == 1 ? 99 : 2};
        psv_matrix *A = nullptr;
        bad[r] = psv_matrix_build(ctx, PSV_FP32, 4, 4, 2, rows, cols, nullptr, PSV_NOOP, &A);
        msg[r] = psv_context_last_error(ctx);
        psv_matrix_free(&A);
        const int64_t ok[2] = {1, 2};
        good[r] = psv_matrix_build(ctx, PSV_FP32, 4, 4, 2, rows, ok, nullptr, PSV_NOOP, &A);
        int64_t nv = 0;
        if (good[r] == PSV_SUCCESS) psv_matrix_nvals(A, &nv);
        if (nv != 2) good[r] = -999;  // {0,1},{1,2} from each of 3 ranks: duplicates merge
        psv_matrix_free(&A);
    }, join);
    for (int32_t r = 0; r < 3; ++r) {
        CHECK_MSG(join[r] == PSV_SUCCESS && bad[r] == PSV_ERROR_INVALID_INDEX, "rank %d: %d (%s)", (int)r, (int)bad[r],
                  msg[r].c_str());
        CHECK_MSG(good[r] == PSV_SUCCESS, "rank %d: the build after the failure gave %d", (int)r, (int)good[r]);
    }
    CHECK(msg[0].find("rank 1") != std::string::npos);
    // duplicates across ranks with dup PSV_NOOP: every rank fails alike
    std::vector<psv_status> dup(2);
    on_ranks(id_backend, be, 2, [&](int32_t r, psv_context *ctx) {
        const int64_t rows[1] = {2}, cols[1] = {3};
        const float v[1] = {1.0f + (float)r};
        psv_matrix *A = nullptr;
        dup[r] = psv_matrix_build(ctx, PSV_FP32, 4, 4, 1, rows, cols, v, PSV_NOOP, &A);
        psv_matrix_free(&A);
    }, join);
    CHECK(dup[0] == PSV_ERROR_DUPLICATE_ENTRY && dup[1] == PSV_ERROR_DUPLICATE_ENTRY);
}

// A rank that leaves: the others' next collective fails (its connection closes), no hang.
void test_rank_leaves(psv_backend be, psv_backend id_backend) {
    std::vector<psv_status> st(2, PSV_SUCCESS), join;
    on_ranks(id_backend, be, 2, [&](int32_t r, psv_context *ctx) {
        psv_vector *v = nullptr;
        st[r] = psv_vector_create(ctx, PSV_FP32, 10, &v);
        if (r == 0) {
            std::vector<float> x(10);
            st[r] = psv_vector_get(v, x.data(), 10);  // rank 1 is gone (or going)
        }
        psv_vector_free(&v);
    }, join);
    CHECK(join[0] == PSV_SUCCESS && join[1] == PSV_SUCCESS && st[1] == PSV_SUCCESS);
    CHECK_MSG(st[0] == PSV_ERROR_COMMUNICATION, "rank 0 after rank 1 left: %d", (int)st[0]);
}

// Joins that must fail, each within the (shortened) timeout.
void test_bad_joins(psv_backend be) {
    psv_context *ctx = nullptr;
    psv_id id;
    std::memset(&id, 0, sizeof id);
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, 0, 0, &ctx), PSV_ERROR_INVALID_VALUE);  // not made by psv_unique_id
    CHECK_STATUS(psv_unique_id(PSV_BACKEND_CPU, nullptr), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_unique_id(7, &id), PSV_ERROR_INVALID_VALUE);
    REQUIRE(psv_unique_id(PSV_BACKEND_CPU, &id) == PSV_SUCCESS);
    CHECK_STATUS(psv_context_create_rank(be, &id, 0, 0, 0, &ctx), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, 2, 0, &ctx), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, -1, 0, &ctx), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, 0, -1, &ctx), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_create_rank(be, nullptr, 2, 0, 0, &ctx), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, 0, 0, nullptr), PSV_ERROR_NULL_POINTER);
    CHECK(ctx == nullptr);
    // one rank of two: rank 0 waits out the timeout
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, 0, 0, &ctx), PSV_ERROR_COMMUNICATION);
    CHECK(std::string(psv_internal_context_create_error()).find("1 of 2") != std::string::npos);
    // rank 0 again with the same id: its rendezvous was used up
    CHECK_STATUS(psv_context_create_rank(be, &id, 2, 0, 0, &ctx), PSV_ERROR_INVALID_VALUE);
    // a rank claimed twice, and nranks disagreeing: the group fails on every rank that came
    for (int mode = 0; mode < 2; ++mode) {
        REQUIRE(psv_unique_id(PSV_BACKEND_CPU, &id) == PSV_SUCCESS);
        const int32_t nr[3] = {3, 3, mode == 0 ? 3 : 4}, rk[3] = {0, 1, mode == 0 ? 1 : 2};
        std::vector<psv_status> st(3);
        std::vector<std::thread> t;
        for (int k = 0; k < 3; ++k)
            t.emplace_back([&, k] {
                psv_context *c = nullptr;
                st[k] = psv_context_create_rank(be, &id, nr[k], rk[k], 0, &c);
                psv_context_free(&c);
            });
        for (auto &x : t) x.join();
        int failed = 0;
        for (int k = 0; k < 3; ++k) failed += st[k] == PSV_ERROR_COMMUNICATION;
        CHECK_MSG(st[0] == PSV_ERROR_COMMUNICATION && failed == 3, "mode %d: %d %d %d", mode, (int)st[0], (int)st[1], (int)st[2]);
    }
}

}  // namespace

int main() {
    const psv_backend be = test_backend();
    setenv("PSV_SOCKET_ADDR", "127.0.0.1", 1);
    const Weighted g = rmat_weighted(9, 8, 12345);
    test_against_one_part(be, PSV_BACKEND_CPU, g);  // CUDA ranks: host exchange (one GPU)
    if (be == PSV_BACKEND_CUDA) {
        // one rank through NCCL where this build has it (NCCL takes one rank per GPU)
        psv_id id;
        psv_context *ctx = nullptr;
        REQUIRE(psv_unique_id(PSV_BACKEND_CUDA, &id) == PSV_SUCCESS);
        REQUIRE(psv_context_create_rank(be, &id, 1, 0, 0, &ctx) == PSV_SUCCESS);
        psv_context *one = nullptr;
        REQUIRE(psv_context_create(be, 0, &one) == PSV_SUCCESS);
        const Results got = compute(ctx, g, 0, 1), want = compute(one, g, 0, 1);
        compare(got, want, 1, 0);
        psv_context_free(&ctx);
        psv_context_free(&one);
    }
    test_failure_agrees(be, PSV_BACKEND_CPU);
    test_rank_leaves(be, PSV_BACKEND_CPU);
    setenv("PSV_SOCKET_TIMEOUT", "2", 1);
    test_bad_joins(be);
    return check_exit();
}
