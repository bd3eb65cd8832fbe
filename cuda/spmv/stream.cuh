// The streamed product (PSV_KERNEL_STREAM; StreamPlan in cuda/build/matrix.cuh): x is read in
// order and written once per (partition, column) pair, then each partition sums its rows from
// shared memory. Deterministic: every row (or row piece) is summed by one group of lanes in a
// fixed order, pieces combined in partition order; no float atomics.
#pragma once
#include "cuda/build/matrix.cuh"
#include "cuda/spmv/semiring.cuh"
#include "cuda/spmv/tile_composite.cuh"

namespace psv {
namespace cuda {

// Copy src[p0 .. p0 + n) to dst[0 .. n) with 16-byte loads (src 16-byte aligned and readable up
// to the 16-byte boundary past p0 + n), four of them in flight per thread.
template <class T> __device__ __forceinline__ void stream_stage(const T *__restrict__ src, int64_t p0, int64_t n, T *dst) {
    constexpr int V = 16 / sizeof(T);
    const uint4 *s4 = reinterpret_cast<const uint4 *>(src);
    const int64_t a0 = p0 / V, a1 = (p0 + n + V - 1) / V;
    for (int64_t v = a0 + threadIdx.x; v < a1; v += 4 * (int64_t)blockDim.x) {
        uint4 q[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int64_t vk = v + k * (int64_t)blockDim.x;
            if (vk < a1) q[k] = s4[vk];
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int64_t vk = v + k * (int64_t)blockDim.x;
            if (vk >= a1) break;
            const T *e = reinterpret_cast<const T *>(&q[k]);
#pragma unroll
            for (int c = 0; c < V; ++c) {
                const int64_t i = vk * V + c - p0;
                if (i >= 0 && i < n) dst[i] = e[c];
            }
        }
    }
}

// The scatter pass: block (window b, split s) stages x's window b (column_block columns) in
// shared memory and writes its share of the window's items: item q writes the window's column
// item_col[q] to pv[item_dest[q]] (the items of one partition are consecutive in pv: coalesced).
template <class T>
__global__ void __launch_bounds__(kStreamScatterThreads, 2)
    stream_scatter_kernel(int64_t ncols, int64_t cblock, int64_t splits, const uint32_t *__restrict__ window_item,
                          const uint32_t *__restrict__ item_dest, const uint16_t *__restrict__ item_col,
                          const T *__restrict__ u, T *__restrict__ pv) {
    extern __shared__ __align__(16) unsigned char stream_smem[];
    T *xw = reinterpret_cast<T *>(stream_smem);
    const int64_t b = blockIdx.x / splits, s = blockIdx.x % splits;
    const int64_t w0 = window_item[b], len = (int64_t)window_item[b + 1] - w0;
    const int64_t q0 = w0 + len * s / splits, q1 = w0 + len * (s + 1) / splits;
    if (q0 == q1) return;
    const int64_t c0 = b * cblock;
    stream_stage(u, c0, min(cblock, ncols - c0), xw);
    __syncthreads();
    for (int64_t q = q0 + threadIdx.x; q < q1; q += 4 * (int64_t)blockDim.x) {
        uint32_t d[4];
        uint16_t c[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int64_t qk = q + k * (int64_t)blockDim.x;
            if (qk < q1) d[k] = item_dest[qk], c[k] = item_col[qk];
        }
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (q + k * (int64_t)blockDim.x < q1) pv[d[k]] = xw[c[k]];
    }
}

template <class T, class Acc> struct StreamArgs {
    int64_t parts, nrows;
    const int64_t *pe;   // part_entry
    const int32_t *pr;   // part_row
    const uint32_t *pp;  // part_pair
    int64_t hot;
    const T *xh, *pv;
    const uint16_t *lidx;
    const int64_t *rp;
    const T *vals;
    T *t;
    uint8_t *tp;
    Acc *head, *tail;  // [parts] each
};

// One row piece [b, e) of partition k (rows cut by a boundary leave their pieces in head/tail).
template <class T, class Acc>
__device__ __forceinline__ void stream_write(const StreamArgs<T, Acc> &A, int64_t k, int64_t i, int64_t b, int64_t e,
                                             int64_t rb, int64_t re, int64_t e0, Acc acc) {
    if (b == rb && e == re) {
        A.t[i] = (T)acc;
        if (A.tp) A.tp[i] = re > rb;
    } else if (rb < e0) {
        A.head[k] = acc;
    } else {
        A.tail[k] = acc;
    }
}

// A row piece [b, e) of the partition summed by `lanes` lanes (lane l of them; U entries per lane
// per step, their loads in flight together); the sum of the lanes' partials is the caller's.
template <class S, int U>
__device__ __forceinline__ typename S::acc_type stream_piece(const S &s, const typename S::value_type *xs, const uint16_t *__restrict__ lidx,
                                                             const typename S::value_type *__restrict__ vals, int64_t b, int64_t e,
                                                             int l, int lanes) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    Acc acc = (Acc)s.identity();
    for (int64_t p = b + l; p < e; p += (int64_t)U * lanes) {
        uint16_t j[U];
        T a[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const int64_t q = p + (int64_t)k * lanes;
            j[k] = q < e ? lidx[q] : (uint16_t)0;
            a[k] = (q < e && vals) ? vals[q] : T(1);
        }
#pragma unroll
        for (int k = 0; k < U; ++k)
            if (p + (int64_t)k * lanes < e) acc = s.acc_add(acc, (Acc)s.mul(a[k], xs[j[k]]));
    }
    return acc;
}

// The accumulate pass: a block per partition (grid-stride). Its hot values and pairs are loaded
// into shared memory, then the rows' pieces are summed there (entry p reads slot lidx[p]) by
// length: up to kStreamShortPiece x G entries by G lanes, up to kStreamLongPiece by a warp (a
// list, after), longer by the whole block (a list, last). A list that is full leaves the piece
// to its G lanes. A piece's summation order depends on its length alone.
template <class S, int G>
__global__ void __launch_bounds__(kStreamThreads, 1)
    stream_accumulate_kernel(const S s, const StreamArgs<typename S::value_type, typename S::acc_type> A) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    extern __shared__ __align__(16) unsigned char stream_smem[];
    T *xs = reinterpret_cast<T *>(stream_smem);
    __shared__ int32_t mid_rows[kStreamListMax], long_rows[kStreamListMax];
    __shared__ int n_mid, n_long;
    __shared__ __align__(16) unsigned char wsum_raw[kStreamThreads / 32 * sizeof(Acc)];
    Acc *wsum = reinterpret_cast<Acc *>(wsum_raw);
    constexpr int R = 32 / G;
    const int lane = threadIdx.x & 31, sub = lane / G, l = lane % G, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int64_t k = blockIdx.x; k < A.parts; k += gridDim.x) {
        const int64_t e0 = A.pe[k], e1 = A.pe[k + 1];
        const int64_t r0 = A.pr[k], r1 = A.pr[k + 1];
        const uint32_t p0 = A.pp[k], np = A.pp[k + 1] - p0;
        stream_stage(A.xh, 0, A.hot, xs);
        stream_stage(A.pv, p0, np, xs + A.hot);
        if (threadIdx.x == 0) n_mid = 0, n_long = 0;
        __syncthreads();
        // rows r0 .. r1 - 1, and r1 where the boundary cuts it
        const int64_t rend = (r1 < A.nrows && A.rp[r1] < e1) ? r1 + 1 : r1;
        // each step's row bounds are loaded a step ahead (their loads overlap the step before)
        const int64_t stride = (int64_t)nw * R;
        int64_t rb_next = 0, re_next = 0;
        if (r0 + (int64_t)warp * R + sub < rend) rb_next = A.rp[r0 + (int64_t)warp * R + sub], re_next = A.rp[r0 + (int64_t)warp * R + sub + 1];
        for (int64_t base = r0 + (int64_t)warp * R; base < rend; base += stride) {
            const int64_t i = base + sub;
            const int64_t rb = rb_next, re = re_next;
            if (i + stride < rend) rb_next = A.rp[i + stride], re_next = A.rp[i + stride + 1];
            int64_t b = 0, e = 0;
            bool ok = i < rend, listed = false;
            if (ok) {
                b = max(rb, e0);
                e = min(re, e1);
                const int64_t len = e - b;
                if (len > (int64_t)kStreamShortPiece * G && l == 0) {
                    int32_t *list = len > kStreamLongPiece ? long_rows : mid_rows;
                    const int q = atomicAdd(len > kStreamLongPiece ? &n_long : &n_mid, 1);
                    if (q < kStreamListMax) list[q] = (int32_t)i, listed = true;  // else: a full list, summed here
                }
            }
            listed = __shfl_sync(0xffffffffu, listed, lane - l);  // the group's first lane decided
            if (listed) ok = false, e = b;
            Acc acc = stream_piece<S, 4>(s, xs, A.lidx, A.vals, b, e, l, G);
#pragma unroll
            for (int m = G / 2; m >= 1; m >>= 1) acc = s.acc_add(acc, shfl_xor_any(acc, m));
            if (ok && l == 0) stream_write(A, k, i, b, e, rb, re, e0, acc);
        }
        __syncthreads();
        // the middle pieces, a warp each
        const int nm = min(n_mid, kStreamListMax), nl = min(n_long, kStreamListMax);
        for (int q = warp; q < nm; q += nw) {
            const int64_t i = mid_rows[q];
            const int64_t rb = A.rp[i], re = A.rp[i + 1], b = max(rb, e0), e = min(re, e1);
            Acc acc = stream_piece<S, 4>(s, xs, A.lidx, A.vals, b, e, lane, 32);
            acc = warp_allreduce_s(s, acc);
            if (lane == 0) stream_write(A, k, i, b, e, rb, re, e0, acc);
        }
        // the long pieces, each by the whole block: warp butterflies, then thread 0 over the
        // warps in order
        for (int q = 0; q < nl; ++q) {
            const int64_t i = long_rows[q];
            const int64_t rb = A.rp[i], re = A.rp[i + 1], b = max(rb, e0), e = min(re, e1);
            Acc acc = stream_piece<S, 4>(s, xs, A.lidx, A.vals, b, e, threadIdx.x, blockDim.x);
            acc = warp_allreduce_s(s, acc);
            if (lane == 0) wsum[warp] = acc;
            __syncthreads();
            if (threadIdx.x == 0) {
                Acc r = wsum[0];
                for (int v = 1; v < nw; ++v) r = s.acc_add(r, wsum[v]);
                stream_write(A, k, i, b, e, rb, re, e0, r);
            }
            __syncthreads();
        }
        __syncthreads();
    }
}

