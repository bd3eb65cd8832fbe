/* Handles: every API function, given a freed handle, a garbage pointer (including a fake object
 * that carries the right magic number), an object of another kind, an object whose context was
 * freed, or an object of another context, returns an error code -- never crashes (under ASan:
 * never reads freed memory). Double frees are harmless. test_api.c covers the basic cases; this
 * goes through every function and argument position. Runs on the backend of PSV_TEST_BACKEND. */
#include "psv/psv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static psv_backend B;

/* Valid objects of the main context, made before any handle is freed: a freed handle's address
 * may be reused by the next object of its kind (then it is a live handle again -- no registry
 * can tell that apart), so the probes below create no psv object of their own. */
static struct {
    psv_vector *w, *u;
    psv_semiring *s;
    psv_matrix *A;
} F;

/* Every matrix-taking call, with M in the matrix position; the rest valid (of context ctx). */
static void all_matrix_calls(const psv_matrix *M, psv_context *ctx, psv_status want) {
    int64_t x = -9, n = 100;
    psv_type t = -9;
    int32_t p = -9, iters = -9;
    psv_matrix_info info;
    psv_tile_info tinfo;
    psv_vector *w = F.w, *u = F.u, *r = NULL, *r2 = NULL;
    psv_semiring *s = F.s;
    (void)ctx;
    CHECK_STATUS(psv_matrix_nrows(M, &x), want);
    CHECK_STATUS(psv_matrix_ncols(M, &x), want);
    CHECK_STATUS(psv_matrix_nvals(M, &x), want);
    CHECK_STATUS(psv_matrix_type(M, &t), want);
    CHECK_STATUS(psv_matrix_is_pattern(M, &p), want);
    CHECK_STATUS(psv_matrix_extract_tuples(M, NULL, NULL, NULL, &n), want);
    CHECK_STATUS(psv_matrix_set_option((psv_matrix *)M, PSV_OPT_TILE_WIDTH, 2), want);
    CHECK_STATUS(psv_matrix_info_get(M, &info), want);
    CHECK_STATUS(psv_matrix_tile_info(M, 0, &tinfo), want);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s, M, u, 0), want);
    CHECK_STATUS(psv_pagerank(&r, &iters, M, 0.85, 1e-6, 10), want);
    CHECK_STATUS(psv_pagerank_personalized(&r, &iters, M, u, 0.85, 1e-6, 10), want);
    CHECK_STATUS(psv_hits(&r, &r2, &iters, M, 1e-6, 10), want);
    CHECK_STATUS(psv_rwr(&r, &iters, M, 0, 0.9, 1e-6, 10), want);
    float out[4] = {-9, -9, -9, -9};
    int64_t q = 0;
    CHECK_STATUS(psv_rwr_batch(out, &iters, M, &q, 1, 0.9, 1e-6, 10), want);
    CHECK(x == -9 && t == -9 && p == -9 && iters == -9 && n == 100 && r == NULL && r2 == NULL);
    CHECK(out[0] == -9 && out[3] == -9);
}

