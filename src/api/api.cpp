// The extern "C" layer: validate every argument, call the C++ core, and turn every exception into
// a status (and a message kept in the context). No exception or abort crosses the ABI.
#include <cstring>
#include <new>
#include <vector>

#include "algo/algorithms.hpp"
#include "core/csr_build.hpp"
#include "core/objects.hpp"
#include "core/ops.hpp"
#include "io/read.hpp"
#include "psv/psv.h"
#include "api/shim.hpp"

using namespace psv;
using namespace psv::api;

namespace {

void check_type(psv_type t) {
    if (!valid_type(t)) fail(PSV_ERROR_INVALID_VALUE, format("%d is not a psv_type", (int)t));
}

void check_option(psv_option option, int64_t value) {
    switch (option) {
    case PSV_OPT_TILE_WIDTH:
        if (value < 0 || value > kMaxDimension) fail(PSV_ERROR_INVALID_VALUE, "tile width must be 0 (auto) or positive");
        return;
    case PSV_OPT_MAX_TILES:
        if (value < -1 || value > INT32_MAX) fail(PSV_ERROR_INVALID_VALUE, "max tiles must be -1 (rule of Algorithm 1), 0 or positive");
        return;
    case PSV_OPT_WORKLOAD_SIZE:
        if (value < 0 || value > INT32_MAX) fail(PSV_ERROR_INVALID_VALUE, "workload size must be 0 (autotune) or positive");
        return;
    case PSV_OPT_KERNEL:
        if (value < PSV_KERNEL_AUTO || value > PSV_KERNEL_CSR) fail(PSV_ERROR_INVALID_VALUE, "unknown PSV_KERNEL_* value");
        return;
    case PSV_OPT_PROGRESS:
        if (value != 0 && value != 1) fail(PSV_ERROR_INVALID_VALUE, "progress is 0 or 1");
        return;
    default:
        fail(PSV_ERROR_INVALID_VALUE, format("%d is not a psv_option", (int)option));
    }
}

void set_option(FormatOptions &o, psv_option option, int64_t value) {
    switch (option) {
    case PSV_OPT_TILE_WIDTH: o.tile_width = value; break;
    case PSV_OPT_MAX_TILES: o.max_tiles = value; break;
    case PSV_OPT_WORKLOAD_SIZE: o.workload_size = value; break;
    case PSV_OPT_KERNEL: o.kernel = (psv_kernel)value; break;
    default: o.progress = value != 0; break;
    }
}

psv_matrix *new_matrix(ContextCore *ctx, const std::shared_ptr<ContextCore> &core, CsrHost &&csr) {
    auto m = std::make_unique<psv_matrix_s>();
    m->ctx = core;
    m->store = ctx->backend->build_matrix(std::move(csr), ctx->defaults);
    registry_add(m.get(), Kind::Matrix);
    return m.release();
}


}  // namespace

namespace psv {
namespace api {

psv_vector *new_vector(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n) {
    auto v = std::make_unique<psv_vector_s>();
    v->ctx = core;
    v->type = type;
    v->n = n;
    Backend *be = core->backend.get();
    v->values = Buffer(be, (size_t)n * type_size(type));
    v->present = Buffer(be, (size_t)n);
    be->set_bytes(v->present.get(), 0, (size_t)n);
    v->full = n == 0;
    registry_add(v.get(), Kind::Vector);
    return v.release();
}

psv_vector *adopt_vector(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n, Buffer &&values) {
    auto v = std::make_unique<psv_vector_s>();
    v->ctx = core;
    v->type = type;
    v->n = n;
    v->present = Buffer(core->backend.get(), (size_t)n);  // used once entries are deleted
    v->values = std::move(values);
    v->full = true;
    registry_add(v.get(), Kind::Vector);
    return v.release();
}

}  // namespace api
}  // namespace psv

// ---- versions, statuses --------------------------------------------------------------------------

