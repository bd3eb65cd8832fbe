// The algorithms timed on psv's default (auto) form against the cuSPARSE-based versions:
// PageRank and HITS through the public API, RWR through psv's algorithm layer (the graph S built
// once and timed apart, then the queries).
#include <algorithm>
#include <cstring>
#include <memory>

#include "algo/algorithms.hpp"
#include "core/algo_steps.hpp"
#include "bench/cusparse_ref.hpp"
#include "cuda/internal.hpp"

namespace {

constexpr double kDamping = 0.85, kTol = 1e-6;
constexpr int kMaxIt = 100;

// What the three algorithms share: A' and A as cuSPARSE pattern matrices, work vectors.
struct AlgoInputs {
    const Csr &A;
    psv_matrix *PA;
    int64_t n, nnz;
    int best;  // the fastest cuSPARSE algorithm on A (kCsName)
    Dev<float> ones, inv, r, w, t, prk;
    Dev<double> scal;
    Csr AT;
    DnVec wv, tv;
    OnesMat AT1, A1;

    AlgoInputs(const Csr &a, psv_matrix *pa, int best_alg) : A(a), PA(pa), n(a.nrows), nnz(a.nnz), best(best_alg) {
        ones.alloc(nnz);
        fill_vec(nnz, 1.0f, ones);
        AT = coo_to_csr(n, n, nnz, A.col, A.row, nullptr);
        inv.alloc(n), r.alloc(n), w.alloc(n), t.alloc(n), prk.alloc(n);
        scal.alloc(4);
        inv_degree(n, A.rp, inv);
        wv = DnVec(n, w), tv = DnVec(n, t);
        make_ones(AT1, AT, ones, best, wv.d, tv.d);
        make_ones(A1, A, ones, best, wv.d, tv.d);
    }
};

// psv's PageRank: the first call builds the cached transpose, then O.alg_reps timed calls, and
// as many of one iteration (setup + 1: the per-iteration time is their difference).
void time_psv_pagerank(AlgoInputs &in, Result &res) {
    psv_vector *rank = nullptr;
    int32_t it = 0;
    double t0 = now_s();
    PK(psv_pagerank(&rank, &it, in.PA, kDamping, kTol, kMaxIt));
    const double first = now_s() - t0;
    res.transpose_bytes = (double)psv::cuda::transpose_device_bytes(in.PA);
    std::vector<double> tp;
    for (int rep = 0; rep < O.alg_reps; ++rep) {
        psv_vector_free(&rank);
        t0 = now_s();
        PK(psv_pagerank(&rank, &it, in.PA, kDamping, kTol, kMaxIt));
        tp.push_back(now_s() - t0);
    }
    res.pr_it_psv = it;
    std::sort(tp.begin(), tp.end());
    res.pr_psv = median(tp);
    {
        psv_vector *r1 = nullptr;
        int32_t it1 = 0;
        std::vector<double> t1;
        for (int rep = 0; rep < O.alg_reps; ++rep) {
            t0 = now_s();
            PK(psv_pagerank(&r1, &it1, in.PA, kDamping, kTol, 1));
            t1.push_back(now_s() - t0);
            psv_vector_free(&r1);
        }
        std::sort(t1.begin(), t1.end());
        res.pr_psv1 = median(t1);
    }
    res.transpose_s = first - res.pr_psv;
    PK(psv_vector_get_device(rank, in.prk.p, in.n));
    psv_vector_free(&rank);
}

// The cuSPARSE-based PageRank (one warm-up), compared with psv's ranks.
void time_cs_pagerank(AlgoInputs &in, Result &res) {
    const int64_t n = in.n;
    std::vector<double> tc;
    for (int rep = 0; rep < O.alg_reps + 1; ++rep) {  // one warm-up
        CK(cudaStreamSynchronize(g_st));
        const double t0 = now_s();
        res.pr_it_cs = cs_pagerank(in.AT1, n, in.inv, in.r, in.w, in.t, in.wv.d, in.tv.d, in.scal, kDamping, kTol, kMaxIt);
        if (rep) tc.push_back(now_s() - t0);
    }
    std::sort(tc.begin(), tc.end());
    res.pr_cs = median(tc);
    rank_diff(n, in.prk, in.r, res.pr_l1, res.pr_maxrel);
    std::vector<double> t1;
    for (int rep = 0; rep < O.alg_reps; ++rep) {
        CK(cudaStreamSynchronize(g_st));
        const double t0 = now_s();
        cs_pagerank(in.AT1, n, in.inv, in.r, in.w, in.t, in.wv.d, in.tv.d, in.scal, kDamping, kTol, 1);  // r was compared already
        t1.push_back(now_s() - t0);
    }
    std::sort(t1.begin(), t1.end());
    res.pr_cs1 = median(t1);
}

// psv's PageRank with its loop read back every iteration (Policy::loop_graph_max_entries = 0:
// never captured; loop_ahead_iterations = 0: never run ahead): the time, and whether rank and
// count equal the default run's (in.prk, res.pr_it_psv) bit for bit.
void time_psv_pagerank_plain(AlgoInputs &in, Result &res) {
    const psv::cuda::Policy saved = psv::cuda::policy_of(g_ctx);
    psv::cuda::Policy p = saved;
    p.loop_graph_max_entries = 0;
    p.loop_ahead_iterations = 0;
    psv::cuda::set_policy(g_ctx, p);
    psv_vector *rank = nullptr;
    int32_t it = 0;
    std::vector<double> tp;
    for (int rep = 0; rep < O.alg_reps + 1; ++rep) {  // one warm-up
        psv_vector_free(&rank);
        const double t0 = now_s();
        PK(psv_pagerank(&rank, &it, in.PA, kDamping, kTol, kMaxIt));
        if (rep) tp.push_back(now_s() - t0);
    }
    psv::cuda::set_policy(g_ctx, saved);
    std::vector<float> a((size_t)in.n), b((size_t)in.n);
    PK(psv_vector_get_device(rank, in.w.p, in.n));
    psv_vector_free(&rank);
    CK(cudaMemcpy(a.data(), in.w.p, (size_t)in.n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), in.prk.p, (size_t)in.n * 4, cudaMemcpyDeviceToHost));
    const bool same = it == res.pr_it_psv && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
    std::printf("PageRank loop: psv plain %.4f s (%d it)  default %.4f s (%d it)  identical %s  (graphs of <= %lld entries,"
                " else %d ahead)\n",
                median(tp), it, res.pr_psv, res.pr_it_psv, same ? "yes" : "NO", (long long)saved.loop_graph_max_entries,
                (int)saved.loop_ahead_iterations);
}

