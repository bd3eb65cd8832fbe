/* psv_mxv against an independent reference (float64 for floating types, exact wrapped integers
 * otherwise) for every semiring add x multiply x type, mask kind, accumulator and descriptor, on
 * random matrices with skewed column lengths (so the tile-composite form has dense tiles, several
 * workload shapes, both layouts) and on real graphs, with several format options and kernels.
 * Also checks that repeated products are bit-identical (determinism). */
#include "psv/psv.h"

#include <stdint.h>
#include <string.h>

#include "check.h"

static psv_backend B;
static psv_context *ctx;

/* ---- reference arithmetic ------------------------------------------------------------------ */

static int bool_op(int op) { /* GraphBLAS renaming on bool, as psv.h documents */
    switch (op) {
    case PSV_PLUS: case PSV_MAX: return PSV_LOR;
    case PSV_TIMES: case PSV_MIN: return PSV_LAND;
    case PSV_MINUS: case PSV_ABSDIFF: return PSV_LXOR;
    case PSV_DIV: return PSV_FIRST;
    default: return op;
    }
}

static int64_t wrap(psv_type t, uint64_t v) {
    if (t == PSV_INT32) return (int64_t)(int32_t)(uint32_t)v;
    return (int64_t)v;
}

static int64_t iop(psv_type t, int op, int64_t x, int64_t y) {
    switch (op) {
    case PSV_PLUS: return wrap(t, (uint64_t)x + (uint64_t)y);
    case PSV_TIMES: return wrap(t, (uint64_t)x * (uint64_t)y);
    case PSV_MIN: return y < x ? y : x;
    case PSV_MAX: return x < y ? y : x;
    case PSV_FIRST: return x;
    case PSV_SECOND: return y;
    case PSV_PAIR: return 1;
    case PSV_LOR: return (x != 0) || (y != 0);
    case PSV_LAND: return (x != 0) && (y != 0);
    case PSV_LXOR: return (x != 0) != (y != 0);
    case PSV_MINUS: return wrap(t, (uint64_t)x - (uint64_t)y);
    case PSV_DIV: return y == 0 ? 0 : y == -1 ? wrap(t, (uint64_t)0 - (uint64_t)x) : x / y;
    case PSV_ABSDIFF: return y < x ? wrap(t, (uint64_t)x - (uint64_t)y) : wrap(t, (uint64_t)y - (uint64_t)x);
    }
    return 0;
}

static double fop(int op, double x, double y) {
    switch (op) {
    case PSV_PLUS: return x + y;
    case PSV_TIMES: return x * y;
    case PSV_MIN: return isnan(x) ? y : isnan(y) ? x : (y < x ? y : x);
    case PSV_MAX: return isnan(x) ? y : isnan(y) ? x : (x < y ? y : x);
    case PSV_FIRST: return x;
    case PSV_SECOND: return y;
    case PSV_PAIR: return 1;
    case PSV_LOR: return (x != 0) || (y != 0);
    case PSV_LAND: return (x != 0) && (y != 0);
    case PSV_LXOR: return (x != 0) != (y != 0);
    case PSV_MINUS: return x - y;
    case PSV_DIV: return x / y;
    case PSV_ABSDIFF: return fabs(x - y);
    }
    return 0;
}

static double identity(psv_type t, int add) {
    switch (add) {
    case PSV_TIMES: case PSV_LAND: return 1;
    case PSV_MIN: return t == PSV_INT32 ? 2147483647.0 : t == PSV_INT64 ? 9.2233720368547758e18 : INFINITY;
    case PSV_MAX: return t == PSV_INT32 ? -2147483648.0 : t == PSV_INT64 ? -9.2233720368547758e18 : -INFINITY;
    default: return 0;
    }
}

static int64_t identity_i(psv_type t, int add) {
    switch (add) {
    case PSV_TIMES: case PSV_LAND: return 1;
    case PSV_MIN: return t == PSV_INT32 ? INT32_MAX : INT64_MAX;
    case PSV_MAX: return t == PSV_INT32 ? INT32_MIN : INT64_MIN;
    default: return 0;
    }
}

