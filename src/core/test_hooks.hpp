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

// When true, the CUDA device pool keeps no freed block for reuse (each is cudaFree'd at once):
// its cache's bookkeeping (host map nodes) then does not change from one call to the next, so a
// test can count host allocations exactly. Set it before the context is created.
extern bool device_pool_no_cache;

// When true, the CUDA backend's PSV_KERNEL_AUTO reads x in column rank order on every matrix
// with entries (normally only on large power-law ones), so small tests reach that path. Set it
// before the matrices are built.
extern bool chunk_rank_order_always;

// When >= 0, the CUDA backend's PSV_KERNEL_AUTO holds this many hot columns of x in shared memory
// (csr_hot_kernel; capped by the matrix and by shared memory) on every matrix with entries: 0
// turns the hot kernel off. -1 (the default): the rule (power-law matrices only). Set it before
// the matrices are built.
extern int64_t chunk_hot_columns;

// When >= 0, a rank-ordered plan of the CUDA backend's hot-column kernel keeps ranks only for its
// first max(hot columns, this) ranks (CudaMatrix::ChunkPlan::ranked_prefix; the rest of x is read
// in plain order); -1 (the default): the rule. Set it before the matrices are built.
extern int64_t chunk_ranked_prefix;

inline bool should_fail_allocation(psv_backend backend, size_t bytes) {
    FailAllocationFn f = fail_allocation;
    return f && f(backend, bytes);
}

}  // namespace test_hooks
}  // namespace psv
