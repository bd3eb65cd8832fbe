// The semirings of the SpMV kernels: compile-time ones (the operators the algorithms and the
// benchmarks use) and one chosen at run time for every other (add, multiply) pair of a type.
#pragma once
#include "core/ops.hpp"
#include "cuda/runtime/operators.cuh"
#include "cuda/runtime/warp.cuh"

namespace psv {
namespace cuda {

// Runtime semiring: the operators are kernel arguments (a uniform switch per operation). It
// serves every (add, multiply) pair of a type that has no compile-time specialization below, so
// the instantiations stay few (compile time on 2 cores) while every combination is supported.
template <class T> struct RtSemiring {
    using value_type = T;
    psv_op add_op, mul_op;
    T id;
    __device__ __forceinline__ T add(T a, T b) const { return rt_apply<T>(add_op, a, b); }
    __device__ __forceinline__ T mul(T a, T x) const { return rt_apply<T>(mul_op, a, x); }
    __device__ __forceinline__ T identity() const { return id; }
    using acc_type = T;
    __device__ __forceinline__ T acc_add(T a, T b) const { return add(a, b); }
};

// A compile-time semiring as an object (the kernels call s.add / s.mul / s.identity).
template <class T, psv_op ADD, psv_op MUL> struct CtSemiring {
    using value_type = T;
    __device__ __forceinline__ static T add(T a, T b) { return BinaryOp<ADD, T>::apply(a, b); }
    __device__ __forceinline__ static T mul(T a, T x) { return BinaryOp<MUL, T>::apply(a, x); }
    __device__ __forceinline__ static T identity() { return MonoidIdentity<ADD, T>::value(); }
    // fp32 plus semirings accumulate a row in double (as the CPU's pattern product does): long
    // hub rows summed in fp32 can stall power iterations in a limit cycle.
    using acc_type = typename std::conditional<std::is_same<T, float>::value && ADD == PSV_PLUS, double, T>::type;
    __device__ __forceinline__ static acc_type acc_add(acc_type a, acc_type b) { return BinaryOp<ADD, acc_type>::apply(a, b); }
};

template <class S, class A> __device__ __forceinline__ A warp_allreduce_s(const S &s, A v) {
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) v = s.acc_add(v, shfl_xor_any(v, m));
    return v;
}

}  // namespace cuda
}  // namespace psv
