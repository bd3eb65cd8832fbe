// psv_bench: psv's SpMV kernels against cuSPARSE on the very same matrix, on one GPU, in one
// process. See bench/NOTES.md for what it measures and bench/run.sh for the standard set.
//
//   psv_bench [options] MATRIX...
//   MATRIX: rmat:SCALE[:EF]    R-MAT (Graph500 a=.57 b=.19 c=.19 d=.05), random relabelling,
//                              generated on the device (EF: edge factor, default 16)
//           stencil:N          3-D 27-point stencil on an N^3 grid (non-power-law contrast)
//           PATH[@LABEL]       any file psv reads (Matrix Market, edge list, .gz)
//   --runs R (50) --warmup W (5) --json F --csv F --svg F --no-algos --no-reorder
//   --rwr-max-nnz N (20000000) --algo-max-nnz N (600000000) --seed S --no-flush
//   --contrast (mark the following matrices as non-power-law)  --powerlaw (back)
//   --variant tw=N,maxt=M,wl=W,kernel=auto|tc|coo|csr,hot=H,ranked=0|1,prefix=P   (repeatable) also
//                              time psv with these format options (tile width, max dense tiles,
//                              workload size, kernel; hot: AUTO's hot columns in shared memory, 0 =
//                              none, through psv's test hook chunk_hot_columns; ranked=1: AUTO's x
//                              in column rank order on any matrix, through chunk_rank_order_always;
//                              prefix: the ranks a ranked hot-kernel plan keeps, through
//                              chunk_ranked_prefix)
//   --proto-tw LIST            tile widths of the bench-side prototype (not psv): 0 = L2/16 bytes,
//                              -1 = one tile, "none" = skip (default "0,-1")
//   --alg-reps R (1)           timed calls per algorithm (PageRank, HITS)
//   --kernels LIST             which of tile-composite,tile-coo,csr to time besides auto (all)
//
// Timing: CUDA events on psv's own stream (psv::cuda::stream_of), median of R runs after W
// warm-ups; before every timed run the L2 is flushed (a memset of 2x L2 outside the events) and
// x rotates among enough vectors to exceed 2x L2. cuSPARSE runs on the same stream.
// Duplicates are removed once (the first value kept) and the resulting CSR (int32 indices, fp32
// values) is what cuSPARSE gets and what psv builds its form from (device-resident build).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "algo/algorithms.hpp"
#include "core/backend.hpp"
#include "core/objects.hpp"
#include "core/test_hooks.hpp"
#include "cuda/cuda_backend.cuh"  // only for the pool's trim (see pool_trim)
#include "cuda/cuda_internal.hpp"
#include "io/read.hpp"
#include "psv/psv.h"

#include <zlib.h>

namespace cubns = CUB_NS_QUALIFIER;

// ---- checks -------------------------------------------------------------------------------------

[[noreturn]] static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "psv_bench: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(1);
}
#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) die("%s:%d %s: %s", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    } while (0)
#define CKL() CK(cudaGetLastError())
#define CS(x)                                                                                  \
    do {                                                                                       \
        cusparseStatus_t s_ = (x);                                                             \
        if (s_ != CUSPARSE_STATUS_SUCCESS) die("%s:%d %s: %s", __FILE__, __LINE__, #x, cusparseGetErrorString(s_)); \
    } while (0)
static psv_context *g_ctx = nullptr;
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

static double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}
static double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- device memory ------------------------------------------------------------------------------

static void pool_trim();

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

static cudaStream_t g_st = nullptr;

template <class F> static void cub_run(F &&f) {
    size_t bytes = 0;
    CK(f((void *)nullptr, bytes));
    Dev<char> tmp(std::max<size_t>(bytes, 1));
    CK(f((void *)tmp.p, bytes));
}

static unsigned grid(int64_t n, int threads = 256) {
    int64_t b = (n + threads - 1) / threads;
    return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, 132LL * 64));
}
#define GLOOP(i, n) for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

__host__ __device__ inline uint64_t mix64(uint64_t z) {  // splitmix64 finalizer
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
__device__ inline float unit_float(uint64_t h) { return ((float)(h >> 40) + 1.0f) * (1.0f / 16777216.0f); }  // (0, 1]

static int bits_for(uint64_t x) {  // bits to write x (>= 1)
    int b = 1;
    while (b < 64 && (x >> b)) ++b;
    return b;
}

// ---- generators ---------------------------------------------------------------------------------

__global__ void rmat_kernel(int64_t m, int scale, uint64_t seed, int32_t *src, int32_t *dst) {
    const float a = 0.57f, b = 0.19f, c = 0.19f;
    GLOOP(e, m) {
        uint32_t r = 0, q = 0;
        uint64_t h = 0;
        for (int l = 0; l < scale; ++l) {
            if ((l & 1) == 0) h = mix64(seed ^ ((uint64_t)e * 64 + (uint64_t)l));
            const float u = (float)((l & 1) ? (uint32_t)(h >> 32) >> 8 : (uint32_t)h >> 8) * (1.0f / 16777216.0f);
            const uint32_t bit = 1u << (scale - 1 - l);
            if (u < a) {
            } else if (u < a + b) {
                q |= bit;
            } else if (u < a + b + c) {
                r |= bit;
            } else {
                r |= bit;
                q |= bit;
            }
        }
        src[e] = (int32_t)r;
        dst[e] = (int32_t)q;
    }
}
__global__ void random_keys_kernel(int64_t n, uint64_t seed, uint32_t *key, int32_t *id) {
    GLOOP(i, n) {
        key[i] = (uint32_t)mix64(seed ^ (0xA5A5A5A5ull << 32) ^ (uint64_t)i);
        id[i] = (int32_t)i;
    }
}
__global__ void relabel_kernel(int64_t m, const int32_t *perm, int32_t *a, int32_t *b) {
    GLOOP(e, m) {
        a[e] = perm[a[e]];
        b[e] = perm[b[e]];
    }
}
__global__ void random_values_kernel(int64_t m, uint64_t seed, float *v) {
    GLOOP(e, m) v[e] = unit_float(mix64(seed ^ (0x5151ull << 48) ^ (uint64_t)e));
}
__global__ void stencil_kernel(int64_t N, int32_t *row, int32_t *col) {
    const int64_t n = N * N * N;
    GLOOP(t, n * 27) {
        const int64_t i = t / 27;
        const int k = (int)(t % 27);
        const int64_t x = i % N, y = (i / N) % N, z = i / (N * N);
        const int64_t xx = x + k % 3 - 1, yy = y + (k / 3) % 3 - 1, zz = z + k / 9 - 1;
        const bool ok = xx >= 0 && xx < N && yy >= 0 && yy < N && zz >= 0 && zz < N;
        row[t] = ok ? (int32_t)i : -1;
        col[t] = ok ? (int32_t)((zz * N + yy) * N + xx) : 0;
    }
}

// ---- COO -> CSR (sort, duplicates removed keeping the first in input order) --------------------

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

__global__ void make_keys_kernel(int64_t m, const int32_t *r, const int32_t *c, int cb, int64_t nrows, uint64_t *key, uint32_t *id) {
    GLOOP(e, m) {
        const int32_t rr = r[e];
        key[e] = rr < 0 ? ((uint64_t)nrows << cb) : (((uint64_t)rr << cb) | (uint64_t)c[e]);
        if (id) id[e] = (uint32_t)e;
    }
}
__global__ void flag_kernel(int64_t m, const uint64_t *key, int cb, int64_t nrows, uint32_t *flag) {
    GLOOP(e, m) flag[e] = (e == 0 || key[e] != key[e - 1]) && (key[e] >> cb) < (uint64_t)nrows;
}
__global__ void compact_kernel(int64_t m, const uint64_t *key, const uint32_t *flag, const uint32_t *pos, int cb,
                               const uint32_t *id, const float *vin, int32_t *row, int32_t *col, float *vout) {
    GLOOP(e, m) {
        if (!flag[e]) continue;
        const uint32_t p = pos[e];
        row[p] = (int32_t)(key[e] >> cb);
        col[p] = (int32_t)(key[e] & ((1ull << cb) - 1));
        if (vout) vout[p] = vin[id[e]];
    }
}
__global__ void row_ptr_kernel(int64_t nrows, int64_t nnz, const int32_t *row, int32_t *rp) {
    GLOOP(i, nrows + 1) {  // first entry with row >= i
        int64_t lo = 0, hi = nnz;
        while (lo < hi) {
            const int64_t mid = (lo + hi) >> 1;
            if (row[mid] < i) lo = mid + 1;
            else hi = mid;
        }
        rp[i] = (int32_t)lo;
    }
}

static Csr coo_to_csr(int64_t nrows, int64_t ncols, int64_t m, const int32_t *r, const int32_t *c, const float *v) {
    if (m >= (int64_t)UINT32_MAX) die("at most 2^32-1 tuples");
    const int cb = bits_for((uint64_t)std::max<int64_t>(1, ncols - 1));
    const int rb = bits_for((uint64_t)nrows);  // row nrows marks a dropped tuple
    Csr A;
    A.nrows = nrows, A.ncols = ncols;
    Dev<uint64_t> key(m), skey(m);
    Dev<uint32_t> id, sid;
    if (v) id.alloc(m), sid.alloc(m);
    make_keys_kernel<<<grid(m), 256, 0, g_st>>>(m, r, c, cb, nrows, key, id.p);
    CKL();
    if (v)
        cub_run([&](void *t, size_t &b) {
            return cubns::DeviceRadixSort::SortPairs(t, b, key.p, skey.p, id.p, sid.p, m, 0, cb + rb, g_st);
        });
    else
        cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortKeys(t, b, key.p, skey.p, m, 0, cb + rb, g_st); });
    key.reset();
    id.reset();
    Dev<uint32_t> flag(m + 1), pos(m + 1);
    flag_kernel<<<grid(m), 256, 0, g_st>>>(m, skey, cb, nrows, flag);
    CKL();
    CK(cudaMemsetAsync(flag.p + m, 0, 4, g_st));
    cub_run([&](void *t, size_t &b) { return cubns::DeviceScan::ExclusiveSum(t, b, flag.p, pos.p, m + 1, g_st); });
    uint32_t nnz = 0;
    CK(cudaMemcpyAsync(&nnz, pos.p + m, 4, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    A.nnz = nnz;
    A.row.alloc(nnz), A.col.alloc(nnz);
    if (v) A.val.alloc(nnz);
    compact_kernel<<<grid(m), 256, 0, g_st>>>(m, skey, flag, pos, cb, sid.p, v, A.row, A.col, A.val.p);
    CKL();
    A.rp.alloc(nrows + 1);
    row_ptr_kernel<<<grid(nrows + 1), 256, 0, g_st>>>(nrows, (int64_t)nnz, A.row, A.rp);
    CKL();
    CK(cudaStreamSynchronize(g_st));
    return A;
}

// ---- small kernels ------------------------------------------------------------------------------

__global__ void fill_kernel(int64_t n, float v, float *x) { GLOOP(i, n) x[i] = v; }
__global__ void i32_to_i64_kernel(int64_t n, const int32_t *a, int64_t *b) { GLOOP(i, n) b[i] = a[i]; }
// y = A x in double (the reference); vals nullptr: pattern
__global__ void ref_spmv_kernel(int64_t n, const int32_t *rp, const int32_t *col, const float *val, const float *x, double *y) {
    const int lane = threadIdx.x & 31;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < n; i += ((int64_t)gridDim.x * blockDim.x) >> 5) {
        double acc = 0;
        for (int64_t p = rp[i] + lane; p < rp[i + 1]; p += 32) acc += (double)(val ? val[p] : 1.0f) * (double)x[col[p]];
        for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (lane == 0) y[i] = acc;
    }
}
// out[0] += sum (y - ref)^2, out[1] += sum ref^2, out[2] = max |y-ref| / max(|ref|, tiny) via atomicMax on bits
__device__ inline void block_add(double v, double *out) {
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v != 0) atomicAdd(out, v);
}
__global__ void err_kernel(int64_t n, const float *y, const double *ref, double *out) {
    double e = 0, r = 0;
    GLOOP(i, n) {
        const double d = (double)y[i] - ref[i];
        e += d * d;
        r += ref[i] * ref[i];
    }
    block_add(e, out);
    block_add(r, out + 1);
}
__global__ void rank_diff_kernel(int64_t n, const float *a, const float *b, double *out) {
    // out[0] = L1 |a-b|, out[1] = max rel diff (as ordered bits of a non-negative double)
    double l1 = 0, mx = 0;
    GLOOP(i, n) {
        const double d = fabs((double)a[i] - (double)b[i]);
        l1 += d;
        const double den = fmax(fabs((double)b[i]), 1e-30);
        mx = fmax(mx, d / den);
    }
    block_add(l1, out);
    for (int o = 16; o; o >>= 1) mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    if ((threadIdx.x & 31) == 0) atomicMax(reinterpret_cast<unsigned long long *>(out + 1), (unsigned long long)__double_as_longlong(mx));
}
__global__ void col_count_kernel(int64_t m, const int32_t *col, uint32_t *cnt) { GLOOP(e, m) atomicAdd(cnt + col[e], 1u); }
__global__ void rank_keys_kernel(int64_t n, const uint32_t *cnt, uint64_t *key) {
    GLOOP(j, n) key[j] = ((uint64_t)(0xFFFFFFFFu - cnt[j]) << 32) | (uint64_t)j;  // length desc, index asc
}
__global__ void rank_of_kernel(int64_t n, const uint64_t *skey, int32_t *rank) {
    GLOOP(k, n) rank[(uint32_t)skey[k]] = (int32_t)k;
}
__global__ void map_kernel(int64_t m, const int32_t *rank, const int32_t *in, int32_t *out) { GLOOP(e, m) out[e] = rank[in[e]]; }

