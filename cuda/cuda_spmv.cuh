// SpMV kernels (paper section 3.1 on Hopper), one template per kernel kind, instantiated once per
// semiring by spmv_typed<T> (one .cu file per value type, so the instantiations build in
// parallel).
//  - tile-composite: one prologue launch (t = identity, x gathered into rank order), then a
//    launch per column tile, in tile order. A block of kSpmvThreads stages the
//    tile's slice of the ranked x in shared memory (where the tile has enough entries per staged
//    value to pay for it; the sparse tile and thin tiles read x through L1/L2), then each warp
//    runs whole workloads: CSR-vector for row-major ones (lanes stride a row, a fixed butterfly
//    reduces it), ELL for column-major ones (a lane per row, sequential over the row).
//  - TILE-COO: the same tiles as plain coordinate lists; a warp owns a range of whole rows and
//    reduces them with a segmented warp scan.
//  - CSR chunks (the CSR kernel, and AUTO's choice, whenever u has every entry): a block per
//    chunk of about kChunkEntries entries cut at row starts (csr_chunk_kernel below); under AUTO
//    the columns are in rank order where x exceeds L2 on a power-law matrix.
//  - CSR (vector): G lanes per row (from the mean row length), a block per row longer than 128 G;
//    the path taken when u has absent entries.
// Every launch writes each output row from one warp (a block for the CSR kernel's long rows, a
// chunk's warp for a long row's last piece), and tiles add into t(i) in tile order: no float
// atomics (integer counters only), results reproducible bit for bit.
#pragma once
#include "cuda/cuda_backend.cuh"
#include "cuda/cuda_reduce.cuh"
#include "cuda/cuda_rt.cuh"

namespace psv {
namespace cuda {

constexpr int kSpmvWarps = kSpmvThreads / 32;

// Runtime semiring: the operators are kernel arguments (a uniform switch per operation). It
// serves every (add, multiply) pair of a type that has no compile-time specialization below, so
// the instantiations stay few (compile time on 2 cores) while every combination is supported.
template <class T> struct RtSemiring {
    using value_type = T;
    psv_op add_op, mul_op;
    T id;
    __device__ __forceinline__ T add(T a, T b) const { return rt_apply<T>(add_op, a, b); }
    __device__ __forceinline__ T mul(T a, T x) const { return rt_apply<T>(mul_op, a, x); }
    __device__ __forceinline__ T identity() const { return id; }
    using acc_type = T;
    __device__ __forceinline__ T acc_add(T a, T b) const { return add(a, b); }
};

// A compile-time semiring as an object (the kernels call s.add / s.mul / s.identity).
template <class T, psv_op ADD, psv_op MUL> struct CtSemiring {
    using value_type = T;
    __device__ __forceinline__ static T add(T a, T b) { return BinaryOp<ADD, T>::apply(a, b); }
    __device__ __forceinline__ static T mul(T a, T x) { return BinaryOp<MUL, T>::apply(a, x); }
    __device__ __forceinline__ static T identity() { return MonoidIdentity<ADD, T>::value(); }
    // fp32 plus semirings accumulate a row in double (as the CPU's pattern product does): long
    // hub rows summed in fp32 can stall power iterations in a limit cycle.
    using acc_type = typename std::conditional<std::is_same<T, float>::value && ADD == PSV_PLUS, double, T>::type;
    __device__ __forceinline__ static acc_type acc_add(acc_type a, acc_type b) { return BinaryOp<ADD, acc_type>::apply(a, b); }
};

template <class S, class A> __device__ __forceinline__ A warp_allreduce_s(const S &s, A v) {
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) v = s.acc_add(v, shfl_xor_any(v, m));
    return v;
}

// The product's prologue in one launch: t(i) = identity (and its presence: the row has entries)
// for every row, and x gathered into rank order (xr[k] = u[order[k]]) for every column.
template <class S>
__global__ void spmv_prologue_kernel(const S s, int64_t n, const int64_t *__restrict__ rp, typename S::value_type *__restrict__ t,
                                     uint8_t *__restrict__ tp, int64_t ncols, const int32_t *__restrict__ order,
                                     const typename S::value_type *__restrict__ u, typename S::value_type *__restrict__ xr) {
    const int64_t m = n > ncols ? n : ncols;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x) {
        if (i < n) {
            t[i] = s.identity();
            if (tp) tp[i] = rp[i + 1] > rp[i];
        }
        if (xr && i < ncols) xr[i] = u[order[i]];
    }
}

// The tile's slice of x: copied by the whole block into dynamic shared memory when use_smem,
// else read where it is (L1/L2). Every thread of the block must call it.
template <class T> __device__ __forceinline__ const T *stage_x(const T *__restrict__ xg, int32_t ncols_tile, int use_smem) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    if (!use_smem) return xg;
    T *xs = reinterpret_cast<T *>(smem_raw);
    for (int32_t i = threadIdx.x; i < ncols_tile; i += blockDim.x) xs[i] = xg[i];
    __syncthreads();
    return xs;
}

