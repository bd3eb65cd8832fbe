// The algorithms' CUDA paths: PageRank's loop captured as a CUDA graph gives the plain loop's
// rank and iteration count bit for bit (converged, stopped by max_iterations, personalized, group
// sizes that do not divide the count); the k-vector CSR product (segments, rows cut by segment
// ends, empty rows, k = 2 .. 70) against a host sum, the same bits on a second run; the RWR batch
// the same bits on a second run.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "algo/algorithms.hpp"
#include "core/algo_steps.hpp"
#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"

namespace {

psv_matrix *build(psv_context *ctx, const gputest::Edges &E) {
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, E.nrows, E.ncols, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(),
                             nullptr, PSV_NOOP, &A) == PSV_SUCCESS);
    return A;
}

std::vector<float> values(psv_vector *v, int64_t n) {
    std::vector<float> x((size_t)n);
    REQUIRE(psv_vector_get(v, x.data(), n) == PSV_SUCCESS);
    return x;
}

struct PrRun {
    psv_status st;
    int32_t it;
    std::vector<float> r;
};

PrRun pagerank(psv_matrix *A, int64_t n, double tol, int32_t maxit, const psv_vector *teleport) {
    psv_vector *r = nullptr;
    PrRun out;
    out.it = -1;
    out.st = teleport ? psv_pagerank_personalized(&r, &out.it, A, teleport, 0.85, tol, maxit)
                      : psv_pagerank(&r, &out.it, A, 0.85, tol, maxit);
    if (r) out.r = values(r, n);
    psv_vector_free(&r);
    return out;
}

// PageRank on the host in float64 for exactly `iterations` iterations (the formulas of psv.h);
// edges i -> j unique (gputest::sorted_unique); p: the teleport vector summing to 1, or empty (uniform).
std::vector<double> host_pagerank(const gputest::Edges &E, int32_t iterations, const std::vector<double> &p) {
    const int64_t n = E.nrows;
    std::vector<double> deg((size_t)n, 0.0), r((size_t)n, 1.0 / (double)n), t((size_t)n);
    for (int64_t i : E.rows) deg[(size_t)i] += 1;
    for (int32_t it = 0; it < iterations; ++it) {
        double dangling = 0;
        for (int64_t i = 0; i < n; ++i)
            if (deg[(size_t)i] == 0) dangling += r[(size_t)i];
        std::fill(t.begin(), t.end(), 0.0);
        for (size_t e = 0; e < E.rows.size(); ++e) t[(size_t)E.cols[e]] += r[(size_t)E.rows[e]] / deg[(size_t)E.rows[e]];
        for (int64_t j = 0; j < n; ++j) {
            const double pj = p.empty() ? 1.0 / (double)n : p[(size_t)j];
            r[(size_t)j] = (1 - 0.85) * pj + 0.85 * dangling * pj + 0.85 * t[(size_t)j];
        }
    }
    return r;
}

double l1_relative(const std::vector<float> &a, const std::vector<double> &ref) {
    double d = 0, s = 0;
    for (size_t i = 0; i < ref.size(); ++i) d += std::fabs((double)a[i] - ref[i]), s += std::fabs(ref[i]);
    return d / s;
}

