// Operators chosen at run time on the device: one switch per operation, uniform across a warp.
// Used where a compile-time instantiation per operator would multiply kernels for no gain (the
// vector operations) and for the semirings without a compile-time SpMV specialization.
#pragma once
#include "core/ops.hpp"

namespace psv {
namespace cuda {

template <class T> __host__ __device__ __forceinline__ T rt_apply(psv_op op, T x, T y) {
    switch (op) {
    case PSV_PLUS: return BinaryOp<PSV_PLUS, T>::apply(x, y);
    case PSV_TIMES: return BinaryOp<PSV_TIMES, T>::apply(x, y);
    case PSV_MIN: return BinaryOp<PSV_MIN, T>::apply(x, y);
    case PSV_MAX: return BinaryOp<PSV_MAX, T>::apply(x, y);
    case PSV_FIRST: return x;
    case PSV_SECOND: return y;
    case PSV_PAIR: return (T)1;
    case PSV_LOR: return BinaryOp<PSV_LOR, T>::apply(x, y);
    case PSV_LAND: return BinaryOp<PSV_LAND, T>::apply(x, y);
    case PSV_LXOR: return BinaryOp<PSV_LXOR, T>::apply(x, y);
    case PSV_MINUS: return BinaryOp<PSV_MINUS, T>::apply(x, y);
    case PSV_DIV: return BinaryOp<PSV_DIV, T>::apply(x, y);
    default: return BinaryOp<PSV_ABSDIFF, T>::apply(x, y);
    }
}

template <class T> __host__ __device__ __forceinline__ T rt_identity(psv_op monoid) {
    switch (monoid) {
    case PSV_PLUS: return MonoidIdentity<PSV_PLUS, T>::value();
    case PSV_TIMES: return MonoidIdentity<PSV_TIMES, T>::value();
    case PSV_MIN: return MonoidIdentity<PSV_MIN, T>::value();
    case PSV_MAX: return MonoidIdentity<PSV_MAX, T>::value();
    case PSV_LOR: return MonoidIdentity<PSV_LOR, T>::value();
    case PSV_LAND: return MonoidIdentity<PSV_LAND, T>::value();
    default: return MonoidIdentity<PSV_LXOR, T>::value();
    }
}

}  // namespace cuda
}  // namespace psv