template <class S, class Index>
__global__ void __launch_bounds__(kSpmvThreads)
    tile_composite_kernel(const S s, const Workload *__restrict__ wls, int64_t nwl, const Index *__restrict__ cols,
                          int64_t tile_entry_begin, const typename S::value_type *__restrict__ vals,
                          const typename S::value_type *__restrict__ xg, int32_t ncols_tile, int use_smem,
                          const int32_t *__restrict__ row_ids, typename S::value_type *__restrict__ t) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    const T *x = stage_x(xg, ncols_tile, use_smem);
    const Index pad = (Index)~Index(0);
    const int lane = threadIdx.x & 31;
    for (int64_t wi = (int64_t)blockIdx.x * kSpmvWarps + (threadIdx.x >> 5); wi < nwl;
         wi += (int64_t)gridDim.x * kSpmvWarps) {
        const Workload W = wls[wi];
        const int64_t local = W.entry_begin - tile_entry_begin;
        if (W.layout == kRowMajor) {
            for (int32_t q = 0; q < W.height; ++q) {
                const Index *c = cols + local + (int64_t)q * W.stride;
                const T *v = vals ? vals + W.entry_begin + (int64_t)q * W.stride : nullptr;
                Acc acc = (Acc)s.identity();
                // two slots per lane and step, both loaded before either is used
                int32_t k = lane;
                for (; k + 32 < W.width; k += 64) {
                    const Index c0 = c[k], c1 = c[k + 32];
                    const T a0 = v ? v[k] : T(1), a1 = v ? v[k + 32] : T(1);
                    if (c0 != pad) acc = s.acc_add(acc, (Acc)s.mul(a0, x[c0]));
                    if (c1 != pad) acc = s.acc_add(acc, (Acc)s.mul(a1, x[c1]));
                }
                if (k < W.width) {
                    const Index ci = c[k];
                    if (ci != pad) acc = s.acc_add(acc, (Acc)s.mul(v ? v[k] : T(1), x[ci]));
                }
                acc = warp_allreduce_s(s, acc);
                if (lane == 0) {
                    const int32_t row = row_ids[W.row_begin + q];
                    t[row] = s.add(t[row], (T)acc);
                }
            }
        } else {
            // ELL: a lane per row, four slots per step loaded before any is used (the rows are
            // sorted by length, so a row's padding only follows its entries: PAD slots are
            // skipped, never a reason to stop early)
            constexpr int U = 4;
            for (int32_t q = lane; q < W.height; q += 32) {
                Acc acc = (Acc)s.identity();
                for (int32_t k = 0; k < W.width; k += U) {
                    Index ci[U];
                    T a[U];
#pragma unroll
                    for (int j = 0; j < U; ++j) {
                        const bool in = k + j < W.width;
                        const int64_t pos = (int64_t)(k + j) * W.stride + q;
                        ci[j] = in ? cols[local + pos] : pad;
                        a[j] = (in && vals) ? vals[W.entry_begin + pos] : T(1);
                    }
#pragma unroll
                    for (int j = 0; j < U; ++j)
                        if (ci[j] != pad) acc = s.acc_add(acc, (Acc)s.mul(a[j], x[ci[j]]));
                }
                const int32_t row = row_ids[W.row_begin + q];
                t[row] = s.add(t[row], (T)acc);
            }
        }
    }
}

template <class S>
__global__ void __launch_bounds__(kSpmvThreads)
    tile_coo_kernel(const S s, const int64_t *__restrict__ chunk, int64_t nchunks, const int32_t *__restrict__ rows,
                    const uint32_t *__restrict__ cols, const typename S::value_type *__restrict__ vals,
                    const typename S::value_type *__restrict__ xg, int32_t ncols_tile, int use_smem,
                    typename S::value_type *__restrict__ t) {
    using T = typename S::value_type;
    const T *x = stage_x(xg, ncols_tile, use_smem);
    const int lane = threadIdx.x & 31;
    for (int64_t c = (int64_t)blockIdx.x * kSpmvWarps + (threadIdx.x >> 5); c < nchunks;
         c += (int64_t)gridDim.x * kSpmvWarps) {
        const int64_t b = chunk[c], e = chunk[c + 1];
        T carry = s.identity();
        int32_t carry_row = -1;
        for (int64_t base = b; base < e; base += 32) {
            const int64_t d = base + lane;
            const bool valid = d < e;
            const int32_t row = valid ? rows[d] : -2;
            T v = valid ? s.mul(vals ? vals[d] : T(1), x[cols[d]]) : s.identity();
#pragma unroll
            for (int off = 1; off < 32; off <<= 1) {
                const T pv = shfl_up_any(v, off);
                const int32_t pr = __shfl_up_sync(0xffffffffu, row, off);
                if (lane >= off && pr == row) v = s.add(pv, v);
            }
            if (row == carry_row) v = s.add(carry, v);
            int32_t next = __shfl_down_sync(0xffffffffu, row, 1);
            if (lane == 31) next = (d + 1 < e) ? rows[d + 1] : -3;
            const bool tail = next != row;
            if (valid && tail) t[row] = s.add(t[row], v);
            // lane 31's run continues into the next step
            carry = shfl_idx_any(v, 31);
            const int32_t r31 = __shfl_sync(0xffffffffu, row, 31);
            const int32_t n31 = __shfl_sync(0xffffffffu, next, 31);
            carry_row = n31 == r31 ? r31 : -1;
        }
    }
}

// CSR (vector) with G lanes per row (G = 2 ... 32, from the mean row length: csr_lanes), so a
// warp works on 32 / G rows at once; each lane loads four entries per step before using any
// (their loads are in flight together). Rows longer than long_min are left to
// csr_long_rows_kernel. The row loop's trip count is uniform across the warp: the shuffles
// see every lane.
template <class S, int G>
__global__ void __launch_bounds__(256)
    csr_vector_kernel(const S s, int64_t nrows, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                      const typename S::value_type *__restrict__ vals, const typename S::value_type *__restrict__ u,
                      const uint8_t *__restrict__ up, typename S::value_type *__restrict__ t, uint8_t *__restrict__ tp,
                      int64_t long_min) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    constexpr int R = 32 / G;  // rows per warp step
    constexpr int U = 4;       // entries per lane per step
    const int lane = threadIdx.x & 31, sub = lane / G, l = lane % G;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t base = (blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5)) * R; base < nrows; base += warps * R) {
        const int64_t i = base + sub;
        int64_t b = 0, e = 0;
        bool ok = i < nrows;
        if (ok) {
            b = rp[i];
            e = rp[i + 1];
            if (e - b > long_min) ok = false, e = b;  // a long row: its own block writes it
        }
        Acc acc = (Acc)s.identity();
        bool any = false;
        for (int64_t p = b + l; p < e; p += U * G) {
            int32_t j[U];
            T a[U];
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const int64_t q = p + (int64_t)k * G;
                j[k] = q < e ? col[q] : -1;
                a[k] = (q < e && vals) ? vals[q] : T(1);
            }
#pragma unroll
            for (int k = 0; k < U; ++k)
                if (j[k] >= 0 && (!up || up[j[k]])) {
                    acc = s.acc_add(acc, (Acc)s.mul(a[k], u[j[k]]));
                    any = true;
                }
        }
