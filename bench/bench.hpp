// psv_bench's shared pieces: checks, device buffers, the stream, the timer, the options and the
// results (see psv_bench.cu for what the bench measures).
//
//   psv_bench.cu     the driver: options, main, the per-matrix sequence
//   generate.cu      the matrices: R-MAT and stencil on the device, files read through psv
//   device_csr.cu    COO -> CSR on the device, column ranking, references and error measures
//   cusparse_ref.cu/.hpp  the cuSPARSE reference: SpMV and the cuSPARSE-based PageRank / HITS / RWR
//   algos.cu         the algorithms timed: psv against the cuSPARSE-based versions
//   probe.cu/.hpp    the gather probe (bench-side, not an SpMV)
//   prototype.cu     the L2 column-tile prototype (bench-side, not psv)
//   report.cu        the table, JSON, CSV and SVG
//   capacity.cu      --capacity: the largest R-MAT, generated in chunks into psv's construction
//   partition.cu     --partition: rows or columns per part, each part timed alone
//   ranks.cu         --ranks: rank contexts (threads, a GPU each where there are enough), scaling
//   exhaustive.cu    --exhaustive: every candidate plan of the performance model timed, against AUTO's
//   device.cuh       device-code helpers (grid-stride loop, CUB temporaries, warp sums)
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernels.h"
#include "psv/psv.h"

// ---- checks -------------------------------------------------------------------------------------

[[noreturn]] void die(const char *fmt, ...);
#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) die("%s:%d %s: %s", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    } while (0)
#define CKL() CK(cudaGetLastError())
extern psv_context *g_ctx;
// A psv error ends this matrix (main goes on with the next), not the process.
#define PK(x)                                                                                  \
    do {                                                                                       \
        psv_status p_ = (x);                                                                   \
        if (p_ < 0) {                                                                          \
            char m_[1024];                                                                     \
            std::snprintf(m_, sizeof m_, "%s:%d %s: %s (%s)", __FILE__, __LINE__, #x,          \
                          psv_status_string(p_), psv_context_last_error(g_ctx));               \
            throw std::runtime_error(m_);                                                      \
        }                                                                                      \
    } while (0)

double median(std::vector<double> v);
double now_s();

// ---- device memory ------------------------------------------------------------------------------

// Release the blocks psv's device pool keeps cached (after a device synchronisation).
void pool_trim();

template <class T> struct Dev {
    T *p = nullptr;
    size_t n = 0;
    Dev() = default;
    explicit Dev(size_t count) { alloc(count); }
    void alloc(size_t count) {
        reset();
        n = count;
        if (!count) return;
        cudaError_t e = cudaMalloc(&p, count * sizeof(T));
        if (e == cudaErrorMemoryAllocation) {  // psv's pool may hold freed blocks (up to 1/4 of memory)
            (void)cudaGetLastError();
            pool_trim();
            e = cudaMalloc(&p, count * sizeof(T));
        }
        if (e != cudaSuccess) die("cudaMalloc(%zu bytes): %s", count * sizeof(T), cudaGetErrorString(e));
    }
    void reset() {
        if (p) CK(cudaFree(p));
        p = nullptr;
        n = 0;
    }
    Dev(Dev &&o) noexcept : p(o.p), n(o.n) { o.p = nullptr, o.n = 0; }
    Dev &operator=(Dev &&o) noexcept {
        if (this != &o) {
            reset();
            p = o.p, n = o.n;
            o.p = nullptr, o.n = 0;
        }
        return *this;
    }
    Dev(const Dev &) = delete;
    ~Dev() { reset(); }
    operator T *() const { return p; }
};

// psv's own stream: every bench launch and cuSPARSE call runs on it (per thread: --ranks's rank
// threads each launch on their own rank's stream, on their own device)
extern thread_local cudaStream_t g_st;

// Blocks for a grid-stride loop over n items.
inline unsigned grid(int64_t n, int threads = 256) {
    int64_t b = (n + threads - 1) / threads;
    return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, 132LL * 64));
}

// splitmix64 finalizer
__host__ __device__ inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// ---- device COO and CSR -------------------------------------------------------------------------

