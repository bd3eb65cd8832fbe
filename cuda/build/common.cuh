// Helpers of the device builders (cuda/build): grid loops, binary searches on the device, and
// the small steps several builders share.
#pragma once
#include <cstdint>

#include "cuda/runtime/backend.cuh"

namespace psv {
namespace cuda {

inline int bits_for(uint64_t v) {  // bits needed to hold 0..v
    int b = 0;
    while (b < 64 && (v >> b) != 0) ++b;
    return b;
}

#define PSV_GRID_LOOP(i, n) \
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

template <class K> __device__ __forceinline__ int64_t upper_bound_d(const K *a, int64_t n, K v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (a[mid] <= v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
template <class K> __device__ __forceinline__ int64_t lower_bound_d(const K *a, int64_t n, K v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// max(a, b): the scan operator of running maxima (row of each entry, row pointers from run ends).
template <class T> struct MaxOf {
    __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

// Launch f(grid, 256) over n items (nothing for n <= 0) and check the launch.
template <class F> void launch(CudaBackend &, int64_t n, F &&f) {
    if (n <= 0) return;
    f(grid_for(n), 256);
    PSV_CUDA_LAUNCH_CHECK();
}

// count[idx[e]] += 1 for every e < n (integer atomics: exact; count zeroed by the caller).
void count_indices(CudaBackend &be, int64_t n, const int32_t *idx, int32_t *count);
// count[row] += 1 for each of the n tuples (rows, cols) whose row is not negative; an index
// outside the nrows x ncols matrix sets *bad to min(*bad, first + its place + 1) instead.
void count_tuples(CudaBackend &be, int64_t n, int64_t first, const int32_t *rows, const int32_t *cols, int64_t nrows,
                  int64_t ncols, unsigned long long *count, unsigned long long *bad);
// row[e] = the row holding entry e of the CSR row pointer rp (nrows + 1 entries).
void rows_of_entries(CudaBackend &be, int64_t nnz, const int64_t *rp, int64_t nrows, int32_t *row);
// out[d] = val[src[d]] for d < n, values of vs bytes (1, 4 or 8); all bits zero where src[d] is
// kNoValue (padding).
constexpr uint32_t kNoValue = 0xffffffffu;
void gather_values(CudaBackend &be, int64_t n, const uint32_t *src, const void *val, void *out, size_t vs);
// row_ptr of n rows from per-row counts (exclusive scan into n + 1 entries).
void counts_to_row_ptr(CudaBackend &be, int64_t n, const int32_t *count, Buffer &row_ptr);
// rank_of[order[k]] = k for k < n.
void invert_order(CudaBackend &be, int64_t n, const int32_t *order, int32_t *rank_of);

}  // namespace cuda
}  // namespace psv
