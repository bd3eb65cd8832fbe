// The k-vector product's kernels, T = A (+).(second) U for k fp32 vectors at once (U: ncols x k,
// T: nrows x k, row-major): a CSR one (entries in segments) and the tile-composite form's variant.
#pragma once
#include "cuda/build/matrix.cuh"

namespace psv {
namespace cuda {

// The CSR k-vector kernel: T = A (+).(second) U for k columns at once, summed in double as the
// CPU backend does (a hub row's fp32 sum can stall a power iteration). A group of L lanes (a power
// of two >= k, at most 32; wider blocks in chunks of 32 columns), lane j over column j, takes
// segment s, the entries [s * seg, (s + 1) * seg) (seg a multiple of kSpmmChunk), and walks them
// in aligned chunks with the entries' rows (CudaMatrix::SpmmLayout) beside their columns:
// kSpmmChunk rows of U in flight at once, the next chunk's columns loading while the present one
// adds, so a run of short rows costs no row-pointer chain. A chunk inside one row adds its entries
// without a test between them; elsewhere a row ends where the next entry's row differs: its sum
// goes to T, and the empty rows up to that next row get zeros.
// Rows cut by a segment end: a short one (at most seg entries) belongs to the segment where it
// starts, which reads on to its end (the next segment skips it); a long one is summed in pieces,
// double partials (the piece before the segment's first row ends: carry slot 2s; the piece of the
// row running past its end: slot 2s + 1). Each piece's group counts itself in at the row's first
// segment (`pieces`, zero between products), and the group that counts the last piece adds them
// all in segment order and writes the row. No atomics on values: the same sums every run.
constexpr int kSpmmThreads = 256;
constexpr int kSpmmChunk = 8;

// Eight int32 from [e0, e0 + 8), e0 a multiple of 8: two aligned 16-byte loads, or one at a time
// where the chunk passes n (those read as `pad`).
__device__ __forceinline__ void spmm_load8(const int32_t *__restrict__ p, int64_t e0, int64_t n, int32_t pad,
                                           int32_t (&o)[kSpmmChunk]) {
    if (e0 + kSpmmChunk <= n) {
        const int4 a = __ldg(reinterpret_cast<const int4 *>(p + e0)), b = __ldg(reinterpret_cast<const int4 *>(p + e0) + 1);
        o[0] = a.x, o[1] = a.y, o[2] = a.z, o[3] = a.w, o[4] = b.x, o[5] = b.y, o[6] = b.z, o[7] = b.w;
        return;
    }
#pragma unroll
    for (int u = 0; u < kSpmmChunk; ++u) o[u] = e0 + u < n ? __ldg(p + e0 + u) : pad;
}

// Row c's byte offset in a row-major block (c * row bytes), a 32 x 32 -> 64-bit product that the
// address's add folds into one multiply-add.
__device__ __forceinline__ uint64_t spmm_row_offset(int32_t c, uint32_t row_bytes) {
    uint64_t off;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(off) : "r"((uint32_t)c), "r"(row_bytes));
    return off;
}

// A group's walk over one column j: the running sum, and where a finished row's sum goes (the
// segment's head piece while the first row is a long row begun earlier, else T), with zeros for
// the empty rows before the next row.
struct SpmmWalk {
    char *Tj;      // T's column j, as bytes
    double *head;  // carry slot 2s, column j
    uint32_t row_bytes;
    bool in_head;
    int32_t head_row = -1;
    double acc = 0.0;
    __device__ __forceinline__ void put(int32_t row, float v) const {
        *reinterpret_cast<float *>(Tj + spmm_row_offset(row, row_bytes)) = v;
    }
    // row's sum is complete where the next entry's row differs
    __device__ __forceinline__ void end(int32_t row, int32_t next) {
        if (next == row) return;
        if (in_head) {
            *head = acc;
            head_row = row;
            in_head = false;
        } else {
            put(row, (float)acc);
        }
#pragma unroll 1
        for (int32_t r = row + 1; r < next; ++r) put(r, 0.0f);
        acc = 0.0;
    }
    __device__ __forceinline__ void add(float v, int32_t row, int32_t next) {
        acc += (double)v;
        end(row, next);
    }
};

// The lanes of group g (L lanes) in its warp.
__device__ __forceinline__ unsigned spmm_group_mask(int L, int g) {
    return L == 32 ? 0xffffffffu : ((1u << L) - 1u) << (g * L);
}

// Long row r's pieces, counted in by a group that wrote one (all of its lanes, `mask`, lane `src`
// the group's first): the group counting the last adds them in segment order into T.
__device__ __forceinline__ void spmm_finish_row(int32_t r, const int64_t *__restrict__ rp, int64_t seg, int32_t k,
                                                int L, int jl, unsigned mask, int src, const double *carry,
                                                int32_t *pieces, float *__restrict__ T) {
    const int64_t s0 = __ldg(rp + r) / seg, m = (__ldg(rp + r + 1) - 1) / seg - s0;  // pieces 0 .. m
    int last = 0;
    if (jl == 0) last = atomicAdd(pieces + s0, 1) == (int)m;
    last = __shfl_sync(mask, last, src);
    if (!last) return;
    __threadfence();  // the other pieces, written and fenced before their counts
    for (int32_t j = jl; j < k; j += L) {
        // piece 0 the row's start (slot 2 s0 + 1), piece i >= 1 segment s0 + i's head (slot 2 (s0 + i))
        double acc = 0.0;
        for (int64_t i0 = 0; i0 <= m; i0 += kSpmmChunk) {
            double v[kSpmmChunk];
#pragma unroll
            for (int u = 0; u < kSpmmChunk; ++u) {
                const int64_t i = i0 + u;
                v[u] = i <= m ? __ldcg(carry + (i == 0 ? 2 * s0 + 1 : 2 * (s0 + i)) * k + j) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < kSpmmChunk; ++u) acc += v[u];
        }
        T[(int64_t)r * k + j] = (float)acc;
    }
    if (jl == 0) pieces[s0] = 0;  // zero again for the next product
}

// A segment's entry in the table the product reads instead of a prologue (CudaMatrix keeps it for
// one segment length): the entries it sums [begin, stop), its first and last entries' rows,
// whether the first row is a long row begun earlier (its piece goes to slot 2s) and the last a
// long row running past its end (slot 2s + 1), and the columns of the aligned chunk holding begin.
struct SpmmSegment {
    int64_t begin, stop;
    int32_t first, last;
    int32_t head_long, tail_long;
    int32_t c0[kSpmmChunk];
};
static_assert(sizeof(SpmmSegment) == 64, "four 16-byte loads");

// One thread a segment. Short rows cut by a segment end belong to the segment where they start.
__global__ void spmm_segments_kernel(int64_t nnz, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                                     const int32_t *__restrict__ erow, int64_t seg, int64_t ngroups,
                                     SpmmSegment *__restrict__ out) {
    for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < ngroups; s += (int64_t)gridDim.x * blockDim.x) {
        const int64_t b = s * seg, end = min(nnz, b + seg);
        SpmmSegment t;
        t.first = erow[b];
        t.last = erow[end - 1];
        const auto long_row = [&](int32_t r) { return rp[r + 1] - rp[r] > seg; };
        t.begin = b;
        t.stop = end;
        t.head_long = t.tail_long = 0;
        if (b > 0 && erow[b - 1] == t.first) {  // the first row began in an earlier segment
            t.head_long = long_row(t.first);
            if (!t.head_long) t.begin = rp[t.first + 1];  // a short one: its own segment sums it
        }
        if (end < nnz && erow[end] == t.last) {  // the last row runs past the end
            t.tail_long = long_row(t.last);
            if (!t.tail_long) t.stop = rp[t.last + 1];  // a short one: sum it to its end
        }
        const int64_t e0 = t.begin & ~(int64_t)(kSpmmChunk - 1);
        for (int u = 0; u < kSpmmChunk; ++u) t.c0[u] = e0 + u < nnz && e0 < t.stop ? col[e0 + u] : 0;
        out[s] = t;
    }
}