// PageRank / HITS / RWR vector steps for the cuSPARSE-based versions (same definitions as psv).
__global__ void inv_deg_kernel(int64_t n, const int32_t *rp, float *inv) {
    GLOOP(i, n) {
        const int32_t d = rp[i + 1] - rp[i];
        inv[i] = d ? (float)(1.0 / (double)d) : 0.0f;
    }
}
__global__ void pr_scale_kernel(int64_t n, const float *r, const float *inv, float *w, double *dangling) {
    double s = 0;
    GLOOP(i, n) {
        w[i] = r[i] * inv[i];
        if (inv[i] == 0.0f) s += r[i];
    }
    if (dangling) block_add(s, dangling);
}
__global__ void pr_update_kernel(int64_t n, const float *t, float *r, double damping, const double *dangling, double *diff) {
    const double base = ((1.0 - damping) + damping * *dangling) / (double)n;
    double s = 0;
    GLOOP(i, n) {
        const float v = (float)(base + damping * (double)t[i]);
        s += fabs((double)v - (double)r[i]);
        r[i] = v;
    }
    block_add(s, diff);
}
__global__ void sum_kernel(int64_t n, const float *x, double *out) {
    double s = 0;
    GLOOP(i, n) s += x[i];
    block_add(s, out);
}
__global__ void normalize_diff_kernel(int64_t n, float *x, const double *total, const float *prev, double *diff) {
    const double t = *total;
    double s = 0;
    GLOOP(i, n) {
        const float v = t != 0 ? (float)((double)x[i] / t) : x[i];
        x[i] = v;
        s += fabs((double)v - (double)prev[i]);
    }
    block_add(s, diff);
}
__global__ void rwr_update_kernel(int64_t n, const float *T, float *R, double c, int64_t q, double *diff) {
    double s = 0;
    GLOOP(i, n) {
        const float v = (float)(c * (double)T[i] + (i == q ? 1.0 - c : 0.0));
        s += fabs((double)v - (double)R[i]);
        R[i] = v;
    }
    block_add(s, diff);
}

// ---- gather probe (bench-side, not an SpMV): the ceiling of CSR-order kernels -------------------
// What every product that reads x entry by entry in storage order must do, and nothing more: stream
// the entries (index, and value where weighted) and row_ptr, gather x at every entry (columns < H
// from a copy in shared memory), write y once. No row sums: each thread keeps one running sum,
// written to a scratch slot, so that no load is dead. A warp takes 8 x 32 consecutive entries at a
// time (lane-consecutive: the x reads of neighbouring entries coalesce), all loads in flight
// together; 2 blocks of 1024 threads per SM, alive for the whole pass. Its time bounds from below
// what psv's design family (CSR-order chunks, hot columns in shared memory, the rest of x through
// L1/L2, x in rank order) can reach on a matrix: bench/NOTES.md v6.
constexpr int kProbeThreads = 1024, kProbeUnroll = 8;
template <bool W>
__global__ void __launch_bounds__(kProbeThreads, 2)
    probe_kernel(int64_t nnz, int64_t n, const int32_t *__restrict__ rp, const int32_t *__restrict__ col,
                 const float *__restrict__ val, const float *__restrict__ x, int32_t H, float *__restrict__ y,
                 float *__restrict__ scratch) {
    extern __shared__ float xs[];
    for (int32_t i = threadIdx.x; i < H; i += blockDim.x) xs[i] = __ldg(x + i);
    __syncthreads();
    float acc = 0;
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    constexpr int U = kProbeUnroll;
    for (int64_t base = ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5) * 32 * U; base < nnz; base += warps * 32 * U) {
        int32_t c[U];
        float a[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const int64_t q = base + j * 32 + lane;
            const bool in = q < nnz;
            c[j] = in ? __ldcs(col + q) : 0;
            a[j] = !in ? 0.f : W ? __ldcs(val + q) : 1.f;
        }
#pragma unroll
        for (int j = 0; j < U; ++j) acc += a[j] * (c[j] < H ? xs[c[j]] : __ldg(x + c[j]));
    }
    GLOOP(i, n) y[i] = (float)__ldcs(rp + i + 1);
    scratch[blockIdx.x * (int64_t)blockDim.x + threadIdx.x] = acc;
}

// ---- prototype (bench-side, not psv): L2-sized column tiles of the rank-ordered matrix --------
// The columns are ranked as psv ranks them; tile k holds ranks [k tw, (k+1) tw), so its slice of
// the rank-ordered x (tw x 4 bytes) stays in L2 while the tile's entries stream past. Inside a
// tile only the rows with entries are kept (segments: first entry + row), in row order; G lanes
// per segment, G = the tile's mean segment length rounded up to a power of two. One launch per
// tile; y is zeroed once and every tile adds into it (rows are disjoint within a launch).
// Bytes per product: 8 nnz + 16 per segment (start, row, y read + write) + x gather + 4 n.

