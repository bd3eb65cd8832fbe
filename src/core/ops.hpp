// Operators, monoids and semirings as compile-time functors usable on host and device, and the
// runtime -> template dispatch that turns (add, multiply, type) into one instantiation each.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "psv/psv.h"

#if defined(__CUDACC__)
#define PSV_HD __host__ __device__ __forceinline__
#else
#define PSV_HD inline
#endif

namespace psv {

using bool_t = uint8_t;  // PSV_BOOL storage: one byte, 0 or 1

template <class T> struct TypeCode;
template <> struct TypeCode<bool_t> { static constexpr psv_type value = PSV_BOOL; };
template <> struct TypeCode<int32_t> { static constexpr psv_type value = PSV_INT32; };
template <> struct TypeCode<int64_t> { static constexpr psv_type value = PSV_INT64; };
template <> struct TypeCode<float> { static constexpr psv_type value = PSV_FP32; };
template <> struct TypeCode<double> { static constexpr psv_type value = PSV_FP64; };

inline bool valid_type(psv_type t) { return t >= PSV_BOOL && t <= PSV_FP64; }
inline size_t type_size(psv_type t) {
    switch (t) {
    case PSV_BOOL: return 1;
    case PSV_INT32: return 4;
    case PSV_INT64: return 8;
    case PSV_FP32: return 4;
    case PSV_FP64: return 8;
    default: return 0;
    }
}
const char *type_name(psv_type t);
const char *op_name(psv_op op);

inline bool valid_binary_op(psv_op op) { return op >= PSV_PLUS && op <= PSV_ABSDIFF; }
inline bool is_monoid(psv_op op) {
    return op == PSV_PLUS || op == PSV_TIMES || op == PSV_MIN || op == PSV_MAX || op == PSV_LOR ||
           op == PSV_LAND || op == PSV_LXOR;
}
inline bool valid_multiply(psv_op op) { return valid_binary_op(op) && op != PSV_ABSDIFF; }

// GraphBLAS renames arithmetic operators on bool to logical ones; doing it before dispatch keeps
// the bool instantiations few.
inline psv_op canonical_op(psv_op op, psv_type t) {
    if (t != PSV_BOOL) return op;
    switch (op) {
    case PSV_PLUS: case PSV_MAX: return PSV_LOR;
    case PSV_TIMES: case PSV_MIN: return PSV_LAND;
    case PSV_MINUS: case PSV_ABSDIFF: return PSV_LXOR;
    case PSV_DIV: return PSV_FIRST;
    default: return op;
    }
}

template <class T> struct Limits {
    PSV_HD static T max() { return std::numeric_limits<T>::max(); }
    PSV_HD static T lowest() { return std::numeric_limits<T>::lowest(); }
};
template <> struct Limits<float> {
    PSV_HD static float max() { return INFINITY; }
    PSV_HD static float lowest() { return -INFINITY; }
};
template <> struct Limits<double> {
    PSV_HD static double max() { return (double)INFINITY; }
    PSV_HD static double lowest() { return -(double)INFINITY; }
};

// Integer arithmetic wraps (done in the unsigned type), never undefined behaviour.
template <class T> PSV_HD T wrap_add(T x, T y) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)((U)x + (U)y);
    } else {
        return x + y;
    }
}
template <class T> PSV_HD T wrap_sub(T x, T y) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)((U)x - (U)y);
    } else {
        return x - y;
    }
}
template <class T> PSV_HD T wrap_mul(T x, T y) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)((U)x * (U)y);
    } else {
        return x * y;
    }
}
template <class T> PSV_HD T safe_div(T x, T y) {
    if constexpr (std::is_integral<T>::value) {
        if (y == 0) return 0;
        if (std::is_signed<T>::value && y == (T)-1) return wrap_sub<T>(0, x);
        return x / y;
    } else {
        return x / y;
    }
}
// fmin/fmax semantics: a NaN operand is ignored.
template <class T> PSV_HD T op_min(T x, T y) {
    if constexpr (std::is_floating_point<T>::value) {
        if (x != x) return y;
        if (y != y) return x;
    }
    return y < x ? y : x;
}
template <class T> PSV_HD T op_max(T x, T y) {
    if constexpr (std::is_floating_point<T>::value) {
        if (x != x) return y;
        if (y != y) return x;
    }
    return x < y ? y : x;
}

