// The shims of the graph algorithms: PageRank (plain and personalized), HITS, random walk with
// restart (single and batched). They validate, then call the algorithms of src/algo, written
// once over the Backend interface and the context's AlgoSteps.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "algo/algorithms.hpp"
#include "api/shim.hpp"
#include "dist/dist.hpp"
#include "core/objects.hpp"
#include "core/ops.hpp"
#include "psv/psv.h"

using namespace psv;
using namespace psv::api;

namespace {

void check_square(const psv_matrix *A, const char *what) {
    if (A->store->nrows != A->store->ncols)
        fail(PSV_ERROR_DIMENSION_MISMATCH, format("%s needs a square matrix; A is %lld x %lld", what,
                                                  (long long)A->store->nrows, (long long)A->store->ncols));
}

void check_iteration(double tolerance, int32_t max_iterations) {
    if (!(tolerance >= 0)) fail(PSV_ERROR_INVALID_VALUE, "tolerance must be >= 0");
    if (max_iterations < 1) fail(PSV_ERROR_INVALID_VALUE, "max_iterations must be >= 1");
}

void check_damping(double damping) {
    if (!(damping >= 0 && damping < 1)) fail(PSV_ERROR_INVALID_VALUE, "damping must be in [0, 1)");
}

void check_restart(double c) {
    if (!(c > 0 && c < 1)) fail(PSV_ERROR_INVALID_VALUE, "restart_c must be in (0, 1)");
}

void check_query(int64_t q, int64_t n, const char *name) {
    if (q < 0 || q >= n)
        fail(PSV_ERROR_INVALID_INDEX, format("%s = %lld is not a vertex (n = %lld)", name, (long long)q, (long long)n));
}

// The context's form (Auto: the automatic rule); the stacked matrix must fit the dimension limit.
HitsForm hits_form(const ContextCore &ctx, const MatrixStore &A) {
    HitsForm f = ctx.hits_form;
    if (f == HitsForm::Auto) f = hits_auto_form(*ctx.backend, A);
    if (f == HitsForm::Stacked && 2 * A.nrows > kMaxDimension) f = HitsForm::Separate;
    return f;
}

// The status of a result already delivered: PSV_NOT_CONVERGED (with its message noted) where
// the iteration limit was reached. iterations (may be NULL) receives the count run.
psv_status delivered(ContextCore *ctx, const char *fn, bool converged, int32_t iters, int32_t *iterations) {
    if (iterations) *iterations = iters;
    if (converged) return PSV_SUCCESS;
    note(ctx, "%s: not converged after %d iterations", fn, (int)iters);
    return PSV_NOT_CONVERGED;
}

}  // namespace

