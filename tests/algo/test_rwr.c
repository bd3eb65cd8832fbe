/* psv_rwr and psv_rwr_batch against float64 references (tools/reference/make_refs.py: power
 * iteration to 1e-14 on the column-normalized undirected pattern, cross-checked with a direct
 * solve) on real and hand-made graphs (queries: vertex 0, the highest-degree vertex, an isolated
 * or lowest-degree one); batched == single runs; every error path. */
#include "ref.h"

#define C 0.9
#define TOL 1e-6
#define MAXIT 10000
/* batched vs single: both use the k-vector product, whose column sums do not depend on k on the
 * CPU backend (identical results, checked); another backend may sum in another order for
 * another k: within 1e-6 then. */
#define BATCH_TOL 1e-6
static int on_cpu(void) {
    const char *b = getenv("PSV_TEST_BACKEND");
    return !b || strcmp(b, "cuda") != 0;
}

/* max |batch(:, j) - single| over the entries */
static double column_diff(const float *batch, int32_t k, int32_t j, const float *single, int64_t n) {
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double e = fabs((double)batch[i * k + j] - (double)single[i]);
        if (e > worst) worst = e;
    }
    return worst;
}

static void run_graph(psv_context *ctx, const ref_graph *g) {
    ref_t r;
    if (ref_load(g->name, "rwr", &r) != 0) {
        fprintf(stderr, "no RWR reference for %s: skipped\n", g->name);
        return;
    }
    psv_matrix *A = read_graph(ctx, g);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    CHECK_MSG(n == r.n, "%s: n = %lld, reference %lld", g->name, (long long)n, (long long)r.n);
    if (n == r.n) {
        int64_t q[16];
        const int k = ref_ints(&r, "query", q, 16);
        REQUIRE(k == r.ncols);
        float *singles = (float *)malloc((size_t)n * k * sizeof(float));
        float *batch = (float *)malloc((size_t)n * k * sizeof(float));
        REQUIRE(singles && batch);
        int32_t most = 0;
        char what[256];
        for (int j = 0; j < k; ++j) {
            psv_vector *rel = NULL;
            int32_t it = -1;
            psv_status s = psv_rwr(&rel, &it, A, q[j], C, TOL, MAXIT);
            CHECK_MSG(s == PSV_SUCCESS, "%s q=%lld: %d: %s", g->name, (long long)q[j], (int)s,
                      psv_context_last_error(ctx));
            if (it > most) most = it;
            if (rel) {
                float *x = vector_values(rel, n);
                memcpy(singles + (size_t)j * n, x, (size_t)n * sizeof(float));
                snprintf(what, sizeof what, "%s rwr q=%lld (%d it)", g->name, (long long)q[j], (int)it);
                ref_compare(x, &r, j, what);
                free(x);
            }
            psv_vector_free(&rel);
        }
        int32_t bit = -1;
        psv_status s = psv_rwr_batch(batch, &bit, A, q, k, C, TOL, MAXIT);
        CHECK_MSG(s == PSV_SUCCESS, "%s batch: %d: %s", g->name, (int)s, psv_context_last_error(ctx));
        CHECK_MSG(bit == most, "%s batch: %d iterations, singles at most %d", g->name, (int)bit, (int)most);
        for (int j = 0; j < k; ++j) {
            float *col = (float *)malloc((size_t)n * sizeof(float));
            for (int64_t i = 0; i < n; ++i) col[i] = batch[i * k + j];
            snprintf(what, sizeof what, "%s rwr batch column %d", g->name, j);
            ref_compare(col, &r, j, what);
            free(col);
            const double d = column_diff(batch, k, j, singles + (size_t)j * n, n);
            CHECK_MSG(d <= BATCH_TOL, "%s: batch column %d differs from the single run by %.3e", g->name, j, d);
            CHECK_MSG(!on_cpu() || d == 0, "%s: CPU batch column %d not identical to the single run (%.3e)", g->name, j, d);
        }
        free(singles);
        free(batch);
    }
    psv_matrix_free(&A);
    ref_free(&r);
}

/* A batch of 25 queries (the paper's count), repeats included, equals 25 single runs; with the
 * matrix's kernel left to AUTO and forced to each kernel (on CUDA the tile-composite one runs the
 * form's k-vector variant; S inherits A's options). */