#pragma unroll
        for (int m = G / 2; m >= 1; m >>= 1) acc = s.acc_add(acc, shfl_xor_any(acc, m));
        const unsigned ballot = __ballot_sync(0xffffffffu, any);
        if (ok && l == 0) {
            t[i] = (T)acc;
            if (tp) tp[i] = G == 32 ? ballot != 0 : ((ballot >> (sub * G)) & ((1u << (G & 31)) - 1u)) != 0;
        }
    }
}

// The rows longer than long_min (hubs of a power-law graph): a block of 256 threads per row,
// combined in a fixed order (warp butterflies, then warp 0 over the warps' sums), so the result
// does not depend on the order of the list.
template <class S>
__global__ void __launch_bounds__(256)
    csr_long_rows_kernel(const S s, const int32_t *__restrict__ rows, int64_t nlong, const int64_t *__restrict__ rp,
                         const int32_t *__restrict__ col, const typename S::value_type *__restrict__ vals,
                         const typename S::value_type *__restrict__ u, const uint8_t *__restrict__ up,
                         typename S::value_type *__restrict__ t, uint8_t *__restrict__ tp) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    __shared__ __align__(16) unsigned char part_raw[8 * sizeof(Acc)];
    __shared__ int part_any[8];
    Acc *part = reinterpret_cast<Acc *>(part_raw);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t k = blockIdx.x; k < nlong; k += gridDim.x) {
        const int32_t i = rows[k];
        const int64_t b = rp[i], e = rp[i + 1];
        Acc acc = (Acc)s.identity();
        bool any = false;
        int64_t p = b + threadIdx.x;
        for (; p + 256 < e; p += 512) {
            const int32_t j0 = col[p], j1 = col[p + 256];
            const T a0 = vals ? vals[p] : T(1), a1 = vals ? vals[p + 256] : T(1);
            if (!up || up[j0]) acc = s.acc_add(acc, (Acc)s.mul(a0, u[j0])), any = true;
            if (!up || up[j1]) acc = s.acc_add(acc, (Acc)s.mul(a1, u[j1])), any = true;
        }
        if (p < e) {
            const int32_t j = col[p];
            if (!up || up[j]) acc = s.acc_add(acc, (Acc)s.mul(vals ? vals[p] : T(1), u[j])), any = true;
        }
        acc = warp_allreduce_s(s, acc);
        any = __any_sync(0xffffffffu, any);
        if (lane == 0) part[warp] = acc, part_any[warp] = any;
        __syncthreads();
        if (threadIdx.x == 0) {
            Acc r = part[0];
            int a = part_any[0];
            for (int w = 1; w < 8; ++w) r = s.acc_add(r, part[w]), a |= part_any[w];
            t[i] = (T)r;
            if (tp) tp[i] = a != 0;
        }
        __syncthreads();
    }
}

template <class S>
void launch_csr_vector(CudaBackend &be, const CudaMatrix &M, const S s, const typename S::value_type *vals,
                       const typename S::value_type *u, const uint8_t *up, typename S::value_type *t, uint8_t *tp) {
    const int64_t n = M.nrows;
    const int G = M.csr_lanes;
    const int64_t rows_per_block = 8 * (32 / G);
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((n + rows_per_block - 1) / rows_per_block, (int64_t)be.sm_count() * 8));
    const int64_t *rp = M.row_ptr.as<int64_t>();
    const int32_t *c = M.col.as<int32_t>();
    const int64_t long_min = M.n_long_rows > 0 ? M.csr_long_min : INT64_MAX;
    cudaStream_t st = be.stream();
#define PSV_CSR_G(GG) \
    case GG: csr_vector_kernel<S, GG><<<(unsigned)blocks, 256, 0, st>>>(s, n, rp, c, vals, u, up, t, tp, long_min); break;
    switch (G) {
        PSV_CSR_G(2) PSV_CSR_G(4) PSV_CSR_G(8) PSV_CSR_G(16) default : csr_vector_kernel<S, 32><<<(unsigned)blocks, 256, 0, st>>>(s, n, rp, c, vals, u, up, t, tp, long_min);
    }
#undef PSV_CSR_G
    PSV_CUDA_LAUNCH_CHECK();
    if (M.n_long_rows > 0) {
        const int64_t lb = std::min<int64_t>(M.n_long_rows, (int64_t)be.sm_count() * 8);
        csr_long_rows_kernel<S><<<(unsigned)lb, 256, 0, st>>>(s, M.long_rows.as<int32_t>(), M.n_long_rows, rp, c, vals, u, up, t, tp);
        PSV_CUDA_LAUNCH_CHECK();
    }
}

// A read through one of the load paths below where the type has one (float, double, int32,
// int64), else a plain read.
enum class LoadPath { stream, readonly };
template <LoadPath L, class T> __device__ __forceinline__ T load_via(const T *p) {
    if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value || std::is_same<T, int32_t>::value ||
                  std::is_same<T, int64_t>::value) {
        using W = typename std::conditional<std::is_same<T, int64_t>::value, long long, T>::type;
        const W *q = reinterpret_cast<const W *>(p);
        return (T)(L == LoadPath::stream ? __ldcs(q) : __ldg(q));
    } else {
        return *p;
    }
}
// A matrix entry read once per product: streamed past L1 and marked first to leave L2, so the
// cached x stays.
template <class T> __device__ __forceinline__ T ld_stream(const T *p) { return load_via<LoadPath::stream>(p); }
// A read of x (gathered, read many times per product): the read-only data path.
template <class T> __device__ __forceinline__ T ld_x(const T *p) { return load_via<LoadPath::readonly>(p); }

