// Operators chosen at run time on the device: one switch per operation, uniform across a warp.
// Used where a compile-time instantiation per operator would multiply kernels for no gain (the
// vector operations) and for the semirings without a compile-time SpMV specialization. Both
// switches expand the operator table (src/core/operators.def).
#pragma once
#include "core/ops.hpp"

namespace psv {
namespace cuda {

// op is validated and canonical for T before a launch; an unknown code returns x.
template <class T> __host__ __device__ __forceinline__ T rt_apply(psv_op op, T x, T y) {
    switch (op) {
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) \
    case PSV_##NAME: return BinaryOp<PSV_##NAME, T>::apply(x, y);
#include "core/operators.def"
#undef PSV_OPERATOR
    default: return x;
    }
}

// The identity of a monoid (validated, canonical for T); 0 for anything else.
template <class T> __host__ __device__ __forceinline__ T rt_identity(psv_op monoid) {
    switch (monoid) {
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR)                      \
    case PSV_##NAME:                                                           \
        if constexpr (is_monoid(PSV_##NAME)) return MonoidIdentity<PSV_##NAME, T>::value(); \
        break;
#include "core/operators.def"
#undef PSV_OPERATOR
    default: break;
    }
    return (T)0;
}

}  // namespace cuda
}  // namespace psv