extern "C" {

int32_t psv_version_number(void) { return PSV_VERSION_NUMBER; }

size_t psv_type_size(psv_type t) { return type_size(t); }

const char *psv_status_string(psv_status s) {
    switch (s) {
    case PSV_SUCCESS: return "PSV_SUCCESS: success";
    case PSV_NO_VALUE: return "PSV_NO_VALUE: the entry is not present";
    case PSV_NOT_CONVERGED: return "PSV_NOT_CONVERGED: the iteration limit was reached before convergence";
    case PSV_ERROR_UNINITIALIZED_OBJECT: return "PSV_ERROR_UNINITIALIZED_OBJECT: a handle is freed, garbage or never created";
    case PSV_ERROR_NULL_POINTER: return "PSV_ERROR_NULL_POINTER: a required pointer is NULL";
    case PSV_ERROR_INVALID_VALUE: return "PSV_ERROR_INVALID_VALUE: an argument is outside its domain";
    case PSV_ERROR_INVALID_INDEX: return "PSV_ERROR_INVALID_INDEX: an index is outside the dimensions";
    case PSV_ERROR_DOMAIN_MISMATCH: return "PSV_ERROR_DOMAIN_MISMATCH: types or operators do not fit together";
    case PSV_ERROR_DIMENSION_MISMATCH: return "PSV_ERROR_DIMENSION_MISMATCH: sizes do not fit together";
    case PSV_ERROR_NOT_IMPLEMENTED: return "PSV_ERROR_NOT_IMPLEMENTED: not supported by this build";
    case PSV_ERROR_PANIC: return "PSV_ERROR_PANIC: internal error";
    case PSV_ERROR_OUT_OF_MEMORY: return "PSV_ERROR_OUT_OF_MEMORY: out of memory";
    case PSV_ERROR_INSUFFICIENT_SPACE: return "PSV_ERROR_INSUFFICIENT_SPACE: an output buffer is too small";
    case PSV_ERROR_INVALID_OBJECT: return "PSV_ERROR_INVALID_OBJECT: an object is inconsistent";
    case PSV_ERROR_DUPLICATE_ENTRY: return "PSV_ERROR_DUPLICATE_ENTRY: duplicate entries and no dup operator";
    case PSV_ERROR_CONTEXT_MISMATCH: return "PSV_ERROR_CONTEXT_MISMATCH: objects of different contexts";
    case PSV_ERROR_BACKEND_UNAVAILABLE: return "PSV_ERROR_BACKEND_UNAVAILABLE: the backend is not built or has no device";
    case PSV_ERROR_IO: return "PSV_ERROR_IO: a file cannot be opened or read";
    case PSV_ERROR_PARSE: return "PSV_ERROR_PARSE: a file is malformed";
    case PSV_ERROR_DEVICE: return "PSV_ERROR_DEVICE: a device call failed";
    default: return "unknown psv_status";
    }
}

// ---- contexts ------------------------------------------------------------------------------------

int32_t psv_backend_available(psv_backend backend) {
    switch (backend) {
    case PSV_BACKEND_CPU:
    case PSV_BACKEND_AUTO: return 1;
    case PSV_BACKEND_CUDA:
        try {
            return cuda_backend_available() ? 1 : 0;
        } catch (...) {
            return 0;
        }
    default: return 0;
    }
}

psv_status psv_context_create(psv_backend backend, int32_t device, psv_context **out) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_create", ctx, [&] {
        need(out, "ctx");
        if (backend < PSV_BACKEND_AUTO || backend > PSV_BACKEND_CUDA)
            fail(PSV_ERROR_INVALID_VALUE, format("%d is not a psv_backend", (int)backend));
        if (device < 0) fail(PSV_ERROR_INVALID_VALUE, "device must be >= 0");
        auto core = std::make_shared<ContextCore>();
        if (backend == PSV_BACKEND_CPU || (backend == PSV_BACKEND_AUTO && !cuda_backend_available()))
            core->backend = create_cpu_backend();
        else
            core->backend = create_cuda_backend(device);
        core->steps = create_algo_steps(*core->backend);
        auto c = std::make_unique<psv_context_s>();
        c->core = std::move(core);
        registry_add(c.get(), Kind::Context);
        *out = c.release();
        return PSV_SUCCESS;
    });
}