void time_pagerank(AlgoInputs &in, Result &res) {
    time_psv_pagerank(in, res);
    time_psv_pagerank_plain(in, res);
    time_cs_pagerank(in, res);
    std::printf("PageRank: psv %.4f s (%d it, %.3f ms/it; first call +%.3f s transpose, A' holds %.2f bytes an entry)  cuSPARSE"
                " %.4f s (%d it, %.3f ms/it)  L1 diff %.2e max rel %.2e\n",
                res.pr_psv, res.pr_it_psv, 1e3 * res.pr_iter_psv(), res.transpose_s, res.transpose_bytes / (double)in.nnz,
                res.pr_cs, res.pr_it_cs,
                1e3 * res.pr_iter_cs(), res.pr_l1, res.pr_maxrel);
    std::fflush(stdout);
}

#ifdef PSV_BENCH_HAVE_HITS
void time_hits(AlgoInputs &in, Result &res) {
    const int64_t n = in.n;
    const int hits_maxit = 30;
    psv_vector *hb = nullptr, *au = nullptr;
    int32_t it = 0;
    std::vector<double> tp, tc;
    for (int rep = 0; rep < O.alg_reps; ++rep) {  // A' is cached already: no warm-up
        psv_vector_free(&hb);
        psv_vector_free(&au);
        const double t0 = now_s();
        PK(psv_hits(&hb, &au, &it, in.PA, kTol, hits_maxit));
        tp.push_back(now_s() - t0);
    }
    res.hits_it_psv = it;
    res.hits_psv = median(tp);
    PK(psv_vector_get_device(au, in.prk.p, n));
    psv_vector_free(&hb);
    psv_vector_free(&au);
    Dev<float> a[2], h[2];
    for (int k = 0; k < 2; ++k) a[k].alloc(n), h[k].alloc(n);
    int fin = 0;
    for (int rep = 0; rep < O.alg_reps; ++rep) {  // cuSPARSE warmed up by PageRank
        CK(cudaStreamSynchronize(g_st));
        const double t0 = now_s();
        res.hits_it_cs = cs_hits(in.A1, in.AT1, n, a, h, in.scal, kTol, hits_maxit, fin);
        tc.push_back(now_s() - t0);
    }
    res.hits_cs = median(tc);
    double mr = 0;
    rank_diff(n, in.prk, a[fin], res.hits_l1, mr);
    std::printf("HITS: psv %.4f s (%d it)  cuSPARSE %.4f s (%d it)  authorities L1 diff %.2e\n", res.hits_psv, res.hits_it_psv,
                res.hits_cs, res.hits_it_cs, res.hits_l1);
    std::fflush(stdout);
}
#endif