// Captured (the default for these small graphs, in groups of the policy's iterations, of 3 and of
// 1: never captured) against never captured, and the plain loop's rank (update and next scale as
// one step) within 1e-6 (L1, relative) of a float64 host loop of as many iterations.
void check_pagerank_loop(psv_context *ctx, const char *name, const gputest::Edges &E) {
    psv_matrix *A = build(ctx, E);
    const int64_t n = E.nrows;
    psv_vector *tele = nullptr;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &tele) == PSV_SUCCESS);
    std::vector<double> tp((size_t)n, 0.0);  // the teleport vector, summing to 1
    double psum = 0;
    for (int64_t i = 0; i < n; i += 3) {
        const float w = (float)(1 + i % 5);
        REQUIRE(psv_vector_set_element(tele, i, &w) == PSV_SUCCESS);
        tp[(size_t)i] = w, psum += w;
    }
    for (double &v : tp) v /= psum;
    const std::vector<double> none;
    const gputest::Edges U = gputest::sorted_unique(E);  // the pattern PageRank walks
    const psv::cuda::Policy base = psv::cuda::policy_of(ctx);
    CHECK_MSG((int64_t)E.rows.size() <= base.loop_graph_max_entries, "%s: not a captured size", name);
    struct Case {
        double tol;
        int32_t maxit;
        bool personal;
        psv_status want;
    } cases[] = {{1e-6, 100, false, PSV_SUCCESS}, {0.0, 11, false, PSV_NOT_CONVERGED}, {1e-6, 1, false, PSV_NOT_CONVERGED},
                 {1e-7, 200, true, PSV_SUCCESS}};
    for (const Case &c : cases) {
        psv::cuda::Policy p = base;
        p.loop_graph_max_entries = 0;
        psv::cuda::set_policy(ctx, p);
        const PrRun plain = pagerank(A, n, c.tol, c.maxit, c.personal ? tele : nullptr);
        CHECK_MSG(plain.st == c.want, "%s tol %g maxit %d: plain status %d", name, c.tol, (int)c.maxit, (int)plain.st);
        if (c.want == PSV_NOT_CONVERGED) CHECK(plain.it == c.maxit);
        const double err = l1_relative(plain.r, host_pagerank(U, plain.it, c.personal ? tp : none));
        CHECK_MSG(err <= 1e-6, "%s tol %g maxit %d: L1 relative error %.3g against float64", name, c.tol, (int)c.maxit, err);
        for (int32_t group : {base.loop_graph_iterations, 3, 1}) {
            p = base;
            p.loop_graph_iterations = group;
            psv::cuda::set_policy(ctx, p);
            for (int rep = 0; rep < 2; ++rep) {
                const PrRun cap = pagerank(A, n, c.tol, c.maxit, c.personal ? tele : nullptr);
                CHECK_MSG(cap.st == plain.st && cap.it == plain.it,
                          "%s tol %g maxit %d group %d: captured status %d, %d it; plain %d, %d it", name, c.tol,
                          (int)c.maxit, (int)group, (int)cap.st, (int)cap.it, (int)plain.st, (int)plain.it);
                CHECK_MSG(cap.r.size() == plain.r.size() &&
                              std::memcmp(cap.r.data(), plain.r.data(), plain.r.size() * sizeof(float)) == 0,
                          "%s tol %g maxit %d group %d: captured rank differs from the plain loop's", name, c.tol,
                          (int)c.maxit, (int)group);
            }
        }
    }
    psv::cuda::set_policy(ctx, base);
    psv_vector_free(&tele);
    psv_matrix_free(&A);
}