template <psv_op OP, class T> struct BinaryOp;
#define PSV_DEFINE_OP(OP, EXPR)                                                                 \
    template <class T> struct BinaryOp<OP, T> {                                                 \
        static constexpr psv_op code = OP;                                                      \
        PSV_HD static T apply(T x, T y) { (void)x; (void)y; return (T)(EXPR); }                \
    };
PSV_DEFINE_OP(PSV_PLUS, wrap_add<T>(x, y))
PSV_DEFINE_OP(PSV_TIMES, wrap_mul<T>(x, y))
PSV_DEFINE_OP(PSV_MIN, op_min<T>(x, y))
PSV_DEFINE_OP(PSV_MAX, op_max<T>(x, y))
PSV_DEFINE_OP(PSV_FIRST, x)
PSV_DEFINE_OP(PSV_SECOND, y)
PSV_DEFINE_OP(PSV_PAIR, 1)
PSV_DEFINE_OP(PSV_LOR, (x != 0) || (y != 0))
PSV_DEFINE_OP(PSV_LAND, (x != 0) && (y != 0))
PSV_DEFINE_OP(PSV_LXOR, (x != 0) != (y != 0))
PSV_DEFINE_OP(PSV_MINUS, wrap_sub<T>(x, y))
PSV_DEFINE_OP(PSV_DIV, safe_div<T>(x, y))
PSV_DEFINE_OP(PSV_ABSDIFF, (y < x ? wrap_sub<T>(x, y) : wrap_sub<T>(y, x)))
#undef PSV_DEFINE_OP

template <psv_op OP, class T> struct MonoidIdentity;
template <class T> struct MonoidIdentity<PSV_PLUS, T> { PSV_HD static T value() { return 0; } };
template <class T> struct MonoidIdentity<PSV_TIMES, T> { PSV_HD static T value() { return 1; } };
template <class T> struct MonoidIdentity<PSV_MIN, T> { PSV_HD static T value() { return Limits<T>::max(); } };
template <class T> struct MonoidIdentity<PSV_MAX, T> { PSV_HD static T value() { return Limits<T>::lowest(); } };
template <class T> struct MonoidIdentity<PSV_LOR, T> { PSV_HD static T value() { return 0; } };
template <class T> struct MonoidIdentity<PSV_LAND, T> { PSV_HD static T value() { return 1; } };
template <class T> struct MonoidIdentity<PSV_LXOR, T> { PSV_HD static T value() { return 0; } };

template <class T, psv_op ADD, psv_op MUL> struct Semiring {
    using value_type = T;
    static constexpr psv_op add_op = ADD;
    static constexpr psv_op mul_op = MUL;
    PSV_HD static T add(T a, T b) { return BinaryOp<ADD, T>::apply(a, b); }
    PSV_HD static T mul(T a, T x) { return BinaryOp<MUL, T>::apply(a, x); }
    PSV_HD static T identity() { return MonoidIdentity<ADD, T>::value(); }
    // The multiply does not read the matrix value: pattern and valued matrices are alike.
    static constexpr bool ignores_matrix = (MUL == PSV_SECOND || MUL == PSV_PAIR);
    // fp32 plus semirings sum a row in double (both backends): long hub rows summed in fp32 leave
    // power iterations in a rounding limit cycle above common tolerances.
    using acc_type = typename std::conditional<std::is_same<T, float>::value && ADD == PSV_PLUS, double, T>::type;
    PSV_HD static acc_type acc_add(acc_type a, acc_type b) { return BinaryOp<ADD, acc_type>::apply(a, b); }
};

// ---- runtime -> compile-time dispatch --------------------------------------------------------
template <class T> struct TypeTag { using type = T; };

template <class F> decltype(auto) dispatch_type(psv_type t, F &&f) {
    switch (t) {
    case PSV_BOOL: return f(TypeTag<bool_t>{});
    case PSV_INT32: return f(TypeTag<int32_t>{});
    case PSV_INT64: return f(TypeTag<int64_t>{});
    case PSV_FP32: return f(TypeTag<float>{});
    default: return f(TypeTag<double>{});
    }
}