void psv_context_free(psv_context **ctx) {
    if (!ctx || !*ctx) return;
    psv_context *c = *ctx;
    if (!registry_has(c, Kind::Context)) return;  // freed or garbage: nothing to do
    registry_remove(c);
    {
        std::lock_guard<std::recursive_mutex> g(c->core->mutex);
        c->core->alive = false;
    }
    c->magic = kMagicFreed;
    delete c;
    *ctx = nullptr;
}

const char *psv_context_last_error(const psv_context *ctx) {
    if (!ctx) return "(NULL context)";
    if (!registry_has(ctx, Kind::Context) || ctx->magic != kMagicContext) return "(not a live psv_context)";
    return ctx->core->last_error();
}

psv_status psv_context_backend(const psv_context *c, psv_backend *backend) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_backend", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(backend, "backend");
        *backend = ctx->backend->kind();
        return PSV_SUCCESS;
    });
}

psv_status psv_context_set_option(psv_context *c, psv_option option, int64_t value) {
    ContextCore *ctx = nullptr;
    return guard("psv_context_set_option", ctx, [&] {
        ctx = check_context(c, "ctx");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_option(option, value);
        set_option(ctx->defaults, option, value);
        return PSV_SUCCESS;
    });
}

// ---- semirings -----------------------------------------------------------------------------------

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

// ---- matrices ------------------------------------------------------------------------------------

psv_status psv_matrix_build(psv_context *c, psv_type type, int64_t nrows, int64_t ncols,
                            int64_t nvals, const int64_t *rows, const int64_t *cols,
                            const void *values, psv_op dup, psv_matrix **A) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_build", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(A, "A");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_type(type);
        if (nrows < 0 || ncols < 0 || nrows > kMaxDimension || ncols > kMaxDimension)
            fail(PSV_ERROR_INVALID_VALUE, format("dimensions %lld x %lld outside 0 .. 2^31-1", (long long)nrows, (long long)ncols));
        if (nvals < 0) fail(PSV_ERROR_INVALID_VALUE, "nvals is negative");
        if (nvals > 0) {
            need(rows, "rows");
            need(cols, "cols");
        }
        if (dup != PSV_NOOP && !valid_binary_op(dup))
            fail(PSV_ERROR_INVALID_VALUE, format("dup: %d is not a binary operator", (int)dup));
        CsrHost csr = build_csr(nrows, ncols, nvals, rows, cols, values, type, dup);
        *A = new_matrix(ctx, c->core, std::move(csr));
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_read(psv_context *c, const char *path, psv_matrix **A) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_read", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(path, "path");
        need(A, "A");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        Coo coo = io::read_file(path, ctx->defaults.progress);
        const int64_t nvals = (int64_t)coo.rows.size();
        const void *values = nullptr;
        if (!coo.pattern) {
            if (coo.type == PSV_FP64) values = coo.fvalues.data();
            else if (coo.type == PSV_INT64) values = coo.ivalues.data();
            else fail(PSV_ERROR_PANIC, "reader produced an unexpected value type");
        }
        CsrHost csr = build_csr(coo.nrows, coo.ncols, nvals, coo.rows.data(), coo.cols.data(), values,
                                coo.type, coo.dup);
        std::vector<int64_t>().swap(coo.rows);  // release the tuples before building the form
        std::vector<int64_t>().swap(coo.cols);
        std::vector<double>().swap(coo.fvalues);
        std::vector<int64_t>().swap(coo.ivalues);
        *A = new_matrix(ctx, c->core, std::move(csr));
        return PSV_SUCCESS;
    });
}

void psv_matrix_free(psv_matrix **A) {
    if (!A || !*A || !registry_has(*A, Kind::Matrix)) return;
    psv_matrix *m = *A;
    registry_remove(m);
    {
        std::lock_guard<std::recursive_mutex> g(m->ctx->mutex);
        m->magic = kMagicFreed;
        m->transpose.reset();
        m->store.reset();
    }
    delete m;
    *A = nullptr;
}