// PageRank fused into the streamed product's passes (AT planned for PSV_KERNEL_STREAM; the default
// policy and one of small partitions, pieces and scatter windows, with the other launch of the
// accumulate pass): AlgoSteps::pagerank_fused takes
// AT (and not a CSR-planned one); the ranks within 1e-6 (L1, relative) of a float64 host loop of
// as many iterations, plain, personalized and converged (the iteration count within one of the
// three-step loop's on the CSR kernel); the same bits on a second run, with the loop captured, run
// ahead of the host in groups of several sizes, and read back every iteration.
void check_pagerank_fused(psv_context *ctx, const gputest::Edges &E) {
    const int64_t n = E.nrows;
    psv_vector *tele = nullptr;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &tele) == PSV_SUCCESS);
    std::vector<double> p((size_t)n, 0.0);
    double psum = 0;
    for (int64_t i = 0; i < n; i += 3) {
        const float w = (float)(1 + i % 5);
        REQUIRE(psv_vector_set_element(tele, i, &w) == PSV_SUCCESS);
        p[(size_t)i] = w, psum += w;
    }
    for (double &v : p) v /= psum;
    const std::vector<double> none;
    psv::Backend &be = psv::cuda::backend_of(ctx);
    std::unique_ptr<psv::AlgoSteps> steps = psv::create_algo_steps(be);
    const psv::cuda::Policy base = psv::cuda::policy_of(ctx);
    psv::cuda::Policy small = base;
    small.stream_rows = 256, small.stream_parts_per_sm = 64, small.stream_slots_max = 1024, small.stream_window_max = 1024;
    small.stream_overlap_launch = !base.stream_overlap_launch;
    small.stream_scatter_block_runs = 1;  // a window's runs over several scatter blocks (some may hold none)
    psv_matrix *C = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, n, n, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(), nullptr, PSV_FIRST, &C) ==
            PSV_SUCCESS);
    const PrRun csr = pagerank(C, n, 1e-7, 200, nullptr);
    for (int which = 0; which < 2; ++which) {
        const psv::cuda::Policy &pol = which ? small : base;
        const char *name = which ? "small policy" : "device policy";
        psv::cuda::set_policy(ctx, pol);
        REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, PSV_KERNEL_STREAM) == PSV_SUCCESS);
        psv_matrix *A = nullptr;
        REQUIRE(psv_matrix_build(ctx, PSV_FP32, n, n, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(), nullptr, PSV_FIRST,
                                 &A) == PSV_SUCCESS);
        REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, PSV_KERNEL_AUTO) == PSV_SUCCESS);
        {
            psv::LoopState *none_state = nullptr;
            const std::unique_ptr<psv::MatrixStore> AT = psv::cuda::store_of(A).transposed();
            psv::Buffer r(&be, (size_t)n * 4), inv(&be, (size_t)n * 4);
            CHECK_MSG(steps->pagerank_fused(*AT, r.as<float>(), inv.as<float>(), 0.85, nullptr, none_state) != nullptr,
                      "%s: no fused PageRank over a streamed transpose", name);
            const std::unique_ptr<psv::MatrixStore> CT = psv::cuda::store_of(C).transposed();
            CHECK_MSG(steps->pagerank_fused(*CT, r.as<float>(), inv.as<float>(), 0.85, nullptr, none_state) == nullptr,
                      "%s: a fused PageRank over a CSR-planned transpose", name);
        }
        for (bool personal : {false, true}) {
            const PrRun a = pagerank(A, n, 0.0, 12, personal ? tele : nullptr);
            CHECK_MSG(a.st == PSV_NOT_CONVERGED && a.it == 12, "%s personal %d: status %d, %d iterations", name, (int)personal,
                      (int)a.st, (int)a.it);
            const double err = l1_relative(a.r, host_pagerank(E, 12, personal ? p : none));
            CHECK_MSG(err <= 1e-6, "%s personal %d: L1 relative error %.3g against float64", name, (int)personal, err);
            // captured (the default here), then never captured: run ahead in groups of the policy's
            // iterations, of 5 (12 is no multiple: groups past the end skip) and of 1, and read back
            // every iteration (0)
            for (int32_t ahead : {-1, pol.loop_ahead_iterations, 5, 1, 0}) {
                psv::cuda::Policy q = pol;
                if (ahead >= 0) q.loop_graph_max_entries = 0, q.loop_ahead_iterations = ahead;
                psv::cuda::set_policy(ctx, q);
                const PrRun b = pagerank(A, n, 0.0, 12, personal ? tele : nullptr);
                CHECK_MSG(b.st == a.st && b.it == a.it && b.r.size() == a.r.size() &&
                              std::memcmp(b.r.data(), a.r.data(), a.r.size() * sizeof(float)) == 0,
                          "%s personal %d: a second run (ahead %d) differs", name, (int)personal, (int)ahead);
            }
            psv::cuda::set_policy(ctx, pol);
        }
        const PrRun conv = pagerank(A, n, 1e-7, 200, nullptr);
        CHECK_MSG(conv.st == PSV_SUCCESS && csr.st == PSV_SUCCESS && std::abs(conv.it - csr.it) <= 1,
                  "%s: converged in %d iterations (status %d), the CSR kernel's loop in %d", name, (int)conv.it, (int)conv.st,
                  (int)csr.it);
        {
            psv::cuda::Policy q = pol;
            q.loop_graph_max_entries = 0, q.loop_ahead_iterations = 3;
            psv::cuda::set_policy(ctx, q);
            const PrRun b = pagerank(A, n, 1e-7, 200, nullptr);
            CHECK_MSG(b.st == conv.st && b.it == conv.it && b.r.size() == conv.r.size() &&
                          std::memcmp(b.r.data(), conv.r.data(), conv.r.size() * sizeof(float)) == 0,
                      "%s converged: the loop run ahead in groups of 3 differs (%d iterations against %d)", name, (int)b.it,
                      (int)conv.it);
            psv::cuda::set_policy(ctx, pol);
        }
        const double err = l1_relative(conv.r, host_pagerank(E, conv.it, none));
        CHECK_MSG(err <= 1e-6, "%s converged: L1 relative error %.3g against float64", name, err);
        psv_matrix_free(&A);
    }
    psv::cuda::set_policy(ctx, base);
    psv_matrix_free(&C);
    psv_vector_free(&tele);
}