__global__ void cum_mass_kernel(int64_t n, const uint64_t *skey, const int64_t *thr, int nthr, unsigned long long *mass) {
    // mass[t] += count of columns ranked below thr[t]
    unsigned long long loc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    GLOOP(j, n) {
        const uint64_t c = 0xFFFFFFFFull - (skey[j] >> 32);
        for (int t = 0; t < nthr; ++t)
            if (j < thr[t]) loc[t] += c;
    }
    for (int t = 0; t < nthr; ++t) {
        unsigned long long v = loc[t];
        for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0 && v) atomicAdd(mass + t, v);
    }
}
__global__ void order_of_kernel(int64_t n, const uint64_t *skey, int32_t *order) { GLOOP(k, n) order[k] = (int32_t)(uint32_t)skey[k]; }
__global__ void stack_rows_kernel(int64_t m, int64_t n, int64_t tw, const int32_t *rank, const int32_t *row, const int32_t *col,
                                  int32_t *srow, int32_t *scol) {
    GLOOP(e, m) {
        const int32_t r = rank[col[e]];
        srow[e] = (int32_t)((int64_t)(r / tw) * n + row[e]);
        scol[e] = r;
    }
}
__global__ void seg_flag_kernel(int64_t m, const int32_t *srow, uint32_t *flag) { GLOOP(e, m) flag[e] = e == 0 || srow[e] != srow[e - 1]; }
__global__ void seg_write_kernel(int64_t m, int64_t n, const int32_t *srow, const uint32_t *flag, const uint32_t *pos, int32_t *seg_start,
                                 int32_t *seg_row, int32_t *seg_srow) {
    GLOOP(e, m) {
        if (!flag[e]) continue;
        const uint32_t s = pos[e];
        seg_start[s] = (int32_t)e;
        seg_row[s] = (int32_t)(srow[e] % n);
        seg_srow[s] = srow[e];
    }
}
__global__ void tile_bounds_kernel(int T, int64_t n, int64_t segs, const int32_t *seg_srow, int64_t *tseg) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > T) return;
    const int64_t v = (int64_t)k * n;  // first segment with stacked row >= k n
    int64_t lo = 0, hi = segs;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if ((int64_t)seg_srow[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    tseg[k] = lo;
}
__global__ void gather_kernel(int64_t n, const int32_t *order, const float *x, float *xr) { GLOOP(k, n) xr[k] = x[order[k]]; }
template <int G>
__global__ void __launch_bounds__(256) proto_tile_kernel(int64_t s0, int64_t s1, const int32_t *__restrict__ seg_start,
                                                         const int32_t *__restrict__ seg_row, const int32_t *__restrict__ col,
                                                         const float *__restrict__ val, const float *__restrict__ xr, float *__restrict__ y) {
    const int64_t s = s0 + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    float acc = 0.0f;
    const bool ok = s < s1;
    if (ok) {
        const int32_t b = seg_start[s], e = seg_start[s + 1];
        if (val)
            for (int32_t p = b + lane; p < e; p += G) acc += val[p] * xr[col[p]];
        else
            for (int32_t p = b + lane; p < e; p += G) acc += xr[col[p]];
    }
#pragma unroll
    for (int o = G / 2; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (ok && lane == 0) y[seg_row[s]] += acc;
}

struct Proto {
    int64_t n = 0, ncols = 0, tw = 0, segs = 0;
    int T = 0;
    Dev<int32_t> order, seg_start, seg_row, col;
    Dev<float> val, xr;
    std::vector<int64_t> tseg;
    std::vector<int> G;
    void run(const float *x, float *y, bool weighted) const {
        CK(cudaMemsetAsync(y, 0, (size_t)n * 4, g_st));
        gather_kernel<<<grid(ncols), 256, 0, g_st>>>(ncols, order, x, xr.p);
        const float *v = weighted ? val.p : nullptr;
        for (int k = 0; k < T; ++k) {
            const int64_t s0 = tseg[k], s1 = tseg[k + 1];
            if (s1 <= s0) continue;
            const int g = G[k];
            const unsigned blocks = (unsigned)(((s1 - s0) * g + 255) / 256);
#define PSV_BENCH_PROTO(GG) \
    case GG: proto_tile_kernel<GG><<<blocks, 256, 0, g_st>>>(s0, s1, seg_start, seg_row, col, v, xr.p, y); break;
            switch (g) {
                PSV_BENCH_PROTO(1) PSV_BENCH_PROTO(2) PSV_BENCH_PROTO(4) PSV_BENCH_PROTO(8) PSV_BENCH_PROTO(16) default :
                    proto_tile_kernel<32><<<blocks, 256, 0, g_st>>>(s0, s1, seg_start, seg_row, col, v, xr.p, y);
            }
#undef PSV_BENCH_PROTO
        }
    }
};

// Build the prototype's form from the CSR A (its COO rows too) and psv's column ranking.
static bool build_proto(Proto &P, const Csr &A, const int32_t *rank, const uint64_t *skey_sorted, int64_t tw) {
    const int64_t n = A.nrows, nc = A.ncols, nnz = A.nnz;
    P.n = n, P.ncols = nc, P.tw = tw;
    P.T = (int)((nc + tw - 1) / tw);
    if ((int64_t)P.T * n >= INT32_MAX) return false;
    P.order.alloc(nc);
    order_of_kernel<<<grid(nc), 256, 0, g_st>>>(nc, skey_sorted, P.order);
    Csr B;
    {
        Dev<int32_t> srow(nnz), scol(nnz);
        stack_rows_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, n, tw, rank, A.row, A.col, srow, scol);
        CKL();
        B = coo_to_csr((int64_t)P.T * n, nc, nnz, srow, scol, A.val);
    }
    B.rp.reset();
    Dev<uint32_t> flag(nnz + 1), pos(nnz + 1);
    seg_flag_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, B.row, flag);
    CKL();
    CK(cudaMemsetAsync(flag.p + nnz, 0, 4, g_st));
    cub_run([&](void *t, size_t &b) { return cubns::DeviceScan::ExclusiveSum(t, b, flag.p, pos.p, nnz + 1, g_st); });
    uint32_t segs = 0;
    CK(cudaMemcpyAsync(&segs, pos.p + nnz, 4, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    P.segs = segs;
    P.seg_start.alloc(segs + 1), P.seg_row.alloc(segs);
    Dev<int32_t> seg_srow(segs);
    seg_write_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, n, B.row, flag, pos, P.seg_start, P.seg_row, seg_srow);
    const int32_t nnz32 = (int32_t)nnz;
    CK(cudaMemcpyAsync(P.seg_start.p + segs, &nnz32, 4, cudaMemcpyHostToDevice, g_st));
    Dev<int64_t> tseg(P.T + 1);
    tile_bounds_kernel<<<(P.T + 1 + 127) / 128, 128, 0, g_st>>>(P.T, n, segs, seg_srow, tseg);
    CKL();
    P.tseg.resize(P.T + 1);
    CK(cudaMemcpyAsync(P.tseg.data(), tseg.p, (size_t)(P.T + 1) * 8, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    std::vector<int32_t> starts(P.T + 1);
    for (int k = 0; k <= P.T; ++k) {
        if (P.tseg[k] < (int64_t)segs) CK(cudaMemcpy(&starts[k], P.seg_start.p + P.tseg[k], 4, cudaMemcpyDeviceToHost));
        else starts[k] = nnz32;
    }
    P.G.resize(P.T);
    for (int k = 0; k < P.T; ++k) {
        const int64_t ns = P.tseg[k + 1] - P.tseg[k], ne = (int64_t)starts[k + 1] - starts[k];
        const double avg = ns ? (double)ne / (double)ns : 1.0;
        int g = 1;
        while (g < 32 && g < avg) g *= 2;
        P.G[k] = g;
    }
    P.col = std::move(B.col);
    P.val = std::move(B.val);
    P.xr.alloc(nc);
    return true;
}

// psv's CSR chunk plan for A (CUDA internals): column order and hot columns in shared memory.
static std::string chunk_plan_desc(const psv_matrix *A) {
    const auto *M = dynamic_cast<const psv::cuda::CudaMatrix *>(A->store.get());
    if (!M) return "?";
    char b[128];
    if (M->chunks.ranked && M->chunks.ranked_prefix < M->ncols)
        std::snprintf(b, sizeof b, "ranked columns (first %lld), %lld hot", (long long)M->chunks.ranked_prefix, (long long)M->chunks.hot);
    else
        std::snprintf(b, sizeof b, "%s columns, %lld hot", M->chunks.ranked ? "ranked" : "plain", (long long)M->chunks.hot);
    return b;
}

// ---- timing -------------------------------------------------------------------------------------

struct Opts {
    int runs = 50, warmup = 5;
    bool algos = true, reorder = true, flush = true;
    bool kernel_on[4] = {true, true, true, true};  // --kernels: which of kKernelName to time besides auto
    int64_t rwr_max_nnz = 20000000, algo_max_nnz = 600000000;
    int alg_reps = 1;  // timed calls of each algorithm (median), after a warm-up where one is needed
    uint64_t seed = 20261121;
    std::string json, csv, svg;
    struct Variant {
        std::string name;
        psv::FormatOptions opt;
        int64_t hot = -1;     // psv::test_hooks::chunk_hot_columns while the variant is built
        bool ranked = false;  // psv::test_hooks::chunk_rank_order_always while it is built
        int64_t prefix = -1;  // psv::test_hooks::chunk_ranked_prefix while it is built
    };
    std::vector<Variant> variants;  // extra psv format options timed on every matrix
    std::vector<int64_t> proto_tw = {0, -1};  // bench prototype tile widths (0: L2 / 16 bytes; -1: one tile)
};
static Opts O;

struct Stat {
    double med = NAN, min = NAN, p90 = NAN;
};
struct Timer {
    std::vector<cudaEvent_t> a, b;
    Dev<char> flushbuf;
    size_t flush_bytes = 0;
    void init(size_t l2) {
        a.resize(1000), b.resize(1000);
        for (auto &e : a) CK(cudaEventCreate(&e));
        for (auto &e : b) CK(cudaEventCreate(&e));
        flush_bytes = 2 * l2;
        flushbuf.alloc(flush_bytes);
    }
    void release() {  // before main returns: a static's destructor would run after the driver is gone
        for (auto &e : a) CK(cudaEventDestroy(e));
        for (auto &e : b) CK(cudaEventDestroy(e));
        a.clear(), b.clear();
        flushbuf.reset();
    }
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
};
static Timer g_timer;

// ---- results ------------------------------------------------------------------------------------

struct Result {
    std::string name, kind;  // kind: powerlaw / contrast
    int64_t n = 0, ncols = 0, nnz_in = 0, nnz = 0;
    double gen_s = NAN, csr_s = NAN;
    double build_s = NAN, rebuild_tc_s = NAN;  // device CSR -> psv matrix (form included); form alone
    psv_matrix_info info{};
    int auto_kernel = 0;
    // ms, weighted (plus-times) and pattern (plus-second)
    Stat psv_w[4], psv_p[4];  // auto, tile-composite, tile-coo, csr
    double psv_err_w[4] = {NAN, NAN, NAN, NAN}, psv_err_p[4] = {NAN, NAN, NAN, NAN};
    Stat cs[3], cs_re[3];  // CSR_ALG1, CSR_ALG2, COO_ALG1; on the reordered matrix
    Stat psv_re;           // psv AUTO, weighted, on the reordered matrix (the row order's effect on psv)
    double cs_err[3] = {NAN, NAN, NAN};
    int nx = 1;
    // algorithms (seconds)
    int pr_it_psv = -1, pr_it_cs = -1;
    double pr_psv = NAN, pr_cs = NAN, pr_l1 = NAN, pr_maxrel = NAN, transpose_s = NAN;
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
};
static std::vector<Result> g_results;
static double g_copy_bw = NAN;  // bytes/s
static double eff_share_of(double bytes, double ms) { return bytes / (ms * 1e-3) / g_copy_bw; }
static std::string g_device;
static const char *kKernelName[4] = {"auto", "tile-composite", "tile-coo", "csr"};
static const psv_kernel kKernels[4] = {PSV_KERNEL_AUTO, PSV_KERNEL_TILE_COMPOSITE, PSV_KERNEL_TILE_COO, PSV_KERNEL_CSR};
static const char *kCsName[3] = {"CSR_ALG1", "CSR_ALG2", "COO_ALG1"};

// ---- cuSPARSE ------------------------------------------------------------------------------------

static cusparseHandle_t g_sp = nullptr;

struct SpMat {
    cusparseSpMatDescr_t d = nullptr;
    ~SpMat() {
        if (d) cusparseDestroySpMat(d);
    }
};
struct DnVec {
    cusparseDnVecDescr_t d = nullptr;
    DnVec() = default;
    DnVec(int64_t n, float *p) { CS(cusparseCreateDnVec(&d, n, p, CUDA_R_32F)); }
    DnVec(DnVec &&o) noexcept : d(o.d) { o.d = nullptr; }
    DnVec &operator=(DnVec &&o) noexcept {
        std::swap(d, o.d);
        return *this;
    }
    ~DnVec() {
        if (d) cusparseDestroyDnVec(d);
    }
};
static void make_csr_descr(SpMat &M, const Csr &A, float *val) {
    CS(cusparseCreateCsr(&M.d, A.nrows, A.ncols, A.nnz, A.rp.p, A.col.p, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
}
static void make_coo_descr(SpMat &M, const Csr &A, float *val) {
    CS(cusparseCreateCoo(&M.d, A.nrows, A.ncols, A.nnz, A.row.p, A.col.p, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F));
}
static cusparseSpMVAlg_t alg_of(int a) {
    return a == 0 ? CUSPARSE_SPMV_CSR_ALG1 : a == 1 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_COO_ALG1;
}

// A prepared y = A x with one algorithm (buffer allocated, preprocessed where cuSPARSE has it).
struct SpMV {
    cusparseSpMatDescr_t A = nullptr;
    cusparseSpMVAlg_t alg{};
    Dev<char> buf;
    void prepare(cusparseSpMatDescr_t M, cusparseSpMVAlg_t al, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) {
        A = M, alg = al;
        const float one = 1.0f, zero = 0.0f;
        size_t bytes = 0;
        CS(cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, CUDA_R_32F, alg, &bytes));
        buf.alloc(std::max<size_t>(bytes, 16));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12400
        CS(cusparseSpMV_preprocess(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, CUDA_R_32F, alg, buf.p));
#endif
    }
    void operator()(cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) const {
        const float one = 1.0f, zero = 0.0f;
        CS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, CUDA_R_32F, alg, buf.p));
    }
};

// ---- helpers ------------------------------------------------------------------------------------

static double rel_err(int64_t n, const float *y, const double *ref) {
    Dev<double> acc(2);
    CK(cudaMemsetAsync(acc.p, 0, 16, g_st));
    err_kernel<<<grid(n), 256, 0, g_st>>>(n, y, ref, acc);
    CKL();
    double h[2];
    CK(cudaMemcpyAsync(h, acc.p, 16, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    return h[1] > 0 ? std::sqrt(h[0] / h[1]) : std::sqrt(h[0]);
}
static void rank_diff(int64_t n, const float *a, const float *b, double &l1, double &maxrel) {
    Dev<double> acc(2);
    CK(cudaMemsetAsync(acc.p, 0, 16, g_st));
    rank_diff_kernel<<<grid(n), 256, 0, g_st>>>(n, a, b, acc);
    CKL();
    double h[2];
    CK(cudaMemcpyAsync(h, acc.p, 16, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    l1 = h[0], maxrel = h[1];
}
static double read_scalar(const double *d) {
    double h = 0;
    CK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    return h;
}

// Wrap a device-built store as a psv_matrix handle (the objects' registry makes it a real one).
static psv_matrix *adopt_matrix(std::unique_ptr<psv::MatrixStore> store) {
    auto m = std::make_unique<psv_matrix_s>();
    m->ctx = g_ctx->core;
    m->store = std::move(store);
    psv::registry_add(m.get(), psv::Kind::Matrix);
    return m.release();
}
static psv::Backend &backend() { return *g_ctx->core->backend; }
// Release the blocks psv's device pool keeps cached. (Wanted in cuda_internal.hpp as
// psv::cuda::trim_pool(Backend &); until then through the backend's class.)
static void pool_trim() {
    CK(cudaDeviceSynchronize());
    static_cast<psv::cuda::CudaBackend &>(backend()).pool().trim();
}

// ---- loading ------------------------------------------------------------------------------------

// METIS graph files (psv's readers do not take them): "n m [fmt]" then one line of 1-based
// neighbours per vertex (fmt 1 / 11: weights after each neighbour, taken as values).
static bool read_metis(const std::string &path, psv::Coo &c) {
    gzFile g = gzopen(path.c_str(), "rb");
    if (!g) return false;
    std::string text;
    char buf[1 << 16];
    int k;
    while ((k = gzread(g, buf, sizeof buf)) > 0) text.append(buf, (size_t)k);
    gzclose(g);
    size_t pos = 0;
    auto line = [&](std::string &out) {
        if (pos >= text.size()) return false;
        size_t e = text.find('\n', pos);
        if (e == std::string::npos) e = text.size();
        out = text.substr(pos, e - pos);
        pos = e + 1;
        return true;
    };
    std::string l;
    do {
        if (!line(l)) return false;
    } while (!l.empty() && l[0] == '%');
    long long n = 0, m = 0, fmt = 0;
    if (std::sscanf(l.c_str(), "%lld %lld %lld", &n, &m, &fmt) < 2) return false;
    const bool ew = fmt % 10 == 1;
    c.nrows = c.ncols = n;
    c.pattern = !ew;
    c.type = PSV_FP64;
    for (long long i = 0; i < n; ++i) {
        if (!line(l)) break;
        if (!l.empty() && l[0] == '%') {
            --i;
            continue;
        }
        const char *p = l.c_str();
        char *end = nullptr;
        for (;;) {
            const long long j = std::strtoll(p, &end, 10);
            if (end == p) break;
            p = end;
            double w = 1;
            if (ew) {
                w = std::strtod(p, &end);
                p = end;
            }
            if (j < 1 || j > n) return false;
            c.rows.push_back(i);
            c.cols.push_back(j - 1);
            if (ew) c.fvalues.push_back(w);
        }
    }
    return true;
}
static psv::Coo read_any(const std::string &path) {
    if (path.find(".metis") != std::string::npos) {
        psv::Coo c;
        if (read_metis(path, c)) return c;
        throw std::runtime_error(path + ": not a METIS graph");
    }
    return psv::io::read_file(path, false);
}

static Coo load_matrix(const std::string &spec, std::string &name, double &gen_s) {
    Coo c;
    const double t0 = now_s();
    if (spec.rfind("rmat:", 0) == 0) {
        int scale = 0, ef = 16;
        if (std::sscanf(spec.c_str() + 5, "%d:%d", &scale, &ef) < 1 || scale < 1 || scale > 30 || ef < 1)
            die("bad R-MAT spec %s", spec.c_str());
        const int64_t n = 1LL << scale, m = (int64_t)ef << scale;
        c.nrows = c.ncols = n, c.m = m;
        c.row.alloc(m), c.col.alloc(m), c.val.alloc(m);
        rmat_kernel<<<grid(m), 256, 0, g_st>>>(m, scale, mix64(O.seed + scale), c.row, c.col);
        CKL();
        random_values_kernel<<<grid(m), 256, 0, g_st>>>(m, O.seed, c.val);
        CKL();
        // random relabelling: a permutation from a sort of random keys
        Dev<uint32_t> key(n), skey(n);
        Dev<int32_t> id(n), perm(n);
        random_keys_kernel<<<grid(n), 256, 0, g_st>>>(n, mix64(O.seed * 7 + scale), key, id);
        CKL();
        cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortPairs(t, b, key.p, skey.p, id.p, perm.p, n, 0, 32, g_st); });
        relabel_kernel<<<grid(m), 256, 0, g_st>>>(m, perm, c.row, c.col);
        CKL();
        char buf[64];
        std::snprintf(buf, sizeof buf, "rmat%d", scale);
        if (ef != 16) std::snprintf(buf, sizeof buf, "rmat%d-ef%d", scale, ef);
        name = buf;
    } else if (spec.rfind("stencil:", 0) == 0) {
        const int64_t N = std::atoll(spec.c_str() + 8);
        if (N < 2 || N * N * N > (1LL << 30)) die("bad stencil spec %s", spec.c_str());
        const int64_t n = N * N * N, m = 27 * n;
        c.nrows = c.ncols = n, c.m = m;
        c.row.alloc(m), c.col.alloc(m), c.val.alloc(m);
        stencil_kernel<<<grid(m), 256, 0, g_st>>>(N, c.row, c.col);
        CKL();
        random_values_kernel<<<grid(m), 256, 0, g_st>>>(m, O.seed, c.val);
        CKL();
        name = "stencil27-" + std::to_string(N) + "^3";
    } else {
        std::string path = spec;
        const size_t at = spec.rfind('@');
        // a label after the last '@' only when what precedes it is a file (uk-2007-05@100000 has one)
        if (at != std::string::npos && at > 0) {
            FILE *f = std::fopen(spec.substr(0, at).c_str(), "rb");
            if (f) {
                std::fclose(f);
                path = spec.substr(0, at);
                name = spec.substr(at + 1);
            }
        }
        if (name.empty()) {
            name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
            for (const char *ext : {".gz", ".txt", ".mtx", ".graph", ".metis", ".edgelist"})
                if (name.size() > std::strlen(ext) && name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0)
                    name.resize(name.size() - std::strlen(ext));
        }
        psv::Coo h = read_any(path);
        const int64_t m = (int64_t)h.rows.size();
        if (h.nrows > INT32_MAX || h.ncols > INT32_MAX) die("%s: too large", path.c_str());
        c.nrows = h.nrows, c.ncols = h.ncols, c.m = m;
        std::vector<int32_t> r((size_t)m), q((size_t)m);
        for (int64_t e = 0; e < m; ++e) r[e] = (int32_t)h.rows[e], q[e] = (int32_t)h.cols[e];
        c.row.alloc(m), c.col.alloc(m), c.val.alloc(m);
        CK(cudaMemcpy(c.row.p, r.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(c.col.p, q.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
        if (!h.pattern && (h.fvalues.size() == (size_t)m || h.ivalues.size() == (size_t)m)) {
            std::vector<float> v((size_t)m);
            for (int64_t e = 0; e < m; ++e) v[e] = h.fvalues.size() == (size_t)m ? (float)h.fvalues[e] : (float)h.ivalues[e];
            CK(cudaMemcpy(c.val.p, v.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
        } else {
            random_values_kernel<<<grid(m), 256, 0, g_st>>>(m, O.seed, c.val);  // a pattern: random weights
            CKL();
        }
    }
    CK(cudaStreamSynchronize(g_st));
    gen_s = now_s() - t0;
    return c;
}

// ---- the cuSPARSE-based algorithms (same definitions as psv's) -----------------------------------

// A pattern CSR as cuSPARSE sees it: values all 1.
struct OnesMat {
    SpMat d;
    SpMV mv;
};
static void make_ones(OnesMat &M, const Csr &A, float *ones, int alg, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) {
    if (alg == 2) make_coo_descr(M.d, A, ones);
    else make_csr_descr(M.d, A, ones);
    M.mv.prepare(M.d.d, alg_of(alg), x, y);
}

// LAGr_PageRank with cuSPARSE SpMV on A' (ones) and small kernels; r left in `r`.
static int cs_pagerank(const OnesMat &AT, int64_t n, const float *inv, float *r, float *w, float *t, cusparseDnVecDescr_t wv,
                       cusparseDnVecDescr_t tv, double *scal, double damping, double tol, int maxit) {
    fill_kernel<<<grid(n), 256, 0, g_st>>>(n, (float)(1.0 / (double)n), r);
    CKL();
    int it = 0;
    while (it < maxit) {
        CK(cudaMemsetAsync(scal, 0, 16, g_st));
        pr_scale_kernel<<<grid(n), 256, 0, g_st>>>(n, r, inv, w, scal);
        CKL();
        AT.mv(wv, tv);
        pr_update_kernel<<<grid(n), 256, 0, g_st>>>(n, t, r, damping, scal, scal + 1);
        CKL();
        ++it;
        if (read_scalar(scal + 1) <= tol) break;
    }
    return it;
}

// HITS, separate form, as psv's hits_separate: a = A' h, normalize; h = A a, normalize.
static int cs_hits(const OnesMat &A1, const OnesMat &AT1, int64_t n, Dev<float> *a, Dev<float> *h, double *scal, double tol,
                   int maxit, int &final_idx) {
    // a[0]/h[0]: current, a[1]/h[1]: previous (swapped by index)
    int cur = 0;
    fill_kernel<<<grid(n), 256, 0, g_st>>>(n, (float)(1.0 / (double)n), a[1]);
    fill_kernel<<<grid(n), 256, 0, g_st>>>(n, (float)(1.0 / (double)n), h[1]);
    CKL();
    int it = 0;
    while (it < maxit) {
        const int prev = 1 - cur;
        DnVec hp(n, h[prev]), ac(n, a[cur]), hc(n, h[cur]);
        CK(cudaMemsetAsync(scal, 0, 32, g_st));
        AT1.mv(hp.d, ac.d);
        sum_kernel<<<grid(n), 256, 0, g_st>>>(n, a[cur], scal);
        normalize_diff_kernel<<<grid(n), 256, 0, g_st>>>(n, a[cur], scal, a[prev], scal + 2);
        A1.mv(ac.d, hc.d);
        sum_kernel<<<grid(n), 256, 0, g_st>>>(n, h[cur], scal + 1);
        normalize_diff_kernel<<<grid(n), 256, 0, g_st>>>(n, h[cur], scal + 1, h[prev], scal + 3);
        CKL();
        ++it;
        double d[2];
        CK(cudaMemcpyAsync(d, scal + 2, 16, cudaMemcpyDeviceToHost, g_st));
        CK(cudaStreamSynchronize(g_st));
        cur = prev;
        if (d[0] + d[1] <= tol) break;
    }
    final_idx = 1 - cur;  // the last written
    return it;
}

static int cs_rwr(const OnesMat &S, int64_t n, const float *inv, int64_t q, float *R, float *U, float *T, cusparseDnVecDescr_t uv,
                  cusparseDnVecDescr_t tv, double *scal, double c, double tol, int maxit) {
    CK(cudaMemsetAsync(R, 0, (size_t)n * 4, g_st));
    const float one = 1.0f;
    CK(cudaMemcpyAsync(R + q, &one, 4, cudaMemcpyHostToDevice, g_st));
    int it = 0;
    while (it < maxit) {
        CK(cudaMemsetAsync(scal, 0, 8, g_st));
        pr_scale_kernel<<<grid(n), 256, 0, g_st>>>(n, R, inv, U, nullptr);
        S.mv(uv, tv);
        rwr_update_kernel<<<grid(n), 256, 0, g_st>>>(n, T, R, c, q, scal);
        CKL();
        ++it;
        if (read_scalar(scal) <= tol) break;
    }
    return it;
}

// ---- one matrix ----------------------------------------------------------------------------------

static void bench_matrix(const std::string &spec, const std::string &kind) {
    Result res;
    res.kind = kind;
    std::printf("\n=== %s ===\n", spec.c_str());
    std::fflush(stdout);
    // 1. the matrix, as a de-duplicated device CSR
    Csr A;
    {
        Coo c = load_matrix(spec, res.name, res.gen_s);
        res.nnz_in = c.m;
        const double t0 = now_s();
        A = coo_to_csr(c.nrows, c.ncols, c.m, c.row, c.col, c.val);
        res.csr_s = now_s() - t0;
    }
    const int64_t n = A.nrows, nc = A.ncols, nnz = A.nnz;
    res.n = n, res.ncols = nc, res.nnz = nnz;
    std::printf("%s: %lld x %lld, %lld entries (%lld tuples), generated/read in %.2f s, CSR in %.2f s\n", res.name.c_str(),
                (long long)n, (long long)nc, (long long)nnz, (long long)res.nnz_in, res.gen_s, res.csr_s);
    std::fflush(stdout);

    // 2. psv's matrix, built from the device CSR (form included)
    psv_matrix *PA = nullptr;
    {
        Dev<int64_t> rp64(n + 1);
        i32_to_i64_kernel<<<grid(n + 1), 256, 0, g_st>>>(n + 1, A.rp, rp64);
        CKL();
        CK(cudaStreamSynchronize(g_st));
        const double t0 = now_s();
        auto store = psv::cuda::build_from_device_csr(backend(), n, nc, PSV_FP32, rp64.p, A.col.p, A.val.p, g_ctx->core->defaults);
        psv::cuda::synchronize(backend());
        res.build_s = now_s() - t0;
        PA = adopt_matrix(std::move(store));
    }
    PK(psv_matrix_info_get(PA, &res.info));
    res.rebuild_tc_s = res.info.build_seconds;
    res.auto_kernel = res.info.kernel;
    std::printf("psv build %.3f s (form %.3f s): %d dense tiles of %lld, sparse %d, workloads %lld, padding %.3f, %lld bytes\n",
                res.build_s, res.rebuild_tc_s, res.info.dense_tiles, (long long)res.info.tile_width, res.info.sparse_tile,
                (long long)res.info.workloads, res.info.padding_ratio, (long long)res.info.bytes);
    std::printf("psv auto plan: %s\n", chunk_plan_desc(PA).c_str());
    std::fflush(stdout);

    // 3. vectors: nx inputs rotating past 2x L2, one output; references in double
    int dev = 0;
    CK(cudaGetDevice(&dev));
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    const int nx = (int)std::max<int64_t>(1, std::min<int64_t>(64, (2LL * l2 + 4 * nc - 1) / std::max<int64_t>(1, 4 * nc)));
    res.nx = nx;
    Dev<float> X((size_t)nx * nc), Y(n);
    random_values_kernel<<<grid((int64_t)nx * nc), 256, 0, g_st>>>((int64_t)nx * nc, O.seed ^ 0x77, X);
    CKL();
    Dev<double> ref_w(n), ref_p(n);
    ref_spmv_kernel<<<grid(32 * n), 256, 0, g_st>>>(n, A.rp, A.col, A.val, X.p, ref_w);
    ref_spmv_kernel<<<grid(32 * n), 256, 0, g_st>>>(n, A.rp, A.col, nullptr, X.p, ref_p);
    CKL();
    CK(cudaStreamSynchronize(g_st));
    std::vector<psv_vector *> U(nx);
    for (int k = 0; k < nx; ++k) {
        PK(psv_vector_create(g_ctx, PSV_FP32, nc, &U[k]));
        PK(psv_vector_set_device(U[k], X.p + (size_t)k * nc, nc));
    }
    psv_vector *W = nullptr;
    PK(psv_vector_create(g_ctx, PSV_FP32, n, &W));
    psv_semiring *s_w = nullptr, *s_p = nullptr;
    PK(psv_semiring_create(g_ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s_w));
    PK(psv_semiring_create(g_ctx, PSV_PLUS, PSV_SECOND, PSV_FP32, &s_p));

    auto time_psv = [&](int ki) {
        for (int pat = 0; pat < 2; ++pat) {
            psv_semiring *s = pat ? s_p : s_w;
            PK(psv_mxv(W, nullptr, PSV_NOOP, s, PA, U[0], 0));
            PK(psv_vector_get_device(W, Y.p, n));
            (pat ? res.psv_err_p : res.psv_err_w)[ki] = rel_err(n, Y, pat ? ref_p : ref_w);
            (pat ? res.psv_p : res.psv_w)[ki] = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, s, PA, U[i % nx], 0)); });
        }
        std::printf("psv %-15s weighted %8.4f ms (err %.1e)  pattern %8.4f ms (err %.1e)\n", kKernelName[ki], res.psv_w[ki].med,
                    res.psv_err_w[ki], res.psv_p[ki].med, res.psv_err_p[ki]);
        std::fflush(stdout);
    };
    time_psv(0);
    if (res.auto_kernel == PSV_KERNEL_TILE_COMPOSITE) {  // the same form: no second build
        res.psv_w[1] = res.psv_w[0], res.psv_p[1] = res.psv_p[0];
        res.psv_err_w[1] = res.psv_err_w[0], res.psv_err_p[1] = res.psv_err_p[0];
    }

    // 4. cuSPARSE on the same CSR
    std::vector<DnVec> XV;
    for (int k = 0; k < nx; ++k) XV.emplace_back(nc, X.p + (size_t)k * nc);
    DnVec YV(n, Y.p);
    auto time_cusparse = [&](const Csr &M, Stat *out, double *err) {
        SpMat csr, coo;
        make_csr_descr(csr, M, M.val.p);
        make_coo_descr(coo, M, M.val.p);
        for (int a = 0; a < 3; ++a) {
            SpMV mv;
            mv.prepare(a == 2 ? coo.d : csr.d, alg_of(a), XV[0].d, YV.d);
            if (err) {
                mv(XV[0].d, YV.d);
                err[a] = rel_err(n, Y, ref_w);
            }
            out[a] = g_timer.run([&](int i) { mv(XV[i % nx].d, YV.d); });
        }
    };
    time_cusparse(A, res.cs, res.cs_err);
    std::printf("cuSPARSE CSR_ALG1 %.4f  CSR_ALG2 %.4f  COO_ALG1 %.4f ms (err %.1e %.1e %.1e)\n", res.cs[0].med, res.cs[1].med,
                res.cs[2].med, res.cs_err[0], res.cs_err[1], res.cs_err[2]);
    std::fflush(stdout);
    int best = 0;
    for (int a = 1; a < 3; ++a)
        if (res.cs[a].med < res.cs[best].med) best = a;

    // 4b. the gather probe (bench-side, not an SpMV): its best time over the layouts tried, here
    //     the matrix as given (no hot columns), in 5 the rank-ordered matrix with 0, 8192 and
    //     24576 hot columns (24576: 96 KB of shared memory per block, all an SM gives two blocks)
    int sms = 0, smem_sm = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    Dev<float> scratch((size_t)2 * sms * kProbeThreads);
    auto probe = [&](const Csr &M, const char *layout, std::initializer_list<int32_t> hot) {
        for (int32_t H : hot) {
            const size_t smem = (size_t)H * sizeof(float);
            if (H > nc || 2 * (smem + 1024) > (size_t)smem_sm) continue;  // two blocks per SM (1 KB reserved each)
            Stat st[2];
            for (int pat = 0; pat < 2; ++pat) {
                auto kern = pat ? probe_kernel<false> : probe_kernel<true>;
                CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
                st[pat] = g_timer.run([&](int i) {
                    kern<<<2 * sms, kProbeThreads, smem, g_st>>>(nnz, n, M.rp, M.col, M.val, X.p + (size_t)(i % nx) * nc, H, Y.p, scratch.p);
                    CKL();
                });
                Stat &best_st = pat ? res.probe_p : res.probe_w;
                if (!(st[pat].med >= best_st.med)) {
                    best_st = st[pat];
                    (pat ? res.probe_layout_p : res.probe_layout_w) = std::string(layout) + ", " + std::to_string(H) + " hot";
                }
            }
            std::printf("gather probe (bench, not an SpMV) %s, %d hot columns: weighted %.4f ms (best cuSPARSE / probe %.2fx, %.0f%% of copy)"
                        "  pattern %.4f ms\n",
                        layout, (int)H, st[0].med, res.best_cs() / st[0].med, 100 * eff_share_of(res.bytes(), st[0].med), st[1].med);
            std::fflush(stdout);
        }
    };
    probe(A, "as given", {0});

    // 5. cuSPARSE after psv's reordering (rows and columns relabelled by psv's column ranking:
    //    length descending, ties by index)
    Dev<int32_t> rank(nc);
    Dev<uint64_t> skey(nc);
    {
        Dev<uint32_t> cnt(nc);
        CK(cudaMemsetAsync(cnt.p, 0, (size_t)nc * 4, g_st));
        col_count_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, A.col, cnt);
        Dev<uint64_t> key(nc);
        rank_keys_kernel<<<grid(nc), 256, 0, g_st>>>(nc, cnt, key);
        CKL();
        cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortKeys(t, b, key.p, skey.p, nc, 0, 64, g_st); });
        rank_of_kernel<<<grid(nc), 256, 0, g_st>>>(nc, skey, rank);
        CKL();
        const int64_t thr_h[5] = {1 << 16, 1 << 20, 1 << 22, 1 << 23, 1 << 24};
        Dev<int64_t> thr(5);
        Dev<unsigned long long> mass(5);
        CK(cudaMemcpyAsync(thr.p, thr_h, 40, cudaMemcpyHostToDevice, g_st));
        CK(cudaMemsetAsync(mass.p, 0, 40, g_st));
        cum_mass_kernel<<<grid(nc), 256, 0, g_st>>>(nc, skey, thr, 5, mass);
        CKL();
        unsigned long long mh[5];
        CK(cudaMemcpyAsync(mh, mass.p, 40, cudaMemcpyDeviceToHost, g_st));
        CK(cudaStreamSynchronize(g_st));
        for (int t = 0; t < 5; ++t) res.mass[t] = nnz ? (double)mh[t] / (double)nnz : NAN;
        std::printf("entries in the top 64K / 1M / 4M / 8M / 16M ranked columns: %.1f%% %.1f%% %.1f%% %.1f%% %.1f%%\n", 100 * res.mass[0],
                    100 * res.mass[1], 100 * res.mass[2], 100 * res.mass[3], 100 * res.mass[4]);
    }
    if (O.reorder && n == nc) {
        Csr R;
        {
            Dev<int32_t> r2(nnz), c2(nnz);
            map_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, rank, A.row, r2);
            map_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, rank, A.col, c2);
            CKL();
            R = coo_to_csr(n, nc, nnz, r2, c2, A.val);
        }
        // x is permuted too, but its values do not change the time: reuse the rotation
        time_cusparse(R, res.cs_re, nullptr);
        probe(R, "rank order", {0, 8192, 24576});
        std::printf("cuSPARSE reordered: CSR_ALG1 %.4f  CSR_ALG2 %.4f  COO_ALG1 %.4f ms\n", res.cs_re[0].med, res.cs_re[1].med,
                    res.cs_re[2].med);
        // psv AUTO on the same reordered matrix: what storing rows in rank order would give psv's
        // kernels (x and y stay in the reordered labels: no gather or scatter is timed)
        {
            Dev<int64_t> rp64(n + 1);
            i32_to_i64_kernel<<<grid(n + 1), 256, 0, g_st>>>(n + 1, R.rp, rp64);
            CKL();
            auto store = psv::cuda::build_from_device_csr(backend(), n, nc, PSV_FP32, rp64.p, R.col.p, R.val.p, g_ctx->core->defaults);
            std::unique_ptr<psv_matrix, void (*)(psv_matrix *)> PR(adopt_matrix(std::move(store)),
                                                                  [](psv_matrix *m) { psv_matrix_free(&m); });
            res.psv_re = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, s_w, PR.get(), U[i % nx], 0)); });
            std::printf("psv reordered (auto, %s): weighted %.4f ms\n", chunk_plan_desc(PR.get()).c_str(), res.psv_re.med);
        }
        std::fflush(stdout);
    }

    // 5b. the bench-side prototype (not psv): rank-ordered L2 column tiles
    for (int64_t tw0 : O.proto_tw) {
        int l2b = 0;
        CK(cudaDeviceGetAttribute(&l2b, cudaDevAttrL2CacheSize, dev));
        const int64_t tw = tw0 == 0 ? std::max<int64_t>(1024, l2b / 16) : tw0 < 0 ? nc : tw0;
        if (tw0 == 0 && tw >= nc) continue;  // one tile: the tw = -1 case
        Result::ProtoRes pr;
        Proto P;
        const double t0 = now_s();
        if (!build_proto(P, A, rank, skey, tw)) continue;
        pr.build_s = now_s() - t0;
        pr.tw = tw, pr.T = P.T, pr.segs = P.segs;
        P.run(X.p, Y.p, true);
        pr.err_w = rel_err(n, Y, ref_w);
        P.run(X.p, Y.p, false);
        pr.err_p = rel_err(n, Y, ref_p);
        pr.w = g_timer.run([&](int i) { P.run(X.p + (size_t)(i % nx) * nc, Y.p, true); });
        pr.p = g_timer.run([&](int i) { P.run(X.p + (size_t)(i % nx) * nc, Y.p, false); });
        std::printf("prototype (bench, not psv) tw %lld: %d tiles, %lld segments (%.2f per row)  weighted %.4f ms (err %.1e, %.2fx, %.0f%% of copy)"
                    "  pattern %.4f ms (err %.1e, %.2fx)\n",
                    (long long)tw, P.T, (long long)P.segs, (double)P.segs / std::max<int64_t>(1, n), pr.w.med, pr.err_w,
                    res.best_cs() / pr.w.med, 100 * eff_share_of(res.bytes(), pr.w.med), pr.p.med, pr.err_p, res.best_cs() / pr.p.med);
        std::fflush(stdout);
        res.proto.push_back(pr);
    }
    skey.reset();

    // 6. algorithms on the default (auto) form
    const bool square = n == nc;
    if (O.algos && square && nnz <= O.algo_max_nnz && nnz > 0) {
        pool_trim();
        const double damping = 0.85, tol = 1e-6;
        const int maxit = 100;
        Dev<float> ones(nnz);
        fill_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, 1.0f, ones);
        CKL();
        Csr AT = coo_to_csr(n, n, nnz, A.col, A.row, nullptr);
        Dev<float> inv(n), r(n), w(n), t(n), prk(n);
        Dev<double> scal(4);
        inv_deg_kernel<<<grid(n), 256, 0, g_st>>>(n, A.rp, inv);
        CKL();
        DnVec wv(n, w), tv(n, t);
        OnesMat AT1, A1;
        make_ones(AT1, AT, ones, best, wv.d, tv.d);
        make_ones(A1, A, ones, best, wv.d, tv.d);
        // PageRank: psv (first call builds the cached transpose), then 3 timed calls each
        {
            psv_vector *rank = nullptr;
            int32_t it = 0;
            double t0 = now_s();
            PK(psv_pagerank(&rank, &it, PA, damping, tol, maxit));
            const double first = now_s() - t0;
            std::vector<double> tp, tc;
            for (int rep = 0; rep < O.alg_reps; ++rep) {
                psv_vector_free(&rank);
                t0 = now_s();
                PK(psv_pagerank(&rank, &it, PA, damping, tol, maxit));
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
                    PK(psv_pagerank(&r1, &it1, PA, damping, tol, 1));
                    t1.push_back(now_s() - t0);
                    psv_vector_free(&r1);
                }
                std::sort(t1.begin(), t1.end());
                res.pr_psv1 = median(t1);
            }
            res.transpose_s = first - res.pr_psv;
            PK(psv_vector_get_device(rank, prk.p, n));
            psv_vector_free(&rank);
            for (int rep = 0; rep < O.alg_reps + 1; ++rep) {  // one warm-up
                CK(cudaStreamSynchronize(g_st));
                t0 = now_s();
                res.pr_it_cs = cs_pagerank(AT1, n, inv, r, w, t, wv.d, tv.d, scal, damping, tol, maxit);
                if (rep) tc.push_back(now_s() - t0);
            }
            std::sort(tc.begin(), tc.end());
            res.pr_cs = median(tc);
            rank_diff(n, prk, r, res.pr_l1, res.pr_maxrel);
            {
                std::vector<double> t1;
                for (int rep = 0; rep < O.alg_reps; ++rep) {
                    CK(cudaStreamSynchronize(g_st));
                    t0 = now_s();
                    cs_pagerank(AT1, n, inv, r, w, t, wv.d, tv.d, scal, damping, tol, 1);  // r was compared already
                    t1.push_back(now_s() - t0);
                }
                std::sort(t1.begin(), t1.end());
                res.pr_cs1 = median(t1);
            }
            std::printf("PageRank: psv %.4f s (%d it, %.3f ms/it; first call +%.3f s transpose)  cuSPARSE %.4f s (%d it, %.3f ms/it)"
                        "  L1 diff %.2e max rel %.2e\n",
                        res.pr_psv, res.pr_it_psv, 1e3 * res.pr_iter_psv(), res.transpose_s, res.pr_cs, res.pr_it_cs,
                        1e3 * res.pr_iter_cs(), res.pr_l1, res.pr_maxrel);
            std::fflush(stdout);
        }
