// psv_bench: psv's SpMV kernels against cuSPARSE on the very same matrix, on one GPU, in one
// process. See docs/benchmarks.md for what it measures and bench/run.sh for the standard set.
//
//   psv_bench [options] MATRIX...
//   MATRIX: rmat:SCALE[:EF]    R-MAT (Graph500 a=.57 b=.19 c=.19 d=.05), random relabelling,
//                              generated on the device (EF: edge factor, default 16)
//           stencil:N          3-D 27-point stencil on an N^3 grid (non-power-law contrast)
//           PATH[@LABEL]       any file psv reads (Matrix Market, edge list, .gz)
//   --runs R (50) --warmup W (5) --json F --csv F --svg F --no-algos --no-reorder
//   --rwr-max-nnz N (20000000) --algo-max-nnz N (600000000) --seed S --no-flush
//   --contrast (mark the following matrices as non-power-law)  --powerlaw (back)
//   --variant tw=N,maxt=M,wl=W,kernel=auto|tc|coo|csr|stream,hot=H,ranked=0|1,prefix=P,sbps=N,srows=N,sppm=N,slap=0|1,swv=N,swin=N,sbr=N   (repeatable) also
//                              time psv with these format options (tile width, max dense tiles,
//                              workload size, kernel; hot: AUTO's hot columns in shared memory, 0 =
//                              none, the policy's hot_columns; ranked=1: AUTO's x in column rank
//                              order on any matrix, the policy's rank_order_always; prefix: the
//                              ranks a ranked hot-kernel plan keeps, the policy's ranked_prefix;
//                              sbps, srows, sppm, slap, swv, swin, sbr: the streamed product's blocks
//                              per SM, rows per partition, partitions per SM, overlapped launch,
//                              scatter waves, scatter window and runs per scatter block, the policy's
//                              stream_* fields; all
//                              injected through psv::cuda::set_policy and replan)
//   --proto-tw LIST            tile widths of the bench-side prototype (not psv): 0 = L2/16 bytes,
//                              -1 = one tile, "none" = skip (default "0,-1")
//   --alg-reps R (1)           timed calls per algorithm (PageRank, HITS)
//   --policy sbps=N,srows=N,sppm=N,slap=0|1,swv=N,swin=N,sbr=N
//                              the streamed-plan keys of --variant set on the context: every
//                              streamed plan of the run (AUTO's, PageRank's A') takes them
//   --kernels LIST             which of tile-composite,tile-coo,csr,stream,sell to time besides auto
//                              (all but sell)
//   --partition P[,P...]       the following matrices: split into P parts by rows (bitonic) and
//                              by columns (blocks, ranked blocks, bitonic), each part's product
//                              timed alone, the exchange bytes counted (bench/partition.cu)
//   --exhaustive               the performance model's choice against an exhaustive search: every
//                              candidate plan of AUTO's rebuild built and its weighted product
//                              timed as AUTO is; a table of chosen against best and predicted
//                              against measured, and an "exhaustive" array in the JSON
//                              (bench/exhaustive.cu, bench/tuning_plot.py)
//   --tune FILE                before the matrices: psv_context_tune (full effort), the table
//                              written to FILE and used for every matrix
//
// Timing: CUDA events on psv's own stream (psv::cuda::stream_of), median of R runs after W
// warm-ups; before every timed run the L2 is flushed (a memset of 2x L2 outside the events) and
// x rotates among enough vectors to exceed 2x L2. cuSPARSE runs on the same stream.
// Duplicates are removed once (the first value kept) and the resulting CSR (int32 indices, fp32
// values) is what cuSPARSE gets and what psv builds its form from (device-resident build).
//
// The bench uses psv's public API plus the internal interfaces cuda/internal.hpp (device-resident
// build, stream, policy injection, pool trim) and algo/algorithms.hpp (RWR with its graph built
// once). This file is the driver: options, main and the per-matrix sequence; bench.hpp lists the
// other files.
#include <cusparse.h>

#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <memory>

#include "bench/bench.hpp"
#include "bench/cusparse_ref.hpp"
#include "bench/probe.hpp"
#include "core/error.hpp"
#include "cuda/internal.hpp"

// ---- the bench's state --------------------------------------------------------------------------

psv_context *g_ctx = nullptr;
thread_local cudaStream_t g_st = nullptr;
cusparseHandle_t g_sp = nullptr;
Opts O;
Timer g_timer;
std::vector<Result> g_results;
double g_copy_bw = NAN;
std::string g_device;
const char *kCsName[3] = {"CSR_ALG1", "CSR_ALG2", "COO_ALG1"};
const psv_kernel kKernels[kNumKernels] = {PSV_KERNEL_AUTO, PSV_KERNEL_TILE_COMPOSITE, PSV_KERNEL_TILE_COO, PSV_KERNEL_CSR,
                                          PSV_KERNEL_STREAM,  PSV_KERNEL_SELL};

