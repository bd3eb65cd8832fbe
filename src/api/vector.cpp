// The shims of vectors: create, free, size and type queries, values in and out (host arrays,
// device pointers, tuples, single elements), and the elementwise operations (ewise, apply,
// reduce).
#include <cstring>
#include <vector>

#include "api/shim.hpp"
#include "dist/comm.hpp"
#include "dist/dist.hpp"

using namespace psv;
using namespace psv::api;

namespace {

void check_n(const psv_vector *v, int64_t n) {
    if (n != v->n) fail(PSV_ERROR_DIMENSION_MISMATCH, format("n = %lld but the vector has %lld entries", (long long)n, (long long)v->n));
}

void check_index(const psv_vector *v, int64_t i) {
    if (i < 0 || i >= v->n) fail(PSV_ERROR_INVALID_INDEX, format("index %lld outside 0 .. %lld", (long long)i, (long long)v->n - 1));
}

// The whole vector on the host in index order: values, and presence where v is not full (else
// left empty). A partitioned vector is gathered from its parts.
void host_copy(ContextCore *ctx, const psv_vector *v, std::vector<uint8_t> &vals, std::vector<uint8_t> &pres) {
    if (v->layout) {
        dist::gather_host(ctx->parts, *v, vals, pres);
        return;
    }
    vals.resize((size_t)v->n * type_size(v->type));
    ctx->backend->download(vals.data(), v->values.get(), vals.size());
    if (!v->full) {
        pres.resize((size_t)v->n);
        ctx->backend->download(pres.data(), v->present.get(), pres.size());
    }
}

// Host values (and presence, or nullptr) in index order into v (scattered over its parts).
void host_store(ContextCore *ctx, psv_vector *v, const void *vals, const uint8_t *pres) {
    const uint8_t *bytes = static_cast<const uint8_t *>(vals);
    if (v->layout) {
        dist::scatter_host(ctx->parts, *v->layout, v->type, bytes, pres, v->piece_values, v->piece_present);
        return;
    }
    ctx->backend->upload(v->values.get(), bytes, (size_t)v->n * type_size(v->type));
    if (pres) ctx->backend->upload(v->present.get(), pres, (size_t)v->n);
}

// Per part p of a partitioned vector with a non-empty piece held here: f(p, backend, piece size).
template <class F> void each_piece(ContextCore *ctx, const psv_vector *v, F &&f) {
    for (int32_t p = 0; p < v->layout->nparts; ++p)
        if (v->layout->size(p) && ctx->parts.holds(p)) f(p, *ctx->parts[p].backend, v->layout->size(p));
}

// Where entry i of v lives: its backend, the values and presence arrays holding it (the owning
// part's piece on a multi-part context) and its index there; be nullptr where another rank
// holds it (part: the owning part).
struct Element {
    Backend *be;
    uint8_t *vals, *pres;
    int64_t i;
    int32_t part;
};
Element element(ContextCore &ctx, const psv_vector &v, int64_t i) {
    if (!v.layout) return {ctx.backend.get(), v.values.as<uint8_t>(), v.present.as<uint8_t>(), i, 0};
    int32_t p;
    dist::locate(v, i, p, i);
    return {ctx.parts[p].backend, v.piece_values[p].as<uint8_t>(), v.piece_present[p].as<uint8_t>(), i, p};
}

}  // namespace

extern "C" {

psv_status psv_vector_create(psv_context *c, psv_type type, int64_t n, psv_vector **v) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_create", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(v, "v");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_type(type);
        if (n < 0 || n > kMaxDimension) fail(PSV_ERROR_INVALID_VALUE, format("size %lld outside 0 .. 2^31-1", (long long)n));
        *v = new_vector(c->core, type, n);
        return PSV_SUCCESS;
    });
}

void psv_vector_free(psv_vector **v) {
    if (!v || !*v || !registry_has(*v, Kind::Vector)) return;
    psv_vector *p = *v;
    registry_remove(p);
    {
        std::lock_guard<std::recursive_mutex> g(p->ctx->mutex);
        p->magic = kMagicFreed;
        p->values.reset();
        p->present.reset();
        p->piece_values.clear();
        p->piece_present.clear();
    }
    delete p;
    *v = nullptr;
}

