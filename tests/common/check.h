/* Minimal test harness shared by the C and C++ tests: CHECK counts failures and keeps going;
 * a test's main returns check_exit() (0 pass, 1 fail). Exit 77 means "skipped" to Meson. */
#ifndef PSV_TEST_CHECK_H
#define PSV_TEST_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        ++check_count;                                                                     \
        if (!(cond)) {                                                                     \
            ++check_failures;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        ++check_count;                                                                     \
        if (!(cond)) {                                                                     \
            ++check_failures;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

/* A status equal to what is expected, with the status names printed on failure. */
#define CHECK_STATUS(call, expected)                                                       \
    do {                                                                                   \
        int check_s_ = (int)(call);                                                        \
        ++check_count;                                                                     \
        if (check_s_ != (int)(expected)) {                                                 \
            ++check_failures;                                                              \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__,          \
                    __LINE__, #call, check_s_, psv_status_string(check_s_), (int)(expected)); \
        }                                                                                  \
    } while (0)

/* Fatal: stop the test at once (the rest would only crash). */
#define REQUIRE(cond)                                                                      \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static inline int check_exit(void) {
    fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}

/* |a-b| <= atol + rtol*|b| */
static inline int near(double a, double b, double rtol, double atol) {
    if (isnan(a) && isnan(b)) return 1;
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= atol + rtol * fabs(b);
}
#endif

#ifdef PSV_H
#include <string.h>
/* The backend a test runs on: env PSV_TEST_BACKEND = cpu (default) or cuda. A CUDA run on a
 * machine without a usable device exits 77 (skipped). */
static inline psv_backend test_backend(void) {
    const char *b = getenv("PSV_TEST_BACKEND");
    if (b && !strcmp(b, "cuda")) {
        if (!psv_backend_available(PSV_BACKEND_CUDA)) {
            fprintf(stderr, "no CUDA device: skipped\n");
            exit(77);
        }
        return PSV_BACKEND_CUDA;
    }
    return PSV_BACKEND_CPU;
}

/* Path of a file under tests/data (env PSV_TEST_DATA). */
static inline const char *test_data(const char *name) {
    static char buf[4][4096];
    static int k = 0;
    const char *dir = getenv("PSV_TEST_DATA");
    char *p = buf[k++ & 3];
    snprintf(p, 4096, "%s/%s", dir ? dir : "tests/data", name);
    return p;
}
#endif
