// Warp shuffles of any value type of at most 8 bytes (moved as 32- or 64-bit words); the butterfly
// also moves 16-byte values (two 64-bit words: a pair of sums).
#pragma once
#include <cuda_runtime.h>

namespace psv {
namespace cuda {

template <class T> __device__ __forceinline__ T shfl_xor_any(T v, int m) {
    if constexpr (sizeof(T) == 16) {
        long long b[2];
        memcpy(b, &v, 16);
        b[0] = __shfl_xor_sync(0xffffffffu, b[0], m);
        b[1] = __shfl_xor_sync(0xffffffffu, b[1], m);
        memcpy(&v, b, 16);
        return v;
    } else if constexpr (sizeof(T) == 8) {
        long long b;
        memcpy(&b, &v, 8);
        b = __shfl_xor_sync(0xffffffffu, b, m);
        memcpy(&v, &b, 8);
        return v;
    } else if constexpr (sizeof(T) == 4) {
        int b;
        memcpy(&b, &v, 4);
        b = __shfl_xor_sync(0xffffffffu, b, m);
        memcpy(&v, &b, 4);
        return v;
    } else {
        int b = (int)v;
        b = __shfl_xor_sync(0xffffffffu, b, m);
        return (T)b;
    }
}
template <class T> __device__ __forceinline__ T shfl_up_any(T v, int d) {
    if constexpr (sizeof(T) == 8) {
        long long b;
        memcpy(&b, &v, 8);
        b = __shfl_up_sync(0xffffffffu, b, d);
        memcpy(&v, &b, 8);
        return v;
    } else if constexpr (sizeof(T) == 4) {
        int b;
        memcpy(&b, &v, 4);
        b = __shfl_up_sync(0xffffffffu, b, d);
        memcpy(&v, &b, 4);
        return v;
    } else {
        int b = (int)v;
        b = __shfl_up_sync(0xffffffffu, b, d);
        return (T)b;
    }
}
template <class T> __device__ __forceinline__ T shfl_idx_any(T v, int src) {
    if constexpr (sizeof(T) == 8) {
        long long b;
        memcpy(&b, &v, 8);
        b = __shfl_sync(0xffffffffu, b, src);
        memcpy(&v, &b, 8);
        return v;
    } else if constexpr (sizeof(T) == 4) {
        int b;
        memcpy(&b, &v, 4);
        b = __shfl_sync(0xffffffffu, b, src);
        memcpy(&v, &b, 4);
        return v;
    } else {
        int b = (int)v;
        b = __shfl_sync(0xffffffffu, b, src);
        return (T)b;
    }
}

}  // namespace cuda
}  // namespace psv