struct Coo {
    int64_t nrows = 0, ncols = 0, m = 0;
    Dev<int32_t> row, col;
    Dev<float> val;  // empty: pattern
};
struct Csr {
    int64_t nrows = 0, ncols = 0, nnz = 0;
    Dev<int32_t> rp, col, row;  // row: COO row index of each entry (for COO_ALG1)
    Dev<float> val;
};

// ---- options ------------------------------------------------------------------------------------

// The kernels timed, in the columns' order (their names from the kernel table, psv_kernel_name).
constexpr int kNumKernels = 6;

struct Opts {
    int runs = 50, warmup = 5;
    bool algos = true, reorder = true, flush = true;
    // --kernels: which of kKernels to time besides auto (SELL only when asked for: on a power-law
    // matrix its slices pad many times over)
    bool kernel_on[kNumKernels] = {true, true, true, true, true, false};
    int64_t rwr_max_nnz = 20000000, algo_max_nnz = 600000000;
    int alg_reps = 1;  // timed calls of each algorithm (median), after a warm-up where one is needed
    uint64_t seed = 20261121;
    bool capacity_weighted = false;          // --capacity: fp32 weights (else a pattern)
    int32_t capacity_transpose = PSV_TRANSPOSE_AUTO;  // --capacity: PageRank's A' products
    std::string json, csv, svg;
    struct Variant {
        std::string name;
        int64_t tile_width = 0, max_tiles = -1, workload_size = 0;  // the format options (defaults)
        psv_kernel kernel = PSV_KERNEL_AUTO;
        int64_t hot = -1;     // the policy's hot_columns while the variant is planned
        bool ranked = false;  // the policy's rank_order_always while it is planned
        int64_t prefix = -1;  // the policy's ranked_prefix while it is planned
        int stream_bps = 0;             // the policy's stream_blocks_per_sm (0: as chosen)
        int64_t stream_rows = 0;        // ... stream_rows (0: as chosen)
        int64_t stream_parts_per_sm = 0;  // ... stream_parts_per_sm (0: as chosen)
        int stream_overlap = -1;          // ... stream_overlap_launch (-1: as chosen)
        int stream_waves = 0;             // ... stream_scatter_waves (0: as chosen)
        int64_t stream_window = 0;        // ... stream_window_max (0: as chosen)
        int64_t stream_block_runs = 0;    // ... stream_scatter_block_runs (0: as chosen)
    };
    std::vector<Variant> variants;  // extra psv format options timed on every matrix
    Variant policy;                 // --policy: its streamed-plan overrides on the context, for every plan of the run
    std::vector<int64_t> proto_tw = {0, -1};  // bench prototype tile widths (0: L2 / 16 bytes; -1: one tile)
    bool exhaustive = false;  // --exhaustive: every candidate plan of the model timed (exhaustive.cu)
    std::string tune;         // --tune FILE: psv_context_tune (full effort) into FILE before the matrices
};
extern Opts O;

// ---- timing -------------------------------------------------------------------------------------

struct Stat {
    double med = NAN, min = NAN, p90 = NAN;
};
// CUDA events around each run on g_st, median of O.runs after O.warmup warm-ups; before every
// timed run the L2 is flushed (a memset of 2x L2 outside the events) unless --no-flush.
struct Timer {
    std::vector<cudaEvent_t> a, b;
    Dev<char> flushbuf;
    size_t flush_bytes = 0;
    void init(size_t l2);
    void release();  // before main returns: a static's destructor would run after the driver is gone
    template <class F> Stat run(F &&f) {
        const int R = std::min(O.runs, 1000);
        for (int i = 0; i < O.warmup; ++i) f(i);
        for (int i = 0; i < R; ++i) {
            if (O.flush) CK(cudaMemsetAsync(flushbuf.p, i & 0xff, flush_bytes, g_st));
            CK(cudaEventRecord(a[i], g_st));
            f(i);
            CK(cudaEventRecord(b[i], g_st));
        }
        CK(cudaStreamSynchronize(g_st));
        return collect(R);
    }

private:
    Stat collect(int R) const;  // median, min and p90 of the R recorded runs
};
extern Timer g_timer;

