// Checked CUDA calls and launch helpers, used by every layer of the CUDA backend.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "core/error.hpp"

namespace psv {
namespace cuda {

// Check a CUDA runtime call: out of memory -> PSV_ERROR_OUT_OF_MEMORY (the error is cleared so
// the context stays usable); anything else -> PSV_ERROR_DEVICE with CUDA's message.
[[noreturn]] void throw_cuda(cudaError_t e, const char *what, const char *file, int line);
#define PSV_CUDA_CHECK(expr)                                                                  \
    do {                                                                                      \
        cudaError_t psv_e_ = (expr);                                                          \
        if (psv_e_ != cudaSuccess) ::psv::cuda::throw_cuda(psv_e_, #expr, __FILE__, __LINE__); \
    } while (0)
// After a kernel launch.
#define PSV_CUDA_LAUNCH_CHECK() PSV_CUDA_CHECK(cudaGetLastError())

// Grid size for an elementwise kernel over n items.
inline unsigned grid_for(int64_t n, int threads = 256, int64_t cap = 65535LL * 32) {
    int64_t b = (n + threads - 1) / threads;
    if (b < 1) b = 1;
    if (b > cap) b = cap;
    return (unsigned)b;
}

// Lets kernel launch with `bytes` of dynamic shared memory. Always set, not only above 48 KB: a
// kernel's static shared memory counts against that default limit too. The limit is a property of
// the kernel on the device, shared by every context and thread of the process, so it only ever
// grows (one lock, the largest asked for so far per device and kernel): lowering it for one
// context's plan would fail another thread's launch of a larger one in between.
void allow_smem_raw(const void *kernel, size_t bytes);  // runtime/backend.cu
template <class K> void allow_smem(K kernel, size_t bytes) { allow_smem_raw(reinterpret_cast<const void *>(kernel), bytes); }

// Programmatic dependent launch (sm_90): a kernel launched by launch_maybe_overlapped with overlap
// set may start while the kernel before it in the stream ends, once every block of that kernel has
// called grid_dependents_launch() (or exited). Before grid_dependency_wait() it may read only what
// no kernel still running writes, and write nothing another reads; after it, the kernel before has
// completed and its writes are visible. Both calls do nothing in a kernel launched plainly.
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void grid_dependents_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
template <class... P, class... A>
void launch_maybe_overlapped(void (*kernel)(P...), unsigned grid, unsigned block, size_t smem, cudaStream_t st, bool overlap,
                             A &&...args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = overlap ? 1 : 0;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    PSV_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...));
}

}  // namespace cuda
}  // namespace psv