#ifdef PSV_BENCH_HAVE_HITS
        {
            const int hits_maxit = 30;
            psv_vector *hb = nullptr, *au = nullptr;
            int32_t it = 0;
            std::vector<double> tp, tc;
            for (int rep = 0; rep < O.alg_reps; ++rep) {  // A' is cached already: no warm-up
                psv_vector_free(&hb);
                psv_vector_free(&au);
                const double t0 = now_s();
                PK(psv_hits(&hb, &au, &it, PA, tol, hits_maxit));
                tp.push_back(now_s() - t0);
            }
            res.hits_it_psv = it;
            res.hits_psv = median(tp);
            PK(psv_vector_get_device(au, prk.p, n));
            psv_vector_free(&hb);
            psv_vector_free(&au);
            Dev<float> a[2], h[2];
            for (int k = 0; k < 2; ++k) a[k].alloc(n), h[k].alloc(n);
            int fin = 0;
            for (int rep = 0; rep < O.alg_reps; ++rep) {  // cuSPARSE warmed up by PageRank
                CK(cudaStreamSynchronize(g_st));
                const double t0 = now_s();
                res.hits_it_cs = cs_hits(A1, AT1, n, a, h, scal, tol, hits_maxit, fin);
                tc.push_back(now_s() - t0);
            }
            res.hits_cs = median(tc);
            double mr = 0;
            rank_diff(n, prk, a[fin], res.hits_l1, mr);
            std::printf("HITS: psv %.4f s (%d it)  cuSPARSE %.4f s (%d it)  authorities L1 diff %.2e\n", res.hits_psv, res.hits_it_psv,
                        res.hits_cs, res.hits_it_cs, res.hits_l1);
            std::fflush(stdout);
        }
