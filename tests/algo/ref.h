/* Shared by the algorithm tests: float64 reference files (tests/data/ref/NAME.ALGO.txt.gz, by
 * tools/reference/make_refs.py: "# key=value" header lines, then "vertex value..." rows), the
 * graphs they belong to, and the comparison of an fp32 result with a reference column. */
#ifndef PSV_TEST_ALGO_REF_H
#define PSV_TEST_ALGO_REF_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "psv/psv.h"
#include "check.h"

#define REF_MAX_KEYS 64

typedef struct {
    int64_t n;      /* rows */
    int ncols;      /* value columns (vertex excluded) */
    double *vals;   /* n * ncols, row-major */
    int nkeys;
    char key[REF_MAX_KEYS][64];
    char value[REF_MAX_KEYS][512];
} ref_t;

/* The graphs with references: the file psv reads (under tests/data) and the reference base
 * name. Real graphs first, then the hand-made ones (dangling and isolated vertices, a
 * self-loop, a duplicate edge, two components, a star). */
typedef struct {
    const char *name;
    const char *file;
    int real;
} ref_graph;

static const ref_graph ref_graphs[] = {
    {"karate", "karate.mtx", 1},
    {"email-Eu-core", "email-Eu-core.txt.gz", 1},
    {"wiki-Vote", "wiki-Vote.txt.gz", 1},
    {"polblogs", "polblogs.txt.gz", 1},
    {"p2p-Gnutella31", "p2p-Gnutella31.txt.gz", 1}, /* no RWR reference (size budget) */
    {"oregon1_010331", "oregon1_010331.txt.gz", 1},
    {"dangling", "ref/dangling.txt", 0},
    {"twocomp", "ref/twocomp.txt", 0},
    {"star", "ref/star.txt", 0},
};
#define N_REF_GRAPHS ((int)(sizeof ref_graphs / sizeof ref_graphs[0]))

static void ref_free(ref_t *r) {
    free(r->vals);
    memset(r, 0, sizeof *r);
}

/* Load tests/data/ref/<name>.<algo>.txt.gz; 0 on success, -1 if the file does not exist. */
static int ref_load(const char *name, const char *algo, ref_t *r) {
    char rel[512], line[8192];
    memset(r, 0, sizeof *r);
    snprintf(rel, sizeof rel, "ref/%s.%s.txt.gz", name, algo);
    gzFile f = gzopen(test_data(rel), "rb");
    if (!f) return -1;
    int64_t cap = 1024;
    r->vals = NULL;
    while (gzgets(f, line, sizeof line)) {
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (!len) continue;
        if (line[0] == '#') {
            char *eq = strchr(line, '=');
            if (eq && r->nkeys < REF_MAX_KEYS) {
                *eq = 0;
                const char *k = line + 1;
                while (*k == ' ') ++k;
                size_t lk = strlen(k), lv = strlen(eq + 1);
                if (lk > 63) lk = 63;
                if (lv > 511) lv = 511;
                memcpy(r->key[r->nkeys], k, lk);
                r->key[r->nkeys][lk] = 0;
                memcpy(r->value[r->nkeys], eq + 1, lv);
                r->value[r->nkeys][lv] = 0;
                ++r->nkeys;
            }
            continue;
        }
        /* a row: vertex then values */
        char *p = line, *end;
        long long v = strtoll(p, &end, 10);
        REQUIRE(end != p && v == r->n);
        p = end;
        double tmp[64];
        int c = 0;
        for (;;) {
            double x = strtod(p, &end);
            if (end == p) break;
            REQUIRE(c < 64);
            tmp[c++] = x;
            p = end;
        }
        if (r->n == 0) {
            r->ncols = c;
            r->vals = (double *)malloc((size_t)cap * c * sizeof(double));
            REQUIRE(r->vals);
        }
        REQUIRE(c == r->ncols);
        if (r->n == cap) {
            cap *= 2;
            r->vals = (double *)realloc(r->vals, (size_t)cap * c * sizeof(double));
            REQUIRE(r->vals);
        }
        memcpy(r->vals + r->n * c, tmp, (size_t)c * sizeof(double));
        ++r->n;
    }
    gzclose(f);
    return 0;
}

