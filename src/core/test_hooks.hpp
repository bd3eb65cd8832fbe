// Test-only fault injection (SuiteSparse:GraphBLAS "brutal malloc" style). Not part of the ABI:
// the symbols are hidden in the shared library; tests reach them through the static library.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "psv/psv.h"

namespace psv {
namespace test_hooks {

// Consulted before every backend allocation (psv::Buffer, through which all of them go: CPU
// malloc, CUDA device pool) with the backend's kind and the byte count. When set and it returns
// true, the allocation fails as if memory were exhausted: Error(PSV_ERROR_OUT_OF_MEMORY). Code
// that allocates backend memory without a Buffer should call should_fail_allocation too.
// nullptr (the default) costs one load and a branch. Set it only while no other thread calls psv.
using FailAllocationFn = bool (*)(psv_backend backend, size_t bytes);
extern FailAllocationFn fail_allocation;

// Backend buffers (psv::Buffer) currently holding memory, over all contexts: a test compares it
// before and after a call to find leaked backend memory (host or device).
extern std::atomic<int64_t> live_buffers;

inline bool should_fail_allocation(psv_backend backend, size_t bytes) {
    FailAllocationFn f = fail_allocation;
    return f && f(backend, bytes);
}

}  // namespace test_hooks
}  // namespace psv