// time_algorithms (algos.cu): PageRank, HITS and RWR on PA, psv against
// the cuSPARSE-based versions with algorithm `best`.
void time_algorithms(const Csr &A, psv_matrix *PA, int best, Result &res);
// partition.cu: A split by rows and by columns into each of `parts` parts, each part timed
// alone; print_partition_table: their table (nothing where none ran).
void bench_partition(const Csr &A, const std::string &name, const std::vector<int> &parts);
void print_partition_table();
static std::vector<int> g_partition_parts;  // --partition
// ranks.cu: the specs run on each of `ranks` rank contexts over `devices` GPUs (0: all present);
// the exit status (1 where a result differs from the first P's).
int bench_ranks(const std::vector<int> &ranks, int devices, bool host_build, const std::vector<std::string> &specs);
static std::vector<int> g_ranks;  // --ranks
static int g_devices = 0;         // --devices
static bool g_host_build = false;  // --host-build (--ranks: the shares built through the host)

[[noreturn]] void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "psv_bench: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(1);
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void pool_trim() {
    CK(cudaDeviceSynchronize());
    if (g_ctx) psv::cuda::pool_trim(psv::cuda::backend_of(g_ctx));  // --ranks has none of its own
}

void Timer::init(size_t l2) {
    a.resize(1000), b.resize(1000);
    for (auto &e : a) CK(cudaEventCreate(&e));
    for (auto &e : b) CK(cudaEventCreate(&e));
    flush_bytes = 2 * l2;
    flushbuf.alloc(flush_bytes);
}

void Timer::release() {
    for (auto &e : a) CK(cudaEventDestroy(e));
    for (auto &e : b) CK(cudaEventDestroy(e));
    a.clear(), b.clear();
    flushbuf.reset();
}

Stat Timer::collect(int R) const {
    std::vector<double> t(R);
    for (int i = 0; i < R; ++i) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a[i], b[i]));
        t[i] = ms;
    }
    std::sort(t.begin(), t.end());
    Stat s;
    s.med = R % 2 ? t[R / 2] : 0.5 * (t[R / 2 - 1] + t[R / 2]);
    s.min = t[0];
    s.p90 = t[(size_t)std::min<int64_t>(R - 1, (int64_t)(0.9 * R))];
    return s;
}

// ---- one matrix ----------------------------------------------------------------------------------


// 1. the matrix, as a de-duplicated device CSR
static Csr load_csr(const std::string &spec, Result &res) {
    Csr A;
    {
        Coo c = load_matrix(spec, res.name, res.gen_s);
        res.nnz_in = c.m;
        const double t0 = now_s();
        A = coo_to_csr(c.nrows, c.ncols, c.m, c.row, c.col, c.val);
        res.csr_s = now_s() - t0;
    }
    res.n = A.nrows, res.ncols = A.ncols, res.nnz = A.nnz;
    std::printf("%s: %lld x %lld, %lld entries (%lld tuples), generated/read in %.2f s, CSR in %.2f s\n", res.name.c_str(),
                (long long)A.nrows, (long long)A.ncols, (long long)A.nnz, (long long)res.nnz_in, res.gen_s, res.csr_s);
    std::fflush(stdout);
    return A;
}

// psv's matrix built from the device CSR M (the context's default options); build_s receives
// the seconds (nullptr: not timed). partition.cu builds its parts with it too.
MatrixHandle build_psv(const Csr &M, double *build_s) {
    psv::Backend &be = psv::cuda::backend_of(g_ctx);
    Dev<int64_t> rp64(M.nrows + 1);
    i32_to_i64(M.nrows + 1, M.rp, rp64);
    if (build_s) CK(cudaStreamSynchronize(g_st));
    const double t0 = now_s();
    auto built = psv::cuda::build_from_device_csr(be, M.nrows, M.ncols, PSV_FP32, rp64.p, M.col.p, M.val.p, psv::FormatOptions{});
    if (build_s) {
        psv::cuda::synchronize(be);
        *build_s = now_s() - t0;
    }
    return MatrixHandle(psv::cuda::wrap_matrix(g_ctx, std::move(built)), free_matrix);
}