static int is_float(psv_type t) { return t == PSV_FP32 || t == PSV_FP64; }

/* ---- values in a type ------------------------------------------------------------------------ */

/* Entry k of a test array as a double (ints exact; floats small dyadic, never zero). */
static double gen_value(psv_type t, uint64_t *state) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    int k = (int)((*state >> 33) % 11) - 5; /* -5..5 */
    if (t == PSV_BOOL) return k > 0;
    if (is_float(t)) return (k == 0 ? 3 : k) / 4.0;
    return k;
}

static void store(psv_type t, void *arr, int64_t i, double v) {
    switch (t) {
    case PSV_BOOL: ((uint8_t *)arr)[i] = v != 0; break;
    case PSV_INT32: ((int32_t *)arr)[i] = (int32_t)v; break;
    case PSV_INT64: ((int64_t *)arr)[i] = (int64_t)v; break;
    case PSV_FP32: ((float *)arr)[i] = (float)v; break;
    default: ((double *)arr)[i] = v; break;
    }
}

static double load(psv_type t, const void *arr, int64_t i) {
    switch (t) {
    case PSV_BOOL: return ((const uint8_t *)arr)[i];
    case PSV_INT32: return ((const int32_t *)arr)[i];
    case PSV_INT64: return (double)((const int64_t *)arr)[i];
    case PSV_FP32: return ((const float *)arr)[i];
    default: return ((const double *)arr)[i];
    }
}

static int64_t load_i(psv_type t, const void *arr, int64_t i) {
    switch (t) {
    case PSV_BOOL: return ((const uint8_t *)arr)[i];
    case PSV_INT32: return ((const int32_t *)arr)[i];
    default: return ((const int64_t *)arr)[i];
    }
}

/* ---- a test problem --------------------------------------------------------------------------- */

typedef struct {
    int64_t nrows, ncols, nvals;
    int64_t *rows, *cols; /* sorted by row, no duplicates */
    double *vals;          /* per type regenerated */
} coo;

static void free_coo(coo *a) {
    free(a->rows);
    free(a->cols);
    free(a->vals);
}

/* Random nrows x ncols with 1..maxrow entries per row, columns skewed (col = ncols*u^3). */
static coo random_coo(int64_t nrows, int64_t ncols, int maxrow, uint64_t seed) {
    coo a = {nrows, ncols, 0, NULL, NULL, NULL};
    a.rows = malloc(sizeof(int64_t) * nrows * maxrow);
    a.cols = malloc(sizeof(int64_t) * nrows * maxrow);
    a.vals = malloc(sizeof(double) * nrows * maxrow);
    char *seen = calloc((size_t)ncols, 1);
    uint64_t s = seed;
    for (int64_t i = 0; i < nrows; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int len = 1 + (int)((s >> 33) % (uint64_t)maxrow);
        if (i % 17 == 5) len = 0; /* some empty rows */
        memset(seen, 0, (size_t)ncols);
        for (int k = 0; k < len; ++k) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(s >> 11) / 9007199254740992.0;
            int64_t j = (int64_t)(ncols * u * u * u);
            if (seen[j]) continue;
            seen[j] = 1;
            a.rows[a.nvals] = i;
            a.cols[a.nvals] = j;
            a.nvals++;
        }
    }
    free(seen);
    /* sort each row's columns (insertion sort: rows are short) */
    for (int64_t e = 1; e < a.nvals; ++e) {
        int64_t r = a.rows[e], c = a.cols[e], f = e;
        while (f > 0 && a.rows[f - 1] == r && a.cols[f - 1] > c) {
            a.cols[f] = a.cols[f - 1];
            --f;
        }
        a.cols[f] = c;
    }
    return a;
}

