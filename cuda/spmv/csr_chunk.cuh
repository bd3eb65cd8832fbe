// The CSR chunk kernel (the CSR kernel, and AUTO's choice, whenever u has every entry): a block
// per chunk of about kChunkEntries entries cut at row starts; under AUTO the columns are in rank
// order where x exceeds L2 on a power-law matrix.
#pragma once
#include "cuda/spmv/chunk_agent.cuh"

namespace psv {
namespace cuda {

// The CSR chunk kernel: a block per chunk, at least MINB blocks per SM (registers capped: 40 for
// 6 blocks, 32 for 8; without a cap the compiler took 64, 4 blocks). V: chunk_fill_v's 16-byte
// loads (4-byte indices and values only). 8 blocks (V only: the scalar fill spills at 32
// registers) pay on matrices of many waves (Policy::many_waves), 6 on those of a few, where each
// block's chain of dependent loads counts more than occupancy.
template <class S, int E, bool V, int MINB>
__global__ void __launch_bounds__(kChunkThreads, MINB)
    csr_chunk_kernel(const S s, const ChunkArgs<typename S::value_type> A, const typename S::value_type *__restrict__ u) {
    using T = typename S::value_type;
    static_assert(2 * kChunkThreads * E == kChunkCap, "a chunk is at most two passes of E entries per thread");
    __shared__ __align__(16) T prod[kChunkCap + 4];
    __shared__ int32_t deferred[kChunkDeferredMax];
    __shared__ int ndef;
    const int64_t k = blockIdx.x, b = A.cb[k], e = A.cb[k + 1];
    if constexpr (MINB == kChunkBlocksFewWaves) prefetch_rows(A, k, threadIdx.x);
    auto fetch = [&](int32_t j) { return ld_x(u + j); };
    int off = 0;
    if constexpr (V) {
        off = chunk_fill_v<S, E>(s, b, e, A, fetch, prod, ndef, threadIdx.x);
    } else {
        int32_t c[E];
        T a[E];
        chunk_load(A, b, e, threadIdx.x, c, a);
        chunk_fill<S, E>(s, b, e, A, fetch, prod, c, a, ndef, threadIdx.x);
    }
    __syncthreads();
    chunk_reduce(s, k, b, e, A, [] { __syncthreads(); }, prod + off, deferred, ndef, threadIdx.x);
}

}  // namespace cuda
}  // namespace psv