// The chunk plan (CudaMatrix::ChunkPlan) and the product's arrays, as the chunk kernels read them.
template <class T> struct ChunkArgs {
    const int64_t *cb;         // chunk k: entries cb[k] .. cb[k + 1]
    const int32_t *cr;         // the first row starting at or after cb[k]
    const int32_t *head_long;  // the long row chunk k continues, or -1
    const int32_t *tail_long;  // the long row starting in chunk k, or -1
    const int32_t *long_row;
    const int64_t *long_first, *long_slot;
    unsigned *counters;
    void *slots;
    const int64_t *rp;
    const int32_t *col;  // as the kernel reads them: M.col, or the plan's col_enc
    const T *vals;       // nullptr: every value is one (a pattern, or a product that ignores A)
    T *t;
    uint8_t *tp;
};

// The chunk kernels work on chunk k (entries b .. e) with the kChunkThreads threads tid = 0 ..
// kChunkThreads - 1, and sync() a barrier over exactly those threads (merge-like CSR, for u with
// every entry). A chunk holds at most 2 x kChunkThreads x E entries, cut at row starts except
// inside rows longer than kChunkThreads x E. chunk_load: each thread loads the first E of its
// entries (all before any is used: their loads are in flight together); chunk_fill: their
// products (fetch(c) reads x for a stored column c) into prod, in shared memory, with the second
// half loaded there where the chunk has one; then, after sync(), chunk_reduce sums the chunk's row
// pieces: G lanes per piece, G the least power of two with kChunkMeanPerLane x G >= the chunk's
// mean piece length (one thread per piece up to a mean of 16: a serial sum from shared memory
// costs a third of the instructions of a shuffle tree over 8 lanes), pieces longer than
// kChunkMaxPerLane x G by a whole warp afterwards. A long row's pieces land in slots; the warp
// that finishes the last of them (a counter per long row, reset by that warp) adds the slots in
// order. Every sum has a fixed order: results are reproducible.
// (Offsets inside a chunk, at most 2 x kChunkThreads x E, are 32-bit, and the thread's entries
// are addressed from one pointer with constant strides: the kernels issue instructions near
// their limit on short uniform rows, 72 % of the SM's issue rate on the stencil, H100.)
constexpr int kChunkMeanPerLane = 16;
constexpr int kChunkMaxPerLane = 64;
static_assert(kChunkMaxPerLane >= 16, "a chunk's deferred list (kChunkDeferredMax) holds pieces of more than 16 entries");
template <class T, int E>
__device__ __forceinline__ void chunk_load(const ChunkArgs<T> &A, int64_t base, int64_t e, int tid, int32_t (&c)[E], T (&a)[E]) {
    const int32_t rem = (int32_t)(e - base) - tid;  // this thread's entry j is in the chunk iff j x kChunkThreads < rem
    const int32_t *cp = A.col + base + tid;
    const T *vp = A.vals ? A.vals + base + tid : nullptr;
#pragma unroll
    for (int j = 0; j < E; ++j) {
        const bool in = j * kChunkThreads < rem;
        c[j] = in ? ld_stream(cp + j * kChunkThreads) : 0;
        a[j] = (in && vp) ? ld_stream(vp + j * kChunkThreads) : T(1);
    }
}

template <class S, int E, class Fetch>
__device__ __forceinline__ void chunk_fill(const S &s, int64_t b, int64_t e, const ChunkArgs<typename S::value_type> &A,
                                           Fetch fetch, typename S::value_type *prod, int32_t (&c)[E],
                                           typename S::value_type (&a)[E], int &ndef, int tid) {
    constexpr int TB = kChunkThreads;
    if (tid == 0) ndef = 0;
    for (int h = 0; h < 2; ++h) {
        const int64_t base = b + (int64_t)h * TB * E;
        if (base >= e) break;  // uniform
        if (h == 1) chunk_load(A, base, e, tid, c, a);
        const int32_t rem = (int32_t)(e - base) - tid;
        typename S::value_type *pp = prod + h * TB * E + tid;
#pragma unroll
        for (int j = 0; j < E; ++j)
            if (j * TB < rem) pp[j * TB] = s.mul(a[j], fetch(c[j]));
    }
}