__global__ void __launch_bounds__(kSpmmThreads, 4)
    spmm_segment_kernel(int64_t nrows, int64_t nnz, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                        const int32_t *__restrict__ erow, const SpmmSegment *__restrict__ segs, int64_t seg,
                        int64_t ngroups, int32_t k, int L, const float *__restrict__ U, float *__restrict__ T,
                        double *carry, int32_t *pieces) {
    const int lane = threadIdx.x & 31, jl = lane % L;
    const int64_t s = ((int64_t)blockIdx.x * (kSpmmThreads / 32) + (threadIdx.x >> 5)) * (32 / L) + lane / L;
    if (s >= ngroups) return;  // the whole group: only group-wide operations below
    // the segment's entry: the entries it sums [begin, stop) (the first chunk's columns are read
    // where each column block's walk starts)
    const int4 *seg_entry = reinterpret_cast<const int4 *>(segs + s);
    int64_t begin, stop;
    int32_t first, last;
    bool head_long, tail_long;
    {
        const int4 x = __ldg(seg_entry), y = __ldg(seg_entry + 1);
        begin = ((int64_t)(uint32_t)x.y << 32) | (uint32_t)x.x;
        stop = ((int64_t)(uint32_t)x.w << 32) | (uint32_t)x.z;
        first = y.x, last = y.y, head_long = y.z != 0, tail_long = y.w != 0;
    }
    int32_t tail_row = -1, head_row = -1;
    for (int32_t j0 = 0; j0 < k; j0 += 32) {
        const int32_t j = j0 + jl;
        if (j >= k) break;  // lane 0 of a group always has a column
        const uint32_t row_bytes = 4u * (uint32_t)k;
        const char *Uj = reinterpret_cast<const char *>(U + j);
        SpmmWalk w{reinterpret_cast<char *>(T + j), carry + (2 * s) * k + j, row_bytes, head_long};
        if (s == 0)
#pragma unroll 1
            for (int32_t r = 0; r < first; ++r) w.put(r, 0.0f);  // empty rows before the first entry
        const int64_t e_first = begin & ~(int64_t)(kSpmmChunk - 1);
        int32_t c[kSpmmChunk];
        {
            const int4 z = __ldg(seg_entry + 2), v = __ldg(seg_entry + 3);
            c[0] = z.x, c[1] = z.y, c[2] = z.z, c[3] = z.w, c[4] = v.x, c[5] = v.y, c[6] = v.z, c[7] = v.w;
        }
        for (int64_t e0 = e_first; e0 < stop; e0 += kSpmmChunk) {
            // this chunk's rows of U, its entries' rows and the next chunk's columns in flight
            float v[kSpmmChunk];
#pragma unroll
            for (int u = 0; u < kSpmmChunk; ++u) v[u] = __ldg(reinterpret_cast<const float *>(Uj + spmm_row_offset(c[u], row_bytes)));
            const bool whole = e0 >= begin && e0 + kSpmmChunk <= stop;
            int32_t r[kSpmmChunk + 1];
            if (whole && e0 + 2 * kSpmmChunk <= stop) {  // this chunk and the next inside [begin, stop)
                int32_t r8[kSpmmChunk];
                spmm_load8(erow, e0, e0 + kSpmmChunk, 0, r8);
#pragma unroll
                for (int u = 0; u < kSpmmChunk; ++u) r[u] = r8[u];
                r[kSpmmChunk] = __ldg(erow + e0 + kSpmmChunk);
                spmm_load8(col, e0 + kSpmmChunk, e0 + 2 * kSpmmChunk, 0, c);
            } else {
                int32_t r8[kSpmmChunk];
                spmm_load8(erow, e0, nnz, (int32_t)nrows, r8);
#pragma unroll
                for (int u = 0; u < kSpmmChunk; ++u) r[u] = r8[u];
                r[kSpmmChunk] = e0 + kSpmmChunk < nnz ? __ldg(erow + e0 + kSpmmChunk) : (int32_t)nrows;
                if (e0 + kSpmmChunk < stop) spmm_load8(col, e0 + kSpmmChunk, nnz, 0, c);
            }
            if (whole && r[0] == r[kSpmmChunk - 1]) {  // one row: its entries in order, then its end
                double a = w.acc;
#pragma unroll
                for (int u = 0; u < kSpmmChunk; ++u) a += (double)v[u];
                w.acc = a;
                w.end(r[kSpmmChunk - 1], r[kSpmmChunk]);
            } else if (whole) {
#pragma unroll
                for (int u = 0; u < kSpmmChunk; ++u) w.add(v[u], r[u], r[u + 1]);
            } else {  // the first or last chunk: only the entries of [begin, stop)
#pragma unroll
                for (int u = 0; u < kSpmmChunk; ++u)
                    if (e0 + u >= begin && e0 + u < stop) w.add(v[u], r[u], r[u + 1]);
            }
        }
        head_row = w.head_row;
        if (w.in_head) {  // the whole segment inside a long row
            *w.head = w.acc;
            head_row = first;
        } else if (tail_long) {
            carry[(2 * s + 1) * k + j] = w.acc;
            tail_row = last;
        }
    }
    // the long rows this segment holds pieces of (its lanes past k walked nothing: lane 0's rows)
    const int src = lane & ~(L - 1);
    const unsigned mask = spmm_group_mask(L, lane / L);
    head_row = __shfl_sync(mask, head_row, src);
    tail_row = __shfl_sync(mask, tail_row, src);
    if (head_row < 0 && tail_row < 0) return;
    __threadfence();  // this group's pieces before its counts
    __syncwarp(mask);
    if (head_row >= 0) spmm_finish_row(head_row, rp, seg, k, L, jl, mask, src, carry, pieces, T);
    if (tail_row >= 0) spmm_finish_row(tail_row, rp, seg, k, L, jl, mask, src, carry, pieces, T);
}