// 2. psv's matrix under AUTO, described
static MatrixHandle build_auto(const Csr &A, Result &res) {
    MatrixHandle PA = build_psv(A, &res.build_s);
    PK(psv_matrix_info_get(PA.get(), &res.info));
    res.rebuild_tc_s = res.info.build_seconds;
    res.auto_kernel = res.info.kernel;
    std::printf("psv build %.3f s (form %.3f s): %d dense tiles of %lld, sparse %d, workloads %lld, padding %.3f, %lld bytes;"
                " device %lld bytes (%.2f per entry)\n",
                res.build_s, res.rebuild_tc_s, res.info.dense_tiles, (long long)res.info.tile_width, res.info.sparse_tile,
                (long long)res.info.workloads, res.info.padding_ratio, (long long)res.info.bytes, (long long)res.info.device_bytes,
                res.device_bytes_per_entry());
    std::printf("psv auto plan: %s\n", psv::cuda::plan_description(PA.get()).c_str());
    std::fflush(stdout);
    return PA;
}

// 3. vectors: nx inputs rotating past 2x L2, one output; references in double; psv's vectors
//    over the same inputs and the two semirings
struct Inputs {
    int64_t n = 0, nc = 0, nnz = 0;
    int nx = 1;
    Dev<float> X, Y;
    Dev<double> ref_w, ref_p;
    std::vector<psv_vector *> U;
    psv_vector *W = nullptr;
    psv_semiring *s_w = nullptr, *s_p = nullptr;

    Inputs(const Csr &A, int dev) : n(A.nrows), nc(A.ncols), nnz(A.nnz) {
        int l2 = 0;
        CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        nx = (int)std::max<int64_t>(1, std::min<int64_t>(64, (2LL * l2 + 4 * nc - 1) / std::max<int64_t>(1, 4 * nc)));
        X.alloc((size_t)nx * nc), Y.alloc(n);
        random_values((int64_t)nx * nc, O.seed ^ 0x77, X);
        ref_w.alloc(n), ref_p.alloc(n);
        ref_spmv(n, A.rp, A.col, A.val, X.p, ref_w);
        ref_spmv(n, A.rp, A.col, nullptr, X.p, ref_p);
        CK(cudaStreamSynchronize(g_st));
        U.assign(nx, nullptr);
        for (int k = 0; k < nx; ++k) {
            PK(psv_vector_create(g_ctx, PSV_FP32, nc, &U[k]));
            PK(psv_vector_set_device(U[k], X.p + (size_t)k * nc, nc));
        }
        PK(psv_vector_create(g_ctx, PSV_FP32, n, &W));
        PK(psv_semiring_create(g_ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s_w));
        PK(psv_semiring_create(g_ctx, PSV_PLUS, PSV_SECOND, PSV_FP32, &s_p));
    }
    ~Inputs() {
        for (auto *u : U) psv_vector_free(&u);
        psv_vector_free(&W);
        psv_semiring_free(&s_w);
        psv_semiring_free(&s_p);
    }
    Inputs(const Inputs &) = delete;
    Inputs &operator=(const Inputs &) = delete;

    // psv_mxv of A with semiring s, x rotating among the nx inputs
    Stat time(psv_matrix *A, psv_semiring *s) {
        return g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, s, A, U[i % nx], 0)); });
    }
    // one product with the first input, its error against ref
    double error(psv_matrix *A, psv_semiring *s, const double *ref) {
        PK(psv_mxv(W, nullptr, PSV_NOOP, s, A, U[0], 0));
        PK(psv_vector_get_device(W, Y.p, n));
        return rel_err(n, Y, ref);
    }
};

