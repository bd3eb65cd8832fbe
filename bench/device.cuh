// Device-code helpers shared by the bench's .cu files.
#pragma once
#include <cub/cub.cuh>

#include "bench/bench.hpp"

namespace cubns = CUB_NS_QUALIFIER;

// A grid-stride loop over [0, n).
#define GLOOP(i, n) for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

// A CUB device algorithm f(temp, bytes): sized, then run with its temporary storage.
template <class F> inline void cub_run(F &&f) {
    size_t bytes = 0;
    CK(f((void *)nullptr, bytes));
    Dev<char> tmp(std::max<size_t>(bytes, 1));
    CK(f((void *)tmp.p, bytes));
}

// *out += the warp's sum of v (one atomic per warp, none for a zero sum).
__device__ inline void block_add(double v, double *out) {
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v != 0) atomicAdd(out, v);
}

// pos = exclusive prefix sums of the 0/1 flags [0, m) (flag[m] is set to 0 here: flag and pos
// hold m + 1); returns the number of flags set (pos[m]), after a synchronisation of g_st.
inline uint32_t exclusive_count(uint32_t *flag, uint32_t *pos, int64_t m) {
    CK(cudaMemsetAsync(flag + m, 0, 4, g_st));
    cub_run([&](void *t, size_t &b) { return cubns::DeviceScan::ExclusiveSum(t, b, flag, pos, m + 1, g_st); });
    uint32_t count = 0;
    CK(cudaMemcpyAsync(&count, pos + m, 4, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    return count;
}
