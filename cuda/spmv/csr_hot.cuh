// The hot-column chunk kernel: the CSR chunk kernel with the hottest columns of x in shared
// memory (AUTO on large power-law matrices).
#pragma once
#include "cuda/spmv/chunk_agent.cuh"

namespace psv {
namespace cuda {

// The hot-column chunk kernel: kHotBlocksPerSm blocks of kHotGroups x kChunkThreads threads per
// SM, alive for the whole product. Each first copies the H hottest columns of x (ranks 0 .. H-1:
// xs[i] = xh[i], or xh[hot_order[i]]) into its shared memory, then each group of kChunkThreads
// threads takes every (gridDim.x x kHotGroups)-th chunk, with a barrier of its own (bar.sync
// 1 + group). A stored column c < 0 is hot: x at rank c & 0x7fffffff, read from shared memory
// (a warp's 32 reads of random ranks cost a few bank-conflict replays, where the same gathers go
// through L1 and L2, which bound the plain chunk kernel on large power-law matrices);
// c >= 0 is read from xg[c]; SPLIT (a ranked plan whose ranked_prefix R is below ncols): from
// xg[c] for c < R, else from u[c - R]. The other plans keep the plain read, not a compare and a
// select per entry.
template <class S, int E, bool SPLIT>
__global__ void __launch_bounds__(kHotGroups * kChunkThreads, kHotBlocksPerSm)
    csr_hot_kernel(const S s, int64_t nchunks, const ChunkArgs<typename S::value_type> A,
                   const typename S::value_type *__restrict__ xg, const typename S::value_type *__restrict__ u, int32_t R,
                   const typename S::value_type *__restrict__ xh, const int32_t *__restrict__ hot_order, int32_t H) {
    using T = typename S::value_type;
    static_assert(2 * kChunkThreads * E == kChunkCap, "a chunk is at most two passes of E entries per thread");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ int32_t deferred[kHotGroups][kChunkDeferredMax];
    __shared__ int ndef[kHotGroups];
    T *prod = reinterpret_cast<T *>(smem_raw);  // kHotGroups x kChunkCap, then the H hot values (hot_capacity)
    T *xs = prod + kHotGroups * kChunkCap;
#pragma unroll 8
    for (int32_t i = threadIdx.x; i < H; i += blockDim.x) xs[i] = hot_order ? ld_x(xh + hot_order[i]) : ld_x(xh + i);
    __syncthreads();
    const int g = threadIdx.x / kChunkThreads, tid = threadIdx.x % kChunkThreads;
    auto sync = [g] { asm volatile("bar.sync %0, %1;" ::"r"(g + 1), "r"(kChunkThreads) : "memory"); };
    auto fetch = [&](int32_t j) {
        if (j < 0) return xs[j & 0x7fffffff];
        if constexpr (SPLIT) return ld_x(j < R ? xg + j : u + (j - R));
        return ld_x(xg + j);
    };
    T *gp = prod + g * kChunkCap;
    for (int64_t k = (int64_t)blockIdx.x * kHotGroups + g; k < nchunks; k += (int64_t)gridDim.x * kHotGroups) {
        const int64_t b = A.cb[k], e = A.cb[k + 1];
        int32_t c[E];
        T a[E];
        chunk_load(A, b, e, tid, c, a);
        chunk_fill<S, E>(s, b, e, A, fetch, gp, c, a, ndef[g], tid);
        sync();
        chunk_reduce(s, k, b, e, A, sync, gp, deferred[g], ndef[g], tid);
        sync();  // prod, deferred and ndef are the next chunk's
    }
}

}  // namespace cuda
}  // namespace psv
