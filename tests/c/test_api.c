/* The C ABI's contract: every error path (NULLs, freed and garbage handles, bad dimensions and
 * types, mixed contexts), outputs untouched on failure, NULL-safe frees. Runs on the backend of
 * PSV_TEST_BACKEND. */
#include "psv/psv.h"

#include <stdint.h>
#include <string.h>

#include "check.h"

static psv_backend B;

/* A 3x4 FP64 matrix: (0,0)=1 (0,2)=2 (1,1)=3 (2,0)=4 (2,3)=5 */
static psv_matrix *small_matrix(psv_context *ctx) {
    int64_t r[] = {2, 0, 1, 0, 2}, c[] = {3, 0, 1, 2, 0};
    double v[] = {5, 1, 3, 2, 4};
    psv_matrix *A = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP64, 3, 4, 5, r, c, v, PSV_NOOP, &A) == PSV_SUCCESS);
    return A;
}

static void test_versions_and_strings(void) {
    CHECK(psv_version_number() == PSV_VERSION_NUMBER);
    CHECK(PSV_VERSION_NUMBER == 100);
    const psv_status all[] = {PSV_SUCCESS, PSV_NO_VALUE, PSV_NOT_CONVERGED, PSV_ERROR_UNINITIALIZED_OBJECT,
                              PSV_ERROR_NULL_POINTER, PSV_ERROR_INVALID_VALUE, PSV_ERROR_INVALID_INDEX,
                              PSV_ERROR_DOMAIN_MISMATCH, PSV_ERROR_DIMENSION_MISMATCH, PSV_ERROR_NOT_IMPLEMENTED,
                              PSV_ERROR_PANIC, PSV_ERROR_OUT_OF_MEMORY, PSV_ERROR_INSUFFICIENT_SPACE,
                              PSV_ERROR_INVALID_OBJECT, PSV_ERROR_DUPLICATE_ENTRY, PSV_ERROR_CONTEXT_MISMATCH,
                              PSV_ERROR_BACKEND_UNAVAILABLE, PSV_ERROR_IO, PSV_ERROR_PARSE, PSV_ERROR_DEVICE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        const char *s = psv_status_string(all[i]);
        CHECK(s != NULL && strncmp(s, "PSV_", 4) == 0);
    }
    CHECK(strcmp(psv_status_string(12345), "unknown psv_status") == 0);
    /* frozen values */
    CHECK(PSV_ERROR_NULL_POINTER == -2 && PSV_ERROR_OUT_OF_MEMORY == -102 && PSV_NOT_CONVERGED == 2);
    CHECK(psv_type_size(PSV_BOOL) == 1 && psv_type_size(PSV_INT32) == 4 && psv_type_size(PSV_INT64) == 8);
    CHECK(psv_type_size(PSV_FP32) == 4 && psv_type_size(PSV_FP64) == 8 && psv_type_size(0) == 0);
}

static void test_context(void) {
    psv_context *ctx = (psv_context *)0x1;
    CHECK_STATUS(psv_context_create(B, 0, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_context_create(7, 0, &ctx), PSV_ERROR_INVALID_VALUE);
    CHECK(ctx == (psv_context *)0x1); /* untouched on failure */
    CHECK_STATUS(psv_context_create(B, -1, &ctx), PSV_ERROR_INVALID_VALUE);
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        CHECK_STATUS(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx), PSV_ERROR_BACKEND_UNAVAILABLE);
        CHECK(ctx == (psv_context *)0x1);
    }
    CHECK(psv_backend_available(PSV_BACKEND_CPU) == 1);
    CHECK(psv_backend_available(99) == 0);
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    psv_backend b = -1;
    CHECK_STATUS(psv_context_backend(ctx, &b), PSV_SUCCESS);
    CHECK(b == B);
    CHECK_STATUS(psv_context_backend(ctx, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_context_backend(NULL, &b), PSV_ERROR_NULL_POINTER);
    CHECK(strcmp(psv_context_last_error(ctx), "psv_context_backend: backend is NULL") == 0);
    CHECK_STATUS(psv_context_set_option(ctx, 999, 1), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, -5), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_KERNEL, 17), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_MAX_TILES, -2), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, 64), PSV_SUCCESS);
    CHECK(strcmp(psv_context_last_error(NULL), "(NULL context)") == 0);
    psv_context_free(&ctx);
    CHECK(ctx == NULL);
    psv_context_free(&ctx); /* NULL-safe */
    psv_context_free(NULL);
}

