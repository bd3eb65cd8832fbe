/* psv_hits against float64 references (tools/reference/make_refs.py: power iteration to 1e-14,
 * cross-checked with networkx.hits) on real and hand-made graphs, in both internal forms
 * (separate and the paper's stacked [0 A'; A 0], chosen through the internal interface:
 * hits_form.h), plus its error paths. */
#include <stdlib.h>

#include "hits_form.h"
#include "ref.h"

#define TOL 1e-6
#define MAXIT 20000

static void run_graph(psv_context *ctx, const ref_graph *g, const char *form) {
    ref_t r;
    if (ref_load(g->name, "hits", &r) != 0) {
        fprintf(stderr, "no HITS reference for %s: skipped\n", g->name);
        return;
    }
    psv_matrix *A = read_graph(ctx, g);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    CHECK_MSG(n == r.n, "%s: n = %lld, reference %lld", g->name, (long long)n, (long long)r.n);
    if (n != r.n) {
        psv_matrix_free(&A);
        ref_free(&r);
        return;
    }
    REQUIRE(test_set_hits_form(ctx, form) == 0);
    psv_vector *h = NULL, *a = NULL;
    int32_t it = -1;
    psv_status s = psv_hits(&h, &a, &it, A, TOL, MAXIT);
    CHECK_MSG(s == PSV_SUCCESS, "%s (%s): psv_hits returned %d: %s", g->name, form, (int)s,
              psv_context_last_error(ctx));
    if (h && a) {
        float *hx = vector_values(h, n), *ax = vector_values(a, n);
        char what[256];
        snprintf(what, sizeof what, "%s hubs (%s, %d it)", g->name, form, (int)it);
        ref_compare(hx, &r, 0, what);
        snprintf(what, sizeof what, "%s authorities (%s)", g->name, form);
        ref_compare(ax, &r, 1, what);
        double sh = 0, sa = 0;
        for (int64_t i = 0; i < n; ++i) {
            sh += hx[i];
            sa += ax[i];
        }
        CHECK_MSG(fabs(sh - 1) < 1e-5 && fabs(sa - 1) < 1e-5, "%s: sums %g %g", g->name, sh, sa);
        free(hx);
        free(ax);
    }
    psv_vector_free(&h);
    psv_vector_free(&a);
    psv_matrix_free(&A);
    ref_free(&r);
    REQUIRE(test_set_hits_form(ctx, "auto") == 0);
}

static void errors(psv_context *ctx) {
    const ref_graph *g = &ref_graphs[0];
    psv_matrix *A = read_graph(ctx, g);
    psv_vector *h = NULL, *a = NULL;
    int32_t it = 0;
    CHECK_STATUS(psv_hits(NULL, &a, &it, A, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_hits(&h, NULL, &it, A, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_hits(&h, &a, &it, NULL, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_hits(&h, &a, &it, A, -1.0, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_hits(&h, &a, &it, A, NAN, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_hits(&h, &a, &it, A, 1e-6, 0), PSV_ERROR_INVALID_VALUE);
    CHECK(h == NULL && a == NULL);
    /* iterations may be NULL */
    CHECK_STATUS(psv_hits(&h, &a, NULL, A, 1e-6, 1000), PSV_SUCCESS);
    psv_vector_free(&h);
    psv_vector_free(&a);
    /* not converged: delivered with the warning */
    CHECK_STATUS(psv_hits(&h, &a, &it, A, 0.0, 3), PSV_NOT_CONVERGED);
    CHECK(it == 3 && h != NULL && a != NULL);
    psv_vector_free(&h);
    psv_vector_free(&a);
    /* non-square */
    int64_t rows[2] = {0, 1}, cols[2] = {2, 0};
    psv_matrix *B = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 2, 3, 2, rows, cols, NULL, PSV_NOOP, &B) == PSV_SUCCESS);
    CHECK_STATUS(psv_hits(&h, &a, &it, B, 1e-6, 100), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK(h == NULL && a == NULL);
    /* a freed matrix */
    psv_matrix *dead = B;
    psv_matrix_free(&B);
    CHECK_STATUS(psv_hits(&h, &a, &it, dead, 1e-6, 100), PSV_ERROR_UNINITIALIZED_OBJECT);
    /* no edges: zero vectors, converged */
    psv_matrix *E = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 4, 4, 0, NULL, NULL, NULL, PSV_NOOP, &E) == PSV_SUCCESS);
    CHECK_STATUS(psv_hits(&h, &a, &it, E, 1e-6, 100), PSV_SUCCESS);
    if (h && a) {
        float x[4] = {1, 1, 1, 1};
        psv_vector_get(h, x, 4);
        CHECK(x[0] == 0 && x[3] == 0);
    }
    psv_vector_free(&h);
    psv_vector_free(&a);
    psv_matrix_free(&E);
    /* empty graph */
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 0, 0, 0, NULL, NULL, NULL, PSV_NOOP, &E) == PSV_SUCCESS);
    CHECK_STATUS(psv_hits(&h, &a, &it, E, 1e-6, 100), PSV_SUCCESS);
    psv_vector_free(&h);
    psv_vector_free(&a);
    psv_matrix_free(&E);
    psv_matrix_free(&A);
}

int main(void) {
    psv_context *ctx = NULL;
    REQUIRE(psv_context_create(test_backend(), 0, &ctx) == PSV_SUCCESS);
    for (int i = 0; i < N_REF_GRAPHS; ++i) {
        run_graph(ctx, &ref_graphs[i], "separate");
        run_graph(ctx, &ref_graphs[i], "stacked");
    }
    errors(ctx);
    psv_context_free(&ctx);
    return check_exit();
}