static coo read_coo(const char *path) {
    psv_matrix *A = NULL;
    coo a = {0, 0, 0, NULL, NULL, NULL};
    REQUIRE(psv_matrix_read(ctx, path, &A) == PSV_SUCCESS);
    psv_matrix_nrows(A, &a.nrows);
    psv_matrix_ncols(A, &a.ncols);
    psv_matrix_nvals(A, &a.nvals);
    a.rows = malloc(sizeof(int64_t) * (size_t)(a.nvals + 1));
    a.cols = malloc(sizeof(int64_t) * (size_t)(a.nvals + 1));
    a.vals = malloc(sizeof(double) * (size_t)(a.nvals + 1));
    int64_t n = a.nvals;
    REQUIRE(psv_matrix_extract_tuples(A, a.rows, a.cols, NULL, &n) == PSV_SUCCESS);
    psv_matrix_free(&A);
    return a;
}

/* ---- one check --------------------------------------------------------------------------------- */

typedef struct {
    int mask;      /* 0 none, 1 value mask, 2 structural */
    int complement, replace, transpose;
    int accum;     /* PSV_NOOP or an op */
    int sparse_u;  /* u with absent entries */
} variant;

static long checks_run = 0;

/* One check's sizes and host arrays: the reference's values (..ref) and presence (..pres) of u, w,
 * the mask m and the product t (tint: t of an integer type, tmag: sum of the terms' magnitudes);
 * buf, a scratch of out_n + in_n values of the type. */
typedef struct {
    int64_t out_n, in_n;
    double *uref, *wref, *mref, *tref, *tmag;
    char *upres, *wpres, *mpres, *tpres;
    int64_t *tint;
    void *buf;
} check_arrays;

/* u, w (and m for a masked variant) made in the context, their values kept in r. */
static void make_inputs(check_arrays *r, psv_type t, const variant *v, uint64_t *state, psv_vector **pu,
                        psv_vector **pw, psv_vector **pm) {
    const int64_t out_n = r->out_n, in_n = r->in_n;
    double *uref = r->uref, *wref = r->wref, *mref = r->mref;
    char *upres = r->upres, *wpres = r->wpres, *mpres = r->mpres;
    void *buf = r->buf;
    uint64_t st = *state;
    psv_vector *u = NULL, *w = NULL, *m = NULL;
    REQUIRE(psv_vector_create(ctx, t, in_n, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, t, out_n, &w) == PSV_SUCCESS);
    int64_t *bidx = malloc(sizeof(int64_t) * (size_t)(in_n + out_n + 1)), nb = 0;
    for (int64_t j = 0; j < in_n; ++j) {
        uref[j] = gen_value(t, &st);
        upres[j] = !v->sparse_u || (j % 3 != 1);
        if (upres[j]) {
            store(t, buf, nb, uref[j]);
            bidx[nb++] = j;
        }
    }
    REQUIRE(psv_vector_build(u, bidx, buf, nb) == PSV_SUCCESS);
    /* w starts with some entries present (accumulators and masks need them) */
    nb = 0;
    for (int64_t i = 0; i < out_n; ++i) {
        wref[i] = gen_value(t, &st);
        wpres[i] = i % 4 != 2;
        if (wpres[i]) {
            store(t, buf, nb, wref[i]);
            bidx[nb++] = i;
        }
    }
    REQUIRE(psv_vector_build(w, bidx, buf, nb) == PSV_SUCCESS);
    if (v->mask) {
        REQUIRE(psv_vector_create(ctx, PSV_INT32, out_n, &m) == PSV_SUCCESS);
        int32_t *mv = malloc(sizeof(int32_t) * (size_t)(out_n + 1));
        nb = 0;
        for (int64_t i = 0; i < out_n; ++i) {
            mpres[i] = i % 5 != 3;
            mref[i] = (double)((i * 7) % 3 == 0 ? 0 : 2); /* zero values: value and structure differ */
            if (mpres[i]) {
                mv[nb] = (int32_t)mref[i];
                bidx[nb++] = i;
            }
        }
        REQUIRE(psv_vector_build(m, bidx, mv, nb) == PSV_SUCCESS);
        free(mv);
    }
    free(bidx);
    *state = st;
    *pu = u;
    *pw = w;
    *pm = m;
}