/* Every vector-taking call, with V in each vector position in turn. */
static void all_vector_calls(psv_vector *V, psv_context *ctx, psv_status want) {
    int64_t x = -9, n = 100, idx = 0;
    psv_type t = -9;
    float f[4] = {-9, -9, -9, -9}, one = 1, res = -9;
    psv_vector *w = F.w, *u = F.u, *r = NULL;
    psv_semiring *s = F.s;
    psv_matrix *A = F.A;
    int32_t iters = -9;
    (void)ctx;
    CHECK_STATUS(psv_vector_size(V, &x), want);
    CHECK_STATUS(psv_vector_nvals(V, &x), want);
    CHECK_STATUS(psv_vector_type(V, &t), want);
    CHECK_STATUS(psv_vector_set(V, f, 4), want);
    CHECK_STATUS(psv_vector_get(V, f, 4), want);
    CHECK_STATUS(psv_vector_set_device(V, f, 4), want);
    CHECK_STATUS(psv_vector_get_device(V, f, 4), want);
    CHECK_STATUS(psv_vector_fill(V, &one), want);
    CHECK_STATUS(psv_vector_build(V, &idx, &one, 1), want);
    CHECK_STATUS(psv_vector_clear(V), want);
    CHECK_STATUS(psv_vector_set_element(V, 0, &one), want);
    CHECK_STATUS(psv_vector_get_element(V, 0, &res), want);
    CHECK_STATUS(psv_vector_extract_tuples(V, &idx, f, &n), want);
    CHECK_STATUS(psv_vector_ewise(V, PSV_PLUS, u, u), want);
    CHECK_STATUS(psv_vector_ewise(w, PSV_PLUS, V, u), want);
    CHECK_STATUS(psv_vector_ewise(w, PSV_PLUS, u, V), want);
    CHECK_STATUS(psv_vector_apply(V, PSV_PLUS, u, &one), want);
    CHECK_STATUS(psv_vector_apply(w, PSV_PLUS, V, &one), want);
    CHECK_STATUS(psv_vector_reduce(&res, PSV_PLUS, V), want);
    CHECK_STATUS(psv_mxv(V, NULL, PSV_NOOP, s, A, u, 0), want);
    CHECK_STATUS(psv_mxv(w, V, PSV_NOOP, s, A, u, 0), want);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s, A, V, 0), want);
    CHECK_STATUS(psv_pagerank_personalized(&r, &iters, A, V, 0.85, 1e-6, 10), want);
    CHECK(x == -9 && t == -9 && n == 100 && idx == 0 && res == -9 && r == NULL && iters == -9);
}

static void all_semiring_calls(const psv_semiring *S, psv_context *ctx, psv_status want) {
    (void)ctx;
    CHECK_STATUS(psv_mxv(F.w, NULL, PSV_NOOP, S, F.A, F.u, 0), want);
}

static void all_context_calls(psv_context *C, psv_status want) {
    psv_backend b = -9;
    psv_semiring *s = NULL;
    psv_matrix *A = NULL;
    psv_vector *v = NULL;
    int64_t rr[] = {0}, cc[] = {1};
    CHECK_STATUS(psv_context_backend(C, &b), want);
    CHECK_STATUS(psv_context_set_option(C, PSV_OPT_TILE_WIDTH, 4), want);
    CHECK_STATUS(psv_semiring_create(C, PSV_PLUS, PSV_TIMES, PSV_FP32, &s), want);
    CHECK_STATUS(psv_matrix_build(C, PSV_FP32, 2, 2, 1, rr, cc, NULL, PSV_NOOP, &A), want);
    CHECK_STATUS(psv_matrix_read(C, test_data("karate.mtx"), &A), want);
    CHECK_STATUS(psv_vector_create(C, PSV_FP32, 2, &v), want);
    CHECK(b == -9 && s == NULL && A == NULL && v == NULL);
    const char *msg = psv_context_last_error(C);
    CHECK(msg != NULL && strstr(msg, "not a live") != NULL);
}

/* A fake object: the layout starts with a magic number, as the real ones do; it is not
 * registered, so it must be refused without being trusted. */
struct fake {
    uint64_t magic;
    void *junk[8];
};