#define PSV_MATRIX_QUERY(NAME, TYPE, EXPR)                                   \
    psv_status NAME(const psv_matrix *A, TYPE *out) {                         \
        ContextCore *ctx = nullptr;                                           \
        return guard(#NAME, ctx, [&] {                                        \
            check(A, "A", ctx);                                               \
            need(out, "output");                                              \
            *out = (TYPE)(EXPR);                                              \
            return PSV_SUCCESS;                                               \
        });                                                                   \
    }
PSV_MATRIX_QUERY(psv_matrix_nrows, int64_t, A->store->nrows)
PSV_MATRIX_QUERY(psv_matrix_ncols, int64_t, A->store->ncols)
PSV_MATRIX_QUERY(psv_matrix_nvals, int64_t, A->store->nvals)
PSV_MATRIX_QUERY(psv_matrix_type, psv_type, A->store->type)
PSV_MATRIX_QUERY(psv_matrix_is_pattern, int32_t, A->store->pattern ? 1 : 0)
#undef PSV_MATRIX_QUERY

psv_status psv_matrix_extract_tuples(const psv_matrix *A, int64_t *rows, int64_t *cols, void *values,
                                     int64_t *n) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_extract_tuples", ctx, [&] {
        check(A, "A", ctx);
        need(n, "n");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (*n < A->store->nvals)
            fail(PSV_ERROR_INSUFFICIENT_SPACE, format("capacity %lld < %lld entries", (long long)*n, (long long)A->store->nvals));
        A->store->extract_tuples(rows, cols, values);
        *n = A->store->nvals;
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_set_option(psv_matrix *A, psv_option option, int64_t value) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_set_option", ctx, [&] {
        check(A, "A", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_option(option, value);
        FormatOptions o = A->store->options;
        set_option(o, option, value);
        A->store->rebuild(o);
        A->transpose.reset();
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_info_get(const psv_matrix *A, psv_matrix_info *info) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_info_get", ctx, [&] {
        check(A, "A", ctx);
        need(info, "info");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        psv_matrix_info tmp;
        A->store->info(tmp);
        *info = tmp;
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_tile_info(const psv_matrix *A, int32_t tile, psv_tile_info *info) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_tile_info", ctx, [&] {
        check(A, "A", ctx);
        need(info, "info");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (tile < 0 || tile >= A->store->tile_count())
            fail(PSV_ERROR_INVALID_INDEX, format("tile %d of %d", (int)tile, (int)A->store->tile_count()));
        psv_tile_info tmp;
        A->store->tile_info(tile, tmp);
        *info = tmp;
        return PSV_SUCCESS;
    });
}

// ---- vectors -------------------------------------------------------------------------------------

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
        *nvals = ctx->backend->count_present(v->n, v->present_or_null());
        return PSV_SUCCESS;
    });
}

static void check_n(const psv_vector *v, int64_t n) {
    if (n != v->n) fail(PSV_ERROR_DIMENSION_MISMATCH, format("n = %lld but the vector has %lld entries", (long long)n, (long long)v->n));
}

psv_status psv_vector_set(psv_vector *v, const void *values, int64_t n) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_set", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_n(v, n);
        if (n > 0) need(values, "values");
        ctx->backend->upload(v->values.get(), values, (size_t)n * type_size(v->type));
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
        if (v->full) {
            ctx->backend->download(values, v->values.get(), (size_t)n * vs);
            return PSV_SUCCESS;
        }
        std::vector<uint8_t> vals((size_t)n * vs), pres((size_t)n);
        ctx->backend->download(vals.data(), v->values.get(), vals.size());
        ctx->backend->download(pres.data(), v->present.get(), pres.size());
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
        ctx->backend->upload(v->values.get(), vals.data(), vals.size());
        ctx->backend->upload(v->present.get(), pres.data(), pres.size());
        v->full = nvals == v->n;
        return PSV_SUCCESS;
    });
}