// psv with kernel kKernels[ki] (as PA is now planned): weighted and pattern, error and time
static void time_psv(int ki, psv_matrix *PA, Inputs &in, Result &res) {
    for (int pat = 0; pat < 2; ++pat) {
        psv_semiring *s = pat ? in.s_p : in.s_w;
        (pat ? res.psv_err_p : res.psv_err_w)[ki] = in.error(PA, s, pat ? in.ref_p : in.ref_w);
        (pat ? res.psv_p : res.psv_w)[ki] = in.time(PA, s);
    }
    std::printf("psv %-15s weighted %8.4f ms (err %.1e)  pattern %8.4f ms (err %.1e)\n", psv_kernel_name(kKernels[ki]), res.psv_w[ki].med,
                res.psv_err_w[ki], res.psv_p[ki].med, res.psv_err_p[ki]);
    const psv::cuda::StreamCounts sc = psv::cuda::stream_counts(PA);
    if (sc.parts > 0) {  // the streamed plan's byte model next to its times
        res.stream_bytes_w = sc.bytes_weighted, res.stream_bytes_p = sc.bytes_pattern;
        const double ms_w = res.psv_w[ki].med, ms_p = res.psv_p[ki].med;
        std::printf("  stream model: %lld partitions of %lld rows (largest %lld entries), %lld pieces of %lld slots, pairs %.3f "
                    "per entry, %lld runs; weighted %.0f MB (%.3f ms at copy, %.0f%% of copy), pattern %.0f MB (%.3f ms, %.0f%%)\n",
                    (long long)sc.parts, (long long)sc.rows, (long long)sc.max_part_entries, (long long)sc.pieces,
                    (long long)sc.slots, (double)sc.pairs / std::max<int64_t>(1, in.nnz), (long long)sc.runs, sc.bytes_weighted / 1e6, sc.bytes_weighted / g_copy_bw * 1e3,
                    100.0 * sc.bytes_weighted / (ms_w * 1e-3) / g_copy_bw, sc.bytes_pattern / 1e6,
                    sc.bytes_pattern / g_copy_bw * 1e3, 100.0 * sc.bytes_pattern / (ms_p * 1e-3) / g_copy_bw);
    }
    const psv::cuda::SellCounts lc = psv::cuda::sell_counts(PA);
    if (lc.slices > 0) {  // SELL-32's byte model next to its times (SellPlan::model_bytes)
        const double bw = (double)lc.bytes_weighted, bp = (double)lc.bytes_pattern;
        const double ms_w = res.psv_w[ki].med, ms_p = res.psv_p[ki].med;
        std::printf("  sell model: %lld slices, %.3f slots an entry; weighted %.0f MB (%.3f ms at copy, %.0f%% of copy), pattern "
                    "%.0f MB (%.3f ms, %.0f%%)\n",
                    (long long)lc.slices, (double)lc.slots / std::max<int64_t>(1, in.nnz), bw / 1e6, bw / g_copy_bw * 1e3,
                    100.0 * bw / (ms_w * 1e-3) / g_copy_bw, bp / 1e6, bp / g_copy_bw * 1e3, 100.0 * bp / (ms_p * 1e-3) / g_copy_bw);
    }
    std::fflush(stdout);
}

// 4. cuSPARSE on the same CSR; returns the fastest algorithm
static int time_cusparse_all(const Csr &A, const std::vector<DnVec> &XV, const DnVec &YV, Inputs &in, Result &res) {
    time_cusparse(A, XV, YV, in.Y, in.ref_w, res.cs, res.cs_err);
    std::printf("cuSPARSE CSR_ALG1 %.4f  CSR_ALG2 %.4f  COO_ALG1 %.4f ms (err %.1e %.1e %.1e)\n", res.cs[0].med, res.cs[1].med,
                res.cs[2].med, res.cs_err[0], res.cs_err[1], res.cs_err[2]);
    std::fflush(stdout);
    int best = 0;
    for (int a = 1; a < 3; ++a)
        if (res.cs[a].med < res.cs[best].med) best = a;
    return best;
}

// 5. cuSPARSE, the gather probe and psv AUTO after psv's reordering (rows and columns relabelled
//    by psv's column ranking: length descending, ties by index)
static void time_reordered(const Csr &A, const int32_t *rank, const std::vector<DnVec> &XV, const DnVec &YV, Probe &probe,
                           Inputs &in, Result &res) {
    const int64_t n = A.nrows, nnz = A.nnz;
    Csr R;
    {
        Dev<int32_t> r2(nnz), c2(nnz);
        map_ids(nnz, rank, A.row, r2);
        map_ids(nnz, rank, A.col, c2);
        R = coo_to_csr(n, A.ncols, nnz, r2, c2, A.val);
    }
    // x is permuted too, but its values do not change the time: reuse the rotation
    time_cusparse(R, XV, YV, in.Y, in.ref_w, res.cs_re, nullptr);
    probe.run(R, "rank order", {0, 8192, 24576}, in.X, in.nx, in.Y, res);
    std::printf("cuSPARSE reordered: CSR_ALG1 %.4f  CSR_ALG2 %.4f  COO_ALG1 %.4f ms\n", res.cs_re[0].med, res.cs_re[1].med,
                res.cs_re[2].med);
    // psv AUTO on the same reordered matrix: what storing rows in rank order would give psv's
    // kernels (x and y stay in the reordered labels: no gather or scatter is timed)
    {
        MatrixHandle PR = build_psv(R, nullptr);
        res.psv_re = in.time(PR.get(), in.s_w);
        std::printf("psv reordered (auto, %s): weighted %.4f ms\n", psv::cuda::plan_description(PR.get()).c_str(), res.psv_re.med);
    }
    std::fflush(stdout);
}

// 7. the other kernels (each a rebuild of the form)
static void time_other_kernels(psv_matrix *PA, Inputs &in, Result &res) {
    for (int ki = 1; ki < kNumKernels; ++ki) {
        if (ki == 1 && res.auto_kernel == PSV_KERNEL_TILE_COMPOSITE) continue;
        if (!O.kernel_on[ki]) continue;
        PK(psv_matrix_set_option(PA, PSV_OPT_KERNEL, kKernels[ki]));
        psv_matrix_info inf;
        PK(psv_matrix_info_get(PA, &inf));
        if (ki == 1) res.rebuild_tc_s = inf.build_seconds;
        time_psv(ki, PA, in, res);
    }
}