/* reference: t = A (+).(x) u (ca, cm: the add and multiply as applied to type t) */
static void reference_product(check_arrays *r, const coo *a, psv_type t, int ca, int cm, const variant *v) {
    const int64_t out_n = r->out_n;
    const double *uref = r->uref;
    const char *upres = r->upres;
    double *tref = malloc(sizeof(double) * (size_t)(out_n + 1)), *tmag = malloc(sizeof(double) * (size_t)(out_n + 1));
    int64_t *tint = malloc(sizeof(int64_t) * (size_t)(out_n + 1));
    char *tpres = calloc((size_t)out_n + 1, 1);
    for (int64_t i = 0; i < out_n; ++i) {
        tref[i] = identity(t, ca);
        tint[i] = identity_i(t, ca);
        tmag[i] = 0;
    }
    for (int64_t e = 0; e < a->nvals; ++e) {
        int64_t i = v->transpose ? a->cols[e] : a->rows[e], j = v->transpose ? a->rows[e] : a->cols[e];
        if (!upres[j]) continue;
        double av = a->vals[e];
        if (is_float(t)) {
            double term = fop(cm, av, uref[j]);
            tref[i] = fop(ca, tref[i], term); /* from the identity: logical adds give 0 or 1 */
            tmag[i] += fabs(term);
        } else {
            int64_t term = iop(t, cm, (int64_t)av, (int64_t)uref[j]);
            tint[i] = iop(t, ca, tint[i], term);
        }
        tpres[i] = 1;
    }
    if (!is_float(t))
        for (int64_t i = 0; i < out_n; ++i) tref[i] = (double)tint[i]; /* present ones are small */
    r->tref = tref;
    r->tmag = tmag;
    r->tint = tint;
    r->tpres = tpres;
}

/* reference: w<m> accum= t (cacc: the accumulator as applied to type t) */
static void reference_mask_accum(check_arrays *r, psv_type t, int cacc, const variant *v) {
    const int64_t out_n = r->out_n;
    double *wref = r->wref;
    char *wpres = r->wpres;
    const double *mref = r->mref, *tref = r->tref;
    const char *mpres = r->mpres, *tpres = r->tpres;
    for (int64_t i = 0; i < out_n; ++i) {
        int mk = 1;
        if (v->mask) {
            mk = mpres[i] && (v->mask == 2 || mref[i] != 0);
            if (v->complement) mk = !mk;
        } else if (v->complement) {
            mk = 0;
        }
        if (!mk) {
            if (v->replace) wpres[i] = 0;
            continue;
        }
        if (cacc != PSV_NOOP) {
            if (wpres[i] && tpres[i])
                wref[i] = is_float(t) ? fop(cacc, wref[i], tref[i]) : (double)iop(t, cacc, (int64_t)wref[i], (int64_t)tref[i]);
            else if (tpres[i])
                wref[i] = tref[i];
            wpres[i] = wpres[i] || tpres[i];
        } else {
            if (tpres[i]) wref[i] = tref[i];
            wpres[i] = tpres[i];
        }
    }
}

