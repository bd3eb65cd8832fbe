// The shim of psv_mxv: w<mask> accum= A (+).(x) u (or A' with PSV_DESC_TRANSPOSE_A) with
// GraphBLAS semantics; the product runs straight into w when no mask, accumulator or aliasing
// asks for an assignment step.
#include "api/shim.hpp"
#include "dist/dist.hpp"

using namespace psv;
using namespace psv::api;

namespace {

// w's "every entry present" flag after w has been written: a count on the backend (a device
// reduction and a copy back on CUDA). The product is complete by then, so a failure of the count
// itself (the CUDA runtime out of host memory, say) must not report an error with w already
// changed: the flag is left false instead, which is always correct (the presence bytes are
// exact; the flag only lets later calls skip reading them).
bool all_present(Backend *be, int64_t n, const uint8_t *present) noexcept {
    try {
        return be->count_present(n, present) == n;
    } catch (...) {
        return false;
    }
}

}  // namespace

extern "C" {

psv_status psv_mxv(psv_vector *w, const psv_vector *mask, psv_op accum, const psv_semiring *s,
                   const psv_matrix *A, const psv_vector *u, int32_t desc) {
    ContextCore *ctx = nullptr;
    return guard("psv_mxv", ctx, [&] {
        check(w, "w", ctx);
        check(s, "semiring", ctx);
        check(A, "A", ctx);
        check(u, "u", ctx);
        if (mask) check(mask, "mask", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        const int32_t known = PSV_DESC_TRANSPOSE_A | PSV_DESC_MASK_COMPLEMENT | PSV_DESC_MASK_STRUCTURE | PSV_DESC_REPLACE;
        if (desc & ~known) fail(PSV_ERROR_INVALID_VALUE, format("unknown descriptor bits 0x%x", (unsigned)(desc & ~known)));
        if (accum != PSV_NOOP && !valid_binary_op(accum))
            fail(PSV_ERROR_INVALID_VALUE, format("accum: %d is not a binary operator", (int)accum));
        const psv_type T = s->type;
        const psv_op mul = canonical_op(s->multiply, T);
        const bool ignores_A = mul == PSV_SECOND || mul == PSV_PAIR;
        if (u->type != T || w->type != T)
            fail(PSV_ERROR_DOMAIN_MISMATCH, format("u (%s) and w (%s) must have the semiring's type %s",
                                                   type_name(u->type), type_name(w->type), type_name(T)));
        if (A->store->type != T && !A->store->pattern && !ignores_A)
            fail(PSV_ERROR_DOMAIN_MISMATCH, format("A (%s) must have the semiring's type %s (or be a pattern)",
                                                   type_name(A->store->type), type_name(T)));
        const bool tr = desc & PSV_DESC_TRANSPOSE_A;
        const int64_t out_n = tr ? A->store->ncols : A->store->nrows;
        const int64_t in_n = tr ? A->store->nrows : A->store->ncols;
        if (w->n != out_n || u->n != in_n || (mask && mask->n != out_n))
            fail(PSV_ERROR_DIMENSION_MISMATCH,
                 format("A%s is %lld x %lld, u has %lld entries, w %lld%s", tr ? "'" : "", (long long)out_n,
                        (long long)in_n, (long long)u->n, (long long)w->n, mask ? ", and the mask must match w" : ""));
        const MatrixStore &M = effective_store(A, tr);
        if (const dist::PartitionedStore *PM = dist::as_partitioned(M)) {  // a multi-part context
            dist::MxvArgs ma;
            ma.add = canonical_op(s->add, T);
            ma.mul = mul;
            ma.accum = accum == PSV_NOOP ? PSV_NOOP : canonical_op(accum, T);
            ma.type = T;
            ma.complement = desc & PSV_DESC_MASK_COMPLEMENT;
            ma.structure = desc & PSV_DESC_MASK_STRUCTURE;
            ma.replace = desc & PSV_DESC_REPLACE;
            dist::mxv(w, mask, ma, *PM, u);
            return PSV_SUCCESS;
        }
        Backend *be = ctx->backend.get();
        SpmvArgs sa;
        sa.A = &M;
        sa.add = canonical_op(s->add, T);
        sa.mul = mul;
        sa.type = T;
        sa.u = u->values.get();
        sa.u_present = u->present_or_null();
        const bool direct = !mask && accum == PSV_NOOP && !(desc & PSV_DESC_MASK_COMPLEMENT) && w != u;
        if (direct) {
            sa.t = w->values.get();
            sa.t_present = w->present.as<uint8_t>();
            be->spmv(sa);
            w->full = u->full ? M.empty_rows == 0 : all_present(be, w->n, w->present.as<uint8_t>());
            return PSV_SUCCESS;
        }
        Buffer t(be, (size_t)out_n * type_size(T)), tp(be, (size_t)out_n);
        sa.t = t.get();
        sa.t_present = tp.as<uint8_t>();
        be->spmv(sa);
        AssignArgs aa;
        aa.n = out_n;
        aa.type = T;
        aa.w = w->values.get();
        aa.w_present = w->present.as<uint8_t>();
        aa.w_present_in = w->present_or_null();
        aa.t = t.get();
        aa.t_present = tp.as<uint8_t>();
        if (mask) {
            aa.mask = mask->values.get();
            aa.mask_present = mask->present_or_null();
            aa.mask_type = mask->type;
        }
        aa.accum = accum == PSV_NOOP ? PSV_NOOP : canonical_op(accum, T);
        aa.complement = desc & PSV_DESC_MASK_COMPLEMENT;
        aa.structure = desc & PSV_DESC_MASK_STRUCTURE;
        aa.replace = desc & PSV_DESC_REPLACE;
        be->assign(aa);
        w->full = all_present(be, w->n, w->present.as<uint8_t>());
        return PSV_SUCCESS;
    });
}

}  // extern "C"
