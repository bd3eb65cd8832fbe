/* Numbers: NaN and Inf in inputs give IEEE 754 results through psv_mxv and the vector
 * operations (never a crash, never a trap), MIN/MAX ignore a NaN operand (fmin/fmax, as psv.h
 * documents), and integer arithmetic wraps (two's complement) instead of overflowing: the
 * sanitizer build (UBSan) proves there is no undefined behaviour on the way.
 * Runs on the backend of PSV_TEST_BACKEND. */
#include "psv/psv.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static psv_context *ctx;

/* w = A (+).(x) u on a 3x3 FP64 matrix, all of w returned (absent entries: NaN marker -77). */
static void mxv_f64(psv_op add, psv_op mul, const int64_t *r, const int64_t *c, const double *a, int64_t nv,
                    const double *u, double *w) {
    psv_matrix *A = NULL;
    psv_vector *vu = NULL, *vw = NULL;
    psv_semiring *s = NULL;
    REQUIRE(psv_matrix_build(ctx, PSV_FP64, 3, 3, nv, r, c, a, PSV_NOOP, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 3, &vu) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 3, &vw) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, add, mul, PSV_FP64, &s) == PSV_SUCCESS);
    CHECK_STATUS(psv_vector_set(vu, u, 3), PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(vw, NULL, PSV_NOOP, s, A, vu, 0), PSV_SUCCESS);
    for (int i = 0; i < 3; ++i) {
        w[i] = -77;
        psv_vector_get_element(vw, i, &w[i]);
    }
    psv_matrix_free(&A);
    psv_vector_free(&vu);
    psv_vector_free(&vw);
    psv_semiring_free(&s);
}

static void test_float_specials(void) {
    const double nan = NAN, inf = INFINITY;
    /* rows: 0 = {(0,0),(0,1)}, 1 = {(1,1),(1,2)}, 2 = {(2,2)} */
    const int64_t r[] = {0, 0, 1, 1, 2}, c[] = {0, 1, 1, 2, 2};
    const double a[] = {1, 2, 3, 4, 5};
    double w[3];
    /* plus-times: NaN in u(0) reaches row 0 only */
    const double u1[] = {nan, 1, 1};
    mxv_f64(PSV_PLUS, PSV_TIMES, r, c, a, 5, u1, w);
    CHECK(isnan(w[0]) && w[1] == 7 && w[2] == 5);
    /* Inf: Inf in row 1, Inf - Inf = NaN in row 0, Inf * 0 = NaN in row 2 */
    const double a2[] = {1, -1, 3, 4, 0};
    const double u2[] = {inf, inf, inf};
    mxv_f64(PSV_PLUS, PSV_TIMES, r, c, a2, 5, u2, w);
    CHECK(isnan(w[0]) && w[1] == inf && isnan(w[2]));
    /* NaN in the matrix */
    const double a3[] = {nan, 2, 3, 4, 5};
    const double u3[] = {1, 1, 1};
    mxv_f64(PSV_PLUS, PSV_TIMES, r, c, a3, 5, u3, w);
    CHECK(isnan(w[0]) && w[1] == 7 && w[2] == 5);
    /* min-plus (shortest paths): a NaN term is ignored (fmin), so terms that are all NaN give
       the identity, +Inf */
    mxv_f64(PSV_MIN, PSV_PLUS, r, c, a, 5, u1, w);
    CHECK(w[0] == 3 && w[1] == 4 && w[2] == 6);
    const double u4[] = {nan, nan, nan};
    mxv_f64(PSV_MIN, PSV_PLUS, r, c, a, 5, u4, w);
    CHECK(w[0] == inf && w[1] == inf && w[2] == inf);
    mxv_f64(PSV_MAX, PSV_PLUS, r, c, a, 5, u4, w);
    CHECK(w[0] == -inf && w[1] == -inf && w[2] == -inf);
    /* max-times with -Inf and +Inf */
    const double u5[] = {-inf, inf, 2};
    mxv_f64(PSV_MAX, PSV_TIMES, r, c, a, 5, u5, w);
    CHECK(w[0] == inf && w[1] == inf && w[2] == 10);
    /* min-plus with +Inf (unreachable) stays +Inf, not NaN */
    const double u6[] = {inf, inf, 0};
    mxv_f64(PSV_MIN, PSV_PLUS, r, c, a, 5, u6, w);
    CHECK(w[0] == inf && w[1] == 4 && w[2] == 5);

    /* FP32 too, with NaN values given at build and duplicates summed into NaN */
    psv_matrix *A = NULL;
    psv_vector *u = NULL, *t = NULL;
    psv_semiring *s = NULL;
    const int64_t rr[] = {0, 0, 1}, cc[] = {0, 0, 1};
    const float av[] = {1, NAN, 2};
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 2, 2, 3, rr, cc, av, PSV_PLUS, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 2, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 2, &t) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    const float uv[] = {1, INFINITY};
    float tv[2] = {0, 0};
    CHECK_STATUS(psv_vector_set(u, uv, 2), PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(t, NULL, PSV_NOOP, s, A, u, 0), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(t, tv, 2), PSV_SUCCESS);
    CHECK(isnan(tv[0]) && tv[1] == INFINITY);
    /* element-wise and reductions */
    float sum = 0;
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_PLUS, t), PSV_SUCCESS);
    CHECK(isnan(sum));
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_MAX, t), PSV_SUCCESS);
    CHECK(sum == INFINITY);
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_MIN, t), PSV_SUCCESS);
    CHECK(sum == INFINITY);
    const float zero = 0;
    CHECK_STATUS(psv_vector_apply(t, PSV_DIV, u, &zero), PSV_SUCCESS); /* 1/0, Inf/0 */
    CHECK_STATUS(psv_vector_get(t, tv, 2), PSV_SUCCESS);
    CHECK(tv[0] == INFINITY && tv[1] == INFINITY);
    CHECK_STATUS(psv_vector_ewise(t, PSV_MINUS, u, u), PSV_SUCCESS); /* Inf - Inf */
    CHECK_STATUS(psv_vector_get(t, tv, 2), PSV_SUCCESS);
    CHECK(tv[0] == 0 && isnan(tv[1]));
    /* PageRank ignores the values: NaN in A does not reach the ranks */
    psv_vector *rank = NULL;
    int32_t it = 0;
    CHECK_STATUS(psv_pagerank(&rank, &it, A, 0.85, 1e-7, 200), PSV_SUCCESS);
    float rv[2] = {NAN, NAN};
    CHECK_STATUS(psv_vector_get(rank, rv, 2), PSV_SUCCESS);
    CHECK(isfinite(rv[0]) && isfinite(rv[1]) && near(rv[0] + rv[1], 1.0, 1e-5, 0));
    /* a NaN teleport entry is refused, as documented */
    const float tp[] = {NAN, 1};
    psv_vector *tele = NULL, *pr = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 2, &tele) == PSV_SUCCESS);
    CHECK_STATUS(psv_vector_set(tele, tp, 2), PSV_SUCCESS);
    CHECK_STATUS(psv_pagerank_personalized(&pr, &it, A, tele, 0.85, 1e-7, 100), PSV_ERROR_INVALID_VALUE);
    CHECK(pr == NULL);
    psv_vector_free(&tele);
    psv_vector_free(&rank);
    psv_matrix_free(&A);
    psv_vector_free(&u);
    psv_vector_free(&t);
    psv_semiring_free(&s);
}

