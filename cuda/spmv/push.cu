// The push product: t = A' (+).(second) u over A's pattern, read from A's own CSR (no transpose):
// each entry (i, j) adds u(i) into t(j). The sums are kept in 64-bit fixed point -- integer
// atomics, whose sum does not depend on their order -- so the result is the same run to run:
//  1. s = ||u||_1 (a deterministic reduction), on the device;
//  2. e = 62 - (the exponent of s): every column sum and every partial sum is below 2^62 in
//     magnitude once scaled by 2^e; each term rounds u(i) 2^e to the nearest integer;
//  3. t(j) = (its integer sum) 2^-e, rounded to float.
// A term's rounding is at most 2^-(e+1) <= s 2^-62: below float rounding for every t(j) of at
// least s 2^-38. The exponent lives in device memory, so the product runs inside a captured loop.
#include <cmath>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"
#include "cuda/vector/reduce.cuh"

namespace psv {
namespace cuda {

namespace {

struct AbsF {
    const float *u;
    __device__ double operator()(int64_t i, int) const { return fabs((double)u[i]); }
};

// The scale exponent e of a sum bound s (s < 2^x with frexp's x: s 2^e < 2^62).
__device__ __forceinline__ int fixed_exponent(double s) {
    int x = 0;
    frexp(s, &x);
    return 62 - x;
}

__device__ __forceinline__ unsigned long long to_fixed(float v, int e) {
    return (unsigned long long)llrint(scalbn((double)v, e));
}

// Rows of at most long_min entries: G lanes per row (G divides 32), the row's entries strided
// over its lanes. Longer rows are left to push_long_kernel.
__global__ void push_rows_kernel(int64_t nrows, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                                 const float *__restrict__ u, const double *l1, int G, int64_t long_min,
                                 unsigned long long *acc) {
    const int e = fixed_exponent(*l1);
    const int64_t groups = (int64_t)gridDim.x * blockDim.x / G;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / G; i < nrows; i += groups) {
        const int64_t b = rp[i], n = rp[i + 1] - b;
        if (n == 0 || n > long_min) continue;
        const unsigned long long v = to_fixed(u[i], e);
        if (v == 0) continue;
        for (int64_t q = threadIdx.x % G; q < n; q += G) atomicAdd(&acc[col[b + q]], v);
    }
}

// The rows longer than long_min (M.long_rows): a block per row.
__global__ void push_long_kernel(int64_t nlong, const int32_t *__restrict__ rows, const int64_t *__restrict__ rp,
                                 const int32_t *__restrict__ col, const float *__restrict__ u, const double *l1,
                                 unsigned long long *acc) {
    const int e = fixed_exponent(*l1);
    for (int64_t k = blockIdx.x; k < nlong; k += gridDim.x) {
        const int32_t i = rows[k];
        const unsigned long long v = to_fixed(u[i], e);
        if (v == 0) continue;
        for (int64_t q = rp[i] + threadIdx.x; q < rp[i + 1]; q += blockDim.x) atomicAdd(&acc[col[q]], v);
    }
}

__global__ void from_fixed_kernel(int64_t n, const unsigned long long *acc, const double *l1, float *t) {
    const int e = fixed_exponent(*l1);
    PSV_GRID_LOOP(j, n) t[j] = (float)scalbn((double)(long long)acc[j], -e);
}

}  // namespace

void CudaBackend::pattern_product_transposed(const MatrixStore &A, const float *u, float *t) {
    activate();
    const auto &M = static_cast<const CudaMatrix &>(A);
    M.need_csr();
    cudaStream_t st = stream();
    // the allocations first: a failure leaves t untouched
    Buffer acc(this, (size_t)std::max<int64_t>(1, M.ncols) * 8), l1(this, 8);
    set_bytes(acc.get(), 0, (size_t)M.ncols * 8);
    if (M.nrows > 0) launch_mapreduce<double, PlusD>(*this, M.nrows, AbsF{u}, 0.0, l1.as<double>());
    else set_bytes(l1.get(), 0, 8);
    unsigned long long *a = acc.as<unsigned long long>();
    if (M.nvals > 0) {
        const int G = std::max(1, std::min(32, (int)M.csr_lanes));
        push_rows_kernel<<<grid_for(M.nrows * (int64_t)G, 256, 65535LL * 32), 256, 0, st>>>(
            M.nrows, M.row_ptr.as<int64_t>(), M.col.as<int32_t>(), u, l1.as<double>(), G, M.csr_long_min, a);
        PSV_CUDA_LAUNCH_CHECK();
        if (M.n_long_rows > 0) {
            push_long_kernel<<<(unsigned)std::min<int64_t>(M.n_long_rows, 65535), 256, 0, st>>>(
                M.n_long_rows, M.long_rows.as<int32_t>(), M.row_ptr.as<int64_t>(), M.col.as<int32_t>(), u, l1.as<double>(), a);
            PSV_CUDA_LAUNCH_CHECK();
        }
    }
    launch(*this, M.ncols, [&](unsigned g, int b) { from_fixed_kernel<<<g, b, 0, st>>>(M.ncols, a, l1.as<double>(), t); });
}

}  // namespace cuda
}  // namespace psv
