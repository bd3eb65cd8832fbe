// Shared by the C shims (one file per API family in src/api: status, context, semiring, matrix,
// vector, mxv, algorithms): the exception -> status guard, handle validation, and the helpers
// that create objects.
#pragma once
#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "core/objects.hpp"
#include "core/ops.hpp"
#include "psv/psv.h"

namespace psv {
namespace api {

// A failure's message where there is no context to keep it (the context creators'): a fixed
// buffer, so recording it allocates nothing.
struct OrphanMessage {
    char text[512] = {0};
    void set(const char *msg) noexcept {
        std::snprintf(text, sizeof text, "%s", msg);
    }
};

// Runs body; ctx is filled in by the body as soon as it is known, so failures can be recorded
// there; a failure before (or without) a context goes to *no_context where given.
template <class F>
inline psv_status guard(const char *fn, ContextCore *&ctx, F &&body, OrphanMessage *no_context = nullptr) noexcept {
    psv_status st;
    std::string msg;
    try {
        return body();
    } catch (const Error &e) {
        // Copying a message allocates and may itself throw bad_alloc when memory is exhausted:
        // an exception escaping a handler of this noexcept function would terminate the program.
        st = e.status();
        try {
            msg = e.what();
        } catch (...) {
        }
    } catch (const std::bad_alloc &) {
        st = PSV_ERROR_OUT_OF_MEMORY;
        try {
            msg = "out of host memory";
        } catch (...) {
        }
    } catch (const std::exception &e) {
        st = PSV_ERROR_PANIC;
        try {
            msg = std::string("internal error: ") + e.what();
        } catch (...) {
        }
    } catch (...) {
        st = PSV_ERROR_PANIC;
        try {
            msg = "internal error: unknown exception";
        } catch (...) {
        }
    }
    if (ctx) {
        try {
            ctx->set_error(std::string(fn) + ": " + msg);
        } catch (...) {
        }
    } else if (no_context) {
        no_context->set(msg.empty() && st == PSV_ERROR_OUT_OF_MEMORY ? "out of host memory" : msg.c_str());
    }
    return st;
}

// Records the message of a warning status (PSV_NOT_CONVERGED) after the outputs are delivered.
// Never throws: running out of memory here must not turn a delivered result into an error (the
// caller would get an error status with its output already written, and leak it).
template <class... A> inline void note(ContextCore *ctx, const char *fmt, A... args) noexcept {
    try {
        ctx->set_error(format(fmt, args...));
    } catch (...) {
    }
}

template <class P> inline void need(const P *p, const char *name) {
    if (!p) fail(PSV_ERROR_NULL_POINTER, format("%s is NULL", name));
}

inline ContextCore *check_context(const psv_context *c, const char *name) {
    need(c, name);
    if (!registry_has(c, Kind::Context) || c->magic != kMagicContext)
        fail(PSV_ERROR_UNINITIALIZED_OBJECT, format("%s is not a live psv_context", name));
    return c->core.get();
}

// Validates a handle of an object kind and returns its context core (alive).
template <class H>
inline ContextCore *check_object(const H *h, Kind kind, uint64_t magic, const char *name, ContextCore *&ctx) {
    need(h, name);
    if (!registry_has(h, kind) || h->magic != magic)
        fail(PSV_ERROR_UNINITIALIZED_OBJECT, format("%s is not a live psv object of its kind (freed or garbage)", name));
    if (!ctx) ctx = h->ctx.get();
    if (!h->ctx->alive) fail(PSV_ERROR_UNINITIALIZED_OBJECT, format("the context of %s was freed", name));
    if (h->ctx.get() != ctx)
        fail(PSV_ERROR_CONTEXT_MISMATCH, format("%s belongs to another context", name));
    return h->ctx.get();
}
inline ContextCore *check(const psv_matrix *A, const char *n, ContextCore *&ctx) { return check_object(A, Kind::Matrix, kMagicMatrix, n, ctx); }
inline ContextCore *check(const psv_vector *v, const char *n, ContextCore *&ctx) { return check_object(v, Kind::Vector, kMagicVector, n, ctx); }
inline ContextCore *check(const psv_semiring *s, const char *n, ContextCore *&ctx) { return check_object(s, Kind::Semiring, kMagicSemiring, n, ctx); }

// The form used for A or A': the transpose is built once and cached.
inline const MatrixStore &effective_store(const psv_matrix *A, bool transpose) {
    if (!transpose) return *A->store;
    auto *m = const_cast<psv_matrix *>(A);
    if (!m->transpose) m->transpose = A->store->transposed();
    return *m->transpose;
}

// A' for PageRank's and HITS's products (one-part contexts): the transpose -- cached, or built
// now and cached -- where A's PSV_OPT_TRANSPOSE asks for it (AUTO: where the backend's budget
// holds both), else nullptr: the products push from A (transposed_product).
inline bool products_push(const psv_matrix *A, const Backend &be) {
    const int32_t mode = A->store->options.transpose;
    return mode == PSV_TRANSPOSE_PUSH || (mode == PSV_TRANSPOSE_AUTO && !be.transpose_fits(*A->store));
}
inline const MatrixStore *transpose_for_products(const psv_matrix *A, const Backend &be) {
    return products_push(A, be) ? nullptr : &effective_store(A, true);
}

// ---- shared by several families (shim.cpp) ----

void check_type(psv_type t);
// An option's value within its domain (PSV_ERROR_INVALID_VALUE otherwise).
void check_option(psv_option option, int64_t value);
// Stores a checked option's value into o.
void set_option(FormatOptions &o, psv_option option, int64_t value);

// A new registered matrix of core's backend, built from csr with the context's default options.
psv_matrix *new_matrix(const std::shared_ptr<ContextCore> &core, CsrHost &&csr);
// A rank context's matrix from this rank's share of its entries (duplicates across ranks by dup).
psv_matrix *new_matrix_share(const std::shared_ptr<ContextCore> &core, CsrHost &&share, psv_op dup);
// Whether core is a rank context (psv_context_create_rank): calls are collective there.
bool ranked(const ContextCore &core);
// A new registered vector of n entries, none present.
psv_vector *new_vector(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n);
// A new registered, full vector owning `values` (n entries of type).
psv_vector *adopt_vector(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n, Buffer &&values);
// Multi-part contexts: a new registered, full vector owning its pieces (values in layout).
psv_vector *adopt_pieces(const std::shared_ptr<ContextCore> &core, psv_type type, int64_t n,
                         std::shared_ptr<const dist::Layout> layout, std::vector<Buffer> &&values);

}  // namespace api
}  // namespace psv
