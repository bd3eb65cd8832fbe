// Rank scaling (psv_bench --ranks P[,P...] [--devices D] rmat:SCALE[:EF]...): PageRank and the
// product on P rank contexts, each rank a thread of this process joined through one psv_id, as
// one process per GPU would be under MPI. Rank r runs on device r % D; with P <= D every rank has
// a GPU of its own and the id is made for CUDA (NCCL carries the exchange), otherwise several
// ranks share a GPU and the id is made for the CPU (the exchange goes through the host).
// Each rank generates its own share of the R-MAT stream on its own device (edges E r / P ..
// E (r + 1) / P, the same relabelling everywhere), a chunk at a time, straight into the library's
// construction from chunks (dist::matrix_from_chunks: counted, laid out, routed to the rows'
// owners over NCCL and built on each GPU); with --host-build, into host int64 tuples passed to
// psv_matrix_build instead (routed and built on the host). Construction's device bytes per rank:
// the pool's peak above what it held before, and what the matrix holds after.
// Measured, on rank 0 with a host clock between barriers of all ranks: construction (generation
// and build), PageRank (20 iterations, tolerance 0, median of 3 calls after a warm-up) per
// iteration, psv_mxv (plus-second, fp32, a full input vector in the matrix's layout; median of 10
// after a warm-up), and the split of that product (src/dist/stages.hpp), each stage run alone and
// timed like it: the local blocks' products, the exchange (the all-gather of x, started and
// finished, no product under it), the remote blocks' products, and the whole product run the same
// way; the overlap is local + exchange + remote - whole (what the exchange under the local product
// hides, plus the two more barriers and synchronisations of three separate runs). Each PageRank result is compared with that of
// the first P of the list.
// Strong scaling: one spec, several P; weak scaling: several specs, each run for every P.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench.hpp"
#include "cuda/internal.hpp"
#include "dist/chunks.hpp"
#include "dist/stages.hpp"

void rmat_relabelling(int scale, Dev<int32_t> &perm);
void rmat_chunk(int scale, const int32_t *perm, int64_t first, int64_t m, int32_t *row, int32_t *col, float *val);

