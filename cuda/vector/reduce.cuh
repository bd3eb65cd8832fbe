// Deterministic map-reduce on the device: one launch, a grid that depends on n only, fixed
// per-block trees, and the last block to finish combining the block partials in block order.
#pragma once
#include <algorithm>

#include "cuda/runtime/backend.cuh"
#include "cuda/runtime/warp.cuh"

namespace psv {
namespace cuda {

// Butterfly over a full warp (every lane ends with the same value, fixed shape).
template <class Op, class T> __device__ __forceinline__ T warp_allreduce(const Op &op, T v) {
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) v = op.apply(v, shfl_xor_any(v, m));
    return v;
}

// A block's fixed-shape reduction (any size up to 32 warps): warp butterflies, then a butterfly
// over the warps' results in warp order, returned to every thread; scratch: 32 values of shared
// memory, free again when it returns.
template <class Op, class T> __device__ T block_allreduce(const Op &op, T v, T id, T *scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (int)(blockDim.x >> 5);
    v = warp_allreduce(op, v);
    __syncthreads();  // scratch free
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    T r = lane < nw ? scratch[lane] : id;
    r = warp_allreduce(op, r);  // every warp the same values in the same tree
    __syncthreads();
    return r;
}

// A value another block wrote (volatile: past this SM's L1), of any size up to 16 bytes.
template <class T> __device__ __forceinline__ T load_volatile(const T *p) {
    if constexpr (sizeof(T) == 16) {
        long long b[2];
        b[0] = ((const volatile long long *)p)[0];
        b[1] = ((const volatile long long *)p)[1];
        T v;
        memcpy(&v, b, 16);
        return v;
    } else {
        return *(const volatile T *)p;
    }
}

// A grid's fixed-order reduction, the block partials kept: block `slot`'s value v (read in thread
// 0) goes to partials[slot]; the last of `count` blocks to arrive (counter: zero between launches,
// reset here) combines partials[0 .. count) in slot order and returns true with `total` in every
// thread; the others return false. Every thread of the block calls it.
template <class Op, class T>
__device__ bool last_block_combine(const Op &op, T v, T id, T *partials, int64_t slot, int64_t count, unsigned *counter,
                                   T *scratch, T &total) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[slot] = v;
        __threadfence();
        last = atomicAdd(counter, 1u) == (unsigned)(count - 1);
    }
    __syncthreads();
    if (!last) return false;
    __threadfence();
    T r = id;
    for (int64_t b = threadIdx.x; b < count; b += blockDim.x) r = op.apply(r, load_volatile(partials + b));
    total = block_allreduce(op, r, id, scratch);
    if (threadIdx.x == 0) *counter = 0;
    return true;
}

inline int reduce_blocks(int64_t n) {
    int64_t b = (n + 4LL * kReduceThreads - 1) / (4LL * kReduceThreads);
    if (b < 1) b = 1;
    if (b > kReduceMaxBlocks) b = kReduceMaxBlocks;
    return (int)b;
}

// Where a map-reduce's result goes: out[j] = r here; a caller's own Out may store it elsewhere
// (put) and make a whole launch do nothing (skip, read at its start: an ended loop's step).
template <class T> struct OutArray {
    T *p;
    __device__ bool skip() const { return false; }
    __device__ void put(int j, T r) const { p[j] = r; }
};

// A map's per-thread start: f.start() where F has one (e.g. a device scalar read once a thread,
// before the block counts itself done, so the last block may write it), else f itself.
template <class F> __device__ __forceinline__ auto map_start(const F &f, int) -> decltype(f.start()) { return f.start(); }
template <class F> __device__ __forceinline__ F map_start(const F &f, long) { return f; }

// out.put(0, Op over f(i, 0)), i in [0, n). f may also write (a fused map). partials holds
// gridDim.x values, counter one zeroed unsigned (reset by the last block).
template <class T, class Op, class F, class Out>
__global__ void __launch_bounds__(kReduceThreads)
    mapreduce_kernel(int64_t n, F f, Op op, T id, T *partials, unsigned *counter, Out out) {
    if (out.skip()) return;
    const int64_t per_block = (n + gridDim.x - 1) / gridDim.x;
    const int64_t begin = (int64_t)blockIdx.x * per_block;
    const int64_t end = begin + per_block < n ? begin + per_block : n;
    const auto g = map_start(f, 0);
    T acc = id;
    for (int64_t i = begin + threadIdx.x; i < end; i += kReduceThreads) acc = op.apply(acc, g(i, 0));
    __shared__ T scratch[32];
    acc = block_allreduce(op, acc, id, scratch);
    T r;
    if (!last_block_combine(op, acc, id, partials, blockIdx.x, gridDim.x, counter, scratch, r)) return;
    if (threadIdx.x == 0) out.put(0, r);
}

// One reduction into a caller's Out (see OutArray), on the context's scratch: allocates nothing.
// Values of 16 bytes (two sums at once) take two of its 8-byte slots each: half the blocks.
template <class T, class Op, class F, class Out>
void launch_mapreduce_out(CudaBackend &be, int64_t n, F f, T id, Out out, Op op = Op{}) {
    static_assert(sizeof(T) == 16 || sizeof(T) <= 8, "partials are 8-byte slots, two for a 16-byte value");
    const int blocks = std::min(reduce_blocks(n), kReduceMaxBlocks * 8 / (int)std::max<size_t>(8, sizeof(T)));
    mapreduce_kernel<T, Op, F, Out><<<(unsigned)blocks, kReduceThreads, 0, be.stream()>>>(
        n, f, op, id, static_cast<T *>(be.reduce_partials()), be.reduce_counter(), out);
    PSV_CUDA_LAUNCH_CHECK();
}

// One reduction into out_device[0] (device memory), on the context's scratch.
template <class T, class Op, class F>
void launch_mapreduce(CudaBackend &be, int64_t n, F f, T id, T *out_device, Op op = Op{}) {
    launch_mapreduce_out<T, Op>(be, n, f, id, OutArray<T>{out_device}, op);
}

struct PlusD {
    static constexpr psv_op code = PSV_PLUS;
    __device__ __forceinline__ static double apply(double a, double b) { return a + b; }
};

}  // namespace cuda
}  // namespace psv