psv_status psv_vector_clear(psv_vector *v) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_clear", ctx, [&] {
        check(v, "v", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        ctx->backend->set_bytes(v->present.get(), 0, (size_t)v->n);
        v->full = v->n == 0;
        return PSV_SUCCESS;
    });
}

static void check_index(const psv_vector *v, int64_t i) {
    if (i < 0 || i >= v->n) fail(PSV_ERROR_INVALID_INDEX, format("index %lld outside 0 .. %lld", (long long)i, (long long)v->n - 1));
}

psv_status psv_vector_set_element(psv_vector *v, int64_t i, const void *value) {
    ContextCore *ctx = nullptr;
    return guard("psv_vector_set_element", ctx, [&] {
        check(v, "v", ctx);
        need(value, "value");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_index(v, i);
        const size_t vs = type_size(v->type);
        ctx->backend->upload(v->values.as<uint8_t>() + i * vs, value, vs);
        if (!v->full) {
            const uint8_t one = 1;
            ctx->backend->upload(v->present.as<uint8_t>() + i, &one, 1);
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
        if (!v->full) {
            uint8_t p = 0;
            ctx->backend->download(&p, v->present.as<uint8_t>() + i, 1);
            if (!p) return PSV_NO_VALUE;
        }
        const size_t vs = type_size(v->type);
        ctx->backend->download(value, v->values.as<uint8_t>() + i * vs, vs);
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
        std::vector<uint8_t> vals((size_t)v->n * vs), pres;
        ctx->backend->download(vals.data(), v->values.get(), vals.size());
        int64_t count = v->n;
        if (!v->full) {
            pres.resize((size_t)v->n);
            ctx->backend->download(pres.data(), v->present.get(), pres.size());
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
        ctx->backend->reduce(monoid, v->type, v->n, v->values.get(), v->present_or_null(), tmp);
        std::memcpy(result, tmp, type_size(v->type));
        return PSV_SUCCESS;
    });
}

// ---- mxv -----------------------------------------------------------------------------------------

// w's "every entry present" flag after w has been written: a count on the backend (a device
// reduction and a copy back on CUDA). The product is complete by then, so a failure of the count
// itself (the CUDA runtime out of host memory, say) must not report an error with w already
// changed: the flag is left false instead, which is always correct (the presence bytes are
// exact; the flag only lets later calls skip reading them).
static bool all_present(Backend *be, int64_t n, const uint8_t *present) noexcept {
    try {
        return be->count_present(n, present) == n;
    } catch (...) {
        return false;
    }
}

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

// ---- algorithms ----------------------------------------------------------------------------------

psv_status psv_pagerank(psv_vector **rank, int32_t *iterations, const psv_matrix *A, double damping,
                        double tolerance, int32_t max_iterations) {
    ContextCore *ctx = nullptr;
    return guard("psv_pagerank", ctx, [&] {
        check(A, "A", ctx);
        need(rank, "rank");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (A->store->nrows != A->store->ncols)
            fail(PSV_ERROR_DIMENSION_MISMATCH, format("PageRank needs a square matrix; A is %lld x %lld",
                                                      (long long)A->store->nrows, (long long)A->store->ncols));
        if (!(damping >= 0 && damping < 1)) fail(PSV_ERROR_INVALID_VALUE, "damping must be in [0, 1)");
        if (!(tolerance >= 0)) fail(PSV_ERROR_INVALID_VALUE, "tolerance must be >= 0");
        if (max_iterations < 1) fail(PSV_ERROR_INVALID_VALUE, "max_iterations must be >= 1");
        const MatrixStore &AT = effective_store(A, true);
        Buffer r;
        int32_t iters = 0;
        const bool converged = pagerank(*ctx->backend, *ctx->steps, *A->store, AT, damping, tolerance, max_iterations, r, iters);
        *rank = adopt_vector(A->ctx, PSV_FP32, A->store->nrows, std::move(r));
        if (iterations) *iterations = iters;
        if (!converged) {
            note(ctx, "psv_pagerank: not converged after %d iterations", (int)iters);
            return PSV_NOT_CONVERGED;
        }
        return PSV_SUCCESS;
    });
}

}  // extern "C"
