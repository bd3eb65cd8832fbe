/* Timings behind the choices of src/algo (not a test): HITS in its separate and stacked forms,
 * RWR batched (k queries, one k-vector product per iteration) against k single runs.
 *   bench_algo FILE [k] [backend: cpu|cuda]     (OMP_NUM_THREADS sets the CPU threads) */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hits_form.h"
#include "psv/psv.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* CPU seconds of the process (all threads): steadier than wall time on a shared machine. */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define TRY(call)                                                                               \
    do {                                                                                        \
        psv_status s_ = (call);                                                                 \
        if (s_ < 0) {                                                                           \
            fprintf(stderr, "%s: %s\n", #call, psv_status_string(s_));                          \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static void hits(psv_context *ctx, psv_matrix *A, const char *form, double tol) {
    psv_vector *h, *a;
    int32_t it;
    if (test_set_hits_form(ctx, form) != 0) {
        fprintf(stderr, "cannot choose the HITS form %s\n", form);
        exit(1);
    }
    /* setup: the transpose (cached on A after the first call) or [0 A'; A 0] (built per call),
     * plus one iteration */
    double t0 = now(), c0 = cpu_now();
    TRY(psv_hits(&h, &a, &it, A, tol, 1));
    double setup = now() - t0, csetup = cpu_now() - c0;
    psv_vector_free(&h);
    psv_vector_free(&a);
    t0 = now();
    c0 = cpu_now();
    TRY(psv_hits(&h, &a, &it, A, tol, 10000));
    double total = now() - t0, cpu = cpu_now() - c0;
    printf("hits %-8s tol %.0e: %3d iterations: call %.3f s wall / %.3f s cpu; setup+1 it %.3f / %.3f; "
           "the other %d iterations %.3f / %.3f\n",
           form, tol, (int)it, total, cpu, setup, csetup, (int)it - 1, total - setup, cpu - csetup);
    psv_vector_free(&h);
    psv_vector_free(&a);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_algo FILE [k] [cpu|cuda]\n");
        return 2;
    }
    const int k = argc > 2 ? atoi(argv[2]) : 25;
    const psv_backend be = argc > 3 && !strcmp(argv[3], "cuda") ? PSV_BACKEND_CUDA : PSV_BACKEND_CPU;
    psv_context *ctx;
    TRY(psv_context_create(be, 0, &ctx));
    psv_matrix *A;
    double t0 = now();
    TRY(psv_matrix_read(ctx, argv[1], &A));
    int64_t n, nnz;
    psv_matrix_nrows(A, &n);
    psv_matrix_nvals(A, &nnz);
    printf("%s: n %lld, nnz %lld, read %.2f s\n", argv[1], (long long)n, (long long)nnz, now() - t0);

    for (int rep = 0; rep < 2; ++rep) {
        hits(ctx, A, "separate", 1e-6);
        hits(ctx, A, "stacked", 1e-6);
    }

    int64_t *q = malloc((size_t)k * sizeof(int64_t));
    uint64_t seed = 2011;
    for (int j = 0; j < k; ++j) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        q[j] = (int64_t)((seed >> 33) % (uint64_t)n);
    }
    float *out = malloc((size_t)n * k * sizeof(float));
    int32_t it, most = 0;
    psv_vector *r;
    t0 = now();
    TRY(psv_rwr(&r, &it, A, q[0], 0.9, 1e-6, 1));
    const double one_it = now() - t0;
    psv_vector_free(&r);
    for (int rep = 0; rep < 1; ++rep) {
        t0 = now();
        double c0 = cpu_now();
        TRY(psv_rwr_batch(out, &it, A, q, k, 0.9, 1e-6, 1000));
        const double tb = now() - t0, cb = cpu_now() - c0;
        t0 = now();
        c0 = cpu_now();
        long total_it = 0;
        for (int j = 0; j < k; ++j) {
            int32_t its;
            TRY(psv_rwr(&r, &its, A, q[j], 0.9, 1e-6, 1000));
            total_it += its;
            if (its > most) most = its;
            psv_vector_free(&r);
        }
        const double ts = now() - t0, cs = cpu_now() - c0;
        printf("rwr k=%d tol 1e-6: batch %.3f s wall, %.3f s cpu (%d iterations); %d single runs %.3f s wall, "
               "%.3f s cpu (%ld iterations in all, at most %d); one-iteration single call (S build + 1 it) "
               "%.3f s\n",
               k, tb, cb, (int)it, k, ts, cs, total_it, (int)most, one_it);
    }
    free(out);
    free(q);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return 0;
}