#endif
#ifdef PSV_BENCH_HAVE_RWR
        if (nnz <= O.rwr_max_nnz) {
            const double c = 0.9, rtol = 1e-6;
            const int rmax = 200, K = 25;
            double t0 = now_s();
            psv::RwrGraph g = psv::rwr_graph(backend(), *PA->store);
            psv::cuda::synchronize(backend());
            res.rwr_graph_s = now_s() - t0;
            std::vector<int32_t> rph(n + 1);
            CK(cudaMemcpy(rph.data(), A.rp.p, (size_t)(n + 1) * 4, cudaMemcpyDeviceToHost));
            std::vector<int64_t> qs;
            for (int j = 0; j < K; ++j) {
                int64_t q = (int64_t)(mix64(O.seed + 1000 + j) % (uint64_t)n);
                for (int64_t s = 0; s < n && rph[q + 1] == rph[q]; ++s) q = (q + 1) % n;
                qs.push_back(q);
            }
            psv::Buffer rel;
            int32_t it = 0, it_sum = 0;
            t0 = now_s();
            for (int j = 0; j < K; ++j) {
                psv::rwr_single(backend(), *g_ctx->core->steps, g, qs[j], c, rtol, rmax, rel, it);
                it_sum += it;
            }
            res.rwr_psv = now_s() - t0;
            res.rwr_it_psv = it_sum;
            std::vector<float> out((size_t)n * K);
            std::vector<int32_t> its(K);
            t0 = now_s();
            psv::rwr(backend(), *g_ctx->core->steps, g, qs.data(), K, c, rtol, rmax, out.data(), its.data());
            res.rwr_batch_psv = now_s() - t0;
            // cuSPARSE: S = pattern(A + A') built here (not timed), 25 single runs
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
            fill_kernel<<<grid(S.nnz), 256, 0, g_st>>>(S.nnz, 1.0f, sones);
            inv_deg_kernel<<<grid(n), 256, 0, g_st>>>(n, S.rp, sinv);
            CKL();
            OnesMat S1;
            make_ones(S1, S, sones, best, wv.d, tv.d);
            CK(cudaStreamSynchronize(g_st));
            t0 = now_s();
            it_sum = 0;
            for (int j = 0; j < K; ++j) it_sum += cs_rwr(S1, n, sinv, qs[j], r, w, t, wv.d, tv.d, scal, c, rtol, rmax);
            res.rwr_cs = now_s() - t0;
            res.rwr_it_cs = it_sum;
            double mr = 0;
            rank_diff(n, rel.as<float>(), r, res.rwr_l1, mr);  // the last query, psv single vs cuSPARSE
            {
                std::vector<float> col((size_t)n);
                for (int64_t i = 0; i < n; ++i) col[i] = out[(size_t)i * K + (K - 1)];
                CK(cudaMemcpy(w.p, col.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
                rank_diff(n, w, r, res.rwr_batch_l1, mr);
            }
            std::printf("RWR (25 queries): psv S build %.3f s; 25 singles %.4f s (%d it)  batch k=25 %.4f s  cuSPARSE 25 singles %.4f s"
                        " (%d it)  L1 diff single %.2e batch %.2e\n",
                        res.rwr_graph_s, res.rwr_psv, res.rwr_it_psv, res.rwr_batch_psv, res.rwr_cs, res.rwr_it_cs, res.rwr_l1,
                        res.rwr_batch_l1);
            std::fflush(stdout);
        }
#endif
    }

    // 7. the other kernels (each a rebuild of the form)
    for (int ki = 1; ki < 4; ++ki) {
        if (ki == 1 && res.auto_kernel == PSV_KERNEL_TILE_COMPOSITE) continue;
        if (!O.kernel_on[ki]) continue;
        PK(psv_matrix_set_option(PA, PSV_OPT_KERNEL, kKernels[ki]));
        psv_matrix_info inf;
        PK(psv_matrix_info_get(PA, &inf));
        if (ki == 1) res.rebuild_tc_s = inf.build_seconds;
        time_psv(ki);
    }

    // 8. variants of the form's parameters (the public options, rebuilt once each)
    for (const auto &v : O.variants) {
        Result::VarRes vr;
        vr.name = v.name;
        psv::test_hooks::chunk_hot_columns = v.hot;
        psv::test_hooks::chunk_rank_order_always = v.ranked;
        psv::test_hooks::chunk_ranked_prefix = v.prefix;
        bool built = true;
        std::string why;
        try {
            PA->store->rebuild(v.opt);
        } catch (const std::exception &e) {
            built = false, why = e.what();
        }
        psv::test_hooks::chunk_hot_columns = -1;
        psv::test_hooks::chunk_rank_order_always = false;
        psv::test_hooks::chunk_ranked_prefix = -1;
        if (!built) {
            std::printf("variant %s: %s\n", v.name.c_str(), why.c_str());
            continue;
        }
        PK(psv_matrix_info_get(PA, &vr.info));
        vr.form_s = vr.info.build_seconds;
        PK(psv_mxv(W, nullptr, PSV_NOOP, s_w, PA, U[0], 0));
        PK(psv_vector_get_device(W, Y.p, n));
        vr.err_w = rel_err(n, Y, ref_w);
        vr.w = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, s_w, PA, U[i % nx], 0)); });
        vr.p = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, s_p, PA, U[i % nx], 0)); });
        std::printf("variant %-22s plan: %s\n", v.name.c_str(), chunk_plan_desc(PA).c_str());
        std::printf("variant %-22s weighted %8.4f ms (err %.1e, %.2fx)  pattern %8.4f ms (%.2fx)  tiles %d+%d, width %lld, workloads %lld,"
                    " padding %.3f, form %.3f s\n",
                    v.name.c_str(), vr.w.med, vr.err_w, res.best_cs() / vr.w.med, vr.p.med, res.best_cs() / vr.p.med, vr.info.dense_tiles,
                    vr.info.sparse_tile, (long long)vr.info.tile_width, (long long)vr.info.workloads, vr.info.padding_ratio, vr.form_s);
        std::fflush(stdout);
        res.var.push_back(vr);
    }

    for (auto *u : U) psv_vector_free(&u);
    psv_vector_free(&W);
    psv_semiring_free(&s_w);
    psv_semiring_free(&s_p);
    psv_matrix_free(&PA);
    pool_trim();
    g_results.push_back(res);
}