/* ---- freed handles (use after free), then double free ---- */
static void freed_handles(psv_context *ctx) {
    psv_matrix *A = NULL;
    psv_vector *v = NULL;
    psv_semiring *s = NULL;
    psv_context *c = NULL;
    int64_t rr[] = {0, 1, 2, 3}, cc[] = {1, 2, 3, 0};
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 4, 4, 4, rr, cc, NULL, PSV_NOOP, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &v) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    REQUIRE(psv_context_create(B, 0, &c) == PSV_SUCCESS);
    psv_matrix *A2 = A;
    psv_vector *v2 = v;
    psv_semiring *s2 = s;
    psv_context *c2 = c;
    psv_matrix_free(&A);
    psv_vector_free(&v);
    psv_semiring_free(&s);
    psv_context_free(&c);
    CHECK(A == NULL && v == NULL && s == NULL && c == NULL);
    /* the stale copies (no psv object is created from here on, so no address is reused) */
    int64_t x = -9;
    CHECK_STATUS(psv_matrix_nvals(A2, &x), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK_STATUS(psv_vector_size(v2, &x), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK_STATUS(psv_context_backend(c2, &(psv_backend){0}), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK(x == -9);
    all_matrix_calls(A2, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_vector_calls(v2, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_semiring_calls(s2, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_context_calls(c2, PSV_ERROR_UNINITIALIZED_OBJECT);
    /* double free through the stale copies: ignored, the copies left as they are */
    psv_matrix_free(&A2);
    psv_vector_free(&v2);
    psv_semiring_free(&s2);
    psv_context_free(&c2);
    CHECK(A2 != NULL && v2 != NULL && s2 != NULL && c2 != NULL);
}

/* ---- garbage pointers ---- */
static void garbage_pointers(psv_context *ctx) {
    struct fake *heap = (struct fake *)malloc(sizeof(struct fake));
    REQUIRE(heap != NULL);
    memset(heap, 0xa5, sizeof *heap);
    const uint64_t magics[] = {0x7073762d63747831ull, 0x7073762d6d617431ull, 0x7073762d76656331ull,
                               0x7073762d73656d31ull};
    void *ptrs[] = {(void *)1, (void *)(uintptr_t)-1, (void *)(uintptr_t)0xdeadbeef, heap};
    for (int m = 0; m < 4; ++m) {
        heap->magic = magics[m]; /* a forged header with each kind's magic */
        for (int k = 0; k < 4; ++k) {
            all_matrix_calls((psv_matrix *)ptrs[k], ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
            all_vector_calls((psv_vector *)ptrs[k], ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
            all_semiring_calls((psv_semiring *)ptrs[k], ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
            all_context_calls((psv_context *)ptrs[k], PSV_ERROR_UNINITIALIZED_OBJECT);
            psv_matrix *gm = (psv_matrix *)ptrs[k];
            psv_vector *gv = (psv_vector *)ptrs[k];
            psv_semiring *gs = (psv_semiring *)ptrs[k];
            psv_context *gc = (psv_context *)ptrs[k];
            psv_matrix_free(&gm);
            psv_vector_free(&gv);
            psv_semiring_free(&gs);
            psv_context_free(&gc);
            CHECK(gm == ptrs[k] && gv == ptrs[k] && gs == ptrs[k] && gc == ptrs[k]);
        }
    }
    free(heap);
}

/* ---- objects of the wrong kind ---- */
static void wrong_kind(psv_context *ctx) {
    psv_matrix *A = NULL;
    psv_vector *v = NULL;
    psv_semiring *s = NULL;
    int64_t rr[] = {0}, cc[] = {1};
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 2, 2, 1, rr, cc, NULL, PSV_NOOP, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 2, &v) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    all_matrix_calls((psv_matrix *)v, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_matrix_calls((psv_matrix *)ctx, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_vector_calls((psv_vector *)A, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_vector_calls((psv_vector *)s, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_semiring_calls((psv_semiring *)v, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_context_calls((psv_context *)A, PSV_ERROR_UNINITIALIZED_OBJECT);
    /* freeing through the wrong kind's free is ignored; the objects stay usable */
    psv_matrix *vm = (psv_matrix *)v;
    psv_vector *sv = (psv_vector *)s;
    psv_vector_free(&sv);
    psv_matrix_free(&vm);
    CHECK(vm == (psv_matrix *)v && sv == (psv_vector *)s);
    int64_t n = 0;
    CHECK_STATUS(psv_vector_size(v, &n), PSV_SUCCESS);
    CHECK(n == 2);
    psv_matrix_free(&A);
    psv_vector_free(&v);
    psv_semiring_free(&s);
}

/* ---- objects of another context: mixing is PSV_ERROR_CONTEXT_MISMATCH ---- */
static void other_context(psv_context *ctx, psv_context **other) {
    psv_matrix *A = NULL;
    psv_vector *v = NULL;
    psv_semiring *s = NULL;
    int64_t rr[] = {0, 1, 2, 3}, cc[] = {1, 2, 3, 0};
    REQUIRE(psv_matrix_build(*other, PSV_FP32, 4, 4, 4, rr, cc, NULL, PSV_NOOP, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(*other, PSV_FP32, 4, &v) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(*other, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    psv_vector *w = NULL, *u = NULL, *r = NULL;
    psv_semiring *s1 = NULL;
    psv_matrix *A1 = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &w) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &u) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s1) == PSV_SUCCESS);
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 4, 4, 4, rr, cc, NULL, PSV_NOOP, &A1) == PSV_SUCCESS);
    float one = 1;
    psv_vector_fill(u, &one);
    psv_vector_fill(v, &one);
    int32_t it = -9;
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s1, A, u, 0), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s, A1, u, 0), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s1, A1, v, 0), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_mxv(w, v, PSV_NOOP, s1, A1, u, 0), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_mxv(v, NULL, PSV_NOOP, s1, A1, u, 0), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_vector_ewise(w, PSV_PLUS, u, v), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_vector_ewise(w, PSV_PLUS, v, u), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_vector_apply(w, PSV_PLUS, v, &one), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_pagerank_personalized(&r, &it, A1, v, 0.85, 1e-6, 10), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK_STATUS(psv_pagerank_personalized(&r, &it, A, u, 0.85, 1e-6, 10), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK(r == NULL && it == -9);
    /* the message is recorded in the context of the first object */
    CHECK(strstr(psv_context_last_error(ctx), "another context") != NULL);
    psv_vector_free(&w);
    psv_vector_free(&u);
    psv_semiring_free(&s1);
    psv_matrix_free(&A1);

    /* ---- the context freed before its objects: unusable, still freeable ---- */
    psv_context_free(other);
    all_matrix_calls(A, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_vector_calls(v, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    all_semiring_calls(s, ctx, PSV_ERROR_UNINITIALIZED_OBJECT);
    psv_matrix_free(&A);
    psv_vector_free(&v);
    psv_semiring_free(&s);
    CHECK(A == NULL && v == NULL && s == NULL);
}

/* the good context still works after all this */
static void still_works(psv_context *ctx) {
    psv_matrix *A = NULL;
    psv_vector *w = NULL, *u = NULL;
    psv_semiring *s = NULL;
    int64_t rr[] = {0, 1}, cc[] = {1, 0};
    float uv[2] = {3, 5}, wv[2] = {0, 0};
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 2, 2, 2, rr, cc, NULL, PSV_NOOP, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 2, &w) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 2, &u) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    CHECK_STATUS(psv_vector_set(u, uv, 2), PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s, A, u, 0), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(w, wv, 2), PSV_SUCCESS);
    CHECK(wv[0] == 5 && wv[1] == 3);
    psv_matrix_free(&A);
    psv_vector_free(&w);
    psv_vector_free(&u);
    psv_semiring_free(&s);
}

int main(void) {
    B = test_backend();
    psv_context *ctx = NULL, *other = NULL;
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    REQUIRE(psv_context_create(B, 0, &other) == PSV_SUCCESS);
    {
        int64_t rr[] = {0, 1, 2, 3}, cc[] = {1, 2, 3, 0};
        float one = 1;
        REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &F.w) == PSV_SUCCESS);
        REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &F.u) == PSV_SUCCESS);
        REQUIRE(psv_vector_fill(F.u, &one) == PSV_SUCCESS);
        REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &F.s) == PSV_SUCCESS);
        REQUIRE(psv_matrix_build(ctx, PSV_FP32, 4, 4, 4, rr, cc, NULL, PSV_NOOP, &F.A) == PSV_SUCCESS);
    }

    freed_handles(ctx);
    garbage_pointers(ctx);
    wrong_kind(ctx);
    other_context(ctx, &other);
    still_works(ctx);
    psv_vector_free(&F.w);
    psv_vector_free(&F.u);
    psv_semiring_free(&F.s);
    psv_matrix_free(&F.A);
    psv_context_free(&ctx);
    return check_exit();
}
