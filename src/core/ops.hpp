// Operators, monoids and semirings as compile-time functors usable on host and device, and the
// runtime -> template dispatch that turns (add, multiply, type) into one instantiation each.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.hpp"
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

// ---- the operator table (src/core/operators.def) as constexpr queries ---------------------------
enum class OpKind { none, MONOID, BINARY, EWISE };  // none: not a binary operator

constexpr OpKind op_kind(psv_op op) {
    switch (op) {
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) case PSV_##NAME: return OpKind::KIND;
#include "core/operators.def"
#undef PSV_OPERATOR
    default: return OpKind::none;
    }
}
constexpr bool valid_binary_op(psv_op op) { return op_kind(op) != OpKind::none; }
constexpr bool is_monoid(psv_op op) { return op_kind(op) == OpKind::MONOID; }
constexpr bool valid_multiply(psv_op op) { return op_kind(op) == OpKind::MONOID || op_kind(op) == OpKind::BINARY; }

// GraphBLAS renames arithmetic operators on bool to logical ones; doing it before dispatch keeps
// the bool instantiations few.
constexpr psv_op op_on_bool(psv_op op) {
    switch (op) {
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) case PSV_##NAME: return PSV_##ON_BOOL;
#include "core/operators.def"
#undef PSV_OPERATOR
    default: return op;
    }
}
constexpr psv_op canonical_op(psv_op op, psv_type t) { return t == PSV_BOOL ? op_on_bool(op) : op; }

// The table's own rules, checked where it is compiled: codes distinct (the switches above would
// not compile otherwise) and positive, renaming on bool settles in one step and keeps a monoid a
// monoid, and exactly the monoids have an identity.
#define PSV_IDENTITY_GIVEN_NONE false
#define PSV_IDENTITY_GIVEN_ZERO true
#define PSV_IDENTITY_GIVEN_ONE true
#define PSV_IDENTITY_GIVEN_TYPE_MAX true
#define PSV_IDENTITY_GIVEN_TYPE_LOWEST true
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR)                                          \
    static_assert(PSV_##NAME > PSV_NOOP, "PSV_" #NAME ": operator codes are positive");            \
    static_assert(op_on_bool(PSV_##ON_BOOL) == PSV_##ON_BOOL, "PSV_" #NAME ": renamed on bool to an operator that is renamed again"); \
    static_assert(!is_monoid(PSV_##NAME) || is_monoid(PSV_##ON_BOOL), "PSV_" #NAME ": a monoid renamed on bool to a non-monoid"); \
    static_assert(is_monoid(PSV_##NAME) == PSV_IDENTITY_GIVEN_##IDENTITY, "PSV_" #NAME ": exactly the monoids have an identity");
#include "core/operators.def"
#undef PSV_OPERATOR
#undef PSV_IDENTITY_GIVEN_NONE
#undef PSV_IDENTITY_GIVEN_ZERO
#undef PSV_IDENTITY_GIVEN_ONE
#undef PSV_IDENTITY_GIVEN_TYPE_MAX
#undef PSV_IDENTITY_GIVEN_TYPE_LOWEST

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

// BinaryOp<OP, T>::apply(x, y) and MonoidIdentity<OP, T>::value(), one per table line.
template <psv_op OP, class T> struct BinaryOp;
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR)                                          \
    template <class T> struct BinaryOp<PSV_##NAME, T> {                                            \
        static constexpr psv_op code = PSV_##NAME;                                                 \
        PSV_HD static T apply(T x, T y) { (void)x; (void)y; return (T)(EXPR); }                   \
    };
#include "core/operators.def"
#undef PSV_OPERATOR

template <psv_op OP, class T> struct MonoidIdentity;  // defined for the monoids only
#define PSV_IDENTITY_ZERO (T)0
#define PSV_IDENTITY_ONE (T)1
#define PSV_IDENTITY_TYPE_MAX Limits<T>::max()
#define PSV_IDENTITY_TYPE_LOWEST Limits<T>::lowest()
#define PSV_MONOID_IDENTITY_MONOID(NAME, IDENTITY)                                                 \
    template <class T> struct MonoidIdentity<PSV_##NAME, T> {                                      \
        PSV_HD static T value() { return PSV_IDENTITY_##IDENTITY; }                                \
    };
#define PSV_MONOID_IDENTITY_BINARY(NAME, IDENTITY)
#define PSV_MONOID_IDENTITY_EWISE(NAME, IDENTITY)
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) PSV_MONOID_IDENTITY_##KIND(NAME, IDENTITY)
#include "core/operators.def"
#undef PSV_OPERATOR
#undef PSV_MONOID_IDENTITY_MONOID
#undef PSV_MONOID_IDENTITY_BINARY
#undef PSV_MONOID_IDENTITY_EWISE
#undef PSV_IDENTITY_ZERO
#undef PSV_IDENTITY_ONE
#undef PSV_IDENTITY_TYPE_MAX
#undef PSV_IDENTITY_TYPE_LOWEST

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

// Which operators a dispatch instantiates for T: on bool only those the renaming keeps (the
// others never reach it), and for a semiring's add the monoids, for its multiply no EWISE one.
enum class OpRole { any, multiply, monoid };
template <class T> constexpr bool dispatched(psv_op op, OpRole role) {
    if (std::is_same<T, bool_t>::value && op_on_bool(op) != op) return false;
    return role == OpRole::any ? valid_binary_op(op) : role == OpRole::multiply ? valid_multiply(op) : is_monoid(op);
}

[[noreturn]] inline void undispatched_op(psv_op op) {
    fail(PSV_ERROR_PANIC, format("operator %d reached dispatch unvalidated or not canonical", (int)op));
}

// f(BinaryOp<OP,T>{}) for operator op (validated, canonical for T) in role ROLE.
template <class T, OpRole ROLE, class F> void dispatch_op(psv_op op, F &&f) {
    switch (op) {
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR)                                          \
    case PSV_##NAME:                                                                               \
        if constexpr (dispatched<T>(PSV_##NAME, ROLE)) return f(BinaryOp<PSV_##NAME, T>{});        \
        break;
#include "core/operators.def"
#undef PSV_OPERATOR
    default: break;
    }
    undispatched_op(op);
}

// f(BinaryOp<OP,T>{}) for any binary operator op (already canonical for T); a semiring multiply
// (EWISE operators excluded) when MULTIPLY_ONLY.
template <class T, bool MULTIPLY_ONLY = false, class F> void dispatch_binary_op(psv_op op, F &&f) {
    dispatch_op<T, MULTIPLY_ONLY ? OpRole::multiply : OpRole::any>(op, f);
}

// f(BinaryOp<OP,T>{}) for a monoid op (already canonical for T); f can use
// MonoidIdentity<decltype(op)::code, T>.
template <class T, class F> void dispatch_monoid(psv_op op, F &&f) { dispatch_op<T, OpRole::monoid>(op, f); }

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
