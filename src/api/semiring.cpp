// The shims of semirings: creation (an add monoid and a multiply over one type) and free.
#include "api/shim.hpp"

using namespace psv;
using namespace psv::api;

extern "C" {

psv_status psv_semiring_create(psv_context *c, psv_op add, psv_op multiply, psv_type type,
                               psv_semiring **s) {
    ContextCore *ctx = nullptr;
    return guard("psv_semiring_create", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(s, "s");
        check_type(type);
        if (!valid_binary_op(add)) fail(PSV_ERROR_INVALID_VALUE, format("add: %d is not a binary operator", (int)add));
        if (!valid_binary_op(multiply)) fail(PSV_ERROR_INVALID_VALUE, format("multiply: %d is not a binary operator", (int)multiply));
        if (!is_monoid(canonical_op(add, type)))
            fail(PSV_ERROR_DOMAIN_MISMATCH, format("add operator %s is not a monoid", op_name(add)));
        if (!valid_multiply(canonical_op(multiply, type)))
            fail(PSV_ERROR_DOMAIN_MISMATCH, format("%s cannot be a semiring multiply", op_name(multiply)));
        auto r = std::make_unique<psv_semiring_s>();
        r->ctx = c->core;
        r->add = add;
        r->multiply = multiply;
        r->type = type;
        registry_add(r.get(), Kind::Semiring);
        *s = r.release();
        return PSV_SUCCESS;
    });
}

void psv_semiring_free(psv_semiring **s) {
    if (!s || !*s || !registry_has(*s, Kind::Semiring)) return;
    registry_remove(*s);
    (*s)->magic = kMagicFreed;
    delete *s;
    *s = nullptr;
}

}  // extern "C"
