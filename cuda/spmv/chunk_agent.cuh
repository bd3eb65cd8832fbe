// The CSR chunk kernels' agent: the work of one block (or group of kChunkThreads threads) on one
// chunk of the chunk plan: load its entries, multiply by x into shared memory, sum the row
// pieces in fixed orders, and combine a long row's pieces once the last is written.
#pragma once
#include "cuda/build/matrix.cuh"
#include "cuda/spmv/semiring.cuh"

namespace psv {
namespace cuda {

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

// The chunk plan (ChunkPlan, cuda/build/matrix.cuh) and the product's arrays, as the chunk kernels read them.
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
// are addressed from one pointer with constant strides: on short uniform rows the kernels are
// bound by the SM's instruction issue.)
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
// chunk kernel is bound by instruction issue on short uniform rows otherwise). The groups are aligned to 16 bytes from the chunk's start rounded down to a
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
// only: on many waves (8 blocks per SM) it gains nothing and costs the plus-times variant a
// spill at 32 registers, and csr_hot_kernel runs slower with it.
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

}  // namespace cuda
}  // namespace psv