// The rows cut by partition boundaries: row, first and last boundary kf .. kl; its pieces are
// tail[kf - 1], head[kf], ..., head[kl], combined in that order.
template <class S>
__global__ void stream_combine_kernel(const S s, int64_t nsplit, const int32_t *__restrict__ split,
                                      const typename S::acc_type *__restrict__ head, const typename S::acc_type *__restrict__ tail,
                                      typename S::value_type *__restrict__ t, uint8_t *__restrict__ tp) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nsplit; q += (int64_t)gridDim.x * blockDim.x) {
        const int32_t i = split[3 * q], kf = split[3 * q + 1], kl = split[3 * q + 2];
        Acc acc = tail[kf - 1];
        for (int32_t k = kf; k <= kl; ++k) acc = s.acc_add(acc, head[k]);
        t[i] = (T)acc;
        if (tp) tp[i] = 1;
    }
}

template <class S>
void launch_stream(CudaBackend &be, const CudaMatrix &M, const S s, const typename S::value_type *vals,
                   const typename S::value_type *u, typename S::value_type *t, uint8_t *tp) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    static_assert(sizeof(Acc) <= 8, "the plan's partials hold 8 bytes a piece");
    const StreamPlan &P = M.stream;
    cudaStream_t st = be.stream();
    T *pv = P.pv.as<T>();
    T *xh = P.xh.as<T>();
    if (P.hot > 0) {  // the product prologue with no rows: the hot values gathered
        spmv_prologue_kernel<S><<<grid_for(P.hot), 256, 0, st>>>(s, 0, M.row_ptr.as<int64_t>(), nullptr, nullptr, P.hot,
                                                                 P.hot_cols.as<int32_t>(), u, xh);
        PSV_CUDA_LAUNCH_CHECK();
    }
    if (P.pairs > 0) {
        const size_t wbytes = (size_t)P.column_block * sizeof(T);
        allow_smem(stream_scatter_kernel<T>, wbytes);
        stream_scatter_kernel<T><<<(unsigned)(P.column_blocks * P.splits), kStreamScatterThreads, wbytes, st>>>(
            M.ncols, P.column_block, P.splits, P.window_item.as<uint32_t>(), P.item_dest.as<uint32_t>(), P.item_col.as<uint16_t>(),
            u, pv);
        PSV_CUDA_LAUNCH_CHECK();
    }
    Acc *head = reinterpret_cast<Acc *>(P.partial.as<uint8_t>());
    Acc *tail = reinterpret_cast<Acc *>(P.partial.as<uint8_t>() + (size_t)P.parts * 8);
    StreamArgs<T, Acc> A{P.parts, M.nrows, P.part_entry.as<int64_t>(), P.part_row.as<int32_t>(), P.part_pair.as<uint32_t>(),
                         P.hot, xh, pv, P.lidx.as<uint16_t>(), M.row_ptr.as<int64_t>(), vals, t, tp, head, tail};
    const size_t sbytes = (size_t)(P.hot + P.max_pairs) * sizeof(T);
    const int64_t grid = std::min<int64_t>(P.parts, INT32_MAX);  // a block per partition, scheduled as SMs free up
    if (P.lanes == 16) {
        allow_smem(stream_accumulate_kernel<S, 16>, sbytes);
        stream_accumulate_kernel<S, 16><<<(unsigned)grid, kStreamThreads, sbytes, st>>>(s, A);
    } else {
        allow_smem(stream_accumulate_kernel<S, 4>, sbytes);
        stream_accumulate_kernel<S, 4><<<(unsigned)grid, kStreamThreads, sbytes, st>>>(s, A);
    }
    PSV_CUDA_LAUNCH_CHECK();
    if (P.nsplit > 0) {
        stream_combine_kernel<S><<<grid_for(P.nsplit), 256, 0, st>>>(s, P.nsplit, P.split.as<int32_t>(), head, tail, t, tp);
        PSV_CUDA_LAUNCH_CHECK();
    }
}

}  // namespace cuda
}  // namespace psv
