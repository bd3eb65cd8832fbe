/* psv_matrix_info's device_bytes: the bytes a matrix holds in its backend's memory. It covers at
 * least the CSR (a 4-byte column index per entry, plus the values), grows when a product with A'
 * caches the transpose, and drops again when a new option rebuilds A (the cache is released).
 * And the performance model's fields with psv_matrix_plan. Runs on the backend of
 * PSV_TEST_BACKEND. */
#include "psv/psv.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../src/core/kernels.h" /* the kernel table's names */

#define NROWS 50
#define NCOLS 80
#define PER_ROW 6

/* NROWS x NCOLS, PER_ROW entries per row at scattered columns, of the given type (or a pattern). */
static psv_matrix *scattered(psv_context *ctx, psv_type type, int pattern) {
    int64_t rows[NROWS * PER_ROW], cols[NROWS * PER_ROW];
    double v[NROWS * PER_ROW];
    int64_t k = 0;
    for (int64_t i = 0; i < NROWS; ++i)
        for (int64_t j = 0; j < PER_ROW; ++j, ++k) {
            rows[k] = i;
            cols[k] = (i * 7 + j * 13) % NCOLS;
            v[k] = (double)(k % 5 + 1);
        }
    float f[NROWS * PER_ROW];
    for (int64_t e = 0; e < k; ++e) f[e] = (float)v[e];
    const void *values = pattern ? NULL : type == PSV_FP32 ? (const void *)f : (const void *)v;
    psv_matrix *A = NULL;
    REQUIRE(psv_matrix_build(ctx, type, NROWS, NCOLS, k, rows, cols, values, PSV_NOOP, &A) == PSV_SUCCESS);
    return A;
}

static int64_t device_bytes(const psv_matrix *A) {
    psv_matrix_info info;
    REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
    return info.device_bytes;
}

/* w = A' u over A's pattern (PLUS.SECOND reads no value of A, so any type does), which caches
 * the transpose on A. */
static void transpose_product(psv_context *ctx, const psv_matrix *A) {
    psv_semiring *s = NULL;
    psv_vector *u = NULL, *w = NULL;
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_SECOND, PSV_FP32, &s) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, NROWS, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, NCOLS, &w) == PSV_SUCCESS);
    const float one = 1.0f;
    REQUIRE(psv_vector_fill(u, &one) == PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s, A, u, PSV_DESC_TRANSPOSE_A), PSV_SUCCESS);
    psv_vector_free(&w);
    psv_vector_free(&u);
    psv_semiring_free(&s);
}

static void test_grows_with_transpose(psv_context *ctx, psv_type type, int pattern, int64_t value_bytes) {
    psv_matrix *A = scattered(ctx, type, pattern);
    int64_t nvals = 0;
    REQUIRE(psv_matrix_nvals(A, &nvals) == PSV_SUCCESS && nvals == NROWS * PER_ROW);
    const int64_t alone = device_bytes(A);
    CHECK_MSG(alone > 0, "device_bytes %lld", (long long)alone);
    CHECK_MSG(alone >= nvals * (4 + value_bytes), "device_bytes %lld < %lld entries x %lld bytes",
              (long long)alone, (long long)nvals, (long long)(4 + value_bytes));
    CHECK(device_bytes(A) == alone); /* describing A caches nothing */
    transpose_product(ctx, A);
    const int64_t with_transpose = device_bytes(A);
    CHECK_MSG(with_transpose >= alone + nvals * (4 + value_bytes),
              "with the transpose %lld, alone %lld", (long long)with_transpose, (long long)alone);
    transpose_product(ctx, A); /* the cached transpose is reused */
    CHECK(device_bytes(A) == with_transpose);
    /* a new option rebuilds A and releases the cached transpose */
    CHECK_STATUS(psv_matrix_set_option(A, PSV_OPT_KERNEL, PSV_KERNEL_AUTO), PSV_SUCCESS);
    const int64_t rebuilt = device_bytes(A);
    CHECK_MSG(rebuilt > 0 && rebuilt < with_transpose, "rebuilt %lld, with the transpose %lld",
              (long long)rebuilt, (long long)with_transpose);
    psv_matrix_free(&A);
}

static void test_empty(psv_context *ctx) {
    psv_matrix *E = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 4, 4, 0, NULL, NULL, NULL, PSV_NOOP, &E) == PSV_SUCCESS);
    CHECK(device_bytes(E) >= 0);
    psv_matrix_free(&E);
}

/* Whether text holds word, ignoring case ("CSR loop" names the kernel "csr"). */
static int names(const char *text, const char *word) {
    const size_t n = strlen(word);
    for (; *text; ++text) {
        size_t k = 0;
        while (k < n && text[k] && tolower((unsigned char)text[k]) == tolower((unsigned char)word[k])) ++k;
        if (k == n) return 1;
    }
    return 0;
}

/* The performance model's fields and the plan in words. The CPU backend has no model: nothing
 * predicted, no runner-up, and its plan names the kernel it runs. On CUDA the fields agree with
 * each other (whether a table exists depends on the device). */
static void test_plan(psv_context *ctx) {
    psv_matrix *A = scattered(ctx, PSV_FP32, 0);
    const int32_t kernels[] = {PSV_KERNEL_AUTO, PSV_KERNEL_CSR, PSV_KERNEL_TILE_COMPOSITE};
    for (int k = 0; k < 3; ++k) {
        REQUIRE(psv_matrix_set_option(A, PSV_OPT_KERNEL, kernels[k]) == PSV_SUCCESS);
        psv_matrix_info in;
        REQUIRE(psv_matrix_info_get(A, &in) == PSV_SUCCESS);
        const char *plan = psv_matrix_plan(A, 0);
        CHECK_MSG(strlen(plan) > 0, "kernel option %d: no plan", (int)kernels[k]);
        if (test_backend() == PSV_BACKEND_CPU) {
            CHECK(in.predicted_ms == 0 && in.runner_up_ms == 0 && in.plan_candidates == 0);
            CHECK(in.runner_up_kernel == -1 && in.hot_columns == 0 && in.ranked_columns == 0);
            CHECK_MSG(names(plan, psv_kernel_name(in.kernel)), "plan '%s' does not name the kernel %s", plan,
                      psv_kernel_name(in.kernel));
            CHECK(kernels[k] == PSV_KERNEL_AUTO || in.kernel == kernels[k]);
            CHECK(strcmp(psv_matrix_plan(A, 1), "") == 0);
        } else {
            CHECK(in.plan_candidates >= 0 && in.predicted_ms >= 0);
            CHECK(in.plan_candidates > 0 || in.predicted_ms == 0);
            if (in.plan_candidates >= 2) {
                CHECK(psv_kernel_known(in.runner_up_kernel) && in.runner_up_ms > 0);
                CHECK(strlen(psv_matrix_plan(A, 1)) > 0);
            } else {
                CHECK(in.runner_up_kernel == -1 && in.runner_up_ms == 0);
                CHECK(strcmp(psv_matrix_plan(A, 1), "") == 0);
            }
        }
    }
    psv_matrix_free(&A);
}

int main(void) {
    psv_context *ctx = NULL;
    REQUIRE(psv_context_create(test_backend(), 0, &ctx) == PSV_SUCCESS);
    test_grows_with_transpose(ctx, PSV_FP32, 1, 0);
    test_grows_with_transpose(ctx, PSV_FP32, 0, 4);
    test_grows_with_transpose(ctx, PSV_FP64, 0, 8);
    test_empty(ctx);
    test_plan(ctx);
    psv_context_free(&ctx);
    return check_exit();
}