static const char *ref_get(const ref_t *r, const char *key) {
    for (int i = 0; i < r->nkeys; ++i)
        if (!strcmp(r->key[i], key)) return r->value[i];
    return NULL;
}

/* Comma-separated integers of a header value into out (at most max); returns the count. */
static inline int ref_ints(const ref_t *r, const char *key, int64_t *out, int max) {
    const char *s = ref_get(r, key);
    int k = 0;
    if (!s) return 0;
    while (*s && k < max) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s) break;
        out[k++] = v;
        s = end;
        if (*s == ',') ++s;
    }
    return k;
}

/*
 * Tolerances for an fp32 result against a float64 reference (every result here is a
 * nonnegative vector summing to at most 1). The tests stop their iterations at
 * ||x_k - x_{k-1}||_1 <= 1e-6 (tighter stalls at the fp32 noise floor on some graphs: the star's
 * RWR cycles at ~2e-7). Such a power iteration is off its limit by about tol * rho / (1 - rho)
 * in L1, rho the convergence rate: rho <= 0.9 for every graph here (RWR with c = 0.9 is bounded
 * by c), so <= 9e-6; fp32 rounding adds ~1e-6. Observed: <= 5.3e-6 L1, <= 2.5e-6 per entry.
 *  - per entry |x - ref| <= ENTRY_ATOL + ENTRY_RTOL * |ref|
 *  - L1 over all entries <= L1_TOL (3x the bound above)
 */
#define ENTRY_RTOL 2e-3
#define ENTRY_ATOL 5e-6
#define L1_TOL 3e-5

/* Compare x (n fp32) with column col of a reference; returns 1 if within tolerance. */
static int ref_compare(const float *x, const ref_t *r, int col, const char *what) {
    double l1 = 0, worst = 0;
    int64_t bad = 0, first_bad = -1;
    for (int64_t i = 0; i < r->n; ++i) {
        const double ref = r->vals[i * r->ncols + col];
        const double e = fabs((double)x[i] - ref);
        l1 += e;
        if (e > worst) worst = e;
        if (!(e <= ENTRY_ATOL + ENTRY_RTOL * fabs(ref))) {
            if (first_bad < 0) first_bad = i;
            ++bad;
        }
    }
    if (getenv("PSV_TEST_VERBOSE"))
        fprintf(stderr, "  %-40s n=%lld L1 err %.3e, max abs err %.3e\n", what, (long long)r->n, l1, worst);
    CHECK_MSG(bad == 0, "%s: %lld entries out of tolerance (first: vertex %lld: %.9g vs %.9g)", what,
              (long long)bad, (long long)first_bad, first_bad >= 0 ? (double)x[first_bad] : 0.0,
              first_bad >= 0 ? r->vals[first_bad * r->ncols + col] : 0.0);
    CHECK_MSG(l1 <= L1_TOL, "%s: L1 error %.3e > %.1e", what, l1, L1_TOL);
    return bad == 0 && l1 <= L1_TOL;
}

/* Read a vector's n fp32 values into a new host array. */
static float *vector_values(const psv_vector *v, int64_t n) {
    float *x = (float *)malloc((size_t)(n ? n : 1) * sizeof(float));
    REQUIRE(x);
    CHECK_STATUS(psv_vector_get(v, x, n), PSV_SUCCESS);
    return x;
}

/* Read a graph of ref_graphs into ctx (REQUIRE success). */
static psv_matrix *read_graph(psv_context *ctx, const ref_graph *g) {
    psv_matrix *A = NULL;
    psv_status s = psv_matrix_read(ctx, test_data(g->file), &A);
    if (s != PSV_SUCCESS) fprintf(stderr, "%s: %s\n", g->file, psv_context_last_error(ctx));
    REQUIRE(s == PSV_SUCCESS);
    return A;
}

#endif