/* w = A (+).(x) u with 1x2 integer A = [a0 a1], u = [u0 u1]: one row. */
static void int_row(psv_type type, psv_op add, psv_op mul, int64_t a0, int64_t a1, int64_t u0, int64_t u1,
                    int64_t *out) {
    psv_matrix *A = NULL;
    psv_vector *u = NULL, *w = NULL;
    psv_semiring *s = NULL;
    const int64_t r[] = {0, 0}, c[] = {0, 1};
    int32_t a32[] = {(int32_t)a0, (int32_t)a1}, u32[] = {(int32_t)u0, (int32_t)u1}, w32 = 0;
    int64_t a64[] = {a0, a1}, u64[] = {u0, u1}, w64 = 0;
    const int i32 = type == PSV_INT32;
    REQUIRE(psv_matrix_build(ctx, type, 1, 2, 2, r, c, i32 ? (void *)a32 : (void *)a64, PSV_NOOP, &A) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, type, 2, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, type, 1, &w) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(ctx, add, mul, type, &s) == PSV_SUCCESS);
    CHECK_STATUS(psv_vector_set(u, i32 ? (void *)u32 : (void *)u64, 2), PSV_SUCCESS);
    CHECK_STATUS(psv_mxv(w, NULL, PSV_NOOP, s, A, u, 0), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(w, i32 ? (void *)&w32 : (void *)&w64, 1), PSV_SUCCESS);
    *out = i32 ? w32 : w64;
    psv_matrix_free(&A);
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_semiring_free(&s);
}

