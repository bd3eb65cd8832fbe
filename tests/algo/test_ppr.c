/* psv_pagerank_personalized against float64 references (tools/reference/make_refs.py: power
 * iteration to 1e-14, cross-checked with networkx.pagerank(personalization=...) and a direct
 * solve) on real and hand-made graphs; a uniform teleport against the PageRank reference; the
 * iteration count at tol 1e-6 against the reference's; every error path. */
#include "ref.h"

#define DAMPING 0.85
#define TOL 1e-6
#define MAXIT 10000

static void run_graph(psv_context *ctx, const ref_graph *g) {
    ref_t r, pr;
    if (ref_load(g->name, "ppr", &r) != 0) {
        fprintf(stderr, "no PPR reference for %s: skipped\n", g->name);
        return;
    }
    psv_matrix *A = read_graph(ctx, g);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    CHECK_MSG(n == r.n, "%s: n = %lld, reference %lld", g->name, (long long)n, (long long)r.n);
    if (n != r.n) goto done;
    int64_t seeds[16];
    const int ns = ref_ints(&r, "personalization", seeds, 16);
    REQUIRE(ns > 0);

    /* teleport: 2.0 at the seeds, the other entries absent (count as 0); normalized inside */
    psv_vector *t = NULL, *rank = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &t) == PSV_SUCCESS);
    const float two = 2.0f;
    for (int i = 0; i < ns; ++i) REQUIRE(psv_vector_set_element(t, seeds[i], &two) == PSV_SUCCESS);
    int32_t it = -1;
    psv_status s = psv_pagerank_personalized(&rank, &it, A, t, DAMPING, TOL, MAXIT);
    CHECK_MSG(s == PSV_SUCCESS, "%s: returned %d: %s", g->name, (int)s, psv_context_last_error(ctx));
    char what[256];
    if (rank) {
        float *x = vector_values(rank, n);
        snprintf(what, sizeof what, "%s ppr (%d it)", g->name, (int)it);
        ref_compare(x, &r, 0, what);
        free(x);
    }
    psv_vector_free(&rank);
    /* the teleport vector itself is not changed */
    float v = 0;
    CHECK(psv_vector_get_element(t, seeds[0], &v) == PSV_SUCCESS && v == 2.0f);

    /* the iteration count at the reference's 1e-6 count tolerance (fp32 may cross it one off) */
    const char *it6s = ref_get(&r, "iterations_tol_1e-6");
    if (it6s) {
        const int it6 = atoi(it6s);
        s = psv_pagerank_personalized(&rank, &it, A, t, DAMPING, 1e-6, MAXIT);
        CHECK(s == PSV_SUCCESS);
        CHECK_MSG(abs(it - it6) <= 1, "%s: %d iterations at tol 1e-6, reference %d", g->name, (int)it, it6);
        psv_vector_free(&rank);
    }
    psv_vector_free(&t);

    /* a uniform teleport (all 1: full vector) is PageRank */
    if (ref_load(g->name, "pagerank", &pr) == 0) {
        REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &t) == PSV_SUCCESS);
        const float one = 1.0f;
        REQUIRE(psv_vector_fill(t, &one) == PSV_SUCCESS);
        s = psv_pagerank_personalized(&rank, &it, A, t, DAMPING, TOL, MAXIT);
        CHECK(s == PSV_SUCCESS);
        if (rank) {
            float *x = vector_values(rank, n);
            snprintf(what, sizeof what, "%s uniform teleport = pagerank", g->name);
            ref_compare(x, &pr, 0, what);
            free(x);
        }
        psv_vector_free(&rank);
        psv_vector_free(&t);
        ref_free(&pr);
    }
done:
    psv_matrix_free(&A);
    ref_free(&r);
}

static void errors(psv_context *ctx) {
    psv_matrix *A = read_graph(ctx, &ref_graphs[0]);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    psv_vector *t = NULL, *rank = NULL, *bad = NULL;
    int32_t it = 0;
    const float one = 1.0f, zero = 0.0f, neg = -1.0f, nan_ = NAN;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &t) == PSV_SUCCESS);
    REQUIRE(psv_vector_fill(t, &one) == PSV_SUCCESS);
    CHECK_STATUS(psv_pagerank_personalized(NULL, &it, A, t, 0.85, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, NULL, t, 0.85, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, NULL, 0.85, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, t, 1.0, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, t, -0.1, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, t, 0.85, -1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, t, 0.85, 1e-6, 0), PSV_ERROR_INVALID_VALUE);
    /* wrong type, wrong size */
    REQUIRE(psv_vector_create(ctx, PSV_FP64, n, &bad) == PSV_SUCCESS);
    const double oned = 1.0;
    psv_vector_fill(bad, &oned);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_DOMAIN_MISMATCH);
    psv_vector_free(&bad);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n + 1, &bad) == PSV_SUCCESS);
    psv_vector_fill(bad, &one);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_DIMENSION_MISMATCH);
    psv_vector_free(&bad);
    /* negative, NaN, all zero, nothing present */
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &bad) == PSV_SUCCESS);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    psv_vector_fill(bad, &zero);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    psv_vector_fill(bad, &one);
    psv_vector_set_element(bad, 3, &neg);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    psv_vector_set_element(bad, 3, &nan_);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    psv_vector_free(&bad);
    CHECK(rank == NULL);
    /* a teleport of another context */
    psv_context *other = NULL;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &other) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(other, PSV_FP32, n, &bad) == PSV_SUCCESS);
    psv_vector_fill(bad, &one);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, bad, 0.85, 1e-6, 100), PSV_ERROR_CONTEXT_MISMATCH);
    psv_vector_free(&bad);
    psv_context_free(&other);
    /* non-square */
    int64_t rows[2] = {0, 1}, cols[2] = {2, 0};
    psv_matrix *B = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 2, 3, 2, rows, cols, NULL, PSV_NOOP, &B) == PSV_SUCCESS);
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, B, t, 0.85, 1e-6, 100), PSV_ERROR_DIMENSION_MISMATCH);
    psv_matrix_free(&B);
    /* not converged: delivered; iterations may be NULL */
    CHECK_STATUS(psv_pagerank_personalized(&rank, &it, A, t, 0.85, 0.0, 2), PSV_NOT_CONVERGED);
    CHECK(it == 2 && rank != NULL);
    psv_vector_free(&rank);
    CHECK_STATUS(psv_pagerank_personalized(&rank, NULL, A, t, 0.85, 1e-6, 1000), PSV_SUCCESS);
    psv_vector_free(&rank);
    psv_vector_free(&t);
    psv_matrix_free(&A);
}

int main(void) {
    psv_context *ctx = NULL;
    REQUIRE(psv_context_create(test_backend(), 0, &ctx) == PSV_SUCCESS);
    for (int i = 0; i < N_REF_GRAPHS; ++i) run_graph(ctx, &ref_graphs[i]);
    errors(ctx);
    psv_context_free(&ctx);
    return check_exit();
}
