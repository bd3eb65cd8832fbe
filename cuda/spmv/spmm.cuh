// The k-vector product's kernels, T = A (+).(second) U for k fp32 vectors at once (U: ncols x k,
// T: nrows x k, row-major): a CSR one (entries in segments) and the tile-composite form's variant.
#pragma once
#include "cuda/build/matrix.cuh"

namespace psv {
namespace cuda {

// The CSR k-vector kernel: T = A (+).(second) U for k columns at once, summed in double as the
// CPU backend does (a hub row's fp32 sum can stall a power iteration). The entries are cut into
// segments of `seg` entries, one warp each, so a hub row is spread over many warps and no warp
// waits on a long row. A warp's lanes cover L columns (a power of two >= k, at most 32; wider
// blocks in chunks of 32) of E = 32 / L entries at a time, eight such steps' loads in flight.
// Sums: each lane adds its entries in order, the E lanes of a column by a fixed butterfly. A row
// inside one segment is written to T; a row cut by segment ends leaves double partials (the piece
// before the segment's first row start: carry slot 2s, the piece of the row running past its end:
// slot 2s + 1), which spmm_carry_kernel adds in segment order. No atomics: the same sums every run.
constexpr int kSpmmThreads = 256;
constexpr int kSpmmUnroll = 8;

// First r in [0, n] with rp[r] >= key (rp[n] >= key): a 32-way search by the whole warp.
__device__ __forceinline__ int64_t warp_lower_bound(const int64_t *__restrict__ rp, int64_t n, int64_t key, int lane) {
    int64_t lo = 0, hi = n;  // the answer lies in [lo, hi]
    while (hi - lo > 32) {
        const int64_t step = (hi - lo + 31) / 32;
        int64_t idx = lo + (int64_t)lane * step;
        if (idx > hi) idx = hi;
        const unsigned ge = __ballot_sync(0xffffffffu, rp[idx] >= key);
        if (ge & 1u) return lo;
        const int f = ge ? __ffs(ge) - 1 : 32;  // probes f-1 < key <= probe f
        const int64_t below = lo + (int64_t)(f - 1) * step;
        hi = f < 32 ? min(hi, lo + (int64_t)f * step) : hi;
        lo = below + 1;
    }
    const int64_t idx = min(hi, lo + lane);
    const unsigned ge = __ballot_sync(0xffffffffu, rp[idx] >= key);
    return ge ? lo + (__ffs(ge) - 1) : hi;
}

// The sum of U's rows col[b .. e) for the lane's column j (valid: j < k), over the warp: each of
// the E entry slots adds its entries in order, then the slots combine by butterfly.
__device__ __forceinline__ double spmm_piece(const int32_t *__restrict__ col, int64_t b, int64_t e, const float *__restrict__ U,
                                             int32_t k, int32_t j, bool valid, int L, int lane) {
    const int E = 32 / L, g = lane / L;
    double acc = 0.0;
    for (int64_t p0 = b; p0 < e; p0 += 32) {
        const int cnt = (int)min((int64_t)32, e - p0);
        const int32_t cl = lane < cnt ? col[p0 + lane] : 0;
        for (int t0 = 0; t0 < cnt; t0 += kSpmmUnroll * E) {
            float v[kSpmmUnroll];
#pragma unroll
            for (int u = 0; u < kSpmmUnroll; ++u) {
                const int t = t0 + u * E + g;
                const int32_t c = __shfl_sync(0xffffffffu, cl, t & 31);
                v[u] = valid && t < cnt ? U[(int64_t)c * k + j] : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < kSpmmUnroll; ++u) acc += (double)v[u];
        }
    }
    for (int m = L; m < 32; m <<= 1) acc += __shfl_xor_sync(0xffffffffu, acc, m);
    return acc;
}

__global__ void __launch_bounds__(kSpmmThreads)
    spmm_segment_kernel(int64_t nrows, const int64_t *__restrict__ rp, const int32_t *__restrict__ col, int64_t nnz,
                        int64_t seg, int64_t nseg, int32_t k, int L, const float *__restrict__ U, float *__restrict__ T,
                        double *__restrict__ carry, int32_t *__restrict__ carry_row) {
    const int lane = threadIdx.x & 31;
    const int64_t s = (int64_t)blockIdx.x * (kSpmmThreads / 32) + (threadIdx.x >> 5);
    if (s >= nseg) return;
    const int64_t e0 = s * seg, e1 = min(nnz, e0 + seg);
    const bool last_seg = s == nseg - 1;
    const int64_t rs = warp_lower_bound(rp, nrows, e0, lane);
    const int64_t rs_begin = rp[rs];
    int32_t first_row = -1, last_row = -1;
    for (int32_t j0 = 0; j0 < k; j0 += 32) {
        const int32_t j = j0 + lane % L;
        const bool valid = j < k, store = valid && lane < L;  // slot 0's lanes write
        if (rs > 0 && rs_begin > e0) {  // row rs - 1 began before this segment
            const double a = spmm_piece(col, e0, min(rs_begin, e1), U, k, j, valid, L, lane);
            if (store) carry[(2 * s) * k + j] = a;
            first_row = (int32_t)(rs - 1);
        }
        for (int64_t r = rs; r < nrows; ++r) {
            const int64_t b = rp[r];
            if (b >= e1 && !last_seg) break;
            const int64_t e = rp[r + 1];
            const double a = spmm_piece(col, b, min(e, e1), U, k, j, valid, L, lane);
            if (e <= e1) {
                if (store) T[r * k + j] = (float)a;
            } else {
                if (store) carry[(2 * s + 1) * k + j] = a;
                last_row = (int32_t)r;
                break;
            }
        }
    }
    if (lane == 0) {
        carry_row[2 * s] = first_row;
        carry_row[2 * s + 1] = last_row;
    }
}

// The rows cut by segment ends: the piece in the segment where the row starts, then the pieces
// of the following segments that continue it, in order.
__global__ void __launch_bounds__(kSpmmThreads)
    spmm_carry_kernel(int64_t nseg, int32_t k, const double *__restrict__ carry, const int32_t *__restrict__ carry_row,
                      float *__restrict__ T) {
    const int lane = threadIdx.x & 31;
    const int64_t s = (int64_t)blockIdx.x * (kSpmmThreads / 32) + (threadIdx.x >> 5);
    if (s >= nseg) return;
    const int32_t r = carry_row[2 * s + 1];
    if (r < 0) return;
    for (int32_t j = lane; j < k; j += 32) {
        double acc = carry[(2 * s + 1) * k + j];
        for (int64_t t = s + 1; t < nseg && carry_row[2 * t] == r; ++t) acc += carry[(2 * t) * k + j];
        T[(int64_t)r * k + j] = (float)acc;
    }
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
