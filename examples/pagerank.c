/* The README's C example: read a graph, run PageRank, print the ten highest-ranked vertices. */
#include <stdio.h>
#include <stdlib.h>

#include <psv/psv.h>

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "examples/data/wiki-Vote.txt.gz";
    psv_context *ctx = NULL;
    psv_matrix *A = NULL;
    psv_vector *rank = NULL;
    int32_t iterations = 0;
    psv_status s = psv_context_create(PSV_BACKEND_AUTO, 0, &ctx);
    if (s == PSV_SUCCESS) s = psv_matrix_read(ctx, path, &A);
    if (s == PSV_SUCCESS) s = psv_pagerank(&rank, &iterations, A, 0.85, 1e-6, 100);
    if (s < 0) {
        fprintf(stderr, "%s\n%s\n", psv_status_string(s), psv_context_last_error(ctx));
        psv_matrix_free(&A);
        psv_context_free(&ctx);
        return 1;
    }
    int64_t n = 0;
    psv_vector_size(rank, &n);
    float *r = malloc(sizeof(float) * (size_t)n);
    psv_vector_get(rank, r, n);
    printf("%lld vertices, %d iterations%s\n", (long long)n, iterations,
           s == PSV_NOT_CONVERGED ? " (not converged)" : "");
    for (int k = 0; k < 10 && k < n; ++k) { /* ten passes of selection: fine for a demo */
        int64_t best = -1;
        for (int64_t i = 0; i < n; ++i)
            if (r[i] >= 0 && (best < 0 || r[i] > r[best])) best = i;
        printf("%2d. vertex %lld  %.6f\n", k + 1, (long long)best, r[best]);
        r[best] = -1;
    }
    free(r);
    psv_vector_free(&rank);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return 0;
}