static void test_semiring(psv_context *ctx) {
    psv_semiring *s = (psv_semiring *)0x1;
    CHECK_STATUS(psv_semiring_create(NULL, PSV_PLUS, PSV_TIMES, PSV_FP32, &s), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_MINUS, PSV_TIMES, PSV_FP32, &s), PSV_ERROR_DOMAIN_MISMATCH);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_FIRST, PSV_TIMES, PSV_FP32, &s), PSV_ERROR_DOMAIN_MISMATCH);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_PLUS, PSV_ABSDIFF, PSV_FP32, &s), PSV_ERROR_DOMAIN_MISMATCH);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_NOOP, PSV_TIMES, PSV_FP32, &s), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_PLUS, 99, PSV_FP32, &s), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, 0, &s), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, 6, &s), PSV_ERROR_INVALID_VALUE);
    CHECK(s == (psv_semiring *)0x1);
    /* MINUS on bool is LXOR, a monoid (GraphBLAS renaming) */
    CHECK_STATUS(psv_semiring_create(ctx, PSV_MINUS, PSV_TIMES, PSV_BOOL, &s), PSV_SUCCESS);
    psv_semiring_free(&s);
    CHECK(s == NULL);
    psv_semiring_free(&s);
    psv_semiring_free(NULL);
}

static void test_matrix_build(psv_context *ctx) {
    int64_t r[] = {0, 1, 1}, c[] = {1, 0, 1};
    double v[] = {1, 2, 3};
    psv_matrix *A = (psv_matrix *)0x1;
    CHECK_STATUS(psv_matrix_build(NULL, PSV_FP64, 2, 2, 3, r, c, v, PSV_NOOP, &A), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, r, c, v, PSV_NOOP, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, NULL, c, v, PSV_NOOP, &A), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, r, NULL, v, PSV_NOOP, &A), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_build(ctx, 42, 2, 2, 3, r, c, v, PSV_NOOP, &A), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, -1, 2, 3, r, c, v, PSV_NOOP, &A), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, (int64_t)1 << 31, 3, r, c, v, PSV_NOOP, &A), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, -3, r, c, v, PSV_NOOP, &A), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, r, c, v, 77, &A), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 1, 3, r, c, v, PSV_NOOP, &A), PSV_ERROR_INVALID_INDEX);
    CHECK(strstr(psv_context_last_error(ctx), "tuple 0: (0, 1)") != NULL);
    int64_t rneg[] = {0, -1, 1};
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, rneg, c, v, PSV_NOOP, &A), PSV_ERROR_INVALID_INDEX);
    int64_t rd[] = {0, 1, 0}, cd[] = {1, 0, 1};
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, rd, cd, v, PSV_NOOP, &A), PSV_ERROR_DUPLICATE_ENTRY);
    CHECK(A == (psv_matrix *)0x1); /* untouched by every failure above */

    /* duplicates combined in input order by dup; a pattern's count once */
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 2, 2, 3, rd, cd, v, PSV_MINUS, &A), PSV_SUCCESS);
    int64_t n = 2, er[2], ec[2];
    double ev[2];
    CHECK_STATUS(psv_matrix_extract_tuples(A, er, ec, ev, &n), PSV_SUCCESS);
    CHECK(n == 2 && er[0] == 0 && ec[0] == 1 && ev[0] == 1.0 - 3.0 && er[1] == 1 && ec[1] == 0 && ev[1] == 2.0);
    psv_matrix_free(&A);
    CHECK(A == NULL);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_INT32, 2, 2, 3, rd, cd, NULL, PSV_NOOP, &A), PSV_SUCCESS);
    int64_t nv = -1;
    int32_t pat = -1;
    CHECK_STATUS(psv_matrix_nvals(A, &nv), PSV_SUCCESS);
    CHECK(nv == 2);
    CHECK_STATUS(psv_matrix_is_pattern(A, &pat), PSV_SUCCESS);
    CHECK(pat == 1);
    int32_t iv[2] = {0, 0};
    n = 2;
    CHECK_STATUS(psv_matrix_extract_tuples(A, NULL, NULL, iv, &n), PSV_SUCCESS);
    CHECK(iv[0] == 1 && iv[1] == 1);
    psv_matrix_free(&A);

    /* empty matrices are fine */
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP32, 0, 0, 0, NULL, NULL, NULL, PSV_NOOP, &A), PSV_SUCCESS);
    psv_matrix_free(&A);
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP32, 5, 3, 0, NULL, NULL, NULL, PSV_NOOP, &A), PSV_SUCCESS);
    psv_matrix_info info;
    CHECK_STATUS(psv_matrix_info_get(A, &info), PSV_SUCCESS);
    CHECK(info.nrows == 5 && info.ncols == 3 && info.nvals == 0 && info.workloads == 0);
    psv_matrix_free(&A);
    psv_matrix_free(&A);
    psv_matrix_free(NULL);
}

