/* Internal entry points of the library for the psv program (tools/psv.c): exported (psv_
 * prefix) but not part of the public API in psv/psv.h; they may change without notice. */
#ifndef PSV_API_INTERNAL_H
#define PSV_API_INTERNAL_H

#include <stdint.h>

#include "psv/psv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if A was read by psv_matrix_read from a Matrix Market or METIS file (1-based ids in the
 * file), 0 for an edge list (SNAP or CSV) or a matrix built from tuples (or an invalid A).
 * Decided during the single read, so it holds for stdin and pipes too. */
PSV_API int32_t psv_internal_matrix_index_base(const psv_matrix *A);

/* Why the calling thread's last psv_context_create failed ("" if it did not, or for a failure
 * that is not a psv error, such as out of memory): e.g. "no CUDA device is available". */
PSV_API const char *psv_internal_context_create_error(void);

#ifdef __cplusplus
}
#endif

#endif