// The variant's overrides of the streamed plan's policy (those unset keep p's).
static void stream_overrides(const Opts::Variant &v, psv::cuda::Policy &p) {
    if (v.stream_bps > 0) p.stream_blocks_per_sm = v.stream_bps;
    if (v.stream_rows > 0) p.stream_rows = v.stream_rows;
    if (v.stream_parts_per_sm > 0) p.stream_parts_per_sm = v.stream_parts_per_sm;
    if (v.stream_overlap >= 0) p.stream_overlap_launch = v.stream_overlap != 0;
    if (v.stream_waves > 0) p.stream_scatter_waves = v.stream_waves;
    if (v.stream_window > 0) p.stream_window_max = v.stream_window;
    if (v.stream_block_runs > 0) p.stream_scatter_block_runs = v.stream_block_runs;
}

// Plan PA with the variant's format options under the variant's policy overrides; the
// context's policy is restored before returning. Returns why the variant could not be planned,
// or "" when it was.
static std::string plan_variant(const Opts::Variant &v, psv_matrix *PA, psv_matrix_info &info) {
    const psv::cuda::Policy saved = psv::cuda::policy_of(g_ctx);
    psv::cuda::Policy p = saved;
    p.hot_columns = v.hot;
    p.rank_order_always = v.ranked;
    p.ranked_prefix = v.prefix;
    stream_overrides(v, p);
    std::string why;
    psv::cuda::set_policy(g_ctx, p);
    try {
        PK(psv_matrix_set_option(PA, PSV_OPT_TILE_WIDTH, v.tile_width));
        PK(psv_matrix_set_option(PA, PSV_OPT_MAX_TILES, v.max_tiles));
        PK(psv_matrix_set_option(PA, PSV_OPT_WORKLOAD_SIZE, v.workload_size));
        PK(psv_matrix_set_option(PA, PSV_OPT_KERNEL, v.kernel));
        psv::cuda::replan(PA);
        PK(psv_matrix_info_get(PA, &info));
    } catch (const std::exception &e) {
        why = e.what();
    }
    psv::cuda::set_policy(g_ctx, saved);
    return why;
}

// 8. variants of the form's parameters (the public options and the policy's overrides)
static void time_variants(psv_matrix *PA, Inputs &in, Result &res) {
    for (const auto &v : O.variants) {
        Result::VarRes vr;
        vr.name = v.name;
        const std::string why = plan_variant(v, PA, vr.info);
        if (!why.empty()) {
            std::printf("variant %s: %s\n", v.name.c_str(), why.c_str());
            continue;
        }
        vr.form_s = vr.info.build_seconds;
        vr.err_w = in.error(PA, in.s_w, in.ref_w);
        vr.w = in.time(PA, in.s_w);
        vr.p = in.time(PA, in.s_p);
        std::printf("variant %-22s plan: %s\n", v.name.c_str(), psv::cuda::plan_description(PA).c_str());
        std::printf("variant %-22s weighted %8.4f ms (err %.1e, %.2fx)  pattern %8.4f ms (%.2fx)  tiles %d+%d, width %lld, workloads %lld,"
                    " padding %.3f, form %.3f s\n",
                    v.name.c_str(), vr.w.med, vr.err_w, res.best_cs() / vr.w.med, vr.p.med, res.best_cs() / vr.p.med, vr.info.dense_tiles,
                    vr.info.sparse_tile, (long long)vr.info.tile_width, (long long)vr.info.workloads, vr.info.padding_ratio, vr.form_s);
        std::fflush(stdout);
        res.var.push_back(vr);
        psv::cuda::replan(PA);  // back to the context's policy (restored by plan_variant)
    }
}