psv_status psv_vector_size(const psv_vector *v, int64_t *n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_size", ctx, [&] {
        check(v, "v", ctx);
        need(n, "n");
        *n = v->n;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_type(const psv_vector *v, psv_type *t) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_type", ctx, [&] {
        check(v, "v", ctx);
        need(t, "type");
        *t = v->type;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_nvals(const psv_vector *v, int64_t *nvals) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_nvals", ctx, [&] {
        check(v, "v", ctx);
        need(nvals, "nvals");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (v->layout) {
            std::vector<int64_t> count(ctx->parts.size(), 0);
            each_piece(ctx, v, [&](int32_t p, Backend &be, int64_t m) {
                count[p] = v->full ? m : be.count_present(m, v->piece_present[p].as<uint8_t>());
            });
            *nvals = ctx->parts.comm->sum(ctx->parts, count);
            return PSV_SUCCESS;
        }
        *nvals = ctx->backend->count_present(v->n, v->present_or_null());
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_set(psv_vector *v, const void *values, int64_t n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_set", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_n(v, n);
        if (n > 0) need(values, "values");
        host_store(ctx, v, values, nullptr);
        v->full = true;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_get(const psv_vector *v, void *values, int64_t n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_get", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_n(v, n);
        if (n == 0) return PSV_SUCCESS;
        need(values, "values");
        const size_t vs = type_size(v->type);
        if (v->full && !v->layout) {
            ctx->backend->download(values, v->values.get(), (size_t)n * vs);
            return PSV_SUCCESS;
        }
        std::vector<uint8_t> vals, pres;
        host_copy(ctx, v, vals, pres);
        if (!v->full)
            for (int64_t i = 0; i < n; ++i)
            if (!pres[i]) std::memset(&vals[i * vs], 0, vs);
        std::memcpy(values, vals.data(), vals.size());
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_set_device(psv_vector *v, const void *device_values, int64_t n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_set_device", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_n(v, n);
        if (n > 0) need(device_values, "device_values");
        if (v->layout) {  // through part 0's memory and the host: correct, not fast
            const size_t bytes = (size_t)n * type_size(v->type);
            Buffer stage(ctx->backend.get(), bytes);
            ctx->backend->copy_from_device_pointer(stage.get(), device_values, bytes);
            std::vector<uint8_t> vals(bytes);
            ctx->backend->download(vals.data(), stage.get(), bytes);
            host_store(ctx, v, vals.data(), nullptr);
            v->full = true;
            return PSV_SUCCESS;
        }
        ctx->backend->copy_from_device_pointer(v->values.get(), device_values, (size_t)n * type_size(v->type));
        v->full = true;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_get_device(const psv_vector *v, void *device_values, int64_t n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_get_device", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_n(v, n);
        if (n > 0) need(device_values, "device_values");
        if (v->layout) {  // gathered on the host (absent entries zero), through part 0's memory
            const size_t vs = type_size(v->type);
            std::vector<uint8_t> vals, pres;
            host_copy(ctx, v, vals, pres);
            for (size_t i = 0; i < pres.size(); ++i)
                if (!pres[i]) std::memset(&vals[i * vs], 0, vs);
            Buffer stage(ctx->backend.get(), vals.size());
            ctx->backend->upload(stage.get(), vals.data(), vals.size());
            ctx->backend->copy_to_device_pointer(device_values, stage.get(), vals.size());
            return PSV_SUCCESS;
        }
        if (!v->full) {
            // absent entries read as zero, as psv_vector_get does: assign the present values onto zeros
            const size_t vs = type_size(v->type);
            Buffer tmp(ctx->backend.get(), (size_t)n * vs), scratch(ctx->backend.get(), (size_t)n);
            ctx->backend->set_bytes(tmp.get(), 0, (size_t)n * vs);
            AssignArgs aa;
            aa.n = n;
            aa.type = v->type;
            aa.w = tmp.get();
            aa.w_present = scratch.as<uint8_t>();
            aa.t = v->values.get();
            aa.t_present = v->present.as<uint8_t>();
            ctx->backend->assign(aa);
            ctx->backend->copy_to_device_pointer(device_values, tmp.get(), (size_t)n * vs);
            return PSV_SUCCESS;
        }
        ctx->backend->copy_to_device_pointer(device_values, v->values.get(), (size_t)n * type_size(v->type));
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_fill(psv_vector *v, const void *value) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_fill", ctx, [&] {
        check(v, "v", ctx);
        need(value, "value");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (v->layout)
            each_piece(ctx, v, [&](int32_t p, Backend &be, int64_t m) { be.fill(v->type, m, v->piece_values[p].get(), value); });
        else
            ctx->backend->fill(v->type, v->n, v->values.get(), value);
        v->full = true;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_build(psv_vector *v, const int64_t *indices, const void *values, int64_t nvals) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_build", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (nvals < 0 || nvals > v->n)
            fail(PSV_ERROR_INVALID_VALUE, format("nvals %lld outside 0 .. %lld", (long long)nvals, (long long)v->n));
        if (nvals > 0) {
            need(indices, "indices");
            need(values, "values");
        }
        const size_t vs = type_size(v->type);
        std::vector<uint8_t> vals((size_t)v->n * vs, 0), pres((size_t)v->n, 0);
        for (int64_t k = 0; k < nvals; ++k) {
            const int64_t i = indices[k];
            if (i < 0 || i >= v->n)
                fail(PSV_ERROR_INVALID_INDEX, format("indices[%lld] = %lld outside 0 .. %lld", (long long)k, (long long)i, (long long)v->n - 1));
            if (pres[i]) fail(PSV_ERROR_DUPLICATE_ENTRY, format("index %lld given twice", (long long)i));
            pres[i] = 1;
            std::memcpy(&vals[i * vs], static_cast<const uint8_t *>(values) + k * vs, vs);
        }
        host_store(ctx, v, vals.data(), pres.data());
        v->full = nvals == v->n;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_clear(psv_vector *v) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_clear", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (v->layout)
            each_piece(ctx, v, [&](int32_t p, Backend &be, int64_t m) { be.set_bytes(v->piece_present[p].get(), 0, (size_t)m); });
        else
            ctx->backend->set_bytes(v->present.get(), 0, (size_t)v->n);
        v->full = v->n == 0;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_set_element(psv_vector *v, int64_t i, const void *value) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_set_element", ctx, [&] {
        check(v, "v", ctx);
        need(value, "value");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_index(v, i);
        const size_t vs = type_size(v->type);
        Element el = element(*ctx, *v, i);
        Backend *be = el.be;
        uint8_t *vals = el.vals, *pres = el.pres;
        i = el.i;
        if (!be) return PSV_SUCCESS;  // another rank holds it (and writes it)
        be->upload(vals + i * vs, value, vs);
        if (!v->full) {
            const uint8_t one = 1;
            be->upload(pres + i, &one, 1);
        }
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_get_element(const psv_vector *v, int64_t i, void *value) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_get_element", ctx, [&] {
        check(v, "v", ctx);
        need(value, "value");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_index(v, i);
        const Element el = element(*ctx, *v, i);
        Backend *be = el.be;
        const uint8_t *vals = el.vals, *pres = el.pres;
        i = el.i;
        const size_t vs = type_size(v->type);
        uint8_t here[9] = {1};  // presence, then the value
        if (be) {
            if (!v->full) be->download(here, pres + i, 1);
            if (here[0]) be->download(here + 1, vals + i * vs, vs);
        }
        if (v->layout && ranked(*ctx)) {  // the owning rank's answer, everywhere
            std::vector<dist::Bytes> b(ctx->parts.size());
            if (be) b[el.part].assign(here, here + 1 + vs);
            ctx->parts.comm->all_gather(b);
            std::memcpy(here, b[el.part].data(), 1 + vs);
        }
        if (!here[0]) return PSV_NO_VALUE;
        std::memcpy(value, here + 1, vs);
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_extract_tuples(const psv_vector *v, int64_t *indices, void *values, int64_t *n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_extract_tuples", ctx, [&] {
        check(v, "v", ctx);
        need(n, "n");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        const size_t vs = type_size(v->type);
        std::vector<uint8_t> vals, pres;
        host_copy(ctx, v, vals, pres);
        int64_t count = v->n;
        if (!v->full) {
            count = 0;
            for (uint8_t p : pres) count += p != 0;
        }
        if (*n < count)
            fail(PSV_ERROR_INSUFFICIENT_SPACE, format("capacity %lld < %lld entries", (long long)*n, (long long)count));
        int64_t k = 0;
        for (int64_t i = 0; i < v->n; ++i) {
            if (!pres.empty() && !pres[i]) continue;
            if (indices) indices[k] = i;
            if (values) std::memcpy(static_cast<uint8_t *>(values) + k * vs, &vals[i * vs], vs);
            ++k;
        }
        *n = count;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_ewise(psv_vector *w, psv_op op, const psv_vector *u, const psv_vector *v) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_ewise", ctx, [&] {
        check(w, "w", ctx);
        check(u, "u", ctx);
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (!valid_binary_op(op)) fail(PSV_ERROR_INVALID_VALUE, format("%d is not a binary operator", (int)op));
        if (u->type != w->type || v->type != w->type)
            fail(PSV_ERROR_DOMAIN_MISMATCH, format("types %s, %s, %s differ", type_name(w->type), type_name(u->type), type_name(v->type)));
        if (u->n != w->n || v->n != w->n) fail(PSV_ERROR_DIMENSION_MISMATCH, "vector sizes differ");
        const bool full = u->full && v->full;
        if (w->layout) {  // u and v in w's layout (copies where theirs differ), then part by part
            std::vector<Buffer> ub, upb, vb, vpb;
            std::vector<const void *> uv, vv;
            std::vector<const uint8_t *> up, vp;
            dist::pieces_in(ctx->parts, *u, w->layout, ub, upb, uv, up);
            dist::pieces_in(ctx->parts, *v, w->layout, vb, vpb, vv, vp);
            each_piece(ctx, w, [&](int32_t p, Backend &be, int64_t m) {
                be.ewise(op, w->type, m, w->piece_values[p].get(), full ? nullptr : w->piece_present[p].as<uint8_t>(),
                         uv[p], up[p], vv[p], vp[p]);
            });
            w->full = full;
            return PSV_SUCCESS;
        }
        ctx->backend->ewise(op, w->type, w->n, w->values.get(), full ? nullptr : w->present.as<uint8_t>(),
                            u->values.get(), u->present_or_null(), v->values.get(), v->present_or_null());
        w->full = full;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_apply(psv_vector *w, psv_op op, const psv_vector *u, const void *scalar) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_apply", ctx, [&] {
        check(w, "w", ctx);
        check(u, "u", ctx);
        need(scalar, "scalar");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (!valid_binary_op(op)) fail(PSV_ERROR_INVALID_VALUE, format("%d is not a binary operator", (int)op));
        if (u->type != w->type) fail(PSV_ERROR_DOMAIN_MISMATCH, "types of w and u differ");
        if (u->n != w->n) fail(PSV_ERROR_DIMENSION_MISMATCH, "vector sizes differ");
        if (w->layout) {  // u in w's layout (a copy where its differs), then part by part
            std::vector<Buffer> ub, upb;
            std::vector<const void *> uv;
            std::vector<const uint8_t *> up;
            dist::pieces_in(ctx->parts, *u, w->layout, ub, upb, uv, up);
            each_piece(ctx, w, [&](int32_t p, Backend &be, int64_t m) {
                be.apply(op, w->type, m, w->piece_values[p].get(), uv[p], scalar);
                if (!u->full && up[p] != w->piece_present[p].as<uint8_t>()) be.copy(w->piece_present[p].get(), up[p], (size_t)m);
            });
            w->full = u->full;
            return PSV_SUCCESS;
        }
        ctx->backend->apply(op, w->type, w->n, w->values.get(), u->values.get(), scalar);
        if (!u->full && w != u) ctx->backend->copy(w->present.get(), u->present.get(), (size_t)u->n);
        w->full = u->full;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_reduce(void *result, psv_op monoid, const psv_vector *v) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_reduce", ctx, [&] {
        check(v, "v", ctx);
        need(result, "result");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (!valid_binary_op(monoid) || !is_monoid(canonical_op(monoid, v->type)))
            fail(PSV_ERROR_DOMAIN_MISMATCH, format("%s is not a monoid", op_name(monoid)));
        uint8_t tmp[8];
        if (v->layout) {  // each part's reduction, combined in part order on the host
            const psv_op op = canonical_op(monoid, v->type);
            dispatch_type(v->type, [&](auto tag) {
                using T = typename decltype(tag)::type;
                dispatch_monoid<T>(op, [&](auto f) {
                    using Op = decltype(f);
                    T acc = MonoidIdentity<Op::code, T>::value();
                    std::vector<dist::Bytes> partial(ctx->parts.size());
                    each_piece(ctx, v, [&](int32_t p, Backend &be, int64_t m) {
                        T part;
                        be.reduce(monoid, v->type, m, v->piece_values[p].get(),
                                  v->full ? nullptr : v->piece_present[p].as<uint8_t>(), &part);
                        partial[p].resize(sizeof part);
                        std::memcpy(partial[p].data(), &part, sizeof part);
                    });
                    ctx->parts.comm->all_gather(partial);
                    for (const dist::Bytes &b : partial) {
                        if (b.empty()) continue;  // an empty piece
                        T part;
                        std::memcpy(&part, b.data(), sizeof part);
                        acc = Op::apply(acc, part);
                    }
                    std::memcpy(tmp, &acc, sizeof acc);
                });
            });
        } else {
            ctx->backend->reduce(monoid, v->type, v->n, v->values.get(), v->present_or_null(), tmp);
        }
        std::memcpy(result, tmp, type_size(v->type));
        return PSV_SUCCESS;
    });
}

}  // extern "C"