// ---- output --------------------------------------------------------------------------------------

static double ratio(double cs, double ps) { return (std::isfinite(cs) && std::isfinite(ps) && ps > 0) ? cs / ps : NAN; }
static double eff_share(const Result &r, double ms) { return r.bytes() / (ms * 1e-3) / g_copy_bw; }

static void print_table() {
    std::printf("\n## %s, copy bandwidth %.2f TB/s (read + write); times in ms, median of %d; speedup = best cuSPARSE / psv\n",
                g_device.c_str(), g_copy_bw / 1e12, O.runs);
    std::printf("| matrix | kind | n | nnz | cuSP ALG1 | ALG2 | COO | best | reord best | psv auto (w) | TC (w) | TCOO (w) | CSR (w) |"
                " TC (pat) | speedup auto | speedup TC pat | BW share auto | build s | build / best cuSP |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Result &r : g_results) {
        const double b = r.best_cs();
        std::printf("| %s | %s | %lld | %lld | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.2fx | %.2fx | %.0f%% | %.3f | %.0f |\n",
                    r.name.c_str(), r.kind.c_str(), (long long)r.n, (long long)r.nnz, r.cs[0].med, r.cs[1].med, r.cs[2].med, b,
                    r.best_cs_re(), r.psv_w[0].med, r.psv_w[1].med, r.psv_w[2].med, r.psv_w[3].med, r.psv_p[1].med,
                    ratio(b, r.psv_w[0].med), ratio(b, r.psv_p[1].med), 100 * eff_share(r, r.psv_w[0].med), r.build_s,
                    r.build_s * 1e3 / b);
    }
    std::printf("\n| matrix | best cuSP | psv auto (w) | gather probe (w) | probe layout | ceiling = best cuSP / probe | psv / probe (w) |"
                " psv auto (pat) | probe (pat) | psv / probe (pat) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Result &r : g_results) {
        if (!std::isfinite(r.probe_w.med)) continue;
        std::printf("| %s | %.4f | %.4f | %.4f | %s | %.2fx | %.2f | %.4f | %.4f | %.2f |\n", r.name.c_str(), r.best_cs(), r.psv_w[0].med,
                    r.probe_w.med, r.probe_layout_w.c_str(), ratio(r.best_cs(), r.probe_w.med), r.psv_w[0].med / r.probe_w.med,
                    r.psv_p[0].med, r.probe_p.med, r.psv_p[0].med / r.probe_p.med);
    }
    std::printf("\n| matrix | PR psv s (it) | PR cuSP s (it) | PR ms/it psv | PR ms/it cuSP | PR per-it speedup | PR max rel |"
                " HITS psv s (it) | HITS cuSP s (it) | RWR S build s | RWR psv 25x1 s | RWR psv batch s | RWR cuSP 25x1 s |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Result &r : g_results) {
        if (r.pr_it_psv < 0) continue;
        std::printf("| %s | %.4f (%d) | %.4f (%d) | %.4f | %.4f | %.2fx | %.1e | %.4f (%d) | %.4f (%d) | %.3f | %.4f | %.4f | %.4f |\n",
                    r.name.c_str(), r.pr_psv, r.pr_it_psv, r.pr_cs, r.pr_it_cs, 1e3 * r.pr_iter_psv(), 1e3 * r.pr_iter_cs(),
                    r.pr_iter_cs() / r.pr_iter_psv(), r.pr_maxrel, r.hits_psv, r.hits_it_psv, r.hits_cs, r.hits_it_cs, r.rwr_graph_s,
                    r.rwr_psv, r.rwr_batch_psv, r.rwr_cs);
    }
    // the issue's targets
    double lg_probe = 0;
    int cnt_probe = 0;
    double lg = 0, mn = INFINITY, mn_bw = INFINITY, mn_pr = INFINITY, mn_con = INFINITY;
    int cnt = 0;
    std::string mn_name, bw_name, pr_name, con_name;
    for (const Result &r : g_results) {
        const double sp = ratio(r.best_cs(), r.psv_w[0].med);
        if (!std::isfinite(sp)) continue;
        if (r.kind == "powerlaw") {
            lg += std::log(sp), ++cnt;
            if (std::isfinite(ratio(r.best_cs(), r.probe_w.med))) lg_probe += std::log(ratio(r.best_cs(), r.probe_w.med)), ++cnt_probe;
            if (sp < mn) mn = sp, mn_name = r.name;
            if (r.nnz >= 10000000 && eff_share(r, r.psv_w[0].med) < mn_bw) mn_bw = eff_share(r, r.psv_w[0].med), bw_name = r.name;
            if (r.pr_it_psv > 0 && r.pr_iter_cs() / r.pr_iter_psv() < mn_pr) mn_pr = r.pr_iter_cs() / r.pr_iter_psv(), pr_name = r.name;
        } else if (sp < mn_con) {
            mn_con = sp, con_name = r.name;
        }
    }
    std::printf("\n## Targets (psv_mxv with the default kernel choice, weighted plus-times fp32, vs the best cuSPARSE algorithm)\n");
    if (cnt) {
        std::printf("- geomean speedup over %d power-law matrices: %.2fx (target >= 2x)\n", cnt, std::exp(lg / cnt));
        std::printf("- lowest power-law speedup: %.2fx on %s (target >= 1.3x)\n", mn, mn_name.c_str());
    }
    if (cnt_probe)
        std::printf("- the gather probe's ceiling (best cuSPARSE / probe, not an SpMV): geomean %.2fx over %d power-law matrices\n",
                    std::exp(lg_probe / cnt_probe), cnt_probe);
    for (const Result &r : g_results)
        if (r.name == "rmat25") std::printf("- R-MAT 25 speedup: %.2fx (target >= 3x)\n", ratio(r.best_cs(), r.psv_w[0].med));
    if (std::isfinite(mn_bw)) std::printf("- lowest bandwidth share, power-law >= 1e7 edges: %.0f%% of copy on %s (target >= 60%%)\n", 100 * mn_bw, bw_name.c_str());
    if (std::isfinite(mn_pr)) std::printf("- lowest PageRank per-iteration speedup: %.2fx on %s (target >= 3x)\n", mn_pr, pr_name.c_str());
    if (std::isfinite(mn_con)) std::printf("- lowest non-power-law speedup: %.2fx on %s (target >= 0.9x)\n", mn_con, con_name.c_str());
    for (const Result &r : g_results)
        if (r.name == "rmat24")
            std::printf("- R-MAT 24 construction: %.3f s = %.0f best-cuSPARSE SpMV times (target < 50)\n", r.build_s, r.build_s * 1e3 / r.best_cs());
    std::fflush(stdout);
}

