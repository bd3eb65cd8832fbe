/* PageRank over MPI ranks, one psv part per rank (the multi-host way): rank 0 makes a psv id,
 * MPI carries it to every rank, each rank joins the group with psv_context_create_rank, and from
 * then on every psv call is made by every rank alike. libpsv itself needs no MPI: any way of
 * moving the id's bytes (a file, a job scheduler's broadcast) does.
 *
 *   mpirun -np N example_mpi_pagerank [GRAPH [auto|cpu|cuda]]
 *
 * GRAPH defaults to the bundled wiki-Vote; each rank reads it and keeps an equal share of its
 * entries. A CUDA rank takes the GPU of its rank among the ranks of its host. Rank 0 prints the
 * iteration count and the top 10. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <psv/psv.h>

/* A failed call fails on every rank alike (psv keeps its ranks in step), so each rank reports and
 * leaves; MPI_Abort covers a rank that did not get that far. */
static void check(psv_status s, const char *what, const psv_context *ctx, int rank) {
    if (s >= 0) return;
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, psv_status_string(s));
    if (ctx) fprintf(stderr, "rank %d: %s\n", rank, psv_context_last_error(ctx));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1, local = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm host; /* the ranks of this host: a CUDA rank's device is its place among them */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local);
    MPI_Comm_free(&host);

    const char *path = argc > 1 ? argv[1] : "examples/data/wiki-Vote.txt.gz";
    const char *want = argc > 2 ? argv[2] : "auto";
    psv_backend backend = PSV_BACKEND_AUTO;
    if (strcmp(want, "cpu") == 0) backend = PSV_BACKEND_CPU;
    else if (strcmp(want, "cuda") == 0) backend = PSV_BACKEND_CUDA;
    else if (strcmp(want, "auto") != 0) {
        if (rank == 0) fprintf(stderr, "backend '%s': expected auto, cpu or cuda\n", want);
        MPI_Finalize();
        return 2;
    }

    /* Rank 0 makes the id (and must be rank 0 of the group: its process listens); MPI moves it. */
    psv_id id;
    int32_t made = PSV_SUCCESS;
    if (rank == 0) made = psv_unique_id(backend, &id);
    MPI_Bcast(&made, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
    check(made, "psv_unique_id", NULL, rank);
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);

    psv_context *ctx = NULL;
    check(psv_context_create_rank(backend, &id, nranks, rank, local, &ctx), "psv_context_create_rank", NULL, rank);
    psv_matrix *A = NULL;
    check(psv_matrix_read(ctx, path, &A), path, ctx, rank);
    psv_vector *r = NULL;
    int32_t iterations = 0;
    const psv_status st = psv_pagerank(&r, &iterations, A, 0.85, 1e-6, 100);
    check(st, "psv_pagerank", ctx, rank);
    int64_t n = 0;
    check(psv_vector_size(r, &n), "psv_vector_size", ctx, rank);
    float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!x) check(PSV_ERROR_OUT_OF_MEMORY, "the host copy of the ranks", NULL, rank);
    check(psv_vector_get(r, x, n), "psv_vector_get", ctx, rank); /* collective: every rank gets it all */
    if (rank == 0) {
        printf("%lld vertices on %d ranks, %d iterations%s\n", (long long)n, nranks, iterations,
               st == PSV_NOT_CONVERGED ? " (not converged)" : "");
        for (int k = 0; k < 10 && k < n; ++k) { /* ten passes of selection: fine for a demo */
            int64_t best = -1;
            for (int64_t i = 0; i < n; ++i)
                if (x[i] >= 0 && (best < 0 || x[i] > x[best])) best = i;
            printf("%2d. vertex %lld  %.6f\n", k + 1, (long long)best, x[best]);
            x[best] = -1;
        }
    }
    free(x);
    psv_vector_free(&r);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    MPI_Finalize();
    return 0;
}