#ifdef PSV_BENCH_HAVE_RWR
constexpr double kRwrC = 0.9, kRwrTol = 1e-6;
constexpr int kRwrMaxIt = 200, kQueries = 25;

// kQueries query vertices, each moved on to the next vertex with entries.
std::vector<int64_t> rwr_queries(const Csr &A) {
    const int64_t n = A.nrows;
    std::vector<int32_t> rph(n + 1);
    CK(cudaMemcpy(rph.data(), A.rp.p, (size_t)(n + 1) * 4, cudaMemcpyDeviceToHost));
    std::vector<int64_t> qs;
    for (int j = 0; j < kQueries; ++j) {
        int64_t q = (int64_t)(mix64(O.seed + 1000 + j) % (uint64_t)n);
        for (int64_t s = 0; s < n && rph[q + 1] == rph[q]; ++s) q = (q + 1) % n;
        qs.push_back(q);
    }
    return qs;
}

// psv: S built once (timed apart), kQueries single runs, then one batch of kQueries (results in
// device memory, as the singles'). rel keeps the last single query's relevance, out the batch's
// (n x kQueries, row-major, copied to the host after the timing).
void time_psv_rwr(const psv::MatrixStore &store, const std::vector<int64_t> &qs, psv::Buffer &rel, std::vector<float> &out,
                  Result &res) {
    psv::Backend &be = psv::cuda::backend_of(g_ctx);
    psv::AlgoSteps &steps = psv::cuda::steps_of(g_ctx);
    double t0 = now_s();
    psv::RwrGraph g = psv::rwr_graph(be, store);
    psv::cuda::synchronize(be);
    res.rwr_graph_s = now_s() - t0;
    int32_t it = 0, it_sum = 0;
    t0 = now_s();
    for (int j = 0; j < kQueries; ++j) {
        psv::rwr_single(be, steps, g, qs[j], kRwrC, kRwrTol, kRwrMaxIt, rel, it);
        it_sum += it;
    }
    psv::cuda::synchronize(be);
    res.rwr_psv = now_s() - t0;
    res.rwr_it_psv = it_sum;
    std::vector<int32_t> its(kQueries);
    psv::Buffer block;
    t0 = now_s();
    psv::rwr_device(be, steps, g, qs.data(), kQueries, kRwrC, kRwrTol, kRwrMaxIt, block, its.data());
    psv::cuda::synchronize(be);
    res.rwr_batch_psv = now_s() - t0;
    be.download(out.data(), block.get(), out.size() * sizeof(float));
    int32_t most = 0;
    for (int32_t v : its) most = std::max(most, v);
    std::printf("RWR batch: %d iterations (the most of one query)\n", most);
}