/* compare: w against the reference; returns 1 (after a message) where they differ */
static int compare_with_reference(const check_arrays *r, psv_vector *w, psv_type t, const char *label) {
    const int64_t out_n = r->out_n;
    const double *wref = r->wref, *tmag = r->tmag;
    const char *wpres = r->wpres;
    void *buf = r->buf;
    int64_t nv = out_n;
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(out_n + 1));
    REQUIRE(psv_vector_extract_tuples(w, idx, buf, &nv) == PSV_SUCCESS);
    int64_t expect_nv = 0;
    for (int64_t i = 0; i < out_n; ++i) expect_nv += wpres[i];
    int bad = nv != expect_nv;
    if (bad) fprintf(stderr, "%s: %lld entries present, expected %lld\n", label, (long long)nv, (long long)expect_nv);
    for (int64_t k = 0; k < nv && !bad; ++k) {
        int64_t i = idx[k];
        if (!wpres[i]) {
            fprintf(stderr, "%s: entry %lld present, expected absent\n", label, (long long)i);
            bad = 1;
        } else if (is_float(t)) {
            double got = load(t, buf, k), ref = wref[i];
            if (t == PSV_FP32) ref = (float)ref;
            double tol = 1e-5 * (fabs(ref) + tmag[i]) + 1e-30;
            if (!(isnan(got) && isnan(ref)) && !(isinf(ref) && got == ref) && !(fabs(got - ref) <= tol)) {
                fprintf(stderr, "%s: w(%lld) = %.9g, reference %.9g\n", label, (long long)i, got, ref);
                bad = 1;
            }
        } else {
            int64_t got = load_i(t, buf, k), ref = (int64_t)wref[i];
            if (t == PSV_BOOL) ref = ref != 0;
            if (got != ref) {
                fprintf(stderr, "%s: w(%lld) = %lld, reference %lld\n", label, (long long)i, (long long)got, (long long)ref);
                bad = 1;
            }
        }
    }
    free(idx);
    return bad;
}

/* Compare psv_mxv with the reference for one semiring/type/variant on matrix a (values a.vals). */
static void check_one(const coo *a, psv_matrix *A, psv_type t, int add, int mul, const variant *v,
                      const char *label) {
    const int64_t out_n = v->transpose ? a->ncols : a->nrows, in_n = v->transpose ? a->nrows : a->ncols;
    const size_t ts = psv_type_size(t);
    int ca = t == PSV_BOOL ? bool_op(add) : add, cm = t == PSV_BOOL ? bool_op(mul) : mul;
    int cacc = v->accum == PSV_NOOP ? PSV_NOOP : (t == PSV_BOOL ? bool_op(v->accum) : v->accum);
    uint64_t st = (uint64_t)(add * 131 + mul * 17 + t) * 7919u + (uint64_t)v->mask * 3 + 1;
    /* inputs */
    check_arrays r = {out_n, in_n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    r.uref = malloc(sizeof(double) * (size_t)(in_n + 1));
    r.upres = malloc((size_t)in_n + 1);
    r.wref = malloc(sizeof(double) * (size_t)(out_n + 1));
    r.wpres = malloc((size_t)out_n + 1);
    r.mref = malloc(sizeof(double) * (size_t)(out_n + 1));
    r.mpres = malloc((size_t)out_n + 1);
    r.buf = malloc(ts * (size_t)(in_n + out_n + 1));
    psv_vector *u = NULL, *w = NULL, *m = NULL;
    make_inputs(&r, t, v, &st, &u, &w, &m);
    psv_semiring *s = NULL;
    REQUIRE(psv_semiring_create(ctx, add, mul, t, &s) == PSV_SUCCESS);
    int32_t desc = (v->transpose ? PSV_DESC_TRANSPOSE_A : 0) | (v->complement ? PSV_DESC_MASK_COMPLEMENT : 0) |
                   (v->mask == 2 ? PSV_DESC_MASK_STRUCTURE : 0) | (v->replace ? PSV_DESC_REPLACE : 0);
    psv_status st1 = psv_mxv(w, m, v->accum, s, A, u, desc);
    CHECK_MSG(st1 == PSV_SUCCESS, "%s: psv_mxv returned %d: %s", label, (int)st1, psv_context_last_error(ctx));

    reference_product(&r, a, t, ca, cm, v);
    reference_mask_accum(&r, t, cacc, v);
    int bad = compare_with_reference(&r, w, t, label);
    ++check_count;
    ++checks_run;
    if (bad) ++check_failures;
    free(r.tref);
    free(r.tint);
    free(r.tmag);
    free(r.tpres);
    free(r.uref);
    free(r.upres);
    free(r.wref);
    free(r.wpres);
    free(r.mref);
    free(r.mpres);
    free(r.buf);
    psv_semiring_free(&s);
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_vector_free(&m);
}

static psv_matrix *build_typed(coo *a, psv_type t, int pattern, uint64_t seed) {
    const size_t ts = psv_type_size(t);
    void *vals = malloc(ts * (size_t)(a->nvals + 1));
    uint64_t s = seed;
    for (int64_t e = 0; e < a->nvals; ++e) {
        a->vals[e] = pattern ? 1 : gen_value(t, &s);
        store(t, vals, e, a->vals[e]);
    }
    psv_matrix *A = NULL;
    psv_status st = psv_matrix_build(ctx, t, a->nrows, a->ncols, a->nvals, a->rows, a->cols, pattern ? NULL : vals,
                                     PSV_NOOP, &A);
    REQUIRE(st == PSV_SUCCESS);
    free(vals);
    return A;
}

/* The operators under test come from the library's table (a new one is swept without an edit
 * here): every monoid as add, every monoid or BINARY operator as multiply. The reference
 * arithmetic above stays written out, independent of the table. */
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) PSV_TEST_ADD_##KIND(PSV_##NAME)
#define PSV_TEST_ADD_MONOID(op) op,
#define PSV_TEST_ADD_BINARY(op)
#define PSV_TEST_ADD_EWISE(op)
static const int adds[] = {
#include "../../src/core/operators.def"
};
#undef PSV_OPERATOR
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) PSV_TEST_MUL_##KIND(PSV_##NAME)
#define PSV_TEST_MUL_MONOID(op) op,
#define PSV_TEST_MUL_BINARY(op) op,
#define PSV_TEST_MUL_EWISE(op)
static const int muls[] = {
#include "../../src/core/operators.def"
};
#undef PSV_OPERATOR
#define NADDS (sizeof adds / sizeof adds[0])
#define NMULS (sizeof muls / sizeof muls[0])
static const psv_type types[] = {PSV_BOOL, PSV_INT32, PSV_INT64, PSV_FP32, PSV_FP64};

