/* psv_pagerank against float64 references computed offline (tools/reference: a power iteration
 * cross-checked with networkx and a direct solve) on real graphs and hand-made ones with dangling
 * vertices, an isolated vertex, self-loops and two components. */
#include "psv/psv.h"

#include "check.h"
#include "refdata.h"

static psv_backend B;

static void check_graph(psv_context *ctx, const char *graph, const char *ref_name) {
    char refpath[512];
    snprintf(refpath, sizeof refpath, "ref/%s.pagerank.txt.gz", ref_name);
    refdata ref;
    REQUIRE(ref_read(test_data(refpath), &ref) == 0);
    psv_matrix *A = NULL;
    psv_status s = psv_matrix_read(ctx, test_data(graph), &A);
    CHECK_MSG(s == PSV_SUCCESS, "%s: %s", graph, psv_context_last_error(ctx));
    if (s != PSV_SUCCESS) return;
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    CHECK_MSG(n == atoll(ref_key(&ref, "n")), "%s: n = %lld, reference %s", graph, (long long)n, ref_key(&ref, "n"));
    int64_t nnz = 0;
    psv_matrix_nvals(A, &nnz);
    CHECK_MSG(nnz == atoll(ref_key(&ref, "nnz")), "%s: nnz = %lld, reference %s", graph, (long long)nnz, ref_key(&ref, "nnz"));

    /* converged ranks (tolerance 1e-6: the L1 error is then at most 1e-6 * d / (1-d); fp32
     * rounding keeps the difference of a slowly converging graph like the star near 1e-7, so
     * a much smaller tolerance may not be reachable in single precision) */
    psv_vector *r = NULL;
    int32_t it = 0;
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, 1e-6, 1000), PSV_SUCCESS);
    float *x = malloc(sizeof(float) * (size_t)(n + 1));
    REQUIRE(psv_vector_get(r, x, n) == PSV_SUCCESS);
    double l1 = 0, sum = 0, worst = 0;
    int64_t worst_i = -1;
    for (int64_t i = 0; i < n; ++i) {
        const double e = fabs(x[i] - ref.values[i]);
        l1 += e;
        sum += x[i];
        const double rel = e / (1e-7 + 1e-3 * ref.values[i]);
        if (rel > worst) worst = rel, worst_i = i;
    }
    CHECK_MSG(l1 <= 2e-5, "%s: ||rank - reference||_1 = %.3g", graph, l1);
    CHECK_MSG(worst <= 1.0, "%s: vertex %lld: %.9g vs reference %.9g", graph, (long long)worst_i,
              worst_i >= 0 ? x[worst_i] : 0.0, worst_i >= 0 ? ref.values[worst_i] : 0.0);
    CHECK_MSG(fabs(sum - 1.0) <= 1e-4, "%s: ranks sum to %.9f", graph, sum);
    /* the iteration count matches float64's at the same tolerance within one (fp32 rounding can
     * move the stopping iteration when the difference lands next to the tolerance) */
    const int ref_it = atoi(ref_key(&ref, "iterations_tol_1e-6"));
    CHECK_MSG(abs(it - ref_it) <= 1, "%s: %d iterations at tol 1e-6, reference %d", graph, it, ref_it);
    psv_vector_free(&r);

    /* the limit reached first: a warning, the rank still delivered */
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, 0.0, 2), PSV_NOT_CONVERGED);
    CHECK(it == 2 && r != NULL);
    if (r) {
        REQUIRE(psv_vector_get(r, x, n) == PSV_SUCCESS);
        sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += x[i];
        CHECK_MSG(fabs(sum - 1.0) <= 1e-4, "%s: unconverged ranks sum to %.9f", graph, sum);
    }
    psv_vector_free(&r);
    free(x);
    ref_free(&ref);
    psv_matrix_free(&A);
}

/* PSV_OPT_TRANSPOSE: PageRank and HITS pushed from A agree with the cached transpose's, are the
 * same run to run, and build no transpose (the matrix's bytes do not grow); bad values refused. */
