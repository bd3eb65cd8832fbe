// The tile-composite kernel (paper section 3.1 on Hopper): one prologue launch (t = identity, x
// gathered into rank order), then a launch per column tile, in tile order. A block of
// kSpmvThreads stages the tile's slice of the ranked x in shared memory (where the tile has
// enough entries per staged value to pay for it; the sparse tile and thin tiles read x through
// L1/L2), then each warp runs whole workloads: CSR-vector for row-major ones (lanes stride a
// row, a fixed butterfly reduces it), ELL for column-major ones (a lane per row, sequential over
// the row). Tiles add into t(i) in tile order.
#pragma once
#include "cuda/build/matrix.cuh"
#include "cuda/spmv/semiring.cuh"

namespace psv {
namespace cuda {

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

// One tile's launch: its slice of the ranked x, a grid for `units` warp work items (at most 4
// blocks per SM), and whether the slice is staged in shared memory: where each staged value
// serves enough entries (the sparse tile and thin tiles read x through L1/L2); a staged launch
// runs at most two blocks per SM.
template <class T> struct TileLaunch {
    const T *x;
    int32_t span;
    size_t bytes;
    int64_t grid;
    bool smem;
};
template <class T>
TileLaunch<T> tile_launch(const Tile &tile, const T *xr, int64_t units, size_t optin, int64_t sms) {
    TileLaunch<T> L;
    const int64_t span = tile.col_end - tile.col_begin;
    L.x = xr + tile.col_begin;
    L.span = (int32_t)span;
    L.bytes = (size_t)span * sizeof(T);
    L.grid = std::min<int64_t>((units + kSpmvWarps - 1) / kSpmvWarps, 4 * sms);
    L.smem = !tile.is_sparse && L.bytes <= optin && tile.nvals >= 2 * std::min<int64_t>(L.grid, 2 * sms) * span;
    if (L.smem) L.grid = std::min<int64_t>(L.grid, 2 * sms);
    return L;
}

// A launch per column tile, in tile order, over the ranked x (xr, after the prologue).
template <class S>
void launch_tile_composite(CudaBackend &be, const TcForm &F, const S s, bool use_vals, const typename S::value_type *xr,
                           typename S::value_type *t) {
    using T = typename S::value_type;
    cudaStream_t st = be.stream();
    const size_t optin = be.smem_optin();
    const int64_t sms = be.sm_count();
    for (const Tile &tile : F.tiles) {
        const int64_t nwl = tile.wl_end - tile.wl_begin;
        if (nwl <= 0) continue;
        const TileLaunch<T> L = tile_launch(tile, xr, nwl, optin, sms);
        const T *vals = use_vals ? F.values.as<T>() : nullptr;
        const Workload *wls = F.workloads.as<Workload>() + tile.wl_begin;
        if (tile.index_bits == 16) {
            if (L.smem) allow_smem(tile_composite_kernel<S, uint16_t>, L.bytes);
            tile_composite_kernel<S, uint16_t><<<(unsigned)L.grid, kSpmvThreads, L.smem ? L.bytes : 0, st>>>(
                s, wls, nwl, F.col16.as<uint16_t>() + tile.index_offset, tile.entry_begin, vals, L.x, L.span,
                L.smem ? 1 : 0, F.row_ids.as<int32_t>(), t);
        } else {
            if (L.smem) allow_smem(tile_composite_kernel<S, uint32_t>, L.bytes);
            tile_composite_kernel<S, uint32_t><<<(unsigned)L.grid, kSpmvThreads, L.smem ? L.bytes : 0, st>>>(
                s, wls, nwl, F.col32.as<uint32_t>() + tile.index_offset, tile.entry_begin, vals, L.x, L.span,
                L.smem ? 1 : 0, F.row_ids.as<int32_t>(), t);
        }
        PSV_CUDA_LAUNCH_CHECK();
    }
}

}  // namespace cuda
}  // namespace psv