static const variant variants[] = {
    {0, 0, 0, 0, PSV_NOOP, 0}, {0, 0, 0, 1, PSV_NOOP, 0}, {1, 0, 0, 0, PSV_NOOP, 0},
    {1, 1, 0, 0, PSV_PLUS, 0}, {2, 0, 1, 0, PSV_NOOP, 0}, {2, 1, 1, 1, PSV_MIN, 0},
    {0, 0, 0, 0, PSV_MAX, 1},  {1, 0, 1, 1, PSV_NOOP, 1}, {0, 1, 0, 0, PSV_NOOP, 0},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* Every semiring x type on matrix a, each with every variant (all = 1) or a rotating subset. */
static void sweep(coo *a, const char *name, int all, int pattern_too) {
    char label[256];
    for (size_t ti = 0; ti < 5; ++ti) {
        for (int pat = 0; pat <= pattern_too; ++pat) {
            psv_type t = types[ti];
            psv_matrix *A = build_typed(a, t, pat, 99 + ti);
            for (size_t ai = 0; ai < NADDS; ++ai)
                for (size_t mi = 0; mi < NMULS; ++mi) {
                    for (size_t vi = 0; vi < NVARIANTS; ++vi) {
                        if (!all && vi != 0 && vi != (ai * NMULS + mi + ti) % NVARIANTS) continue;
                        snprintf(label, sizeof label, "%s type %d%s add %d mul %d variant %zu", name, (int)t,
                                 pat ? " pattern" : "", adds[ai], muls[mi], vi);
                        check_one(a, A, t, adds[ai], muls[mi], &variants[vi], label);
                    }
                }
            psv_matrix_free(&A);
        }
    }
}

/* The same product under several format options gives the same result (and the reference's). */
static void formats(coo *a, const char *name) {
    const int64_t opts[][3] = {{0, -1, 0}, {4, -1, 0}, {4, -1, 3}, {8, 2, 64}, {3, -1, 1}, {16, 0, 0}};
    char label[256];
    for (size_t o = 0; o < sizeof opts / sizeof opts[0]; ++o) {
        static const int kernels[] = {PSV_KERNEL_AUTO, PSV_KERNEL_TILE_COMPOSITE, PSV_KERNEL_TILE_COO, PSV_KERNEL_CSR,
                                      PSV_KERNEL_SELL};
        for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ++ki) {
            const int kernel = kernels[ki];
            psv_matrix *A = build_typed(a, PSV_FP32, 0, 7);
            REQUIRE(psv_matrix_set_option(A, PSV_OPT_TILE_WIDTH, opts[o][0]) == PSV_SUCCESS);
            REQUIRE(psv_matrix_set_option(A, PSV_OPT_MAX_TILES, opts[o][1]) == PSV_SUCCESS);
            REQUIRE(psv_matrix_set_option(A, PSV_OPT_WORKLOAD_SIZE, opts[o][2]) == PSV_SUCCESS);
            REQUIRE(psv_matrix_set_option(A, PSV_OPT_KERNEL, kernel) == PSV_SUCCESS);
            psv_matrix_info info;
            REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
            if (opts[o][0] == 4 && a->ncols >= 8) CHECK_MSG(info.dense_tiles >= 1, "%s: tile width 4 gave no dense tile", name);
            for (size_t vi = 0; vi < NVARIANTS; ++vi) {
                snprintf(label, sizeof label, "%s format %zu kernel %d variant %zu", name, o, kernel, vi);
                check_one(a, A, PSV_FP32, PSV_PLUS, PSV_TIMES, &variants[vi], label);
                check_one(a, A, PSV_FP32, PSV_MIN, PSV_PLUS, &variants[vi], label);
            }
            psv_matrix_free(&A);
        }
    }
}