// cuSPARSE: S = pattern(A + A') built here (not timed), kQueries single runs.
void time_cs_rwr(AlgoInputs &in, const std::vector<int64_t> &qs, Result &res) {
    const int64_t n = in.n, nnz = in.nnz;
    const Csr &A = in.A;
    Csr S;
    {
        Dev<int32_t> r2(2 * nnz), c2(2 * nnz);
        CK(cudaMemcpyAsync(r2.p, A.row.p, (size_t)nnz * 4, cudaMemcpyDeviceToDevice, g_st));
        CK(cudaMemcpyAsync(r2.p + nnz, A.col.p, (size_t)nnz * 4, cudaMemcpyDeviceToDevice, g_st));
        CK(cudaMemcpyAsync(c2.p, A.col.p, (size_t)nnz * 4, cudaMemcpyDeviceToDevice, g_st));
        CK(cudaMemcpyAsync(c2.p + nnz, A.row.p, (size_t)nnz * 4, cudaMemcpyDeviceToDevice, g_st));
        S = coo_to_csr(n, n, 2 * nnz, r2, c2, nullptr);
    }
    Dev<float> sones(S.nnz), sinv(n);
    fill_vec(S.nnz, 1.0f, sones);
    inv_degree(n, S.rp, sinv);
    OnesMat S1;
    make_ones(S1, S, sones, in.best, in.wv.d, in.tv.d);
    CK(cudaStreamSynchronize(g_st));
    const double t0 = now_s();
    int it_sum = 0;
    for (int j = 0; j < kQueries; ++j)
        it_sum += cs_rwr(S1, n, sinv, qs[j], in.r, in.w, in.t, in.wv.d, in.tv.d, in.scal, kRwrC, kRwrTol, kRwrMaxIt);
    res.rwr_cs = now_s() - t0;
    res.rwr_it_cs = it_sum;
}

void time_rwr(AlgoInputs &in, const psv::MatrixStore &store, Result &res) {
    const int64_t n = in.n;
    const std::vector<int64_t> qs = rwr_queries(in.A);
    psv::Buffer rel;
    std::vector<float> out((size_t)n * kQueries);
    time_psv_rwr(store, qs, rel, out, res);
    time_cs_rwr(in, qs, res);
    double mr = 0;
    rank_diff(n, rel.as<float>(), in.r, res.rwr_l1, mr);  // the last query, psv single vs cuSPARSE
    std::vector<float> col((size_t)n);
    for (int64_t i = 0; i < n; ++i) col[i] = out[(size_t)i * kQueries + (kQueries - 1)];
    CK(cudaMemcpy(in.w.p, col.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
    rank_diff(n, in.w, in.r, res.rwr_batch_l1, mr);
    std::printf("RWR (25 queries): psv S build %.3f s; 25 singles %.4f s (%d it)  batch k=25 %.4f s  cuSPARSE 25 singles %.4f s"
                " (%d it)  L1 diff single %.2e batch %.2e\n",
                res.rwr_graph_s, res.rwr_psv, res.rwr_it_psv, res.rwr_batch_psv, res.rwr_cs, res.rwr_it_cs, res.rwr_l1,
                res.rwr_batch_l1);
    std::fflush(stdout);
}
#endif

}  // namespace

void time_algorithms(const Csr &A, psv_matrix *PA, int best, Result &res) {
    pool_trim();
    AlgoInputs in(A, PA, best);
    time_pagerank(in, res);
#ifdef PSV_BENCH_HAVE_HITS
    time_hits(in, res);
#endif
#ifdef PSV_BENCH_HAVE_RWR
    if (in.nnz <= O.rwr_max_nnz) time_rwr(in, psv::cuda::store_of(PA), res);
#endif
}