// Everything timed on one matrix, in order (PA and the vectors freed on the way out).
static void measure(const Csr &A, Result &res) {
    const int64_t n = A.nrows, nc = A.ncols, nnz = A.nnz;
    MatrixHandle PA = build_auto(A, res);
    int dev = 0;
    CK(cudaGetDevice(&dev));
    Inputs in(A, dev);
    res.nx = in.nx;
    time_psv(0, PA.get(), in, res);
    if (res.auto_kernel == PSV_KERNEL_TILE_COMPOSITE) {  // the same form: no second build
        res.psv_w[1] = res.psv_w[0], res.psv_p[1] = res.psv_p[0];
        res.psv_err_w[1] = res.psv_err_w[0], res.psv_err_p[1] = res.psv_err_p[0];
    }
    std::vector<DnVec> XV;
    for (int k = 0; k < in.nx; ++k) XV.emplace_back(nc, in.X.p + (size_t)k * nc);
    DnVec YV(n, in.Y.p);
    const int best = time_cusparse_all(A, XV, YV, in, res);
    if (O.exhaustive) {  // after AUTO's and cuSPARSE's times; PA is back under AUTO afterwards
        ProductTimer pt{[&](psv_matrix *M) { return in.error(M, in.s_w, in.ref_w); },
                        [&](psv_matrix *M) { return in.time(M, in.s_w); }};
        bench_exhaustive(PA.get(), res, pt);
    }
    // 4b. the gather probe (bench-side, not an SpMV): its best time over the layouts tried, here
    //     the matrix as given (no hot columns), in 5 the rank-ordered matrix with 0, 8192 and
    //     24576 hot columns (24576: 96 KB of shared memory per block, all an SM gives two blocks)
    Probe probe(dev);
    probe.run(A, "as given", {0}, in.X, in.nx, in.Y, res);
    Dev<int32_t> rank;
    Dev<uint64_t> skey;
    rank_columns(A, rank, skey, res);
    if (O.reorder && n == nc) time_reordered(A, rank, XV, YV, probe, in, res);
    // 5b. the bench-side prototype (not psv): rank-ordered L2 column tiles
    run_prototypes(A, rank, skey, dev, in.X, in.nx, in.Y, in.ref_w, in.ref_p, res);
    skey.reset();
    // 6. algorithms on the default (auto) form
    if (O.algos && n == nc && nnz <= O.algo_max_nnz && nnz > 0) time_algorithms(A, PA.get(), best, res);
    time_other_kernels(PA.get(), in, res);
    time_variants(PA.get(), in, res);
}

static void bench_matrix(const std::string &spec, const std::string &kind) {
    Result res;
    res.kind = kind;
    std::printf("\n=== %s ===\n", spec.c_str());
    std::fflush(stdout);
    Csr A = load_csr(spec, res);
    measure(A, res);
    pool_trim();
    g_results.push_back(res);
}

// ---- main ----------------------------------------------------------------------------------------

static void usage() {
    std::fprintf(stderr,
                 "usage: psv_bench [--runs R] [--warmup W] [--json F] [--csv F] [--svg F] [--no-algos] [--no-reorder]\n"
                 "                 [--no-flush] [--rwr-max-nnz N] [--algo-max-nnz N] [--seed S] [--contrast|--powerlaw]\n"
                 "                 [--variant tw=N,maxt=M,wl=W,kernel=auto|tc|coo|csr|stream,hot=H,ranked=0|1,prefix=P,sbps=N,srows=N,sppm=N,slap=0|1,swv=N,swin=N,sbr=N]...\n"
                 "                 [--policy sbps=N,...] [--exhaustive] [--tune FILE] MATRIX...\n"
                 "  MATRIX: rmat:SCALE[:EF] | stencil:N | PATH[@LABEL]\n"
                 "       psv_bench --capacity [--weighted] [--transpose auto|cache|push] rmat:SCALE[:EF]...\n"
                 "  (capacity: R-MAT generated in chunks into psv's streamed construction, then PageRank)\n"
                 "       psv_bench --partition P[,P...] MATRIX...\n"
                 "  (partition: each part's product of a row and of column partitionings, timed alone)\n"
                 "       psv_bench --ranks P[,P...] [--devices D] [--host-build] rmat:SCALE[:EF]...\n"
                 "  (ranks: P rank contexts, each generating its share, built on the devices or with --host-build\n"
                 "   through the host; PageRank and product scaling)\n");
    std::exit(2);
}