static void jnum(FILE *f, const char *k, double v, bool comma = true) {
    if (std::isfinite(v)) std::fprintf(f, "\"%s\": %.6g%s", k, v, comma ? ", " : "");
    else std::fprintf(f, "\"%s\": null%s", k, comma ? ", " : "");
}

static void write_json(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write %s", path.c_str());
    std::fprintf(f, "{\"device\": \"%s\", ", g_device.c_str());
    jnum(f, "copy_bandwidth_Bps", g_copy_bw);
    std::fprintf(f, "\"runs\": %d, \"warmup\": %d, \"l2_flush\": %s, \"matrices\": [\n", O.runs, O.warmup, O.flush ? "true" : "false");
    for (size_t i = 0; i < g_results.size(); ++i) {
        const Result &r = g_results[i];
        std::fprintf(f, "  {\"name\": \"%s\", \"kind\": \"%s\", \"n\": %lld, \"ncols\": %lld, \"nnz\": %lld, \"tuples\": %lld, \"x_rotation\": %d, ",
                     r.name.c_str(), r.kind.c_str(), (long long)r.n, (long long)r.ncols, (long long)r.nnz, (long long)r.nnz_in, r.nx);
        jnum(f, "gen_s", r.gen_s), jnum(f, "csr_s", r.csr_s), jnum(f, "psv_build_s", r.build_s), jnum(f, "psv_form_s", r.rebuild_tc_s);
        std::fprintf(f, "\"form\": {\"dense_tiles\": %d, \"tile_width\": %lld, \"sparse_tile\": %d, \"workloads\": %lld, "
                        "\"row_major_workloads\": %lld, \"padding_ratio\": %.4f, \"bytes\": %lld, \"dense_nvals\": %lld, \"auto_kernel\": %d}, ",
                     r.info.dense_tiles, (long long)r.info.tile_width, r.info.sparse_tile, (long long)r.info.workloads,
                     (long long)r.info.row_major_workloads, r.info.padding_ratio, (long long)r.info.bytes, (long long)r.info.dense_nvals,
                     r.auto_kernel);
        for (int k = 0; k < 4; ++k) {
            std::string key = std::string("psv_") + kKernelName[k];
            std::fprintf(f, "\"%s\": {", key.c_str());
            jnum(f, "weighted_ms", r.psv_w[k].med), jnum(f, "weighted_min_ms", r.psv_w[k].min), jnum(f, "weighted_p90_ms", r.psv_w[k].p90);
            jnum(f, "pattern_ms", r.psv_p[k].med), jnum(f, "pattern_min_ms", r.psv_p[k].min), jnum(f, "err_weighted", r.psv_err_w[k]);
            jnum(f, "err_pattern", r.psv_err_p[k], false);
            std::fprintf(f, "}, ");
        }
        for (int a = 0; a < 3; ++a) {
            std::fprintf(f, "\"cusparse_%s\": {", kCsName[a]);
            jnum(f, "ms", r.cs[a].med), jnum(f, "min_ms", r.cs[a].min), jnum(f, "err", r.cs_err[a]);
            jnum(f, "reordered_ms", r.cs_re[a].med, false);
            std::fprintf(f, "}, ");
        }
        const double b = r.best_cs();
        jnum(f, "best_cusparse_ms", b), jnum(f, "best_cusparse_reordered_ms", r.best_cs_re());
        jnum(f, "speedup_auto_weighted", ratio(b, r.psv_w[0].med)), jnum(f, "speedup_tc_weighted", ratio(b, r.psv_w[1].med));
        jnum(f, "speedup_tc_pattern", ratio(b, r.psv_p[1].med)), jnum(f, "speedup_auto_vs_reordered", ratio(r.best_cs_re(), r.psv_w[0].med));
        jnum(f, "eff_bw_auto_Bps", r.bytes() / (r.psv_w[0].med * 1e-3)), jnum(f, "bw_share_auto", eff_share(r, r.psv_w[0].med));
        jnum(f, "bw_share_best_cusparse", eff_share(r, b));
        jnum(f, "pagerank_psv_s", r.pr_psv), jnum(f, "pagerank_psv_it", r.pr_it_psv), jnum(f, "pagerank_cusparse_s", r.pr_cs);
        jnum(f, "pagerank_cusparse_it", r.pr_it_cs), jnum(f, "pagerank_l1_diff", r.pr_l1), jnum(f, "pagerank_max_rel_diff", r.pr_maxrel);
        jnum(f, "transpose_build_s", r.transpose_s), jnum(f, "pagerank_psv_1it_s", r.pr_psv1), jnum(f, "pagerank_cusparse_1it_s", r.pr_cs1);
        jnum(f, "pagerank_psv_ms_per_it", 1e3 * r.pr_iter_psv()), jnum(f, "pagerank_cusparse_ms_per_it", 1e3 * r.pr_iter_cs());
        jnum(f, "hits_psv_s", r.hits_psv), jnum(f, "hits_psv_it", r.hits_it_psv), jnum(f, "hits_cusparse_s", r.hits_cs);
        jnum(f, "hits_cusparse_it", r.hits_it_cs), jnum(f, "hits_l1_diff", r.hits_l1);
        jnum(f, "rwr_graph_build_s", r.rwr_graph_s), jnum(f, "rwr_psv_25_singles_s", r.rwr_psv), jnum(f, "rwr_psv_it_sum", r.rwr_it_psv);
        jnum(f, "rwr_psv_batch25_s", r.rwr_batch_psv), jnum(f, "rwr_cusparse_25_singles_s", r.rwr_cs);
        jnum(f, "rwr_cusparse_it_sum", r.rwr_it_cs), jnum(f, "rwr_l1_diff", r.rwr_l1), jnum(f, "rwr_batch_l1_diff", r.rwr_batch_l1);
        std::fprintf(f, "\"column_mass_top_64K_1M_4M_8M_16M\": [%.4f, %.4f, %.4f, %.4f, %.4f], ", r.mass[0], r.mass[1], r.mass[2], r.mass[3],
                     r.mass[4]);
        jnum(f, "probe_w_ms", r.probe_w.med);
        jnum(f, "probe_p_ms", r.probe_p.med);
        std::fprintf(f, "\"probe_layout_w\": \"%s\", \"probe_layout_p\": \"%s\", ", r.probe_layout_w.c_str(), r.probe_layout_p.c_str());
        std::fprintf(f, "\"prototype\": [");
        for (size_t v = 0; v < r.proto.size(); ++v) {
            const auto &x = r.proto[v];
            std::fprintf(f, "{\"tile_width\": %lld, \"tiles\": %d, \"segments\": %lld, ", (long long)x.tw, x.T, (long long)x.segs);
            jnum(f, "weighted_ms", x.w.med), jnum(f, "pattern_ms", x.p.med), jnum(f, "err_weighted", x.err_w), jnum(f, "err_pattern", x.err_p);
            jnum(f, "build_s", x.build_s, false);
            std::fprintf(f, "}%s", v + 1 < r.proto.size() ? ", " : "");
        }
        std::fprintf(f, "], ");
        std::fprintf(f, "\"variants\": [");
        for (size_t v = 0; v < r.var.size(); ++v) {
            const auto &x = r.var[v];
            std::fprintf(f, "{\"name\": \"%s\", \"dense_tiles\": %d, \"tile_width\": %lld, \"workloads\": %lld, ", x.name.c_str(),
                         x.info.dense_tiles, (long long)x.info.tile_width, (long long)x.info.workloads);
            jnum(f, "weighted_ms", x.w.med), jnum(f, "pattern_ms", x.p.med), jnum(f, "err_weighted", x.err_w);
            jnum(f, "padding_ratio", x.info.padding_ratio), jnum(f, "form_s", x.form_s, false);
            std::fprintf(f, "}%s", v + 1 < r.var.size() ? ", " : "");
        }
        std::fprintf(f, "]");
        std::fprintf(f, "}%s\n", i + 1 < g_results.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
}

static void write_csv(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write %s", path.c_str());
    std::fprintf(f, "matrix,kind,n,nnz,cusparse_csr_alg1_ms,cusparse_csr_alg2_ms,cusparse_coo_alg1_ms,best_cusparse_ms,"
                    "reordered_best_cusparse_ms,psv_auto_w_ms,psv_tc_w_ms,psv_tcoo_w_ms,psv_csr_w_ms,psv_auto_p_ms,psv_tc_p_ms,"
                    "psv_tcoo_p_ms,psv_csr_p_ms,speedup_auto_w,speedup_tc_p,bw_share_auto,psv_build_s,pagerank_psv_s,pagerank_psv_it,"
                    "pagerank_cusparse_s,pagerank_cusparse_it,hits_psv_s,hits_cusparse_s,rwr_psv_25_s,rwr_psv_batch_s,rwr_cusparse_25_s\n");
    for (const Result &r : g_results) {
        const double b = r.best_cs();
        std::fprintf(f, "%s,%s,%lld,%lld,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.4f,%.4f,%.4f,%.4f,%.5f,%d,%.5f,%d,%.5f,%.5f,%.5f,%.5f,%.5f\n",
                     r.name.c_str(), r.kind.c_str(), (long long)r.n, (long long)r.nnz, r.cs[0].med, r.cs[1].med, r.cs[2].med, b,
                     r.best_cs_re(), r.psv_w[0].med, r.psv_w[1].med, r.psv_w[2].med, r.psv_w[3].med, r.psv_p[0].med, r.psv_p[1].med,
                     r.psv_p[2].med, r.psv_p[3].med, ratio(b, r.psv_w[0].med), ratio(b, r.psv_p[1].med), eff_share(r, r.psv_w[0].med),
                     r.build_s, r.pr_psv, r.pr_it_psv, r.pr_cs, r.pr_it_cs, r.hits_psv, r.hits_cs, r.rwr_psv, r.rwr_batch_psv, r.rwr_cs);
    }
    std::fclose(f);
}

// A bar chart of speedups over the best cuSPARSE algorithm (log2 scale), per matrix and kernel.
static void write_svg(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write %s", path.c_str());
    struct Ser {
        const char *name, *color;
        int k;
        bool pat;
    } ser[] = {{"tile-composite (w)", "#1f77b4", 1, false}, {"TILE-COO (w)", "#ff7f0e", 2, false}, {"CSR (w)", "#2ca02c", 3, false},
               {"tile-composite (pattern)", "#9467bd", 1, true}, {"reordered cuSPARSE", "#7f7f7f", -1, false}};
    const int ns = 5, nm = (int)g_results.size();
    const double bw = 14, gap = 18, left = 60, top = 40, H = 320;
    const double W = left + nm * (ns * bw + gap) + 220;
    const double lo = -2, hi = 3;  // log2 range: 0.25x .. 8x
    auto yof = [&](double r) {
        double l = std::log2(std::max(1e-9, r));
        l = std::min(hi, std::max(lo, l));
        return top + H * (hi - l) / (hi - lo);
    };
    std::fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n", W,
                 top + H + 110);
    std::fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">psv SpMV speedup over the best cuSPARSE algorithm (%s, fp32)</text>\n", left,
                 g_device.c_str());
    for (double r : {0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 8.0}) {
        const double y = yof(r);
        std::fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n", left,
                     W - 210, y, y, r == 1.0 ? "black" : "#ddd", r == 1.0 ? "1.5" : "1");
        std::fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%gx</text>\n", left - 4, y + 4, r);
    }
    for (int m = 0; m < nm; ++m) {
        const Result &r = g_results[m];
        const double x0 = left + gap / 2 + m * (ns * bw + gap);
        for (int s = 0; s < ns; ++s) {
            double v = ser[s].k < 0 ? ratio(r.best_cs(), r.best_cs_re())
                                    : ratio(r.best_cs(), (ser[s].pat ? r.psv_p : r.psv_w)[ser[s].k].med);
            if (!std::isfinite(v)) continue;
            const double y1 = yof(1.0), y = yof(v);
            std::fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %.2fx</title></rect>\n",
                         x0 + s * bw, std::min(y, y1), bw - 1, std::fabs(y1 - y), ser[s].color, r.name.c_str(), ser[s].name, v);
        }
        std::fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(45)\">%s%s</text>\n", x0 + 4, top + H + 12, r.name.c_str(),
                     r.kind == "contrast" ? " (contrast)" : "");
    }
    for (int s = 0; s < ns; ++s) {
        std::fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n", W - 200,
                     top + 20 * s, ser[s].color, W - 184, top + 20 * s + 10, ser[s].name);
    }
    std::fprintf(f, "</svg>\n");
    std::fclose(f);
}

