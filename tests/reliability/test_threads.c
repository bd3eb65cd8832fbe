/* The thread-safety contract of psv.h, tested: distinct contexts are fully concurrent, and calls
 * on one context from many threads are serialized by its lock. Many threads hammer psv_mxv
 * (plain, masked with accumulation, transposed) and psv_pagerank:
 *  - "own": each thread has its own context, matrix and vectors;
 *  - "shared": all threads share one context, one matrix and one semiring, each with its own
 *    vectors (the cached transpose is built by whichever thread gets there first);
 * and every result must be bit-identical to the single-threaded one (psv results are
 * deterministic). Each thread also makes calls fail and checks that psv_context_last_error
 * returns its own message. Built with -fsanitize=thread by scripts/sanitize.sh --thread.
 * PSV_TEST_BACKEND=cuda runs it on the CUDA backend (exit 77 without a device). */
#include "psv/psv.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 3000
#define MAX_THREADS 8

static psv_backend B;
static int64_t *g_rows, *g_cols;
static double *g_vals;
static int64_t g_nvals;
static double g_u[N];
static double ref_plain[N], ref_masked[N], ref_trans[N];
static float ref_rank[N];
static int ref_iters;
static int rounds = 6;

/* A deterministic power-law-ish graph: vertex degrees ~ 1/rank. */
static void make_graph(void) {
    uint64_t x = 88172645463325252ull;
    int64_t cap = 40000, k = 0;
    g_rows = malloc(sizeof(int64_t) * cap);
    g_cols = malloc(sizeof(int64_t) * cap);
    g_vals = malloc(sizeof(double) * cap);
    REQUIRE(g_rows && g_cols && g_vals);
    for (int64_t i = 0; i < N && k < cap; ++i) {
        int64_t deg = 1 + (N / 4) / (i + 1);
        for (int64_t d = 0; d < deg && k < cap; ++d) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            g_rows[k] = i;
            g_cols[k] = (int64_t)(x % N);
            g_vals[k] = (double)(x % 1000) / 100.0 - 5.0;
            ++k;
        }
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;  /* and one in-edge to the hubs */
        g_rows[k] = (int64_t)(x % N);
        g_cols[k] = i % 50;
        g_vals[k] = 1.0;
        ++k;
    }
    g_nvals = k;
    for (int i = 0; i < N; ++i) g_u[i] = (double)((i * 7919) % 101) / 10.0 - 5.0;
}

/* Everything one thread needs, made in context ctx. */
struct work {
    psv_context *ctx;
    psv_matrix *A;    /* FP64, dup PLUS */
    psv_semiring *s;  /* plus-times FP64 */
    int shared;       /* ctx, A and s belong to several threads */
    int id;
    int failures;     /* mismatches seen by this thread */
    char why[256];
};

static void make_objects(psv_context *ctx, psv_matrix **A, psv_semiring **s) {
    REQUIRE(psv_matrix_build(ctx, PSV_FP64, N, N, g_nvals, g_rows, g_cols, g_vals, PSV_PLUS, A) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP64, s) == PSV_SUCCESS);
}

/* One round of products and a PageRank; results into the given arrays. Returns 0 or a status. */
static int one_round(struct work *w, double *plain, double *masked, double *trans, float *rank, int *iters) {
    psv_vector *u = NULL, *t = NULL, *m = NULL, *r = NULL;
    psv_status st;
    int rc = 0;
    if ((st = psv_vector_create(w->ctx, PSV_FP64, N, &u)) || (st = psv_vector_create(w->ctx, PSV_FP64, N, &t)) ||
        (st = psv_vector_create(w->ctx, PSV_BOOL, N, &m)))
        return st;
    int64_t idx[N / 3];
    uint8_t on[N / 3];
    for (int i = 0; i < N / 3; ++i) idx[i] = 3 * i, on[i] = (uint8_t)(i % 2);
    if ((st = psv_vector_set(u, g_u, N)) || (st = psv_vector_build(m, idx, on, N / 3))) { rc = st; goto out; }
    if ((st = psv_mxv(t, NULL, PSV_NOOP, w->s, w->A, u, 0)) || (st = psv_vector_get(t, plain, N))) { rc = st; goto out; }
    /* t<m> += A u (t holds A u already) */
    if ((st = psv_mxv(t, m, PSV_PLUS, w->s, w->A, u, 0)) || (st = psv_vector_get(t, masked, N))) { rc = st; goto out; }
    if ((st = psv_mxv(t, NULL, PSV_NOOP, w->s, w->A, u, PSV_DESC_TRANSPOSE_A)) || (st = psv_vector_get(t, trans, N))) {
        rc = st;
        goto out;
    }
    int32_t it = 0;
    st = psv_pagerank(&r, &it, w->A, 0.85, 1e-7, 100);
    if (st != PSV_SUCCESS && st != PSV_NOT_CONVERGED) { rc = st; goto out; }
    *iters = it;
    if ((st = psv_vector_get(r, rank, N))) rc = st;
out:
    psv_vector_free(&u);
    psv_vector_free(&t);
    psv_vector_free(&m);
    psv_vector_free(&r);
    return rc;
}

