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
    psv_context_free(&ctx);
    return check_exit();
}