static void write_outputs() {
    if (!O.json.empty()) write_json(O.json);
    if (!O.csv.empty()) write_csv(O.csv);
    if (!O.svg.empty()) write_svg(O.svg);
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

static void usage() {
    std::fprintf(stderr,
                 "usage: psv_bench [--runs R] [--warmup W] [--json F] [--csv F] [--svg F] [--no-algos] [--no-reorder]\n"
                 "                 [--no-flush] [--rwr-max-nnz N] [--algo-max-nnz N] [--seed S] [--contrast|--powerlaw]\n"
                 "                 [--variant tw=N,maxt=M,wl=W,kernel=auto|tc|coo|csr,hot=H,ranked=0|1,prefix=P]... MATRIX...\n"
                 "  MATRIX: rmat:SCALE[:EF] | stencil:N | PATH[@LABEL]\n");
    std::exit(2);
}

int main(int argc, char **argv) {
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
        else if (a == "--kernels") {  // comma list of tile-composite, tile-coo, csr (auto is always timed)
            const std::string l = next();
            for (int k = 1; k < 4; ++k) O.kernel_on[k] = l.find(kKernelName[k]) != std::string::npos;
        }
        else if (a == "--no-flush") O.flush = false;
        else if (a == "--alg-reps") O.alg_reps = std::max(1, std::atoi(next().c_str()));
        else if (a == "--proto-tw") {  // comma list; 0: L2/16 bytes, -1: one tile; "none": no prototype
            O.proto_tw.clear();
            const std::string l = next();
            if (l != "none")
                for (size_t p = 0; p <= l.size();) {
                    size_t e = l.find(',', p);
                    if (e == std::string::npos) e = l.size();
                    O.proto_tw.push_back(std::atoll(l.substr(p, e - p).c_str()));
                    p = e + 1;
                }
        }
        else if (a == "--rwr-max-nnz") O.rwr_max_nnz = std::atoll(next().c_str());
        else if (a == "--algo-max-nnz") O.algo_max_nnz = std::atoll(next().c_str());
        else if (a == "--seed") O.seed = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--variant") {
            // tw=N,maxt=M,wl=W,kernel=auto|tc|coo|csr,hot=H,ranked=0|1,prefix=P  (unset: the defaults)
            Opts::Variant v;
            v.name = next();
            std::string spec = v.name;
            size_t p = 0;
            while (p < spec.size()) {
                size_t e = spec.find(',', p);
                if (e == std::string::npos) e = spec.size();
                const std::string kv = spec.substr(p, e - p);
                const size_t eq = kv.find('=');
                if (eq == std::string::npos) usage();
                const std::string k = kv.substr(0, eq), val = kv.substr(eq + 1);
                if (k == "tw") v.opt.tile_width = std::atoll(val.c_str());
                else if (k == "maxt") v.opt.max_tiles = std::atoll(val.c_str());
                else if (k == "wl") v.opt.workload_size = std::atoll(val.c_str());
                else if (k == "kernel")
                    v.opt.kernel = val == "auto" ? PSV_KERNEL_AUTO : val == "coo" ? PSV_KERNEL_TILE_COO
                                 : val == "csr"  ? PSV_KERNEL_CSR : PSV_KERNEL_TILE_COMPOSITE;
                else if (k == "hot") v.hot = std::atoll(val.c_str());
                else if (k == "ranked") v.ranked = std::atoi(val.c_str()) != 0;
                else if (k == "prefix") v.prefix = std::atoll(val.c_str());
                else usage();
                p = e + 1;
            }
            O.variants.push_back(v);
        } else if (a == "--contrast") kind = "contrast";
        else if (a == "--powerlaw") kind = "powerlaw";
        else if (a == "-h" || a == "--help") usage();
        else if (!a.empty() && a[0] == '-') usage();
        else mats.emplace_back(a, kind);
    }
    if (mats.empty()) usage();
    if (!psv_backend_available(PSV_BACKEND_CUDA)) die("no CUDA device (or psv built without CUDA)");
    PK(psv_context_create(PSV_BACKEND_CUDA, 0, &g_ctx));
    g_st = (cudaStream_t)psv::cuda::stream_of(backend());
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
    g_timer.init((size_t)prop.l2CacheSize);
    g_copy_bw = measure_copy_bw();
    std::printf("device: %s\ncopy bandwidth: %.3f TB/s (1 GiB device-to-device, read + write)\n", g_device.c_str(), g_copy_bw / 1e12);
    for (auto &m : mats) {
        try {
            bench_matrix(m.first, m.second);
        } catch (const psv::Error &e) {
            std::printf("%s: psv error: %s\n", m.first.c_str(), e.what());
        } catch (const std::exception &e) {
            std::printf("%s: error: %s\n", m.first.c_str(), e.what());
        }
        write_outputs();  // after every matrix: a later failure keeps what was measured
    }
    print_table();
    write_outputs();
    g_timer.release();
    CS(cusparseDestroy(g_sp));
    psv_context_free(&g_ctx);
    return 0;
}