extern "C" {

psv_status psv_pagerank(psv_vector **rank, int32_t *iterations, const psv_matrix *A, double damping,
                        double tolerance, int32_t max_iterations) {
    ContextCore *ctx = nullptr;
    return guard("psv_pagerank", ctx, [&] {
        check(A, "A", ctx);
        need(rank, "rank");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_square(A, "PageRank");
        check_damping(damping);
        check_iteration(tolerance, max_iterations);
        if (const dist::PartitionedStore *PA = dist::as_partitioned(*A->store)) {
            dist::Result r;
            int32_t iters = 0;
            const bool converged = dist::pagerank(*PA, *dist::as_partitioned(effective_store(A, true)), damping, tolerance,
                                                  max_iterations, nullptr, r, iters);
            *rank = adopt_pieces(A->ctx, PSV_FP32, A->store->nrows, r.layout, std::move(r.pieces));
            return delivered(ctx, "psv_pagerank", converged, iters, iterations);
        }
        Buffer r;
        int32_t iters = 0;
        const MatrixStore *AT = transpose_for_products(A, *ctx->backend);
        const bool converged = pagerank(*ctx->backend, *ctx->steps, *A->store, AT, damping, tolerance, max_iterations, r, iters);
        *rank = adopt_vector(A->ctx, PSV_FP32, A->store->nrows, std::move(r));
        return delivered(ctx, "psv_pagerank", converged, iters, iterations);
    });
}

psv_status psv_hits(psv_vector **hubs, psv_vector **authorities, int32_t *iterations,
                    const psv_matrix *A, double tolerance, int32_t max_iterations) {
    ContextCore *ctx = nullptr;
    return guard("psv_hits", ctx, [&] {
        check(A, "A", ctx);
        need(hubs, "hubs");
        need(authorities, "authorities");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_square(A, "HITS");
        check_iteration(tolerance, max_iterations);
        if (const dist::PartitionedStore *PA = dist::as_partitioned(*A->store)) {  // the separate form
            dist::Result h, a;
            int32_t iters = 0;
            const bool converged = dist::hits(*PA, *dist::as_partitioned(effective_store(A, true)), tolerance,
                                              max_iterations, h, a, iters);
            const int64_t n = A->store->nrows;
            psv_vector *hv = adopt_pieces(A->ctx, PSV_FP32, n, h.layout, std::move(h.pieces));
            psv_vector *av;
            try {
                av = adopt_pieces(A->ctx, PSV_FP32, n, a.layout, std::move(a.pieces));
            } catch (...) {
                psv_vector_free(&hv);
                throw;
            }
            *hubs = hv;
            *authorities = av;
            return delivered(ctx, "psv_hits", converged, iters, iterations);
        }
        Backend &be = *ctx->backend;
        Buffer h, a;
        int32_t iters = 0;
        bool converged;
        // the stacked form holds A and A' (in one matrix): only where a transpose would be built
        if (!products_push(A, be) && hits_form(*ctx, *A->store) == HitsForm::Stacked) {
            auto M = hits_stacked_matrix(be, *A->store);
            converged = hits_stacked(be, *ctx->steps, *M, tolerance, max_iterations, h, a, iters);
        } else {
            const MatrixStore *AT = transpose_for_products(A, be);
            converged = hits_separate(be, *ctx->steps, *A->store, AT, tolerance, max_iterations, h, a, iters);
        }
        const int64_t n = A->store->nrows;
        psv_vector *hv = adopt_vector(A->ctx, PSV_FP32, n, std::move(h));
        psv_vector *av;
        try {
            av = adopt_vector(A->ctx, PSV_FP32, n, std::move(a));
        } catch (...) {
            psv_vector_free(&hv);
            throw;
        }
        *hubs = hv;
        *authorities = av;
        return delivered(ctx, "psv_hits", converged, iters, iterations);
    });
}

psv_status psv_pagerank_personalized(psv_vector **rank, int32_t *iterations, const psv_matrix *A,
                                     const psv_vector *teleport, double damping, double tolerance,
                                     int32_t max_iterations) {
    ContextCore *ctx = nullptr;
    return guard("psv_pagerank_personalized", ctx, [&] {
        check(A, "A", ctx);
        check(teleport, "teleport", ctx);
        need(rank, "rank");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_square(A, "PageRank");
        const int64_t n = A->store->nrows;
        if (teleport->type != PSV_FP32) fail(PSV_ERROR_DOMAIN_MISMATCH, "teleport must be a PSV_FP32 vector");
        if (teleport->n != n)
            fail(PSV_ERROR_DIMENSION_MISMATCH, format("teleport has %lld entries; A has %lld vertices",
                                                      (long long)teleport->n, (long long)n));
        check_damping(damping);
        check_iteration(tolerance, max_iterations);
        Backend &be = *ctx->backend;
        // The teleport vector on the host: absent entries are 0; checked, normalized to sum 1.
        std::vector<float> p((size_t)n);
        if (teleport->layout) {
            std::vector<uint8_t> vals, pres;
            dist::gather_host(ctx->parts, *teleport, vals, pres);
            if (n) std::memcpy(p.data(), vals.data(), (size_t)n * sizeof(float));
            for (size_t i = 0; i < pres.size(); ++i)
                if (!pres[i]) p[i] = 0.0f;
        } else {
            if (n) be.download(p.data(), teleport->values.get(), (size_t)n * sizeof(float));
            if (!teleport->full && n) {
                std::vector<uint8_t> pres((size_t)n);
                be.download(pres.data(), teleport->present.get(), (size_t)n);
                for (int64_t i = 0; i < n; ++i)
                    if (!pres[i]) p[i] = 0.0f;
            }
        }
        double total = 0;
        for (int64_t i = 0; i < n; ++i) {
            if (!(p[i] >= 0.0f) || std::isinf(p[i]))
                fail(PSV_ERROR_INVALID_VALUE, format("teleport(%lld) = %g: entries must be finite and >= 0", (long long)i, (double)p[i]));
            total += p[i];
        }
        if (n && !(total > 0)) fail(PSV_ERROR_INVALID_VALUE, "teleport is all zero");
        for (int64_t i = 0; i < n; ++i) p[i] = (float)((double)p[i] / total);
        if (const dist::PartitionedStore *PA = dist::as_partitioned(*A->store)) {
            dist::Result r;
            int32_t iters = 0;
            const bool converged = dist::pagerank(*PA, *dist::as_partitioned(effective_store(A, true)), damping,
                                                  tolerance, max_iterations, p.data(), r, iters);
            *rank = adopt_pieces(A->ctx, PSV_FP32, n, r.layout, std::move(r.pieces));
            return delivered(ctx, "psv_pagerank_personalized", converged, iters, iterations);
        }
        Buffer personal(&be, (size_t)n * sizeof(float));
        if (n) be.upload(personal.get(), p.data(), (size_t)n * sizeof(float));
        const MatrixStore *AT = transpose_for_products(A, be);
        Buffer r;
        int32_t iters = 0;
        const bool converged = pagerank(be, *ctx->steps, *A->store, AT, damping, tolerance, max_iterations, r, iters,
                                        personal.as<float>());
        *rank = adopt_vector(A->ctx, PSV_FP32, n, std::move(r));
        return delivered(ctx, "psv_pagerank_personalized", converged, iters, iterations);
    });
}

psv_status psv_rwr(psv_vector **relevance, int32_t *iterations, const psv_matrix *A, int64_t query,
                   double restart_c, double tolerance, int32_t max_iterations) {
    ContextCore *ctx = nullptr;
    return guard("psv_rwr", ctx, [&] {
        check(A, "A", ctx);
        need(relevance, "relevance");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_square(A, "RWR");
        check_query(query, A->store->nrows, "query");
        check_restart(restart_c);
        check_iteration(tolerance, max_iterations);
        if (const dist::PartitionedStore *PA = dist::as_partitioned(*A->store)) {
            const std::unique_ptr<MatrixStore> S = PA->symmetric_pattern();
            const int64_t n = A->store->nrows;
            std::vector<float> rel;
            int32_t iters = 0;
            const bool converged = dist::rwr(*dist::as_partitioned(*S), &query, 1, restart_c, tolerance, max_iterations,
                                             rel, &iters);
            if (!converged) iters = max_iterations;
            // the relevance in the default layout, scattered from the host
            psv_vector *v = new_vector(A->ctx, PSV_FP32, n);
            try {
                dist::scatter_host(ctx->parts, *v->layout, PSV_FP32, reinterpret_cast<const uint8_t *>(rel.data()), nullptr,
                                   v->piece_values, v->piece_present);
            } catch (...) {
                psv_vector_free(&v);
                throw;
            }
            v->full = true;
            *relevance = v;
            return delivered(ctx, "psv_rwr", converged, iters, iterations);
        }
        Backend &be = *ctx->backend;
        RwrGraph graph = rwr_graph(be, *A->store);
        Buffer r;
        int32_t iters = 0;
        const bool converged = rwr_single(be, *ctx->steps, graph, query, restart_c, tolerance, max_iterations, r, iters);
        *relevance = adopt_vector(A->ctx, PSV_FP32, A->store->nrows, std::move(r));
        return delivered(ctx, "psv_rwr", converged, iters, iterations);
    });
}

psv_status psv_rwr_batch(float *relevance_host, int32_t *iterations, const psv_matrix *A,
                         const int64_t *queries, int32_t k, double restart_c, double tolerance,
                         int32_t max_iterations) {
    ContextCore *ctx = nullptr;
    return guard("psv_rwr_batch", ctx, [&] {
        check(A, "A", ctx);
        need(relevance_host, "relevance_host");
        need(queries, "queries");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_square(A, "RWR");
        if (k <= 0) fail(PSV_ERROR_INVALID_VALUE, "k must be >= 1");
        const int64_t n = A->store->nrows;
        for (int32_t j = 0; j < k; ++j) check_query(queries[j], n, format("queries[%d]", (int)j).c_str());
        check_restart(restart_c);
        check_iteration(tolerance, max_iterations);
        // Into a private block first: the caller's outputs stay untouched on failure.
        std::vector<float> out((size_t)n * k);
        std::vector<int32_t> its((size_t)k);
        bool converged;
        if (const dist::PartitionedStore *PA = dist::as_partitioned(*A->store)) {
            const std::unique_ptr<MatrixStore> S = PA->symmetric_pattern();
            converged = dist::rwr(*dist::as_partitioned(*S), queries, k, restart_c, tolerance, max_iterations, out, its.data());
        } else {
            Backend &be = *ctx->backend;
            RwrGraph graph = rwr_graph(be, *A->store);
            converged = rwr(be, *ctx->steps, graph, queries, k, restart_c, tolerance, max_iterations, out.data(), its.data());
        }
        if (!out.empty()) std::memcpy(relevance_host, out.data(), out.size() * sizeof(float));
        if (iterations) {
            int32_t most = 0;
            for (int32_t j = 0; j < k; ++j) most = std::max(most, its[j] < 0 ? max_iterations : its[j]);
            *iterations = most;
        }
        if (!converged) {
            int32_t left = 0;
            for (int32_t j = 0; j < k; ++j) left += its[j] < 0;
            note(ctx, "psv_rwr_batch: %d of %d queries not converged after %d iterations", (int)left,
                 (int)k, (int)max_iterations);
            return PSV_NOT_CONVERGED;
        }
        return PSV_SUCCESS;
    });
}

}  // extern "C"

namespace psv {

void set_hits_form(psv_context *c, HitsForm form) {
    ContextCore *ctx = check_context(c, "ctx");
    std::lock_guard<std::recursive_mutex> g(ctx->mutex);
    ctx->hits_form = form;
}

}  // namespace psv