static void test_matrix_queries(psv_context *ctx) {
    psv_matrix *A = small_matrix(ctx);
    int64_t x = -1;
    psv_type t = 0;
    CHECK_STATUS(psv_matrix_nrows(A, &x), PSV_SUCCESS);
    CHECK(x == 3);
    CHECK_STATUS(psv_matrix_ncols(A, &x), PSV_SUCCESS);
    CHECK(x == 4);
    CHECK_STATUS(psv_matrix_nvals(A, &x), PSV_SUCCESS);
    CHECK(x == 5);
    CHECK_STATUS(psv_matrix_type(A, &t), PSV_SUCCESS);
    CHECK(t == PSV_FP64);
    CHECK_STATUS(psv_matrix_nrows(A, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_nrows(NULL, &x), PSV_ERROR_NULL_POINTER);

    int64_t r[5], c[5], n = 4;
    double v[5];
    CHECK_STATUS(psv_matrix_extract_tuples(A, r, c, v, &n), PSV_ERROR_INSUFFICIENT_SPACE);
    CHECK(n == 4);
    CHECK_STATUS(psv_matrix_extract_tuples(A, r, c, v, NULL), PSV_ERROR_NULL_POINTER);
    n = 5;
    CHECK_STATUS(psv_matrix_extract_tuples(A, r, c, v, &n), PSV_SUCCESS);
    const int64_t er[] = {0, 0, 1, 2, 2}, ec[] = {0, 2, 1, 0, 3};
    const double ev[] = {1, 2, 3, 4, 5};
    CHECK(n == 5);
    for (int i = 0; i < 5; ++i) CHECK(r[i] == er[i] && c[i] == ec[i] && v[i] == ev[i]);

    psv_tile_info ti;
    psv_matrix_info info;
    CHECK_STATUS(psv_matrix_info_get(A, &info), PSV_SUCCESS);
    CHECK(info.nvals == 5 && info.backend == B && info.stored_entries >= 5 && info.padding_ratio >= 1.0);
    CHECK_STATUS(psv_matrix_info_get(A, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_tile_info(A, -1, &ti), PSV_ERROR_INVALID_INDEX);
    CHECK_STATUS(psv_matrix_tile_info(A, info.dense_tiles + info.sparse_tile, &ti), PSV_ERROR_INVALID_INDEX);
    CHECK_STATUS(psv_matrix_tile_info(A, 0, &ti), PSV_SUCCESS);
    CHECK_STATUS(psv_matrix_set_option(A, PSV_OPT_WORKLOAD_SIZE, -1), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_set_option(A, 0, 1), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_set_option(A, PSV_OPT_TILE_WIDTH, 2), PSV_SUCCESS);
    CHECK_STATUS(psv_matrix_set_option(A, PSV_OPT_WORKLOAD_SIZE, 3), PSV_SUCCESS);
    CHECK_STATUS(psv_matrix_info_get(A, &info), PSV_SUCCESS);
    CHECK(info.tile_width == 2 && info.dense_tiles == 1 && info.workload_size == 3);
    CHECK_STATUS(psv_matrix_set_option(A, PSV_OPT_KERNEL, PSV_KERNEL_CSR), PSV_SUCCESS);
    CHECK_STATUS(psv_matrix_info_get(A, &info), PSV_SUCCESS);
    CHECK(info.kernel == PSV_KERNEL_CSR);

    psv_matrix *R = (psv_matrix *)0x1;
    CHECK_STATUS(psv_matrix_read(ctx, "/nonexistent/file.mtx", &R), PSV_ERROR_IO);
    CHECK(R == (psv_matrix *)0x1);
    CHECK_STATUS(psv_matrix_read(ctx, NULL, &R), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_read(ctx, test_data("karate.mtx"), NULL), PSV_ERROR_NULL_POINTER);
    psv_matrix_free(&A);
}

static void test_vectors(psv_context *ctx) {
    psv_vector *v = (psv_vector *)0x1;
    CHECK_STATUS(psv_vector_create(ctx, 0, 3, &v), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_vector_create(ctx, PSV_FP32, -1, &v), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_vector_create(ctx, PSV_FP32, (int64_t)1 << 31, &v), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_vector_create(ctx, PSV_FP32, 3, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_vector_create(NULL, PSV_FP32, 3, &v), PSV_ERROR_NULL_POINTER);
    CHECK(v == (psv_vector *)0x1);
    REQUIRE(psv_vector_create(ctx, PSV_INT64, 4, &v) == PSV_SUCCESS);
    int64_t n = -1, x[4] = {9, 9, 9, 9};
    CHECK_STATUS(psv_vector_nvals(v, &n), PSV_SUCCESS);
    CHECK(n == 0); /* created empty */
    CHECK_STATUS(psv_vector_get(v, x, 4), PSV_SUCCESS);
    CHECK(x[0] == 0 && x[3] == 0); /* absent entries read as zero */
    CHECK_STATUS(psv_vector_get_element(v, 2, &n), PSV_NO_VALUE);
    const int64_t seven = 7;
    CHECK_STATUS(psv_vector_set_element(v, 2, &seven), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_set_element(v, 4, &seven), PSV_ERROR_INVALID_INDEX);
    CHECK_STATUS(psv_vector_set_element(v, -1, &seven), PSV_ERROR_INVALID_INDEX);
    CHECK_STATUS(psv_vector_set_element(v, 0, NULL), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_vector_get_element(v, 2, &n), PSV_SUCCESS);
    CHECK(n == 7);
    CHECK_STATUS(psv_vector_nvals(v, &n), PSV_SUCCESS);
    CHECK(n == 1);
    int64_t idx[4], val[4];
    n = 0;
    CHECK_STATUS(psv_vector_extract_tuples(v, idx, val, &n), PSV_ERROR_INSUFFICIENT_SPACE);
    CHECK(n == 0);
    n = 4;
    CHECK_STATUS(psv_vector_extract_tuples(v, idx, val, &n), PSV_SUCCESS);
    CHECK(n == 1 && idx[0] == 2 && val[0] == 7);
    const int64_t src[4] = {1, 2, 3, 4};
    CHECK_STATUS(psv_vector_set(v, src, 3), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK_STATUS(psv_vector_set(v, NULL, 4), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_vector_set(v, src, 4), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(v, x, 5), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK(x[1] == 0); /* untouched */
    CHECK_STATUS(psv_vector_get(v, x, 4), PSV_SUCCESS);
    CHECK(x[0] == 1 && x[3] == 4);
    int64_t sum = 0;
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_PLUS, v), PSV_SUCCESS);
    CHECK(sum == 10);
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_MINUS, v), PSV_ERROR_DOMAIN_MISMATCH);
    CHECK_STATUS(psv_vector_reduce(NULL, PSV_PLUS, v), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_MAX, v), PSV_SUCCESS);
    CHECK(sum == 4);
    const int64_t two = 2;
    CHECK_STATUS(psv_vector_apply(v, PSV_TIMES, v, &two), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(v, x, 4), PSV_SUCCESS);
    CHECK(x[0] == 2 && x[3] == 8);
    CHECK_STATUS(psv_vector_apply(v, PSV_NOOP, v, &two), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_vector_apply(v, PSV_PLUS, v, NULL), PSV_ERROR_NULL_POINTER);
    psv_vector *f = NULL, *w = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &f) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_INT64, 3, &w) == PSV_SUCCESS);
    CHECK_STATUS(psv_vector_ewise(v, PSV_PLUS, v, f), PSV_ERROR_DOMAIN_MISMATCH);
    CHECK_STATUS(psv_vector_ewise(v, PSV_PLUS, v, w), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK_STATUS(psv_vector_ewise(v, 99, v, v), PSV_ERROR_INVALID_VALUE);
    /* eWiseMult: the intersection of patterns */
    psv_vector *u = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_INT64, 4, &u) == PSV_SUCCESS);
    CHECK_STATUS(psv_vector_set_element(u, 1, &seven), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_ewise(u, PSV_MINUS, v, u), PSV_SUCCESS);
    n = 4;
    CHECK_STATUS(psv_vector_extract_tuples(u, idx, val, &n), PSV_SUCCESS);
    CHECK(n == 1 && idx[0] == 1 && val[0] == 4 - 7);
    CHECK_STATUS(psv_vector_clear(u), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_nvals(u, &n), PSV_SUCCESS);
    CHECK(n == 0);
    CHECK_STATUS(psv_vector_fill(u, &seven), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_nvals(u, &n), PSV_SUCCESS);
    CHECK(n == 4);
    CHECK_STATUS(psv_vector_fill(u, NULL), PSV_ERROR_NULL_POINTER);
    psv_type t;
    CHECK_STATUS(psv_vector_type(f, &t), PSV_SUCCESS);
    CHECK(t == PSV_FP32);
    CHECK_STATUS(psv_vector_size(w, &n), PSV_SUCCESS);
    CHECK(n == 3);
    if (B == PSV_BACKEND_CPU) {
        CHECK_STATUS(psv_vector_set_device(f, (void *)x, 4), PSV_ERROR_BACKEND_UNAVAILABLE);
        CHECK_STATUS(psv_vector_get_device(f, (void *)x, 4), PSV_ERROR_BACKEND_UNAVAILABLE);
    }
    psv_vector_free(&u);
    psv_vector_free(&f);
    psv_vector_free(&w);
    psv_vector_free(&v);
    CHECK(v == NULL);
    psv_vector_free(&v);
    psv_vector_free(NULL);
}