// The tile-composite form's k-vector variant: T (n x k, row-major) = S (+).(second) U. U is
// gathered into rank order once (Ur row r = U row col_order[r]); per workload a warp takes its
// rows one at a time, lanes over the k columns (32 at a time), and reads each entry's row of Ur
// as one coalesced segment (four entries' reads in flight together). Sums in double, in the
// row's ranked-column order; tiles add into T in tile order (T starts at zero).
__global__ void spmm_gather_kernel(int64_t ncols, int32_t k, const int32_t *__restrict__ order, const float *__restrict__ U,
                                   float *__restrict__ Ur) {
    const int64_t m = ncols * (int64_t)k;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < m; idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = idx / k, j = idx - r * k;
        Ur[idx] = U[(int64_t)order[r] * k + j];
    }
}

template <class Index>
__global__ void __launch_bounds__(kSpmvThreads)
    tc_spmm_kernel(const Workload *__restrict__ wls, int64_t nwl, const Index *__restrict__ cols, int64_t tile_entry_begin,
                   int32_t k, const float *__restrict__ Ur, const int32_t *__restrict__ row_ids, float *__restrict__ T) {
    const Index pad = (Index)~Index(0);
    const int lane = threadIdx.x & 31;
    constexpr int U = 4;
    for (int64_t wi = (int64_t)blockIdx.x * (kSpmvThreads / 32) + (threadIdx.x >> 5); wi < nwl;
         wi += (int64_t)gridDim.x * (kSpmvThreads / 32)) {
        const Workload W = wls[wi];
        const int64_t local = W.entry_begin - tile_entry_begin;
        for (int32_t q = 0; q < W.height; ++q) {
            const int32_t row = row_ids[W.row_begin + q];
            for (int32_t j0 = 0; j0 < k; j0 += 32) {
                const int32_t j = j0 + lane;
                double acc = 0.0;
                for (int32_t e = 0; e < W.width; e += U) {
                    Index c[U];
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        const int32_t kk = e + u;
                        const int64_t pos = W.layout == kRowMajor ? (int64_t)q * W.stride + kk : (int64_t)kk * W.stride + q;
                        c[u] = kk < W.width ? cols[local + pos] : pad;
                    }
#pragma unroll
                    for (int u = 0; u < U; ++u)
                        if (c[u] != pad && j < k) acc += (double)Ur[(int64_t)c[u] * k + j];
                }
                if (j < k) T[(int64_t)row * k + j] += (float)acc;
            }
        }
    }
}

}  // namespace cuda
}  // namespace psv