// T = A U for k columns on the device against a host double sum per entry (rounded once).
void check_spmm(psv_context *ctx, const char *name, const gputest::Edges &E, int64_t segment, psv_kernel kernel) {
    const psv::cuda::Policy base = psv::cuda::policy_of(ctx);
    psv::cuda::Policy p = base;
    p.spmm_segment_entries = segment;
    psv::cuda::set_policy(ctx, p);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, kernel) == PSV_SUCCESS);
    psv_matrix *A = build(ctx, E);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, PSV_KERNEL_AUTO) == PSV_SUCCESS);
    psv::cuda::set_policy(ctx, base);
    const psv::MatrixStore &M = psv::cuda::store_of(A);
    psv::Backend &be = psv::cuda::backend_of(ctx);
    std::vector<int64_t> rows((size_t)M.nvals), cols((size_t)M.nvals);
    M.extract_tuples(rows.data(), cols.data(), nullptr);
    for (int32_t k : {2, 3, 5, 8, 16, 25, 32, 33, 70}) {
        const int64_t n = M.nrows, m = M.ncols;
        std::vector<float> U((size_t)m * k);
        uint64_t s = 99 + k;
        for (float &u : U) u = (float)(gputest::splitmix(s) % 1000000) * 1e-6f;
        std::vector<double> want((size_t)n * k, 0.0);
        for (size_t e = 0; e < rows.size(); ++e)
            for (int32_t j = 0; j < k; ++j) want[(size_t)rows[e] * k + j] += U[(size_t)cols[e] * k + j];
        psv::Buffer Ud(&be, U.size() * 4), Td(&be, (size_t)n * k * 4);
        be.upload(Ud.get(), U.data(), U.size() * 4);
        std::vector<float> got[2];
        for (int rep = 0; rep < 2; ++rep) {
            be.set_bytes(Td.get(), 0xff, (size_t)n * k * 4);  // NaN: every entry must be written
            be.spmm_pattern(M, k, Ud.as<float>(), Td.as<float>());
            got[rep].resize((size_t)n * k);
            be.download(got[rep].data(), Td.get(), got[rep].size() * 4);
        }
        double worst = 0;
        for (size_t e = 0; e < want.size(); ++e) {
            const double d = std::fabs((double)got[0][e] - want[e]);
            const double rel = d / std::max(1e-30, std::fabs(want[e]));
            if (!(d <= 1e-7 * std::fabs(want[e]))) worst = std::max(worst, std::isnan(d) ? 1e30 : rel);
        }
        CHECK_MSG(worst == 0, "%s segment %lld kernel %d k=%d: worst relative error %.3e", name, (long long)segment,
                  (int)kernel, (int)k, worst);
        CHECK_MSG(std::memcmp(got[0].data(), got[1].data(), got[0].size() * 4) == 0,
                  "%s segment %lld kernel %d k=%d: a second run differs", name, (long long)segment, (int)kernel, (int)k);
    }
    psv_matrix_free(&A);
}

// The batch twice: the same bits, the same counts; columns finishing at different iterations.
void check_rwr_repeat(psv_context *ctx, const gputest::Edges &E) {
    psv_matrix *A = build(ctx, E);
    psv::Backend &be = psv::cuda::backend_of(ctx);
    psv::AlgoSteps &st = psv::cuda::steps_of(ctx);
    psv::RwrGraph g = psv::rwr_graph(be, psv::cuda::store_of(A));
    const int32_t k = 25;
    std::vector<int64_t> q((size_t)k);
    uint64_t s = 5;
    for (int64_t &v : q) v = (int64_t)(gputest::splitmix(s) % (uint64_t)E.nrows);
    const int64_t n = E.nrows;
    std::vector<float> out[2];
    std::vector<int32_t> its[2];
    for (int rep = 0; rep < 2; ++rep) {
        out[rep].resize((size_t)n * k);
        its[rep].resize((size_t)k);
        psv::rwr(be, st, g, q.data(), k, 0.9, 1e-6, 300, out[rep].data(), its[rep].data());
    }
    CHECK(its[0] == its[1]);
    CHECK_MSG(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4) == 0, "RWR batch: a second run differs");
    // the columns agree with single runs within float rounding
    double worst = 0;
    for (int32_t j = 0; j < k; j += 6) {
        psv::Buffer rel;
        int32_t it = 0;
        psv::rwr_single(be, st, g, q[j], 0.9, 1e-6, 300, rel, it);
        std::vector<float> x((size_t)n);
        be.download(x.data(), rel.get(), (size_t)n * 4);
        CHECK_MSG(it == its[0][j], "query %d: single %d iterations, batch %d", (int)j, (int)it, (int)its[0][j]);
        for (int64_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs((double)x[i] - out[0][(size_t)i * k + j]));
    }
    CHECK_MSG(worst <= 1e-6, "RWR batch vs single: %.3e", worst);
    psv_matrix_free(&A);
}