static void test_mxv_errors(psv_context *ctx) {
    psv_matrix *A = small_matrix(ctx); /* 3x4 FP64 */
    psv_semiring *s64 = NULL, *s32 = NULL, *s32second = NULL;
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP64, &s64) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s32) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_SECOND, PSV_FP32, &s32second) == PSV_SUCCESS);
    psv_vector *u = NULL, *w = NULL, *u32 = NULL, *w32 = NULL, *m = NULL, *w4 = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 4, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 3, &w) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 4, &u32) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 3, &w32) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_BOOL, 4, &m) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 4, &w4) == PSV_SUCCESS);
    const double uv[4] = {1, 10, 100, 1000};
    const float uf[4] = {1, 10, 100, 1000};
    REQUIRE(psv_vector_set(u, uv, 4) == PSV_SUCCESS);
    REQUIRE(psv_vector_set(u32, uf, 4) == PSV_SUCCESS);
    const double nine = 9;
    REQUIRE(psv_vector_fill(w, &nine) == PSV_SUCCESS);

    CHECK_STATUS(psv_mxv(NULL, NULL, PSV_NOOP, s64, A, u, 0), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, NULL, A, u, 0), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s64, NULL, u, 0), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s64, A, NULL, 0), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s64, A, u, 64), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_mxv(w, NULL, 42, s64, A, u, 0), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s32, A, u, 0), PSV_ERROR_DOMAIN_MISMATCH);   /* u, w FP64 */
    CHECK_STATUS(psv_mxv(w32, NULL, PSV_NOOP, s32, A, u32, 0), PSV_ERROR_DOMAIN_MISMATCH); /* A FP64 */
    CHECK_STATUS(psv_mxv(w4, NULL, PSV_NOOP, s64, A, u, 0), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s64, A, u, PSV_DESC_TRANSPOSE_A), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK_STATUS(psv_mxv(w, m, PSV_NOOP, s64, A, u, 0), PSV_ERROR_DIMENSION_MISMATCH); /* mask has 4 */
    double got[3];
    CHECK_STATUS(psv_vector_get(w, got, 3), PSV_SUCCESS);
    CHECK(got[0] == 9 && got[1] == 9 && got[2] == 9); /* w untouched by the failures */
    /* SECOND ignores A's values, so an FP64 matrix serves an FP32 semiring */
    CHECK_STATUS(psv_mxv(w32, NULL, PSV_NOOP, s32second, A, u32, 0), PSV_SUCCESS);
    float gf[3];
    CHECK_STATUS(psv_vector_get(w32, gf, 3), PSV_SUCCESS);
    CHECK(gf[0] == 101 && gf[1] == 10 && gf[2] == 1001);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s64, A, u, 0), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(w, got, 3), PSV_SUCCESS);
    CHECK(got[0] == 201 && got[1] == 30 && got[2] == 5004);
    /* w aliasing u through the transpose: w4 = A' w */
    CHECK_STATUS(psv_mxv(w4, NULL, PSV_NOOP, s64, A, w, PSV_DESC_TRANSPOSE_A), PSV_SUCCESS);
    double g4[4];
    CHECK_STATUS(psv_vector_get(w4, g4, 4), PSV_SUCCESS);
    CHECK(g4[0] == 201 + 4 * 5004.0 && g4[1] == 90 && g4[2] == 402 && g4[3] == 5 * 5004.0);

    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_vector_free(&u32);
    psv_vector_free(&w32);
    psv_vector_free(&m);
    psv_vector_free(&w4);
    psv_semiring_free(&s64);
    psv_semiring_free(&s32);
    psv_semiring_free(&s32second);
    psv_matrix_free(&A);
}

