/* PageRank over several GPUs of one host, one process, no MPI: a multi-part context splits the
 * graph's rows over the parts (one per GPU) and every psv call works on it unchanged.
 *
 *   example_multi_gpu_pagerank [GRAPH [NPARTS [auto|cpu|cuda]]]
 *
 * GRAPH defaults to the bundled wiki-Vote; NPARTS to the number of CUDA devices where the CUDA
 * backend is available, else 2 CPU parts (which exchange by memory copies: the same partitioning
 * and exchange, on any machine). With more parts than devices, parts share devices in turn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <psv/psv.h>

/* psv has no device-count call: device d exists where a CUDA context can be created on it.
 * *why is the status that ended the count. */
static int32_t cuda_device_count(psv_status *why) {
    int32_t count = 0;
    while (count < PSV_MAX_PARTS) {
        psv_context *probe = NULL;
        *why = psv_context_create(PSV_BACKEND_CUDA, count, &probe);
        if (*why != PSV_SUCCESS) break;
        psv_context_free(&probe);
        ++count;
    }
    return count;
}

static int fail(const char *what, psv_status s, const psv_context *ctx) {
    fprintf(stderr, "%s: %s\n", what, psv_status_string(s));
    if (ctx) fprintf(stderr, "%s\n", psv_context_last_error(ctx));
    return 1;
}

/* Print the ten highest-ranked vertices (ten passes of selection: fine for a demo). */
static void print_top10(float *r, int64_t n) {
    for (int k = 0; k < 10 && k < n; ++k) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; ++i)
            if (r[i] >= 0 && (best < 0 || r[i] > r[best])) best = i;
        printf("%2d. vertex %lld  %.6f\n", k + 1, (long long)best, r[best]);
        r[best] = -1;
    }
}

/* Read the graph, run PageRank on ctx's parts, print the iteration count and the top 10. */
static int run(psv_context *ctx, const char *path) {
    psv_matrix *A = NULL;
    psv_vector *rank = NULL;
    float *r = NULL;
    int32_t iterations = 0, nparts = 0;
    int64_t n = 0;
    int converged = 0, rc = 1;
    psv_status s = psv_context_nparts(ctx, &nparts);
    if (s != PSV_SUCCESS) return fail("psv_context_nparts", s, ctx);
    s = psv_matrix_read(ctx, path, &A);
    if (s != PSV_SUCCESS) return fail(path, s, ctx);
    s = psv_pagerank(&rank, &iterations, A, 0.85, 1e-6, 100);
    if (s < 0) {
        rc = fail("psv_pagerank", s, ctx);
        goto done;
    }
    converged = s != PSV_NOT_CONVERGED;
    s = psv_vector_size(rank, &n);
    if (s != PSV_SUCCESS) {
        rc = fail("psv_vector_size", s, ctx);
        goto done;
    }
    r = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!r) {
        rc = fail("the host copy of the ranks", PSV_ERROR_OUT_OF_MEMORY, NULL);
        goto done;
    }
    s = psv_vector_get(rank, r, n); /* gathers the parts' pieces in vertex order */
    if (s != PSV_SUCCESS) {
        rc = fail("psv_vector_get", s, ctx);
        goto done;
    }
    printf("%lld vertices on %d parts, %d iterations%s\n", (long long)n, nparts, iterations,
           converged ? "" : " (not converged)");
    print_top10(r, n);
    rc = 0;
done:
    free(r);
    psv_vector_free(&rank);
    psv_matrix_free(&A);
    return rc;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "examples/data/wiki-Vote.txt.gz";
    const char *want = argc > 3 ? argv[3] : "auto";
    psv_backend backend = PSV_BACKEND_AUTO;
    if (strcmp(want, "cpu") == 0) backend = PSV_BACKEND_CPU;
    else if (strcmp(want, "cuda") == 0) backend = PSV_BACKEND_CUDA;
    else if (strcmp(want, "auto") != 0) {
        fprintf(stderr, "backend '%s': expected auto, cpu or cuda\n", want);
        return 2;
    }
    /* AUTO runs on CUDA where psv_backend_available says it can, as psv_context_create_multi does. */
    const int cuda = backend == PSV_BACKEND_CUDA ||
                     (backend == PSV_BACKEND_AUTO && psv_backend_available(PSV_BACKEND_CUDA));
    psv_status why = PSV_SUCCESS;
    const int32_t devices_found = cuda ? cuda_device_count(&why) : 0;
    if (cuda && devices_found == 0) return fail("a context on CUDA device 0", why, NULL);
    int32_t nparts = cuda ? devices_found : 2;
    if (argc > 2) {
        char *end = NULL;
        long v = strtol(argv[2], &end, 10);
        if (end == argv[2] || *end != '\0' || v < 1 || v > PSV_MAX_PARTS) {
            fprintf(stderr, "nparts '%s': expected 1 .. %d\n", argv[2], PSV_MAX_PARTS);
            return 2;
        }
        nparts = (int32_t)v;
    }
    int32_t *devices = NULL; /* the CPU backend takes none */
    if (cuda) {
        if (!(devices = malloc(sizeof(int32_t) * (size_t)nparts)))
            return fail("the device list", PSV_ERROR_OUT_OF_MEMORY, NULL);
        for (int32_t p = 0; p < nparts; ++p) devices[p] = p % devices_found;
    }

    psv_context *ctx = NULL;
    psv_status s = psv_context_create_multi(backend, nparts, devices, &ctx);
    free(devices);
    if (s != PSV_SUCCESS) return fail("psv_context_create_multi", s, NULL);
    printf("%s backend, %d parts%s\n", cuda ? "CUDA" : "CPU", nparts,
           cuda ? (nparts > devices_found ? " (sharing devices)" : " (one per device)") : "");
    const int rc = run(ctx, path);
    psv_context_free(&ctx);
    return rc;
}