namespace {

// A failed call on one rank: its message, then the process ends at once (the other ranks are
// blocked in collectives the failed one will never reach, so nothing could be joined or freed).
[[noreturn]] void rank_fail(int rank, const char *what, psv_status st, const psv_context *ctx) {
    std::fflush(stdout);
    std::fprintf(stderr, "psv_bench --ranks: rank %d: %s: %s (%s)\n", rank, what, psv_status_string(st),
                 ctx ? psv_context_last_error(ctx) : "no context");
    std::fflush(stderr);
    std::_Exit(1);
}
#define RK(x)                                                 \
    do {                                                      \
        const psv_status s_ = (x);                            \
        if (s_ < 0) rank_fail(rank, #x, s_, ctx);             \
    } while (0)

// All P threads wait here until every one has arrived (reusable).
class Barrier {
public:
    explicit Barrier(int n) : n_(n) {}
    void wait() {
        std::unique_lock<std::mutex> l(m_);
        const uint64_t gen = gen_;
        if (++arrived_ == n_) {
            arrived_ = 0;
            ++gen_;
            cv_.notify_all();
        } else {
            cv_.wait(l, [&] { return gen_ != gen; });
        }
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    int n_, arrived_ = 0;
    uint64_t gen_ = 0;
};

struct RankRow {
    std::string spec;
    int P = 0, per_gpu = 0;
    bool nccl = false;
    double build_s = NAN, pr_ms_it = NAN, mxv_ms = NAN, rel_l1 = NAN;
    double stage_ms[4] = {NAN, NAN, NAN, NAN};  // kStages' order
    int64_t nnz = 0, entries_min = 0, entries_max = 0;
    double peak_per_edge = NAN, held_per_edge = NAN;  // the most of any rank, per edge of its share
};

// What the ranks of one run share: the barrier, rank 0's times, each rank's entries, the ranks.
struct Run {
    int scale = 0, P = 1, D = 1;
    int64_t n = 0, E = 0;
    psv_id id{};
    Barrier bar;
    std::vector<int64_t> entries;
    std::vector<float> ranks;  // rank 0's copy of the PageRank result
    int64_t nnz = 0;
    double build_s = NAN;
    bool host_build = false;
    std::vector<double> peak_per_edge, held_per_edge;  // each rank's construction bytes per edge of its share
    std::vector<double> pr_s, mxv_s;
    std::vector<double> stage_s[4];  // kStages' order
    explicit Run(int p) : P(p), bar(p), entries((size_t)p, 0), peak_per_edge((size_t)p, 0), held_per_edge((size_t)p, 0) {}
};

constexpr int kPagerankIt = 20, kPagerankCalls = 3, kProducts = 10;
// The split of one product, in the order timed and printed.
constexpr psv::dist::ProductStage kStages[4] = {psv::dist::ProductStage::Local, psv::dist::ProductStage::Exchange,
                                                psv::dist::ProductStage::Remote, psv::dist::ProductStage::All};
constexpr int64_t kChunk = (int64_t)1 << 25;  // edges generated per chunk (24 bytes each of device buffers: 0.8 GB)

// t(f): f run on every rank between two barriers; rank 0's host seconds, else 0.
template <class F> double timed(Run &run, int rank, F &&f) {
    run.bar.wait();
    const double t0 = now_s();
    f();
    run.bar.wait();
    return rank == 0 ? now_s() - t0 : 0.0;
}

// This rank's share of the R-MAT stream as host int64 tuples, generated on its device.
void generate_share(int scale, int64_t first, int64_t count, int64_t *rows, int64_t *cols) {
    Dev<int32_t> perm;
    rmat_relabelling(scale, perm);
    const int64_t c = std::min(kChunk, std::max<int64_t>(count, 1));
    Dev<int32_t> r32(c), c32(c);
    Dev<int64_t> r64(c), c64(c);
    for (int64_t at = 0; at < count; at += c) {
        const int64_t m = std::min(c, count - at);
        rmat_chunk(scale, perm.p, first + at, m, r32.p, c32.p, nullptr);
        i32_to_i64(m, r32.p, r64.p);
        i32_to_i64(m, c32.p, c64.p);
        CK(cudaMemcpyAsync(rows + at, r64.p, (size_t)m * 8, cudaMemcpyDeviceToHost, g_st));
        CK(cudaMemcpyAsync(cols + at, c64.p, (size_t)m * 8, cudaMemcpyDeviceToHost, g_st));
    }
    CK(cudaStreamSynchronize(g_st));
}

void rank_main(Run &run, int rank) {
    const int device = rank % run.D;
    CK(cudaSetDevice(device));
    psv_context *ctx = nullptr;
    RK(psv_context_create_rank(PSV_BACKEND_CUDA, &run.id, run.P, rank, device, &ctx));
    psv::Backend &be = psv::cuda::backend_of(ctx);
    g_st = (cudaStream_t)psv::cuda::stream_of(be);  // this thread's launches go on its rank's stream

    // construction: this rank's share generated on its device in chunks and built from them (or
    // copied to the host and built there), collectively
    const int64_t first = run.E * rank / run.P, share = run.E * (rank + 1) / run.P - first;
    psv_matrix *A = nullptr;
    psv::cuda::pool_trim(be);
    const size_t held0 = psv::cuda::pool_in_use_bytes(be);
    psv::cuda::reset_pool_peak(be);
    const double build_s = timed(run, rank, [&] {
        if (run.host_build) {
            std::unique_ptr<int64_t[]> rows(new (std::nothrow) int64_t[(size_t)std::max<int64_t>(share, 1)]);
            std::unique_ptr<int64_t[]> cols(new (std::nothrow) int64_t[(size_t)std::max<int64_t>(share, 1)]);
            if (!rows || !cols) die("rank %d: no host memory for its %lld tuples", rank, (long long)share);
            generate_share(run.scale, first, share, rows.get(), cols.get());
            RK(psv_matrix_build(ctx, PSV_FP32, run.n, run.n, share, rows.get(), cols.get(), nullptr, PSV_NOOP, &A));
        } else {
            Dev<int32_t> perm;
            rmat_relabelling(run.scale, perm);
            std::vector<psv::dist::ChunkSource> src((size_t)run.P);
            src[(size_t)rank].count = share;
            src[(size_t)rank].deliver = [&](int64_t f, int64_t n, int32_t *r, int32_t *c, void *) {
                rmat_chunk(run.scale, perm.p, first + f, n, r, c, nullptr);
            };
            RK(psv::dist::matrix_from_chunks(ctx, PSV_FP32, run.n, run.n, true, src, &A));
        }
        psv::cuda::synchronize(be);
    });
    run.peak_per_edge[(size_t)rank] = (double)(psv::cuda::pool_peak_bytes(be) - held0) / (double)std::max<int64_t>(share, 1);
    run.held_per_edge[(size_t)rank] = (double)(psv::cuda::pool_in_use_bytes(be) - held0) / (double)std::max<int64_t>(share, 1);
    int64_t nnz = 0;
    RK(psv_matrix_nvals(A, &nnz));
    const auto *part = dynamic_cast<const psv::dist::PartitionedStore *>(&psv::cuda::store_of(A));
    const int64_t mine = part ? part->blocks[(size_t)rank].local->nvals + part->blocks[(size_t)rank].remote->nvals : nnz;
    run.entries[(size_t)rank] = mine;

    // PageRank: exactly kPagerankIt iterations (tolerance 0: PSV_NOT_CONVERGED is the expected end)
    psv_vector *r = nullptr;
    int32_t it = 0;
    auto pagerank = [&] {
        RK(psv_pagerank(&r, &it, A, 0.85, 0.0, kPagerankIt));
        psv::cuda::synchronize(be);
        if (it != kPagerankIt) die("rank %d: PageRank ran %d iterations, not %d", rank, it, kPagerankIt);
    };
    pagerank();  // warm-up: the transpose and the plans
    std::vector<double> pr;
    for (int k = 0; k < kPagerankCalls; ++k) {
        psv_vector_free(&r);
        pr.push_back(timed(run, rank, pagerank));
    }
    std::vector<float> got((size_t)run.n);
    RK(psv_vector_get(r, got.data(), run.n));  // collective: the whole vector on every rank
    psv_vector_free(&r);

    // the product: plus-second over a full input that is already in the matrix's column layout
    // (a first product's output adopts it; a fill keeps it), so no call redistributes u
    psv_semiring *s = nullptr;
    psv_vector *ones = nullptr, *u = nullptr, *w = nullptr;
    const float one = 1.0f;
    RK(psv_semiring_create(ctx, PSV_PLUS, PSV_SECOND, PSV_FP32, &s));
    RK(psv_vector_create(ctx, PSV_FP32, run.n, &ones));
    RK(psv_vector_create(ctx, PSV_FP32, run.n, &u));
    RK(psv_vector_create(ctx, PSV_FP32, run.n, &w));
    RK(psv_vector_fill(ones, &one));
    RK(psv_mxv(u, nullptr, PSV_NOOP, s, A, ones, 0));
    RK(psv_vector_fill(u, &one));
    auto product = [&] {
        RK(psv_mxv(w, nullptr, PSV_NOOP, s, A, u, 0));
        psv::cuda::synchronize(be);
    };
    product();  // warm-up
    std::vector<double> mx;
    for (int k = 0; k < kProducts; ++k) mx.push_back(timed(run, rank, product));

    // the product's split: each stage alone on the same u, a warm-up then kProducts timed runs
    std::vector<double> split[4];
    try {
        psv::dist::StagedProduct staged(*A, *s, *u);
        for (int i = 0; i < 4; ++i) {
            auto stage = [&] {
                staged.run(kStages[i]);
                psv::cuda::synchronize(be);
            };
            stage();
            for (int k = 0; k < kProducts; ++k) split[i].push_back(timed(run, rank, stage));
        }
    } catch (const std::exception &e) {  // as rank_fail: the other ranks wait in collectives
        std::fflush(stdout);
        std::fprintf(stderr, "psv_bench --ranks: rank %d: the product's stages: %s\n", rank, e.what());
        std::fflush(stderr);
        std::_Exit(1);
    }

    if (rank == 0) {
        run.build_s = build_s, run.nnz = nnz;
        run.pr_s = pr, run.mxv_s = mx;
        for (int i = 0; i < 4; ++i) run.stage_s[i] = split[i];
        run.ranks = std::move(got);
    }
    psv_vector_free(&ones);
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_semiring_free(&s);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
}

// What the whole product saves on its stages run one by one: local + exchange + remote - whole.
double overlap_ms(const RankRow &r) { return r.stage_ms[0] + r.stage_ms[1] + r.stage_ms[2] - r.stage_ms[3]; }

// sum |a - b| / sum |b|
double rel_l1(const std::vector<float> &a, const std::vector<float> &b) {
    double d = 0, t = 0;
    for (size_t i = 0; i < a.size(); ++i) d += std::fabs((double)a[i] - (double)b[i]), t += std::fabs((double)b[i]);
    return t > 0 ? d / t : d;
}

}  // namespace

int bench_ranks(const std::vector<int> &ranks, int devices, bool host_build, const std::vector<std::string> &specs) {
    int count = 0;
    if (!psv_backend_available(PSV_BACKEND_CUDA) || cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
        die("--ranks: no CUDA device (or psv built without CUDA)");
    const int D = devices > 0 ? devices : count;
    if (D > count) die("--devices %d: only %d CUDA devices", D, count);
    for (const int P : ranks)
        if (P < 1 || P > PSV_MAX_PARTS) die("--ranks: %d ranks (1 .. %d)", P, PSV_MAX_PARTS);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s x %d used (%d present)\n", prop.name, D, count);
    std::vector<RankRow> rows;
    bool differ = false;  // a PageRank result beyond 1e-6 of the reference
    for (const std::string &spec : specs) {
        int scale = 0, ef = 16;
        if (spec.rfind("rmat:", 0) != 0 || std::sscanf(spec.c_str() + 5, "%d:%d", &scale, &ef) < 1 || scale < 1 || scale > 30 || ef < 1)
            die("--ranks takes rmat:SCALE[:EF] (scale 1 .. 30), not %s", spec.c_str());
        std::vector<float> ref;
        int P_ref = 0;
        double pr_ref = NAN;
        for (const int P : ranks) {
            Run run(P);
            run.scale = scale, run.D = D, run.n = 1LL << scale, run.E = (int64_t)ef << scale;
            run.host_build = host_build;
            RankRow row;
            row.spec = spec, row.P = P, row.nccl = P <= D, row.per_gpu = (P + D - 1) / D;
            const psv_status st = psv_unique_id(row.nccl ? PSV_BACKEND_CUDA : PSV_BACKEND_CPU, &run.id);
            if (st < 0) {
                std::fprintf(stderr, "psv_bench --ranks: psv_unique_id: %s\n", psv_status_string(st));
                std::exit(1);
            }
            std::printf("\n== %s: %lld edges, %d ranks on %d GPUs (%d per GPU), exchange %s (id made for %s) ==\n", spec.c_str(),
                        (long long)run.E, P, std::min(P, D), row.per_gpu, row.nccl ? "nccl" : "host", row.nccl ? "CUDA" : "the CPU");
            std::fflush(stdout);
            {
                std::vector<std::thread> t;
                for (int r = 0; r < P; ++r) t.emplace_back(rank_main, std::ref(run), r);
                for (auto &th : t) th.join();
            }
            row.build_s = run.build_s, row.nnz = run.nnz;
            row.pr_ms_it = 1e3 * median(run.pr_s) / kPagerankIt;
            row.mxv_ms = 1e3 * median(run.mxv_s);
            for (int i = 0; i < 4; ++i) row.stage_ms[i] = 1e3 * median(run.stage_s[i]);
            row.entries_min = *std::min_element(run.entries.begin(), run.entries.end());
            row.entries_max = *std::max_element(run.entries.begin(), run.entries.end());
            row.peak_per_edge = *std::max_element(run.peak_per_edge.begin(), run.peak_per_edge.end());
            row.held_per_edge = *std::max_element(run.held_per_edge.begin(), run.held_per_edge.end());
            if (ref.empty()) {
                ref = std::move(run.ranks), P_ref = P, pr_ref = row.pr_ms_it;
                row.rel_l1 = 0;
            } else {
                row.rel_l1 = rel_l1(run.ranks, ref);
            }
            const double speedup = pr_ref / row.pr_ms_it, eff = speedup * P_ref / P;
            std::printf("construction (%s): device bytes per edge of a rank's share, the most of any rank: peak %.2f, "
                        "held after %.2f\n", host_build ? "host" : "device", row.peak_per_edge, row.held_per_edge);
            std::printf("%lld entries; construction %.2f s; PageRank %.3f ms/it; product %.3f ms; speed-up %.2fx, efficiency %.0f%% "
                        "(against P = %d); PageRank rel L1 against P = %d: %.2e %s\n",
                        (long long)row.nnz, row.build_s, row.pr_ms_it, row.mxv_ms, speedup, 100 * eff, P_ref, P_ref, row.rel_l1,
                        row.rel_l1 <= 1e-6 ? "(ok)" : "(ABOVE 1e-6)");
            std::printf("product split: local %.3f ms + exchange %.3f ms + remote %.3f ms, whole %.3f ms (run as psv_mxv's "
                        "product); overlap %.3f ms\n",
                        row.stage_ms[0], row.stage_ms[1], row.stage_ms[2], row.stage_ms[3], overlap_ms(row));
            std::fflush(stdout);
            differ = differ || !(row.rel_l1 <= 1e-6);
            rows.push_back(row);
        }
    }
    // the table: speed-up and efficiency of PageRank per iteration against the spec's first P
    std::printf("\n| matrix | P | ranks/GPU | exchange | entries | construction s | build peak / held B per edge | PageRank ms/it | "
                "product ms | local ms | exchange ms | remote ms | whole ms | overlap ms | speed-up | efficiency | entries per rank | "
                "rel L1 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const RankRow *first = nullptr;
    for (const RankRow &r : rows) {
        if (!first || first->spec != r.spec) first = &r;
        const double sp = first->pr_ms_it / r.pr_ms_it;
        std::printf("| %s | %d | %d | %s | %lld | %.2f | %.2f / %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2fx | %.0f%% | "
                    "%lld - %lld | %.1e |\n",
                    r.spec.c_str(), r.P, r.per_gpu, r.nccl ? "nccl" : "host", (long long)r.nnz, r.build_s, r.peak_per_edge,
                    r.held_per_edge, r.pr_ms_it, r.mxv_ms, r.stage_ms[0], r.stage_ms[1], r.stage_ms[2], r.stage_ms[3], overlap_ms(r),
                    sp, 100 * sp * first->P / r.P,
                    (long long)r.entries_min, (long long)r.entries_max, r.rel_l1);
    }
    std::fflush(stdout);
    if (differ) std::fprintf(stderr, "psv_bench --ranks: a PageRank result differs from the reference's by more than 1e-6 (rel L1)\n");
    return differ ? 1 : 0;
}
