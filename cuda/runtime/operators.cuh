// Operators chosen at run time on the device: one switch per operation, uniform across a warp.
// Used where a compile-time instantiation per operator would multiply kernels for no gain (the
// vector operations) and for the semirings without a compile-time SpMV specialization. Both
// switches expand the operator table (src/core/operators.def).
#pragma once
#include "core/ops.hpp"

namespace psv {
namespace cuda {

// op is validated and canonical for T before a launch. An unknown code (never) runs the table's
// first operator: sharing its label keeps the switch as small as one case per operator.
template <class T> __host__ __device__ __forceinline__ T rt_apply(psv_op op, T x, T y) {
    switch (op) {
    default:
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) \
    case PSV_##NAME: return BinaryOp<PSV_##NAME, T>::apply(x, y);
#include "core/operators.def"
#undef PSV_OPERATOR
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