static void test_handles(void) {
    psv_context *c1 = NULL, *c2 = NULL;
    REQUIRE(psv_context_create(B, 0, &c1) == PSV_SUCCESS);
    REQUIRE(psv_context_create(B, 0, &c2) == PSV_SUCCESS);
    psv_matrix *A = small_matrix(c1);
    psv_semiring *s = NULL;
    psv_vector *u2 = NULL, *w1 = NULL;
    REQUIRE(psv_semiring_create(c1, PSV_PLUS, PSV_TIMES, PSV_FP64, &s) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(c2, PSV_FP64, 4, &u2) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(c1, PSV_FP64, 3, &w1) == PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(w1, NULL, PSV_NOOP, s, A, u2, 0), PSV_ERROR_CONTEXT_MISMATCH);
    CHECK(strstr(psv_context_last_error(c1), "another context") != NULL);

    /* freed handle: an error code, never a crash; a second free is harmless */
    psv_matrix *stale = A;
    psv_matrix_free(&A);
    int64_t n;
    CHECK_STATUS(psv_matrix_nvals(stale, &n), PSV_ERROR_UNINITIALIZED_OBJECT);
    psv_matrix_free(&stale);
    /* garbage pointers and objects of the wrong kind */
    int64_t junk[16] = {0};
    CHECK_STATUS(psv_matrix_nvals((psv_matrix *)junk, &n), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK_STATUS(psv_matrix_nvals((psv_matrix *)w1, &n), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK_STATUS(psv_vector_size((psv_vector *)s, &n), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK_STATUS(psv_context_backend((psv_context *)junk, &(psv_backend){0}), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK(strcmp(psv_context_last_error((psv_context *)junk), "(not a live psv_context)") == 0);
    psv_matrix *garbage = (psv_matrix *)junk;
    psv_matrix_free(&garbage); /* not ours: ignored */
    CHECK(garbage == (psv_matrix *)junk);

    /* a context freed before its objects: the objects are unusable but still freeable */
    psv_context_free(&c1);
    CHECK_STATUS(psv_vector_size(w1, &n), PSV_ERROR_UNINITIALIZED_OBJECT);
    psv_vector_free(&w1);
    psv_semiring_free(&s);
    CHECK(w1 == NULL && s == NULL);
    psv_vector_free(&u2);
    psv_context_free(&c2);
}

/* The performance model's options and its table: the options are checked on the context and on a
 * matrix; psv_context_tuning and its text describe the table (none on the CPU); psv_context_tune
 * checks its arguments, and on the CPU says it has nothing to tune and leaves the context usable.
 * A valid tune on CUDA is not run here: it would measure the device for minutes and write the
 * user's cache (tests/gpu runs it with a path of its own). */
static void test_tuning(psv_context *ctx) {
    const psv_option opts[] = {PSV_OPT_HOT_COLUMNS, PSV_OPT_RANK_ORDER, PSV_OPT_PLAN_CHOICE};
    const int64_t bad[][2] = {{-2, 2147483648LL}, {-2, 2}, {-1, 2}};
    const int64_t good[][3] = {{-1, 0, 8192}, {-1, 0, 1}, {PSV_CHOICE_MODEL, PSV_CHOICE_RULES, PSV_CHOICE_MODEL}};
    psv_matrix *A = small_matrix(ctx);
    for (int o = 0; o < 3; ++o) {
        for (int k = 0; k < 2; ++k) {
            CHECK_MSG(psv_context_set_option(ctx, opts[o], bad[o][k]) == PSV_ERROR_INVALID_VALUE, "option %d value %lld",
                      (int)opts[o], (long long)bad[o][k]);
            CHECK_MSG(psv_matrix_set_option(A, opts[o], bad[o][k]) == PSV_ERROR_INVALID_VALUE, "option %d value %lld",
                      (int)opts[o], (long long)bad[o][k]);
        }
        for (int k = 0; k < 3; ++k) {
            CHECK_MSG(psv_context_set_option(ctx, opts[o], good[o][k]) == PSV_SUCCESS, "option %d value %lld",
                      (int)opts[o], (long long)good[o][k]);
            CHECK_MSG(psv_matrix_set_option(A, opts[o], good[o][k]) == PSV_SUCCESS, "option %d value %lld",
                      (int)opts[o], (long long)good[o][k]);
        }
    }
    CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_HOT_COLUMNS, -1), PSV_SUCCESS); /* defaults back */
    CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_RANK_ORDER, -1), PSV_SUCCESS);

    /* the table: where it came from, in numbers and in words */
    psv_tuning_info ti, keep;
    memset(&ti, 0x5a, sizeof ti);
    keep = ti;
    CHECK_STATUS(psv_context_tuning(NULL, &ti), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_context_tuning(ctx, NULL), PSV_ERROR_NULL_POINTER);
    int64_t junk[16] = {0};
    CHECK_STATUS(psv_context_tuning((psv_context *)junk, &ti), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK(memcmp(&ti, &keep, sizeof ti) == 0); /* untouched on failure */
    CHECK_STATUS(psv_context_tuning(ctx, &ti), PSV_SUCCESS);
    const char *text = psv_context_tuning_text(ctx);
    CHECK(text != NULL && strlen(text) > 10);
    CHECK(strcmp(psv_context_tuning_text(NULL), "(NULL context)") == 0);
    CHECK(strcmp(psv_context_tuning_text((psv_context *)junk), "(not a live psv_context)") == 0);
    if (B == PSV_BACKEND_CPU) {
        CHECK(ti.source == PSV_TUNING_NONE && ti.cc_major == 0 && ti.families == 0 && ti.samples == 0);
        CHECK_MSG(strstr(text, "no performance model") != NULL, "CPU tuning text '%s'", text);
    } else {
        CHECK_MSG(ti.source >= PSV_TUNING_NONE && ti.source <= PSV_TUNING_NEAREST, "source %d", (int)ti.source);
        CHECK((ti.source == PSV_TUNING_NONE) == (ti.families == 0));
        CHECK(ti.source == PSV_TUNING_NONE || ti.cc_major > 0);
    }

    /* tuning: arguments checked first, on every backend */
    CHECK_STATUS(psv_context_tune(NULL, NULL, 0, 0), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_context_tune((psv_context *)junk, NULL, 0, 0), PSV_ERROR_UNINITIALIZED_OBJECT);
    CHECK_STATUS(psv_context_tune(ctx, NULL, 2, 0), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_tune(ctx, NULL, -1, 0), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_context_tune(ctx, NULL, 0, 2), PSV_ERROR_INVALID_VALUE);
    CHECK(strstr(psv_context_last_error(ctx), "progress") != NULL);
    if (B == PSV_BACKEND_CPU) {
        CHECK_STATUS(psv_context_tune(ctx, NULL, 0, 0), PSV_ERROR_NOT_IMPLEMENTED);
        CHECK_STATUS(psv_context_tune(ctx, "/nonexistent/psv/t.tbl", 1, 1), PSV_ERROR_NOT_IMPLEMENTED);
        CHECK(strstr(psv_context_last_error(ctx), "performance model") != NULL);
        CHECK_STATUS(psv_context_tuning(ctx, &ti), PSV_SUCCESS);
        CHECK(ti.source == PSV_TUNING_NONE);
        psv_matrix *C = small_matrix(ctx); /* the context is still usable */
        int64_t n = 0;
        CHECK_STATUS(psv_matrix_nvals(C, &n), PSV_SUCCESS);
        CHECK(n == 5);
        psv_matrix_free(&C);
    }

    /* the plan in words: the one run, no runner-up without a model, nothing for bad arguments */
    CHECK(strcmp(psv_matrix_plan(NULL, 0), "") == 0);
    CHECK(strcmp(psv_matrix_plan(A, 2), "") == 0);
    CHECK(strcmp(psv_matrix_plan(A, -1), "") == 0);
    CHECK(strcmp(psv_matrix_plan((psv_matrix *)junk, 0), "") == 0);
    CHECK(strlen(psv_matrix_plan(A, 0)) > 0);
    if (B == PSV_BACKEND_CPU) CHECK(strcmp(psv_matrix_plan(A, 1), "") == 0);
    psv_matrix *stale = A;
    psv_matrix_free(&A);
    CHECK(strcmp(psv_matrix_plan(stale, 0), "") == 0);
}

static void test_pagerank_errors(psv_context *ctx) {
    psv_matrix *A = small_matrix(ctx);
    psv_vector *r = (psv_vector *)0x1;
    int32_t it = -5;
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, 1e-6, 100), PSV_ERROR_DIMENSION_MISMATCH);
    CHECK(r == (psv_vector *)0x1 && it == -5);
    psv_matrix_free(&A);
    int64_t rr[] = {0, 1, 2}, cc[] = {1, 2, 0};
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 3, 3, 3, rr, cc, NULL, PSV_NOOP, &A) == PSV_SUCCESS);
    CHECK_STATUS(psv_pagerank(NULL, &it, A, 0.85, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_pagerank(&r, &it, NULL, 0.85, 1e-6, 100), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_pagerank(&r, &it, A, 1.0, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_pagerank(&r, &it, A, -0.1, 1e-6, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, -1, 100), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, 1e-6, 0), PSV_ERROR_INVALID_VALUE);
    CHECK(r == (psv_vector *)0x1 && it == -5);
    /* a 3-cycle: uniform ranks, converged at once */
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, 1e-6, 100), PSV_SUCCESS);
    float x[3];
    CHECK_STATUS(psv_vector_get(r, x, 3), PSV_SUCCESS);
    CHECK(it == 1 && near(x[0], 1.0 / 3, 1e-6, 0) && near(x[2], 1.0 / 3, 1e-6, 0));
    psv_vector_free(&r);
    psv_matrix_free(&A);
}

int main(void) {
    B = test_backend();
    test_versions_and_strings();
    test_context();
    psv_context *ctx = NULL;
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    test_semiring(ctx);
    test_matrix_build(ctx);
    test_matrix_queries(ctx);
    test_vectors(ctx);
    test_mxv_errors(ctx);
    test_pagerank_errors(ctx);
    test_tuning(ctx);
    psv_context_free(&ctx);
    test_handles();
    return check_exit();
}