static void test_integer_wrap(void) {
    int64_t w = 0;
    /* INT32_MAX + 1 == INT32_MIN through plus-times */
    int_row(PSV_INT32, PSV_PLUS, PSV_TIMES, 1, 1, INT32_MAX, 1, &w);
    CHECK(w == INT32_MIN);
    /* products that overflow wrap: 65536 * 65536 = 2^32 == 0 (mod 2^32) */
    int_row(PSV_INT32, PSV_PLUS, PSV_TIMES, 65536, 0, 65536, 0, &w);
    CHECK(w == 0);
    int_row(PSV_INT32, PSV_PLUS, PSV_TIMES, INT32_MIN, 1, -1, 0, &w); /* -INT32_MIN wraps to itself */
    CHECK(w == INT32_MIN);
    int_row(PSV_INT64, PSV_PLUS, PSV_TIMES, 1, 1, INT64_MAX, 1, &w);
    CHECK(w == INT64_MIN);
    int_row(PSV_INT64, PSV_PLUS, PSV_TIMES, INT64_MAX, 0, 2, 0, &w);
    CHECK(w == -2);
    /* plus-plus (a + u) overflowing, min-plus on extremes */
    int_row(PSV_INT64, PSV_MIN, PSV_PLUS, INT64_MAX, INT64_MIN, 1, -1, &w);
    CHECK(w == INT64_MIN); /* min(INT64_MIN, INT64_MAX) after wrapping both ways */
    int_row(PSV_INT32, PSV_MAX, PSV_MINUS, INT32_MIN, 0, 1, 0, &w);
    CHECK(w == INT32_MAX); /* INT32_MIN - 1 wraps; max with 0 - 0 */
    /* division: x/0 is 0, INT_MIN/-1 is INT_MIN */
    int_row(PSV_INT32, PSV_PLUS, PSV_DIV, 7, INT32_MIN, 0, -1, &w);
    CHECK(w == INT32_MIN);
    int_row(PSV_INT64, PSV_PLUS, PSV_DIV, INT64_MIN, 5, -1, 0, &w);
    CHECK(w == INT64_MIN);

    /* element-wise, apply and reduce on the extremes */
    psv_vector *v = NULL, *x = NULL;
    REQUIRE(psv_vector_create(ctx, PSV_INT32, 4, &v) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_INT32, 4, &x) == PSV_SUCCESS);
    const int32_t vals[] = {INT32_MAX, INT32_MIN, -1, 0};
    int32_t got[4];
    CHECK_STATUS(psv_vector_set(v, vals, 4), PSV_SUCCESS);
    int32_t sum = 0;
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_PLUS, v), PSV_SUCCESS);
    CHECK(sum == -2); /* MAX + MIN - 1 + 0 */
    CHECK_STATUS(psv_vector_reduce(&sum, PSV_TIMES, v), PSV_SUCCESS);
    CHECK(sum == 0);
    const int32_t m1 = -1, zero = 0, one = 1;
    CHECK_STATUS(psv_vector_apply(x, PSV_DIV, v, &m1), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[0] == -INT32_MAX && got[1] == INT32_MIN && got[2] == 1 && got[3] == 0);
    CHECK_STATUS(psv_vector_apply(x, PSV_DIV, v, &zero), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 0);
    CHECK_STATUS(psv_vector_apply(x, PSV_PLUS, v, &one), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[0] == INT32_MIN && got[1] == INT32_MIN + 1);
    CHECK_STATUS(psv_vector_apply(x, PSV_MINUS, v, &one), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[1] == INT32_MAX);
    CHECK_STATUS(psv_vector_apply(x, PSV_TIMES, v, &m1), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[1] == INT32_MIN);
    CHECK_STATUS(psv_vector_ewise(x, PSV_ABSDIFF, v, v), PSV_SUCCESS);
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[0] == 0 && got[1] == 0);
    const int32_t mn = INT32_MIN;
    CHECK_STATUS(psv_vector_apply(x, PSV_ABSDIFF, v, &mn), PSV_SUCCESS); /* |MAX - MIN| wraps to -1 */
    CHECK_STATUS(psv_vector_get(x, got, 4), PSV_SUCCESS);
    CHECK(got[0] == -1 && got[1] == 0);
    psv_vector_free(&v);
    psv_vector_free(&x);

    /* a matrix build summing duplicates past the range wraps too */
    psv_matrix *A = NULL;
    const int64_t r[] = {0, 0}, c[] = {0, 0};
    const int64_t big[] = {INT64_MAX, 1};
    CHECK_STATUS(psv_matrix_build(ctx, PSV_INT64, 1, 1, 2, r, c, big, PSV_PLUS, &A), PSV_SUCCESS);
    int64_t n = 1, val = 0;
    CHECK_STATUS(psv_matrix_extract_tuples(A, NULL, NULL, &val, &n), PSV_SUCCESS);
    CHECK(val == INT64_MIN);
    psv_matrix_free(&A);
    const int64_t big2[] = {INT64_MIN, -1};
    CHECK_STATUS(psv_matrix_build(ctx, PSV_INT64, 1, 1, 2, r, c, big2, PSV_TIMES, &A), PSV_SUCCESS);
    n = 1;
    CHECK_STATUS(psv_matrix_extract_tuples(A, NULL, NULL, &val, &n), PSV_SUCCESS);
    CHECK(val == INT64_MIN);
    psv_matrix_free(&A);
}

int main(void) {
    REQUIRE(psv_context_create(test_backend(), 0, &ctx) == PSV_SUCCESS);
    test_float_specials();
    test_integer_wrap();
    psv_context_free(&ctx);
    return check_exit();
}