// tw=N,maxt=M,wl=W,kernel=auto|tc|coo|csr|stream,hot=H,ranked=0|1,prefix=P,sbps=N,srows=N,sppm=N,slap=0|1,swv=N,swin=N,sbr=N  (unset: the defaults)
// stream_only (--policy): the streamed-plan keys alone (the others are a matrix's options).
static Opts::Variant parse_variant(const std::string &spec, bool stream_only = false) {
    Opts::Variant v;
    v.name = spec;
    size_t p = 0;
    while (p < spec.size()) {
        size_t e = spec.find(',', p);
        if (e == std::string::npos) e = spec.size();
        const std::string kv = spec.substr(p, e - p);
        const size_t eq = kv.find('=');
        if (eq == std::string::npos) usage();
        const std::string k = kv.substr(0, eq), val = kv.substr(eq + 1);
        const bool stream_key = k == "sbps" || k == "srows" || k == "sppm" || k == "slap" || k == "swv" || k == "swin" || k == "sbr";
        if (stream_only && !stream_key) usage();
        if (k == "tw") v.tile_width = std::atoll(val.c_str());
        else if (k == "maxt") v.max_tiles = std::atoll(val.c_str());
        else if (k == "wl") v.workload_size = std::atoll(val.c_str());
        else if (k == "kernel")
            v.kernel = val == "auto" ? PSV_KERNEL_AUTO : val == "coo" ? PSV_KERNEL_TILE_COO
                     : val == "csr"  ? PSV_KERNEL_CSR : val == "stream" ? PSV_KERNEL_STREAM : PSV_KERNEL_TILE_COMPOSITE;
        else if (k == "sbps") v.stream_bps = std::atoi(val.c_str());
        else if (k == "srows") v.stream_rows = std::atoll(val.c_str());
        else if (k == "sppm") v.stream_parts_per_sm = std::atoll(val.c_str());
        else if (k == "slap") v.stream_overlap = std::atoi(val.c_str());
        else if (k == "swv") v.stream_waves = std::atoi(val.c_str());
        else if (k == "swin") v.stream_window = std::atoll(val.c_str());
        else if (k == "sbr") v.stream_block_runs = std::atoll(val.c_str());
        else if (k == "hot") v.hot = std::atoll(val.c_str());
        else if (k == "ranked") v.ranked = std::atoi(val.c_str()) != 0;
        else if (k == "prefix") v.prefix = std::atoll(val.c_str());
        else usage();
        p = e + 1;
    }
    return v;
}

// A comma list of integers ("none": empty): --proto-tw's tile widths (0: L2 / 16 bytes, -1: one
// tile), --partition's part counts.
static std::vector<int64_t> parse_int_list(const std::string &l) {
    std::vector<int64_t> tw;
    if (l != "none")
        for (size_t p = 0; p <= l.size();) {
            size_t e = l.find(',', p);
            if (e == std::string::npos) e = l.size();
            tw.push_back(std::atoll(l.substr(p, e - p).c_str()));
            p = e + 1;
        }
    return tw;
}

// The options into O; the matrices with their kind (powerlaw / contrast), in order.
static std::vector<std::pair<std::string, std::string>> parse_args(int argc, char **argv) {
    std::vector<std::pair<std::string, std::string>> mats;
    std::string kind = "powerlaw";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) usage();
            return argv[++i];
        };
        if (a == "--runs") O.runs = std::max(1, std::atoi(next().c_str()));
        else if (a == "--warmup") O.warmup = std::max(0, std::atoi(next().c_str()));
        else if (a == "--json") O.json = next();
        else if (a == "--csv") O.csv = next();
        else if (a == "--svg") O.svg = next();
        else if (a == "--no-algos") O.algos = false;
        else if (a == "--no-reorder") O.reorder = false;
        else if (a == "--kernels") {  // comma list of kernel names (auto is always timed)
            const std::string l = next();
            for (int k = 1; k < kNumKernels; ++k) O.kernel_on[k] = l.find(psv_kernel_name(kKernels[k])) != std::string::npos;
        }
        else if (a == "--no-flush") O.flush = false;
        else if (a == "--alg-reps") O.alg_reps = std::max(1, std::atoi(next().c_str()));
        else if (a == "--proto-tw") O.proto_tw = parse_int_list(next());
        else if (a == "--rwr-max-nnz") O.rwr_max_nnz = std::atoll(next().c_str());
        else if (a == "--algo-max-nnz") O.algo_max_nnz = std::atoll(next().c_str());
        else if (a == "--seed") O.seed = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--variant") O.variants.push_back(parse_variant(next()));
        else if (a == "--policy") O.policy = parse_variant(next(), true);
        else if (a == "--exhaustive") O.exhaustive = true;
        else if (a == "--tune") O.tune = next();
        else if (a == "--contrast") kind = "contrast";
        else if (a == "--capacity") kind = "capacity";
        else if (a == "--partition") {
            kind = "partition";
            g_partition_parts.clear();
            for (const int64_t p : parse_int_list(next())) g_partition_parts.push_back((int)p);
        }
        else if (a == "--ranks") {
            g_ranks.clear();
            for (const int64_t p : parse_int_list(next())) g_ranks.push_back((int)p);
            if (g_ranks.empty()) usage();
        }
        else if (a == "--devices") g_devices = std::max(1, std::atoi(next().c_str()));
        else if (a == "--host-build") g_host_build = true;
        else if (a == "--weighted") O.capacity_weighted = true;
        else if (a == "--transpose") {
            const std::string t = next();
            O.capacity_transpose = t == "cache" ? PSV_TRANSPOSE_CACHE : t == "push" ? PSV_TRANSPOSE_PUSH : PSV_TRANSPOSE_AUTO;
        }
        else if (a == "--powerlaw") kind = "powerlaw";
        else if (a == "-h" || a == "--help") usage();
        else if (!a.empty() && a[0] == '-') usage();
        else mats.emplace_back(a, kind);
    }
    if (mats.empty()) usage();
    return mats;
}

