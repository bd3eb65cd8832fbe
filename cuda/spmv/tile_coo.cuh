// The TILE-COO kernel: the tile-composite form's tiles as plain coordinate lists; a warp owns a
// range of whole rows and reduces them with a segmented warp scan.
#pragma once
#include "cuda/spmv/tile_composite.cuh"

namespace psv {
namespace cuda {

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

// A launch per column tile, in tile order, over the ranked x (xr, after the prologue).
template <class S>
void launch_tile_coo(CudaBackend &be, const TcForm &F, const S s, bool use_vals, const typename S::value_type *xr,
                     typename S::value_type *t) {
    using T = typename S::value_type;
    cudaStream_t st = be.stream();
    const size_t optin = be.smem_optin();
    const int64_t sms = be.sm_count();
    for (size_t ti = 0; ti < F.tiles.size(); ++ti) {
        const int64_t c0 = F.coo_chunk_begin[ti], nch = F.coo_chunk_begin[ti + 1] - c0 - 1;
        if (nch <= 0) continue;
        const TileLaunch<T> L = tile_launch(F.tiles[ti], xr, nch, optin, sms);
        const T *vals = use_vals ? F.coo_val.as<T>() : nullptr;
        if (L.smem) allow_smem(tile_coo_kernel<S>, L.bytes);
        tile_coo_kernel<S><<<(unsigned)L.grid, kSpmvThreads, L.smem ? L.bytes : 0, st>>>(
            s, F.coo_chunk.as<int64_t>() + c0, nch, F.coo_row.as<int32_t>(), F.coo_col.as<uint32_t>(), vals, L.x, L.span,
            L.smem ? 1 : 0, t);
        PSV_CUDA_LAUNCH_CHECK();
    }
}

}  // namespace cuda
}  // namespace psv