static void *worker(void *arg) {
    struct work *w = arg;
    static __thread double plain[N], masked[N], trans[N];
    static __thread float rank[N];
    for (int k = 0; k < rounds; ++k) {
        int iters = -1;
        int st = one_round(w, plain, masked, trans, rank, &iters);
        if (st) {
            w->failures++;
            snprintf(w->why, sizeof w->why, "round %d: status %d", k, st);
            continue;
        }
        if (memcmp(plain, ref_plain, sizeof plain) || memcmp(masked, ref_masked, sizeof masked) ||
            memcmp(trans, ref_trans, sizeof trans) || memcmp(rank, ref_rank, sizeof rank) || iters != ref_iters) {
            w->failures++;
            snprintf(w->why, sizeof w->why, "round %d: results differ from the single-threaded ones", k);
        }
        /* a failing call: this thread's own message comes back */
        psv_vector *bad = NULL;
        char want[64];
        snprintf(want, sizeof want, "size %d outside", -1000 - w->id);
        if (psv_vector_create(w->ctx, PSV_FP64, -1000 - w->id, &bad) != PSV_ERROR_INVALID_VALUE ||
            !strstr(psv_context_last_error(w->ctx), want)) {
            w->failures++;
            snprintf(w->why, sizeof w->why, "round %d: last error '%s', expected '%s'", k,
                     psv_context_last_error(w->ctx), want);
        }
    }
    return NULL;
}

static void run_threads(struct work *ws, int n, const char *what) {
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < n; ++i) REQUIRE(pthread_create(&th[i], NULL, worker, &ws[i]) == 0);
    for (int i = 0; i < n; ++i) pthread_join(th[i], NULL);
    for (int i = 0; i < n; ++i)
        CHECK_MSG(ws[i].failures == 0, "%s thread %d: %d failures, last: %s", what, i, ws[i].failures, ws[i].why);
}

int main(void) {
    B = test_backend();
    const char *r = getenv("PSV_THREAD_ROUNDS");
    if (r) rounds = atoi(r);
    int nthreads = MAX_THREADS;
    make_graph();

    /* the single-threaded reference */
    struct work ref = {0};
    REQUIRE(psv_context_create(B, 0, &ref.ctx) == PSV_SUCCESS);
    make_objects(ref.ctx, &ref.A, &ref.s);
    REQUIRE(one_round(&ref, ref_plain, ref_masked, ref_trans, ref_rank, &ref_iters) == 0);
    {   /* and it is right (plain product, against a direct sum) */
        static double direct[N];
        for (int64_t k = 0; k < g_nvals; ++k) direct[g_rows[k]] += g_vals[k] * g_u[g_cols[k]];
        int bad = 0;
        for (int i = 0; i < N; ++i) bad += !near(ref_plain[i], direct[i], 1e-9, 1e-9);
        CHECK_MSG(bad == 0, "%d entries of A u wrong", bad);
    }

    /* own contexts */
    struct work own[MAX_THREADS];
    memset(own, 0, sizeof own);
    for (int i = 0; i < nthreads; ++i) {
        own[i].id = i;
        REQUIRE(psv_context_create(B, 0, &own[i].ctx) == PSV_SUCCESS);
        make_objects(own[i].ctx, &own[i].A, &own[i].s);
    }
    run_threads(own, nthreads, "own-context");

    /* one shared context, matrix and semiring (a fresh matrix: its transpose not yet cached) */
    struct work shared[MAX_THREADS];
    memset(shared, 0, sizeof shared);
    psv_context *sc = NULL;
    psv_matrix *sA = NULL;
    psv_semiring *ss = NULL;
    REQUIRE(psv_context_create(B, 0, &sc) == PSV_SUCCESS);
    make_objects(sc, &sA, &ss);
    for (int i = 0; i < nthreads; ++i) {
        shared[i].id = i;
        shared[i].ctx = sc;
        shared[i].A = sA;
        shared[i].s = ss;
        shared[i].shared = 1;
    }
    run_threads(shared, nthreads, "shared-context");

    /* contexts created and freed concurrently with the work of others: both at once */
    struct work mixed[MAX_THREADS];
    for (int i = 0; i < nthreads; ++i) mixed[i] = (i % 2) ? shared[i] : own[i];
    run_threads(mixed, nthreads, "mixed");

    for (int i = 0; i < nthreads; ++i) {
        psv_matrix_free(&own[i].A);
        psv_semiring_free(&own[i].s);
        psv_context_free(&own[i].ctx);
    }
    psv_matrix_free(&sA);
    psv_semiring_free(&ss);
    psv_context_free(&sc);
    psv_matrix_free(&ref.A);
    psv_semiring_free(&ref.s);
    psv_context_free(&ref.ctx);
    free(g_rows);
    free(g_cols);
    free(g_vals);
    fprintf(stderr, "%d threads x %d rounds, own and shared contexts: results identical\n", nthreads, rounds);
    return check_exit();
}