// ---- results ------------------------------------------------------------------------------------

struct Result {
    std::string name, kind;  // kind: powerlaw / contrast
    int64_t n = 0, ncols = 0, nnz_in = 0, nnz = 0;
    double gen_s = NAN, csr_s = NAN;
    double build_s = NAN, rebuild_tc_s = NAN;  // device CSR -> psv matrix (form included); form alone
    psv_matrix_info info{};
    int auto_kernel = 0;
    // ms, weighted (plus-times) and pattern (plus-second)
    Stat psv_w[kNumKernels], psv_p[kNumKernels];  // auto, tile-composite, tile-coo, csr, stream, sell
    double psv_err_w[kNumKernels] = {NAN, NAN, NAN, NAN, NAN, NAN}, psv_err_p[kNumKernels] = {NAN, NAN, NAN, NAN, NAN, NAN};
    int64_t stream_bytes_w = 0, stream_bytes_p = 0;  // the streamed plan's byte model (0: none)
    Stat cs[3], cs_re[3];  // CSR_ALG1, CSR_ALG2, COO_ALG1; on the reordered matrix
    Stat psv_re;           // psv AUTO, weighted, on the reordered matrix (the row order's effect on psv)
    double cs_err[3] = {NAN, NAN, NAN};
    int nx = 1;
    // algorithms (seconds)
    int pr_it_psv = -1, pr_it_cs = -1;
    double pr_psv = NAN, pr_cs = NAN, pr_l1 = NAN, pr_maxrel = NAN, transpose_s = NAN;
    double transpose_bytes = NAN;  // device bytes of A's cached transpose after PageRank's first call
    double pr_psv1 = NAN, pr_cs1 = NAN;  // one iteration (setup + 1): per-iteration = (full - one) / (it - 1)
    double pr_iter_psv() const { return pr_it_psv > 1 ? (pr_psv - pr_psv1) / (pr_it_psv - 1) : pr_psv; }
    double pr_iter_cs() const { return pr_it_cs > 1 ? (pr_cs - pr_cs1) / (pr_it_cs - 1) : pr_cs; }
    int hits_it_psv = -1, hits_it_cs = -1;
    double hits_psv = NAN, hits_cs = NAN, hits_l1 = NAN;
    int rwr_it_psv = -1, rwr_it_cs = -1;
    double rwr_graph_s = NAN, rwr_psv = NAN, rwr_cs = NAN, rwr_l1 = NAN;  // rwr_*: 25 single queries, total
    double rwr_batch_psv = NAN, rwr_batch_l1 = NAN;
    std::string note;
    struct VarRes {
        std::string name;
        Stat w, p;
        double err_w = NAN, form_s = NAN;
        psv_matrix_info info{};
    };
    std::vector<VarRes> var;
    struct ProtoRes {
        int64_t tw = 0, segs = 0;
        int T = 0;
        Stat w, p;
        double err_w = NAN, err_p = NAN, build_s = NAN;
    };
    std::vector<ProtoRes> proto;
    double mass[5] = {NAN, NAN, NAN, NAN, NAN};  // share of entries in the top 2^16, 2^20, 2^22, 2^23, 2^24 ranked columns
    Stat probe_w, probe_p;  // the gather probe's best time over the layouts tried (not an SpMV)
    std::string probe_layout_w, probe_layout_p;

    double best_cs() const { return std::min({cs[0].med, cs[1].med, cs[2].med}); }
    double best_cs_re() const { return std::min({cs_re[0].med, cs_re[1].med, cs_re[2].med}); }
    double bytes() const { return 8.0 * (double)nnz + 16.0 * (double)n; }
    // device bytes per stored entry of psv's matrix under AUTO, as built
    double device_bytes_per_entry() const { return nnz > 0 ? (double)info.device_bytes / (double)nnz : NAN; }
};
extern std::vector<Result> g_results;
extern double g_copy_bw;  // bytes/s
extern std::string g_device;
inline double eff_share_of(double bytes, double ms) { return bytes / (ms * 1e-3) / g_copy_bw; }
extern const psv_kernel kKernels[kNumKernels];
extern const char *kCsName[3];