static void batch25(psv_context *ctx, psv_kernel kernel) {
    const ref_graph g = {"wiki-Vote", "wiki-Vote.txt.gz", 1};
    psv_matrix *A = read_graph(ctx, &g);
    if (kernel != PSV_KERNEL_AUTO) CHECK_STATUS(psv_matrix_set_option(A, PSV_OPT_KERNEL, kernel), PSV_SUCCESS);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    enum { K = 25 };
    int64_t q[K];
    uint64_t seed = 12345;
    for (int j = 0; j < K; ++j) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        q[j] = (int64_t)((seed >> 33) % (uint64_t)n);
    }
    q[7] = q[3]; /* a repeated query */
    q[0] = 0;    /* an isolated vertex (converges at once and leaves the batch) */
    float *batch = (float *)malloc((size_t)n * K * sizeof(float));
    REQUIRE(batch);
    int32_t bit = -1, most = 0;
    CHECK_STATUS(psv_rwr_batch(batch, &bit, A, q, K, C, 1e-6, MAXIT), PSV_SUCCESS);
    double worst = 0;
    for (int j = 0; j < K; ++j) {
        psv_vector *rel = NULL;
        int32_t it = 0;
        CHECK_STATUS(psv_rwr(&rel, &it, A, q[j], C, 1e-6, MAXIT), PSV_SUCCESS);
        if (it > most) most = it;
        if (rel) {
            float *x = vector_values(rel, n);
            const double d = column_diff(batch, K, j, x, n);
            if (d > worst) worst = d;
            free(x);
        }
        psv_vector_free(&rel);
    }
    if (getenv("PSV_TEST_VERBOSE")) fprintf(stderr, "  wiki-Vote k=25: max |batch - single| = %.3e\n", worst);
    CHECK_MSG(worst <= BATCH_TOL, "wiki-Vote k=25 kernel %d: batch differs from single runs by %.3e", (int)kernel, worst);
    CHECK_MSG(!on_cpu() || worst == 0, "wiki-Vote k=25 kernel %d: CPU batch not identical to single runs (%.3e)",
              (int)kernel, worst);
    CHECK_MSG(bit == most, "k=25 kernel %d: batch ran %d iterations, singles at most %d", (int)kernel, (int)bit, (int)most);
    free(batch);
    psv_matrix_free(&A);
}

static void errors(psv_context *ctx) {
    psv_matrix *A = read_graph(ctx, &ref_graphs[0]);
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    psv_vector *rel = NULL;
    int32_t it = 0;
    CHECK_STATUS(psv_rwr(NULL, &it, A, 0, C, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_rwr(&rel, &it, NULL, 0, C, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_rwr(&rel, &it, A, -1, C, 1e-6, 100), PSV_ERROR_INVALID_INDEX);
    CHECK_STATUS(psv_rwr(&rel, &it, A, n, C, 1e-6, 100), PSV_ERROR_INVALID_INDEX);
    CHECK_STATUS(psv_rwr(&rel, &it, A, 0, 0.0, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr(&rel, &it, A, 0, 1.0, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr(&rel, &it, A, 0, NAN, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr(&rel, &it, A, 0, C, -1.0, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr(&rel, &it, A, 0, C, 1e-6, 0), PSV_ERROR_INVALID_VALUE);
    CHECK(rel == NULL);
    CHECK_STATUS(psv_rwr(&rel, &it, A, 0, C, 0.0, 3), PSV_NOT_CONVERGED);
    CHECK(rel != NULL && it == 3);
    psv_vector_free(&rel);
    CHECK_STATUS(psv_rwr(&rel, NULL, A, 0, C, 1e-6, 1000), PSV_SUCCESS);
    psv_vector_free(&rel);

    float *out = (float *)malloc((size_t)n * 3 * sizeof(float));
    REQUIRE(out);
    int64_t q[3] = {0, 5, 33};
    for (int64_t i = 0; i < n * 3; ++i) out[i] = -7.0f;
    CHECK_STATUS(psv_rwr_batch(NULL, &it, A, q, 3, C, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_rwr_batch(out, &it, NULL, q, 3, C, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_rwr_batch(out, &it, A, NULL, 3, C, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 0, C, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, -2, C, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 3, 1.5, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 3, C, NAN, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 3, C, 1e-6, -1), PSV_ERROR_INVALID_VALUE);
    q[1] = n;
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 3, C, 1e-6, 100), PSV_ERROR_INVALID_INDEX);
    q[1] = -1;
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 3, C, 1e-6, 100), PSV_ERROR_INVALID_INDEX);
    int untouched = 1;
    for (int64_t i = 0; i < n * 3; ++i) untouched &= out[i] == -7.0f;
    CHECK_MSG(untouched, "psv_rwr_batch wrote its output on an error");
    q[1] = 5;
    CHECK_STATUS(psv_rwr_batch(out, &it, A, q, 3, C, 0.0, 4), PSV_NOT_CONVERGED);
    CHECK(it == 4 && out[0] != -7.0f);
    CHECK_STATUS(psv_rwr_batch(out, NULL, A, q, 3, C, 1e-6, 1000), PSV_SUCCESS);
    free(out);

    int64_t rows[2] = {0, 1}, cols[2] = {2, 0};
    psv_matrix *B = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 2, 3, 2, rows, cols, NULL, PSV_NOOP, &B) == PSV_SUCCESS);
    CHECK_STATUS(psv_rwr(&rel, &it, B, 0, C, 1e-6, 100), PSV_ERROR_DIMENSION_MISMATCH);
    float o2[6];
    CHECK_STATUS(psv_rwr_batch(o2, &it, B, q, 1, C, 1e-6, 100), PSV_ERROR_DIMENSION_MISMATCH);
    psv_matrix *dead = B;
    psv_matrix_free(&B);
    CHECK_STATUS(psv_rwr(&rel, &it, dead, 0, C, 1e-6, 100), PSV_ERROR_UNINITIALIZED_OBJECT);
    psv_matrix_free(&A);
}

int main(void) {
    psv_context *ctx = NULL;
    REQUIRE(psv_context_create(test_backend(), 0, &ctx) == PSV_SUCCESS);
    for (int i = 0; i < N_REF_GRAPHS; ++i) run_graph(ctx, &ref_graphs[i]);
    batch25(ctx, PSV_KERNEL_AUTO);
    batch25(ctx, PSV_KERNEL_TILE_COMPOSITE);
    batch25(ctx, PSV_KERNEL_CSR);
    errors(ctx);
    psv_context_free(&ctx);
    return check_exit();
}