// chunk_fill for 4-byte indices and values (chunk_load included): each thread loads groups of 4
// consecutive entries with one 16-byte load per array (a quarter of the load instructions; the
// chunk kernel is issue-bound on short uniform rows otherwise: 72 % of the SM's issue rate on the
// stencil, H100). The groups are aligned to 16 bytes from the chunk's start rounded down to a
// multiple of 4, ab = b & ~3 (the arrays are cudaMalloc'ed: 256-byte aligned); a group that is
// not wholly inside the chunk is loaded entry by entry. Entry q lands in prod[q - ab]: the
// caller passes prod + the returned (b - ab) to chunk_reduce, and prod holds kChunkCap + 4 values.
template <class T> __device__ __forceinline__ T bits_to(int v) {
    T r;
    memcpy(&r, &v, 4);
    return r;
}
template <class T> __device__ __forceinline__ int to_bits(T v) {
    int r;
    memcpy(&r, &v, 4);
    return r;
}
template <class S, int E, class Fetch>
__device__ __forceinline__ int chunk_fill_v(const S &s, int64_t b, int64_t e, const ChunkArgs<typename S::value_type> &A,
                                            Fetch fetch, typename S::value_type *prod, int &ndef, int tid) {
    using T = typename S::value_type;
    static_assert(sizeof(T) == 4 && E % 4 == 0, "4-byte values, whole groups");
    constexpr int TB = kChunkThreads, NG = E / 4;
    const int64_t ab = b & ~(int64_t)3;
    if (tid == 0) ndef = 0;
    const int32_t *cp = A.col + ab + 4 * tid;
    const T *vp = A.vals ? A.vals + ab + 4 * tid : nullptr;
    const int32_t lo = (int32_t)(b - ab) - 4 * tid, hi = (int32_t)(e - ab) - 4 * tid;
    T *pp = prod + 4 * tid;
    const int32_t span = (int32_t)(e - ab);  // at most 2 TB E + 3: a third pass takes the last few
    for (int h = 0; h < 3; ++h) {
        const int32_t hb = h * TB * E;
        if (hb >= span) break;  // uniform
        int32_t c[4 * NG];
        T a[4 * NG];
#pragma unroll
        for (int j = 0; j < NG; ++j) {
            const int32_t q = hb + j * 4 * TB;
            if (q >= lo && q + 4 <= hi) {
                const int4 cv = __ldcs(reinterpret_cast<const int4 *>(cp + q));
                c[4 * j] = cv.x, c[4 * j + 1] = cv.y, c[4 * j + 2] = cv.z, c[4 * j + 3] = cv.w;
                if (vp) {
                    const int4 av = __ldcs(reinterpret_cast<const int4 *>(vp + q));
                    a[4 * j] = bits_to<T>(av.x), a[4 * j + 1] = bits_to<T>(av.y), a[4 * j + 2] = bits_to<T>(av.z), a[4 * j + 3] = bits_to<T>(av.w);
                } else {
#pragma unroll
                    for (int k = 0; k < 4; ++k) a[4 * j + k] = T(1);
                }
            } else {
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    const bool in = q + k >= lo && q + k < hi;
                    c[4 * j + k] = in ? ld_stream(cp + q + k) : 0;
                    a[4 * j + k] = (in && vp) ? ld_stream(vp + q + k) : T(1);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < NG; ++j) {
            const int32_t q = hb + j * 4 * TB;
            if (q < hi) {
                int w[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) w[k] = (q + k >= lo && q + k < hi) ? to_bits<T>(s.mul(a[4 * j + k], fetch(c[4 * j + k]))) : 0;
                *reinterpret_cast<int4 *>(pp + q) = make_int4(w[0], w[1], w[2], w[3]);
            }
        }
    }
    return (int)(b - ab);
}

// The row_ptr lines of chunk k's rows (rp[cr[k]] .. rp[cr[k + 1]], 16 per 128-byte line),
// prefetched to L2 by the first threads before the fill, so that chunk_reduce's reads of them,
// after the barrier, are not a round trip to DRAM of their own. csr_chunk_kernel on few waves
// only: H100, cnr-2000 0.0288 -> 0.0275 ms, rajat01 0.0098 -> 0.0095, bayer10 0.0095 -> 0.0090;
// on many waves (the stencil, 8 blocks) within the noise, and it costs the plus-times variant a
// spill at 32 registers; in csr_hot_kernel (R-MAT 22) 1.3 % slower (bench/NOTES.md v5).
template <class T> __device__ __forceinline__ void prefetch_rows(const ChunkArgs<T> &A, int64_t k, int tid) {
    const int32_t r0 = A.cr[k], r1 = A.cr[k + 1];
    const int64_t first = (int64_t)r0 & ~(int64_t)15;
    const int64_t lines = ((int64_t)r1 - first) / 16 + 1;
    if (tid < lines) asm volatile("prefetch.global.L2 [%0];" ::"l"(A.rp + first + 16 * (int64_t)tid));
}

template <class S, class Sync>
__device__ __forceinline__ void chunk_reduce(const S &s, int64_t k, int64_t b, int64_t e, const ChunkArgs<typename S::value_type> &A,
                                             Sync sync, const typename S::value_type *prod, int32_t *deferred, int &ndef,
                                             int tid) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    constexpr int TB = kChunkThreads;
    Acc *slots = static_cast<Acc *>(A.slots);
    const int lane = tid & 31, warp = tid >> 5;
    const int32_t r0 = A.cr[k], r1 = A.cr[k + 1];
    const int64_t rp0 = A.rp[r0];
    const int hh = rp0 > b ? 1 : 0;  // the chunk starts inside a long row
    const int32_t npieces = (r1 - r0) + hh;
    // piece p: [lo, hi) of row `row` (-1: the head piece of the long row head_long[k])
    auto piece = [&](int32_t p, int64_t &lo, int64_t &hi, int32_t &row, bool &is_long) {
        if (hh && p == 0) {
            lo = b;
            hi = rp0 < e ? rp0 : e;
            row = -1;
            is_long = true;
        } else {
            row = r0 + p - hh;
            lo = A.rp[row];
            const int64_t end = A.rp[row + 1];
            hi = end < e ? end : e;
            is_long = end > e;  // continues past the chunk: the tail piece of a long row
        }
    };
    const int64_t mean = npieces > 0 ? (e - b) / npieces : 0;
    int G = 1;
    while (G < 32 && kChunkMeanPerLane * G < mean) G *= 2;
    const int per_round = TB / G, sub = tid / G, l = tid % G;
    for (int32_t p0 = 0; p0 < npieces; p0 += per_round) {
        const int32_t p = p0 + sub;
        Acc acc = (Acc)s.identity();
        bool write = false;
        int64_t lo = 0, hi = 0;
        int32_t row = -1;
        if (p < npieces) {
            bool is_long;
            piece(p, lo, hi, row, is_long);
            if (is_long || hi - lo > kChunkMaxPerLane * G) {
                if (l == 0) deferred[atomicAdd(&ndef, 1)] = p;
            } else {
                write = true;
                int32_t q = (int32_t)(lo - b) + l;
                const int32_t qe = (int32_t)(hi - b);
                for (; q + 3 * G < qe; q += 4 * G) {
                    const T v0 = prod[q], v1 = prod[q + G], v2 = prod[q + 2 * G], v3 = prod[q + 3 * G];
                    acc = s.acc_add(acc, (Acc)v0);
                    acc = s.acc_add(acc, (Acc)v1);
                    acc = s.acc_add(acc, (Acc)v2);
                    acc = s.acc_add(acc, (Acc)v3);
                }
                for (; q < qe; q += G) acc = s.acc_add(acc, (Acc)prod[q]);
            }
        }
#pragma unroll
        for (int m = 16; m >= 1; m >>= 1)
            if (m < G) acc = s.acc_add(acc, shfl_xor_any(acc, m));
        if (write && l == 0) {
            A.t[row] = (T)acc;
            if (A.tp) A.tp[row] = hi > lo;
        }
    }
    sync();
    const int nd = ndef;
    for (int i = warp; i < nd; i += TB / 32) {
        int64_t lo, hi;
        int32_t row;
        bool is_long;
        piece(deferred[i], lo, hi, row, is_long);
        Acc acc = (Acc)s.identity();
        for (int32_t q = (int32_t)(lo - b) + lane, qe = (int32_t)(hi - b); q < qe; q += 32) acc = s.acc_add(acc, (Acc)prod[q]);
        acc = warp_allreduce_s(s, acc);
        if (!is_long) {
            if (lane == 0) {
                A.t[row] = (T)acc;
                if (A.tp) A.tp[row] = 1;
            }
            continue;
        }
        const int32_t j = row < 0 ? A.head_long[k] : A.tail_long[k];
        const int64_t s0 = A.long_slot[j], np = A.long_slot[j + 1] - s0;
        unsigned old = 0;
        if (lane == 0) {
            slots[s0 + (k - A.long_first[j])] = acc;
            __threadfence();
            old = atomicAdd(A.counters + j, 1u);
        }
        old = __shfl_sync(0xffffffffu, old, 0);
        if (old != (unsigned)(np - 1)) continue;
        // the last piece: every slot is written; add them in slot order
        __threadfence();
        Acc sum = (Acc)s.identity();
        for (int64_t q = lane; q < np; q += 32) {
            const Acc v = *static_cast<volatile const Acc *>(slots + s0 + q);  // L2, not this SM's L1
            sum = s.acc_add(sum, v);
        }
        sum = warp_allreduce_s(s, sum);
        if (lane == 0) {
            const int32_t r = A.long_row[j];
            A.t[r] = (T)sum;
            if (A.tp) A.tp[r] = 1;
            A.counters[j] = 0;
        }
    }
}