// A psv matrix handle freed with psv_matrix_free.
inline void free_matrix(psv_matrix *m) { psv_matrix_free(&m); }
using MatrixHandle = std::unique_ptr<psv_matrix, void (*)(psv_matrix *)>;

// ---- capacity.cu ----------------------------------------------------------------------------------

// --capacity rmat:SCALE[:EF]: streamed construction of R-MAT generated in chunks, SpMV beside
// cuSPARSE where it fits, PageRank to convergence; device bytes per edge at each stage.
void bench_capacity(const std::string &spec, bool weighted, int32_t transpose_mode);

// ---- generate.cu ----------------------------------------------------------------------------------

// The matrix named by spec (rmat:SCALE[:EF], stencil:N, PATH[@LABEL]) as device tuples; name
// receives its label, gen_s the seconds it took.
Coo load_matrix(const std::string &spec, std::string &name, double &gen_s);
// v[0..m) = pseudo-random values in (0, 1] from seed.
void random_values(int64_t m, uint64_t seed, float *v);

// ---- device_csr.cu --------------------------------------------------------------------------------

// Sort, duplicates removed keeping the first in input order; tuples with row < 0 are dropped.
Csr coo_to_csr(int64_t nrows, int64_t ncols, int64_t m, const int32_t *r, const int32_t *c, const float *v);
void fill_vec(int64_t n, float v, float *x);
void i32_to_i64(int64_t n, const int32_t *a, int64_t *b);
// y = A x in double (vals nullptr: pattern)
void ref_spmv(int64_t n, const int32_t *rp, const int32_t *col, const float *val, const float *x, double *y);
double rel_err(int64_t n, const float *y, const double *ref);
void rank_diff(int64_t n, const float *a, const float *b, double &l1, double &maxrel);
double read_scalar(const double *d);
// psv's column ranking (length descending, ties by index): skey sorted, rank[column]; res.mass
// gets the share of entries in the top 2^16 .. 2^24 ranked columns (and a line is printed).
void rank_columns(const Csr &A, Dev<int32_t> &rank, Dev<uint64_t> &skey, Result &res);
// out[e] = rank[in[e]]
void map_ids(int64_t m, const int32_t *rank, const int32_t *in, int32_t *out);
// inv[i] = 1 / (row i's length), 0 for an empty row
void inv_degree(int64_t n, const int32_t *rp, float *inv);

// ---- report.cu ------------------------------------------------------------------------------------

void print_table();
void write_outputs();
// "k": v, (null where v is not finite; no comma where comma is false), for the JSON writers
void jnum(FILE *f, const char *k, double v, bool comma = true);

// ---- exhaustive.cu --------------------------------------------------------------------------------

// How --exhaustive measures a plan, as psv_bench measures AUTO (psv_bench.cu's Inputs): the
// weighted fp32 plus-times product's relative error against the fp64 reference, and its time.
struct ProductTimer {
    std::function<double(psv_matrix *)> error;
    std::function<Stat(psv_matrix *)> time;
};
// --exhaustive on one matrix: PA as built under AUTO (res: its description, AUTO's time and
// cuSPARSE's), every candidate of its last rebuild built with the candidate's options, checked to
// build that plan, checked and timed with t; PA is rebuilt with its original options afterwards.
// The results are kept for the table and the JSON.
void bench_exhaustive(psv_matrix *PA, const Result &res, const ProductTimer &t);
// The table of every matrix run so far (chosen against best, predicted against measured) and the
// issue's targets; nothing where none ran.
void print_exhaustive_table();
// The JSON members `, "tuning_table": ..., "exhaustive": [...]` (written where --exhaustive is on).
void json_exhaustive(FILE *f);

// ---- prototype.cu ---------------------------------------------------------------------------------

// The bench-side prototype (not psv) for each of O.proto_tw, from A and psv's column ranking
// (rank, skey sorted); x rotates among the nx vectors of X into Y; res.proto gets the results.
void run_prototypes(const Csr &A, const int32_t *rank, const uint64_t *skey, int dev, const float *X, int nx, float *Y,
                    const double *ref_w, const double *ref_p, Result &res);