// f(BinaryOp<OP,T>{}) for any binary operator op (already canonical for T); a semiring multiply
// (ABSDIFF excluded) when MULTIPLY_ONLY.
template <class T, bool MULTIPLY_ONLY = false, class F> void dispatch_binary_op(psv_op op, F &&f) {
    if constexpr (std::is_same<T, bool_t>::value) {
        switch (op) {
        case PSV_FIRST: return f(BinaryOp<PSV_FIRST, T>{});
        case PSV_SECOND: return f(BinaryOp<PSV_SECOND, T>{});
        case PSV_PAIR: return f(BinaryOp<PSV_PAIR, T>{});
        case PSV_LOR: return f(BinaryOp<PSV_LOR, T>{});
        case PSV_LAND: return f(BinaryOp<PSV_LAND, T>{});
        default: return f(BinaryOp<PSV_LXOR, T>{});
        }
    } else {
        switch (op) {
        case PSV_PLUS: return f(BinaryOp<PSV_PLUS, T>{});
        case PSV_TIMES: return f(BinaryOp<PSV_TIMES, T>{});
        case PSV_MIN: return f(BinaryOp<PSV_MIN, T>{});
        case PSV_MAX: return f(BinaryOp<PSV_MAX, T>{});
        case PSV_FIRST: return f(BinaryOp<PSV_FIRST, T>{});
        case PSV_SECOND: return f(BinaryOp<PSV_SECOND, T>{});
        case PSV_PAIR: return f(BinaryOp<PSV_PAIR, T>{});
        case PSV_LOR: return f(BinaryOp<PSV_LOR, T>{});
        case PSV_LAND: return f(BinaryOp<PSV_LAND, T>{});
        case PSV_LXOR: return f(BinaryOp<PSV_LXOR, T>{});
        case PSV_MINUS: return f(BinaryOp<PSV_MINUS, T>{});
        case PSV_DIV: return f(BinaryOp<PSV_DIV, T>{});
        default:
            if constexpr (MULTIPLY_ONLY) return f(BinaryOp<PSV_DIV, T>{});  // unreachable: validated
            else return f(BinaryOp<PSV_ABSDIFF, T>{});
        }
    }
}

// f(MonoidTag) for a monoid op (already canonical for T): f receives BinaryOp<OP,T> and can use
// MonoidIdentity<decltype(op)::code, T>.
template <class T, class F> void dispatch_monoid(psv_op op, F &&f) {
    if constexpr (std::is_same<T, bool_t>::value) {
        switch (op) {
        case PSV_LOR: return f(BinaryOp<PSV_LOR, T>{});
        case PSV_LAND: return f(BinaryOp<PSV_LAND, T>{});
        default: return f(BinaryOp<PSV_LXOR, T>{});
        }
    } else {
        switch (op) {
        case PSV_PLUS: return f(BinaryOp<PSV_PLUS, T>{});
        case PSV_TIMES: return f(BinaryOp<PSV_TIMES, T>{});
        case PSV_MIN: return f(BinaryOp<PSV_MIN, T>{});
        case PSV_MAX: return f(BinaryOp<PSV_MAX, T>{});
        case PSV_LOR: return f(BinaryOp<PSV_LOR, T>{});
        case PSV_LAND: return f(BinaryOp<PSV_LAND, T>{});
        default: return f(BinaryOp<PSV_LXOR, T>{});
        }
    }
}

// f(Semiring<T,ADD,MUL>{}) for every monoid ADD and multiply MUL (canonical for T).
template <class T, psv_op ADD, class F> void dispatch_semiring_mul(psv_op mul, F &&f) {
    dispatch_binary_op<T, true>(mul, [&](auto m) { f(Semiring<T, ADD, decltype(m)::code>{}); });
}
template <class T, class F> void dispatch_semiring_t(psv_op add, psv_op mul, F &&f) {
    dispatch_monoid<T>(add, [&](auto a) { dispatch_semiring_mul<T, decltype(a)::code>(mul, f); });
}
template <class F> void dispatch_semiring(psv_op add, psv_op mul, psv_type t, F &&f) {
    dispatch_type(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        dispatch_semiring_t<T>(canonical_op(add, t), canonical_op(mul, t), f);
    });
}

}  // namespace psv