// The CSR chunk kernel: a block per chunk, at least MINB blocks per SM (registers capped: 40 for
// 6 blocks, 32 for 8; without a cap the compiler took 64, 4 blocks). V: chunk_fill_v's 16-byte
// loads (4-byte indices and values only). 8 blocks (V only: the scalar fill spills at 32
// registers) pay on matrices of many waves, 6 on those of a few, where each block's chain of
// dependent loads counts more than occupancy (H100: the stencil of 266 M entries 1.04 -> 0.94
// ms; cnr-2000's 1571 chunks 0.0305 -> 0.0314 ms, rajat01 0.0101 -> 0.0110 ms; bench/NOTES.md v5).
template <class S, int E, bool V, int MINB>
__global__ void __launch_bounds__(kChunkThreads, MINB)
    csr_chunk_kernel(const S s, const ChunkArgs<typename S::value_type> A, const typename S::value_type *__restrict__ u) {
    using T = typename S::value_type;
    static_assert(2 * kChunkThreads * E == kChunkCap, "a chunk is at most two passes of E entries per thread");
    __shared__ __align__(16) T prod[kChunkCap + 4];
    __shared__ int32_t deferred[kChunkDeferredMax];
    __shared__ int ndef;
    const int64_t k = blockIdx.x, b = A.cb[k], e = A.cb[k + 1];
    if constexpr (MINB == 6) prefetch_rows(A, k, threadIdx.x);
    auto fetch = [&](int32_t j) { return ld_x(u + j); };
    int off = 0;
    if constexpr (V) {
        off = chunk_fill_v<S, E>(s, b, e, A, fetch, prod, ndef, threadIdx.x);
    } else {
        int32_t c[E];
        T a[E];
        chunk_load(A, b, e, threadIdx.x, c, a);
        chunk_fill<S, E>(s, b, e, A, fetch, prod, c, a, ndef, threadIdx.x);
    }
    __syncthreads();
    chunk_reduce(s, k, b, e, A, [] { __syncthreads(); }, prod + off, deferred, ndef, threadIdx.x);
}

// The hot-column chunk kernel: kHotBlocksPerSm blocks of kHotGroups x kChunkThreads threads per
// SM, alive for the whole product. Each first copies the H hottest columns of x (ranks 0 .. H-1:
// xs[i] = xh[i], or xh[hot_order[i]]) into its shared memory, then each group of kChunkThreads
// threads takes every (gridDim.x x kHotGroups)-th chunk, with a barrier of its own (bar.sync
// 1 + group). A stored column c < 0 is hot: x at rank c & 0x7fffffff, read from shared memory
// (a warp's 32 reads of random ranks cost a few bank-conflict replays, where the same gathers go
// through L1 and L2, the chunk kernel's bottleneck: 95 % of L2 throughput at R-MAT 22, H100);
// c >= 0 is read from xg[c]; SPLIT (a ranked plan whose ranked_prefix R is below ncols): from
// xg[c] for c < R, else from u[c - R]. The other plans keep the plain read, not a compare and a
// select per entry.
template <class S, int E, bool SPLIT>
__global__ void __launch_bounds__(kHotGroups * kChunkThreads, kHotBlocksPerSm)
    csr_hot_kernel(const S s, int64_t nchunks, const ChunkArgs<typename S::value_type> A,
                   const typename S::value_type *__restrict__ xg, const typename S::value_type *__restrict__ u, int32_t R,
                   const typename S::value_type *__restrict__ xh, const int32_t *__restrict__ hot_order, int32_t H) {
    using T = typename S::value_type;
    static_assert(2 * kChunkThreads * E == kChunkCap, "a chunk is at most two passes of E entries per thread");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ int32_t deferred[kHotGroups][kChunkDeferredMax];
    __shared__ int ndef[kHotGroups];
    T *prod = reinterpret_cast<T *>(smem_raw);  // kHotGroups x kChunkCap, then the H hot values (hot_capacity)
    T *xs = prod + kHotGroups * kChunkCap;
#pragma unroll 8
    for (int32_t i = threadIdx.x; i < H; i += blockDim.x) xs[i] = hot_order ? ld_x(xh + hot_order[i]) : ld_x(xh + i);
    __syncthreads();
    const int g = threadIdx.x / kChunkThreads, tid = threadIdx.x % kChunkThreads;
    auto sync = [g] { asm volatile("bar.sync %0, %1;" ::"r"(g + 1), "r"(kChunkThreads) : "memory"); };
    auto fetch = [&](int32_t j) {
        if (j < 0) return xs[j & 0x7fffffff];
        if constexpr (SPLIT) return ld_x(j < R ? xg + j : u + (j - R));
        return ld_x(xg + j);
    };
    T *gp = prod + g * kChunkCap;
    for (int64_t k = (int64_t)blockIdx.x * kHotGroups + g; k < nchunks; k += (int64_t)gridDim.x * kHotGroups) {
        const int64_t b = A.cb[k], e = A.cb[k + 1];
        int32_t c[E];
        T a[E];
        chunk_load(A, b, e, tid, c, a);
        chunk_fill<S, E>(s, b, e, A, fetch, gp, c, a, ndef[g], tid);
        sync();
        chunk_reduce(s, k, b, e, A, sync, gp, deferred[g], ndef[g], tid);
        sync();  // prod, deferred and ndef are the next chunk's
    }
}

