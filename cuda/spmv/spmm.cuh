// The k-vector product's kernels, T = A (+).(second) U for k fp32 vectors at once (U: ncols x k,
// T: nrows x k, row-major): a CSR one and the tile-composite form's variant.
#pragma once
#include "cuda/build/matrix.cuh"

namespace psv {
namespace cuda {

// T = A (+).(second) U for k columns at once: a warp per row, lanes over the k columns, entries in
// order and summed in double as the CPU backend does (a hub row's fp32 sum can stall a power
// iteration), so results agree with it bit for bit.
__global__ void spmm_pattern_kernel(int64_t nrows, const int64_t *rp, const int32_t *col, int32_t k,
                                    const float *U, float *T) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t i = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5); i < nrows; i += warps) {
        const int64_t b = rp[i], e = rp[i + 1];
        for (int32_t j0 = 0; j0 < k; j0 += 32) {
            const int32_t j = j0 + lane;
            double acc = 0.0;
            for (int64_t p = b; p < e; ++p) {
                const int64_t c = col[p];
                if (j < k) acc += (double)U[c * k + j];
            }
            if (j < k) T[i * k + j] = (float)acc;
        }
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