static double measure_copy_bw() {
    const size_t bytes = (size_t)1 << 30;
    Dev<char> a(bytes), b(bytes);
    CK(cudaMemsetAsync(a.p, 1, bytes, g_st));
    const bool f = O.flush;
    O.flush = false;
    const int runs = O.runs;
    O.runs = 20;
    Stat s = g_timer.run([&](int) { CK(cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice, g_st)); });
    O.flush = f, O.runs = runs;
    return 2.0 * (double)bytes / (s.med * 1e-3);
}

// The context, its stream, cuSPARSE on it, the device's description, the timer and the copy
// bandwidth every share is measured against.
static void setup() {
    if (!psv_backend_available(PSV_BACKEND_CUDA)) die("no CUDA device (or psv built without CUDA)");
    PK(psv_context_create(PSV_BACKEND_CUDA, 0, &g_ctx));
    g_st = (cudaStream_t)psv::cuda::stream_of(psv::cuda::backend_of(g_ctx));
    {  // --policy: every streamed plan of the run, PageRank's too
        psv::cuda::Policy p = psv::cuda::policy_of(g_ctx);
        stream_overrides(O.policy, p);
        psv::cuda::set_policy(g_ctx, p);
    }
    CS(cusparseCreate(&g_sp));
    CS(cusparseSetStream(g_sp, g_st));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int rtv = 0, drv = 0, spv = 0;
    CK(cudaRuntimeGetVersion(&rtv));
    CK(cudaDriverGetVersion(&drv));
    CS(cusparseGetProperty(MAJOR_VERSION, &spv));
    int spmin = 0;
    CS(cusparseGetProperty(MINOR_VERSION, &spmin));
    char dn[512];
    std::snprintf(dn, sizeof dn, "%s (%d SMs, %d MB L2, CUDA runtime %d, driver %d, cuSPARSE %d.%d)", prop.name, prop.multiProcessorCount,
                  prop.l2CacheSize >> 20, rtv, drv, spv, spmin);
    g_device = dn;
    if (!O.tune.empty()) {
        std::printf("tuning the device (psv_context_tune, full effort) into %s...\n", O.tune.c_str());
        std::fflush(stdout);
        const double t0 = now_s();
        const psv_status st = psv_context_tune(g_ctx, O.tune.c_str(), 1, 1);
        if (st != PSV_SUCCESS) die("psv_context_tune: %s (%s)", psv_status_string(st), psv_context_last_error(g_ctx));
        std::printf("tuned in %.1f s\n", now_s() - t0);
        pool_trim();
    }
    std::printf("tuning table: %s\n", psv_context_tuning_text(g_ctx));
    g_timer.init((size_t)prop.l2CacheSize);
    g_copy_bw = measure_copy_bw();
    std::printf("device: %s\ncopy bandwidth: %.3f TB/s (1 GiB device-to-device, read + write)\n", g_device.c_str(), g_copy_bw / 1e12);
}

int main(int argc, char **argv) {
    const auto mats = parse_args(argc, argv);
    if (!g_ranks.empty()) {  // no context of its own: each rank makes one
        std::vector<std::string> specs;
        for (auto &m : mats) specs.push_back(m.first);
        return bench_ranks(g_ranks, g_devices, g_host_build, specs);
    }
    setup();
    for (auto &m : mats) {
        try {
            if (m.second == "capacity") {
                bench_capacity(m.first, O.capacity_weighted, O.capacity_transpose);
                continue;
            }
            if (m.second == "partition") {
                Result res;
                std::printf("\n=== %s: partitioned ===\n", m.first.c_str());
                const Csr A = load_csr(m.first, res);
                bench_partition(A, res.name, g_partition_parts);
                pool_trim();
                continue;
            }
            bench_matrix(m.first, m.second);
        } catch (const psv::Error &e) {
            std::printf("%s: psv error: %s\n", m.first.c_str(), e.what());
        } catch (const std::exception &e) {
            std::printf("%s: error: %s\n", m.first.c_str(), e.what());
        }
        write_outputs();  // after every matrix: a later failure keeps what was measured
    }
    if (!g_results.empty()) print_table();
    print_exhaustive_table();
    print_partition_table();
    write_outputs();
    g_timer.release();
    CS(cusparseDestroy(g_sp));
    psv_context_free(&g_ctx);
    return 0;
}