/* Two products of the same inputs are bit-identical. */
static void determinism(coo *a) {
    psv_matrix *A = build_typed(a, PSV_FP32, 0, 3);
    psv_semiring *s = NULL;
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    psv_vector *u = NULL, *w1 = NULL, *w2 = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, a->ncols, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, a->nrows, &w1) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, a->nrows, &w2) == PSV_SUCCESS);
    float *x = malloc(sizeof(float) * (size_t)(a->ncols + a->nrows * 2 + 1));
    for (int64_t j = 0; j < a->ncols; ++j) x[j] = (float)(1.0 / (double)(j + 3));
    REQUIRE(psv_vector_set(u, x, a->ncols) == PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(w1, NULL, PSV_NOOP, s, A, u, 0), PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(w2, NULL, PSV_NOOP, s, A, u, 0), PSV_SUCCESS);
    float *y1 = x + a->ncols, *y2 = y1 + a->nrows;
    REQUIRE(psv_vector_get(w1, y1, a->nrows) == PSV_SUCCESS);
    REQUIRE(psv_vector_get(w2, y2, a->nrows) == PSV_SUCCESS);
    CHECK(memcmp(y1, y2, sizeof(float) * (size_t)a->nrows) == 0);
    free(x);
    psv_vector_free(&u);
    psv_vector_free(&w1);
    psv_vector_free(&w2);
    psv_semiring_free(&s);
    psv_matrix_free(&A);
}

int main(void) {
    B = test_backend();
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    /* small tiles so even small matrices have dense tiles and both workload layouts */
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, 8) == PSV_SUCCESS);
    coo r1 = random_coo(203, 151, 12, 1);
    sweep(&r1, "random 203x151", 1, 1);
    formats(&r1, "random 203x151");
    determinism(&r1);
    coo r2 = random_coo(40, 400, 9, 2); /* wide */
    sweep(&r2, "random 40x400", 0, 0);
    free_coo(&r1);
    free_coo(&r2);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, 0) == PSV_SUCCESS);
    const char *graphs[] = {"karate.mtx", "west0067.mtx", "email-Eu-core.txt.gz"};
    for (int g = 0; g < 3; ++g) {
        coo a = read_coo(test_data(graphs[g]));
        sweep(&a, graphs[g], 0, 1);
        formats(&a, graphs[g]);
        free_coo(&a);
    }
    fprintf(stderr, "%ld products checked\n", checks_run);
    psv_context_free(&ctx);
    return check_exit();
}
