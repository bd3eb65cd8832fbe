/* psv_hits's form for the C tests and bench_algo: the library's internal C++ interface
 * (psv::set_hits_form), reached through the static library (psv_internal_dep). */
#ifndef PSV_TEST_ALGO_HITS_FORM_H
#define PSV_TEST_ALGO_HITS_FORM_H
#include "psv/psv.h"

#ifdef __cplusplus
extern "C" {
#endif
/* form: "auto", "separate" or "stacked". 0 on success, -1 for an unknown form or a bad context. */
int test_set_hits_form(psv_context *ctx, const char *form);
#ifdef __cplusplus
}
#endif
#endif