// Lets kernel launch with `bytes` of dynamic shared memory. Always set, not only above 48 KB: a
// kernel's static shared memory counts against that default limit too.
template <class K> void allow_smem(K kernel, size_t bytes) {
    PSV_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

// The chunk kernels' product. With hot columns (P.hot > 0, for values no larger than the plan
// was sized for): csr_hot_kernel over col_enc, x read from u, or where the plan is ranked from x
// gathered into rank order for its first ranked_prefix ranks and from u beyond; the hot values
// come from the rank-order x, from a gather of the hot part alone (H > kHotDirect), or straight
// from u through col_order. Without: csr_chunk_kernel over col_enc and the rank-order x (ranked:
// every column), or over M.col and u.
template <class S>
void launch_csr_chunk(CudaBackend &be, const CudaMatrix &M, const S s, const typename S::value_type *vals,
                      const typename S::value_type *u, typename S::value_type *t, uint8_t *tp) {
    using T = typename S::value_type;
    const CudaMatrix::ChunkPlan &P = M.chunks;
    cudaStream_t st = be.stream();
    const int64_t H = (P.hot > 0 && sizeof(T) <= P.hot_vb) ? P.hot : 0;
    const bool ranked = P.ranked && (H > 0 || P.hot == 0);  // a plan with hot columns is read ranked only by the hot kernel
    const bool enc = H > 0 || ranked;
    ChunkArgs<T> A{P.begin.as<int64_t>(),      P.first_row.as<int32_t>(), P.head_long.as<int32_t>(),
                   P.tail_long.as<int32_t>(),  P.long_row.as<int32_t>(),  P.long_first.as<int64_t>(),
                   P.long_slot.as<int64_t>(),  P.counters.as<unsigned>(), P.slots.get(),
                   M.row_ptr.as<int64_t>(),    enc ? P.col_enc.as<int32_t>() : M.col.as<int32_t>(),
                   vals,                       t,                         tp};
    // chunk_fill_v's 16-byte loads need 16-byte aligned arrays (cudaMalloc gives 256)
    if (sizeof(T) == 4 && ((reinterpret_cast<uintptr_t>(A.col) | reinterpret_cast<uintptr_t>(vals)) & 15))
        fail(PSV_ERROR_PANIC, "the chunk kernel's index or value array is not 16-byte aligned");
    const int32_t *order = M.form.col_order.as<int32_t>();
    // the only allocation comes first: a failure leaves t untouched
    const int64_t gathered = ranked ? P.ranked_prefix : (H > kHotDirect ? H : 0);
    Buffer xr(&be, (size_t)gathered * sizeof(T));
    if (gathered > 0) {
        // the product prologue with no rows: only the gather of x into rank order
        spmv_prologue_kernel<S><<<grid_for(gathered), 256, 0, st>>>(s, 0, A.rp, nullptr, nullptr, gathered, order, u, xr.as<T>());
        PSV_CUDA_LAUNCH_CHECK();
    }
    const T *xg = ranked ? xr.as<T>() : u;
    if (H == 0) {
        if constexpr (sizeof(T) == 4) {
            if (chunk_many_waves(M.nvals, be.sm_count()))
                csr_chunk_kernel<S, kChunkPerThread, true, 8><<<(unsigned)P.nchunks, kChunkThreads, 0, st>>>(s, A, xg);
            else
                csr_chunk_kernel<S, kChunkPerThread, true, 6><<<(unsigned)P.nchunks, kChunkThreads, 0, st>>>(s, A, xg);
        } else {
            csr_chunk_kernel<S, kChunkPerThread, false, 6><<<(unsigned)P.nchunks, kChunkThreads, 0, st>>>(s, A, xg);
        }
        PSV_CUDA_LAUNCH_CHECK();
        return;
    }
    const size_t bytes = ((size_t)kHotGroups * kChunkCap + (size_t)H) * sizeof(T);
    const int64_t grid = std::min<int64_t>((int64_t)kHotBlocksPerSm * be.sm_count(), (P.nchunks + kHotGroups - 1) / kHotGroups);
    const bool split = ranked && P.ranked_prefix < M.ncols;
    auto kernel = split ? csr_hot_kernel<S, kChunkPerThread, true> : csr_hot_kernel<S, kChunkPerThread, false>;
    allow_smem(kernel, bytes);
    kernel<<<(unsigned)grid, kHotGroups * kChunkThreads, bytes, st>>>(s, P.nchunks, A, xg, u, (int32_t)P.ranked_prefix,
                                                                      gathered > 0 ? xr.as<T>() : u,
                                                                      gathered > 0 ? nullptr : order, (int32_t)H);
    PSV_CUDA_LAUNCH_CHECK();
}

template <class S> void run_spmv(CudaBackend &be, const CudaMatrix &M, const SpmvArgs &a, const S s) {
    using T = typename S::value_type;
    cudaStream_t st = be.stream();
    const int64_t n = M.nrows;
    T *t = static_cast<T *>(a.t);
    const T *u = static_cast<const T *>(a.u);
    if (n == 0) return;
    const bool use_vals = !M.pattern && a.mul != PSV_SECOND && a.mul != PSV_PAIR;
    if (a.u_present || M.kernel == PSV_KERNEL_CSR) {
        if (!a.u_present && M.chunks.nchunks > 0) {
            launch_csr_chunk(be, M, s, use_vals ? M.val.as<T>() : nullptr, u, t, a.t_present);
            return;
        }
        launch_csr_vector(be, M, s, use_vals ? M.val.as<T>() : nullptr, u, a.u_present, t, a.t_present);
        return;
    }
    // the only allocation comes first: a failure leaves t untouched
    Buffer xr(&be, M.nvals > 0 ? (size_t)M.ncols * sizeof(T) : 0);
    const TcForm &F = M.form;
    spmv_prologue_kernel<S><<<grid_for(std::max<int64_t>(n, M.ncols)), 256, 0, st>>>(
        s, n, M.row_ptr.as<int64_t>(), t, a.t_present, M.ncols, F.col_order.as<int32_t>(), u, M.nvals > 0 ? xr.as<T>() : nullptr);
    PSV_CUDA_LAUNCH_CHECK();
    if (M.nvals == 0) return;
    const size_t optin = be.smem_optin();
    const int64_t sms = be.sm_count();
    for (size_t ti = 0; ti < F.tiles.size(); ++ti) {
        const Tile &tile = F.tiles[ti];
        const int64_t span = tile.col_end - tile.col_begin;
        const size_t bytes = (size_t)span * sizeof(T);
        const T *x = xr.as<T>() + tile.col_begin;
        if (M.kernel == PSV_KERNEL_TILE_COO) {
            const int64_t c0 = F.coo_chunk_begin[ti], nch = F.coo_chunk_begin[ti + 1] - c0 - 1;
            if (nch <= 0) continue;
            int64_t grid = std::min<int64_t>((nch + kSpmvWarps - 1) / kSpmvWarps, 4 * sms);
            bool smem = !tile.is_sparse && bytes <= optin && tile.nvals >= 2 * std::min<int64_t>(grid, 2 * sms) * span;
            if (smem) grid = std::min<int64_t>(grid, 2 * sms);
            const T *vals = use_vals ? F.coo_val.as<T>() : nullptr;
            if (smem) allow_smem(tile_coo_kernel<S>, bytes);
            tile_coo_kernel<S><<<(unsigned)grid, kSpmvThreads, smem ? bytes : 0, st>>>(
                s, F.coo_chunk.as<int64_t>() + c0, nch, F.coo_row.as<int32_t>(), F.coo_col.as<uint32_t>(), vals, x,
                (int32_t)span, smem ? 1 : 0, t);
            PSV_CUDA_LAUNCH_CHECK();
            continue;
        }
        const int64_t nwl = tile.wl_end - tile.wl_begin;
        if (nwl <= 0) continue;
        int64_t grid = std::min<int64_t>((nwl + kSpmvWarps - 1) / kSpmvWarps, 4 * sms);
        // Stage the slice where each staged value serves enough entries.
        const bool smem = !tile.is_sparse && bytes <= optin && tile.nvals >= 2 * std::min<int64_t>(grid, 2 * sms) * span;
        if (smem) grid = std::min<int64_t>(grid, 2 * sms);
        const T *vals = use_vals ? F.values.as<T>() : nullptr;
        const Workload *wls = F.workloads.as<Workload>() + tile.wl_begin;
        if (tile.index_bits == 16) {
            if (smem) allow_smem(tile_composite_kernel<S, uint16_t>, bytes);
            tile_composite_kernel<S, uint16_t><<<(unsigned)grid, kSpmvThreads, smem ? bytes : 0, st>>>(
                s, wls, nwl, F.col16.as<uint16_t>() + tile.index_offset, tile.entry_begin, vals, x, (int32_t)span,
                smem ? 1 : 0, F.row_ids.as<int32_t>(), t);
        } else {
            if (smem) allow_smem(tile_composite_kernel<S, uint32_t>, bytes);
            tile_composite_kernel<S, uint32_t><<<(unsigned)grid, kSpmvThreads, smem ? bytes : 0, st>>>(
                s, wls, nwl, F.col32.as<uint32_t>() + tile.index_offset, tile.entry_begin, vals, x, (int32_t)span,
                smem ? 1 : 0, F.row_ids.as<int32_t>(), t);
        }
        PSV_CUDA_LAUNCH_CHECK();
    }
}

// Compile-time specializations for the semirings the algorithms and benchmarks use; every other
// (add, multiply) pair of the type runs the RtSemiring instantiation.
template <class T> void spmv_typed(CudaBackend &be, const SpmvArgs &a0) {
    const CudaMatrix &M = static_cast<const CudaMatrix &>(*a0.A);
    const psv_type ty = TypeCode<T>::value;
    SpmvArgs a = a0;
    a.add = canonical_op(a0.add, ty);
    a.mul = canonical_op(a0.mul, ty);
#define PSV_CT(ADD, MUL)                                                    \
    if (a.add == ADD && a.mul == MUL) {                                     \
        run_spmv(be, M, a, CtSemiring<T, ADD, MUL>{});                      \
        return;                                                             \
    }
    if constexpr (std::is_same<T, bool_t>::value) {
        PSV_CT(PSV_LOR, PSV_LAND)
        PSV_CT(PSV_LOR, PSV_SECOND)
        PSV_CT(PSV_LOR, PSV_PAIR)
    } else {
        PSV_CT(PSV_PLUS, PSV_TIMES)
        PSV_CT(PSV_PLUS, PSV_SECOND)
        PSV_CT(PSV_PLUS, PSV_PAIR)
        PSV_CT(PSV_MIN, PSV_PLUS)
        PSV_CT(PSV_MAX, PSV_PLUS)
        PSV_CT(PSV_MIN, PSV_SECOND)
    }
#undef PSV_CT
    RtSemiring<T> rs;
    rs.add_op = a.add;
    rs.mul_op = a.mul;
    rs.id = rt_identity<T>(a.add);
    run_spmv(be, M, a, rs);
}

#define PSV_INSTANTIATE_SPMV(T) template void spmv_typed<T>(CudaBackend &, const SpmvArgs &);

}  // namespace cuda
}  // namespace psv