static void check_transpose_option(psv_context *ctx) {
    psv_matrix *A = NULL;
    REQUIRE(psv_matrix_read(ctx, test_data("wiki-Vote.txt.gz"), &A) == PSV_SUCCESS);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    CHECK(psv_matrix_set_option(A, PSV_OPT_TRANSPOSE, 3) == PSV_ERROR_INVALID_VALUE);
    CHECK(psv_matrix_set_option(A, PSV_OPT_TRANSPOSE, -1) == PSV_ERROR_INVALID_VALUE);
    CHECK(psv_context_set_option(ctx, PSV_OPT_TRANSPOSE, 7) == PSV_ERROR_INVALID_VALUE);
    float *x[3], *hub[3], *auth[3];
    int32_t its[3];
    psv_matrix_info before, after;
    REQUIRE(psv_matrix_info_get(A, &before) == PSV_SUCCESS);
    const int32_t modes[3] = {PSV_TRANSPOSE_PUSH, PSV_TRANSPOSE_PUSH, PSV_TRANSPOSE_CACHE};
    for (int k = 0; k < 3; ++k) {
        REQUIRE(psv_matrix_set_option(A, PSV_OPT_TRANSPOSE, modes[k]) == PSV_SUCCESS);
        psv_vector *r = NULL, *h = NULL, *a = NULL;
        CHECK_STATUS(psv_pagerank(&r, &its[k], A, 0.85, 1e-6, 1000), PSV_SUCCESS);
        CHECK_STATUS(psv_hits(&h, &a, NULL, A, 1e-6, 1000), PSV_SUCCESS);
        x[k] = malloc(sizeof(float) * (size_t)n);
        hub[k] = malloc(sizeof(float) * (size_t)n);
        auth[k] = malloc(sizeof(float) * (size_t)n);
        REQUIRE(psv_vector_get(r, x[k], n) == PSV_SUCCESS);
        REQUIRE(psv_vector_get(h, hub[k], n) == PSV_SUCCESS);
        REQUIRE(psv_vector_get(a, auth[k], n) == PSV_SUCCESS);
        psv_vector_free(&r);
        psv_vector_free(&h);
        psv_vector_free(&a);
        if (k == 1) {
            REQUIRE(psv_matrix_info_get(A, &after) == PSV_SUCCESS);
            CHECK_MSG(after.device_bytes == before.device_bytes, "push built something: %lld -> %lld bytes",
                      (long long)before.device_bytes, (long long)after.device_bytes);
        }
    }
    REQUIRE(psv_matrix_info_get(A, &after) == PSV_SUCCESS);
    CHECK_MSG(after.device_bytes > before.device_bytes, "the cached transpose is not counted (%lld bytes)",
              (long long)after.device_bytes);
    CHECK(memcmp(x[0], x[1], sizeof(float) * (size_t)n) == 0 && its[0] == its[1]);
    CHECK(memcmp(hub[0], hub[1], sizeof(float) * (size_t)n) == 0 && memcmp(auth[0], auth[1], sizeof(float) * (size_t)n) == 0);
    double dr = 0, dh = 0, da = 0;
    for (int64_t i = 0; i < n; ++i) {
        dr += fabs((double)x[0][i] - x[2][i]);
        dh += fabs((double)hub[0][i] - hub[2][i]);
        da += fabs((double)auth[0][i] - auth[2][i]);
    }
    CHECK_MSG(dr <= 1e-5 && abs(its[0] - its[2]) <= 1, "push vs cached transpose: PageRank L1 %.3g, %d vs %d iterations", dr,
              its[0], its[2]);
    CHECK_MSG(dh <= 1e-4 && da <= 1e-4, "push vs cached transpose: HITS L1 hubs %.3g authorities %.3g", dh, da);
    for (int k = 0; k < 3; ++k) free(x[k]), free(hub[k]), free(auth[k]);
    psv_matrix_free(&A);
}

int main(void) {
    B = test_backend();
    psv_context *ctx = NULL;
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    const char *graphs[][2] = {
        {"wiki-Vote.txt.gz", "wiki-Vote"},      {"email-Eu-core.txt.gz", "email-Eu-core"},
        {"karate.mtx", "karate"},               {"polblogs.txt.gz", "polblogs"},
        {"p2p-Gnutella31.txt.gz", "p2p-Gnutella31"}, {"ref/dangling.txt", "dangling"},
        {"ref/star.txt", "star"},               {"ref/twocomp.txt", "twocomp"},
    };
    for (size_t g = 0; g < sizeof graphs / sizeof graphs[0]; ++g) check_graph(ctx, graphs[g][0], graphs[g][1]);
    /* the same with small tiles: dense tiles, both layouts */
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, 256) == PSV_SUCCESS);
    check_graph(ctx, "wiki-Vote.txt.gz", "wiki-Vote");
    check_graph(ctx, "p2p-Gnutella31.txt.gz", "p2p-Gnutella31");
    /* the A' products pushed from A (PSV_TRANSPOSE_PUSH): the same references and bounds */
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, 0) == PSV_SUCCESS);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TRANSPOSE, PSV_TRANSPOSE_PUSH) == PSV_SUCCESS);
    for (size_t g = 0; g < sizeof graphs / sizeof graphs[0]; ++g) check_graph(ctx, graphs[g][0], graphs[g][1]);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TRANSPOSE, PSV_TRANSPOSE_AUTO) == PSV_SUCCESS);
    check_transpose_option(ctx);
    psv_context_free(&ctx);
    return check_exit();
}
