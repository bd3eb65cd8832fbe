// The SELL-32 kernel (PSV_KERNEL_SELL, and AUTO on regular matrices): a warp per slice of 32
// rows, a lane per row. The slice's slots are stored column-major, so each step's loads of the
// columns and values are 32 consecutive words, and on a banded matrix the lanes' gathers of x
// fall on neighbouring columns. No sums cross lanes and no shared memory is used: each row is
// summed by its own lane in its entries' order (results reproducible bit for bit).
#pragma once
#include <type_traits>

#include "cuda/build/matrix.cuh"
#include "cuda/spmv/semiring.cuh"

namespace psv {
namespace cuda {

// A streamed load (evict-first: the slots are read once a product), for every value type.
template <class T> __device__ __forceinline__ T load_streamed(const T *p) {
    if constexpr (std::is_integral<T>::value && sizeof(T) == 8) return (T)__ldcs(reinterpret_cast<const long long *>(p));
    else return __ldcs(p);
}

// U slots' loads of a lane are in flight before any is used. Padding slots hold column -1.
template <class S, int U>
__global__ void __launch_bounds__(256)
    sell_kernel(const S s, int64_t nrows, int64_t slices, const int64_t *__restrict__ group, const int32_t *__restrict__ scol,
                const typename S::value_type *__restrict__ sval, const typename S::value_type *__restrict__ u,
                typename S::value_type *__restrict__ t, uint8_t *__restrict__ tp) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t sl = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5); sl < slices; sl += warps) {
        const int64_t g0 = group[sl], w = group[sl + 1] - g0;
        const int32_t *cp = scol + g0 * kSellRows + lane;
        const T *vp = sval ? sval + g0 * kSellRows + lane : nullptr;
        Acc acc = (Acc)s.identity();
        bool any = false;
        int64_t k = 0;
        for (; k + U <= w; k += U) {
            int32_t c[U];
            T a[U];
#pragma unroll
            for (int q = 0; q < U; ++q) {
                c[q] = load_streamed(cp + (k + q) * kSellRows);
                a[q] = vp ? load_streamed(vp + (k + q) * kSellRows) : T(1);
            }
#pragma unroll
            for (int q = 0; q < U; ++q)
                if (c[q] >= 0) {
                    acc = s.acc_add(acc, (Acc)s.mul(a[q], u[c[q]]));
                    any = true;
                }
        }
        for (; k < w; ++k) {
            const int32_t c = load_streamed(cp + k * kSellRows);
            if (c >= 0) {
                acc = s.acc_add(acc, (Acc)s.mul(vp ? load_streamed(vp + k * kSellRows) : T(1), u[c]));
                any = true;
            }
        }
        const int64_t i = sl * kSellRows + lane;
        if (i < nrows) {
            t[i] = (T)acc;
            if (tp) tp[i] = any;
        }
    }
}

template <class S>
void launch_sell(CudaBackend &be, const CudaMatrix &M, const S s, bool use_vals, const typename S::value_type *u,
                 typename S::value_type *t, uint8_t *tp) {
    using T = typename S::value_type;
    const SellPlan &P = M.sell;
    if (use_vals && type_size(M.type) != sizeof(T))
        fail(PSV_ERROR_PANIC, format("the SELL-32 plan holds %zu-byte values, the product reads %zu", type_size(M.type), sizeof(T)));
    const int64_t grid = std::max<int64_t>(1, std::min<int64_t>((P.slices + 7) / 8, (int64_t)be.sm_count() * 8));
    sell_kernel<S, kSellUnroll><<<(unsigned)grid, 256, 0, be.stream()>>>(s, M.nrows, P.slices, P.group.as<int64_t>(),
                                                                     P.col.as<int32_t>(), use_vals ? P.val.as<T>() : nullptr,
                                                                     u, t, tp);
    PSV_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda
}  // namespace psv