// AlgoSteps::copy_columns over more columns than one launch carries (its pairs go by value, 64
// at a time), into a wider block, and over a small one.
void check_copy_columns(psv_context *ctx) {
    psv::Backend &be = psv::cuda::backend_of(ctx);
    psv::AlgoSteps &st = psv::cuda::steps_of(ctx);
    for (int32_t m : {3, 64, 70, 150}) {
        const int64_t n = 1234;
        const int32_t src_k = m + 5, dst_k = m + 9;
        std::vector<float> src((size_t)n * src_k), dst((size_t)n * dst_k, -1.0f);
        for (size_t i = 0; i < src.size(); ++i) src[i] = (float)i;
        std::vector<int32_t> sc((size_t)m), dc((size_t)m);
        for (int32_t t = 0; t < m; ++t) sc[t] = (t * 7 + 3) % src_k, dc[t] = dst_k - 1 - t;
        psv::Buffer sd(&be, src.size() * 4), dd(&be, dst.size() * 4);
        be.upload(sd.get(), src.data(), src.size() * 4);
        be.upload(dd.get(), dst.data(), dst.size() * 4);
        st.copy_columns(n, sd.as<float>(), src_k, dd.as<float>(), dst_k, m, sc.data(), dc.data());
        std::vector<float> got(dst.size());
        be.download(got.data(), dd.get(), got.size() * 4);
        for (int64_t i = 0; i < n; ++i)
            for (int32_t t = 0; t < m; ++t) dst[(size_t)i * dst_k + dc[t]] = src[(size_t)i * src_k + sc[t]];
        CHECK_MSG(got == dst, "copy_columns m=%d: the block differs from the host copy", (int)m);
    }
}

}  // namespace

int main() {
    gputest::require_device();
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_SUCCESS);
    const bool small = gputest::small_mode();
    const gputest::Edges R = gputest::rmat(small ? 10 : 14, 16, 11);
    check_pagerank_loop(ctx, "R-MAT", R);
    check_pagerank_loop(ctx, "uniform", gputest::random_edges(3000, 3000, 20000, 4));
    check_pagerank_fused(ctx, gputest::sorted_unique(gputest::rmat(small ? 11 : 13, 16, 12)));
    // a hub row of 3000 entries, a hub column, empty rows first, between and last
    gputest::Edges H;
    H.nrows = H.ncols = 5000;
    for (int64_t c = 0; c < 3000; ++c) H.rows.push_back(7), H.cols.push_back(c + 1000);
    for (int64_t r = 100; r < 4900; r += 3) H.rows.push_back(r), H.cols.push_back(42);
    for (int64_t r = 2000; r < 2100; ++r)
        for (int64_t c = 0; c < r % 40; ++c) H.rows.push_back(r), H.cols.push_back((r * 31 + c * 7) % 5000);
    for (int64_t seg : {32, 512})
        for (psv_kernel kern : {PSV_KERNEL_AUTO, PSV_KERNEL_CSR}) {
            check_spmm(ctx, "hub", H, seg, kern);
            check_spmm(ctx, "R-MAT", R, seg, kern);
        }
    check_spmm(ctx, "R-MAT", R, 512, PSV_KERNEL_TILE_COMPOSITE);
    check_rwr_repeat(ctx, R);
    check_copy_columns(ctx);
    psv_context_free(&ctx);
    return check_exit();
}
