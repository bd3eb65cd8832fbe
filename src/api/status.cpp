// The shims of versions, type sizes and status strings.
#include "core/ops.hpp"
#include "psv/psv.h"

using namespace psv;

extern "C" {

int32_t psv_version_number(void) { return PSV_VERSION_NUMBER; }

size_t psv_type_size(psv_type t) { return type_size(t); }

const char *psv_status_string(psv_status s) {
    switch (s) {
    case PSV_SUCCESS: return "PSV_SUCCESS: success";
    case PSV_NO_VALUE: return "PSV_NO_VALUE: the entry is not present";
    case PSV_NOT_CONVERGED: return "PSV_NOT_CONVERGED: the iteration limit was reached before convergence";
    case PSV_ERROR_UNINITIALIZED_OBJECT: return "PSV_ERROR_UNINITIALIZED_OBJECT: a handle is freed, garbage or never created";
    case PSV_ERROR_NULL_POINTER: return "PSV_ERROR_NULL_POINTER: a required pointer is NULL";
    case PSV_ERROR_INVALID_VALUE: return "PSV_ERROR_INVALID_VALUE: an argument is outside its domain";
    case PSV_ERROR_INVALID_INDEX: return "PSV_ERROR_INVALID_INDEX: an index is outside the dimensions";
    case PSV_ERROR_DOMAIN_MISMATCH: return "PSV_ERROR_DOMAIN_MISMATCH: types or operators do not fit together";
    case PSV_ERROR_DIMENSION_MISMATCH: return "PSV_ERROR_DIMENSION_MISMATCH: sizes do not fit together";
    case PSV_ERROR_NOT_IMPLEMENTED: return "PSV_ERROR_NOT_IMPLEMENTED: not supported by this build";
    case PSV_ERROR_PANIC: return "PSV_ERROR_PANIC: internal error";
    case PSV_ERROR_OUT_OF_MEMORY: return "PSV_ERROR_OUT_OF_MEMORY: out of memory";
    case PSV_ERROR_INSUFFICIENT_SPACE: return "PSV_ERROR_INSUFFICIENT_SPACE: an output buffer is too small";
    case PSV_ERROR_INVALID_OBJECT: return "PSV_ERROR_INVALID_OBJECT: an object is inconsistent";
    case PSV_ERROR_DUPLICATE_ENTRY: return "PSV_ERROR_DUPLICATE_ENTRY: duplicate entries and no dup operator";
    case PSV_ERROR_CONTEXT_MISMATCH: return "PSV_ERROR_CONTEXT_MISMATCH: objects of different contexts";
    case PSV_ERROR_BACKEND_UNAVAILABLE: return "PSV_ERROR_BACKEND_UNAVAILABLE: the backend is not built or has no device";
    case PSV_ERROR_IO: return "PSV_ERROR_IO: a file cannot be opened or read";
    case PSV_ERROR_PARSE: return "PSV_ERROR_PARSE: a file is malformed";
    case PSV_ERROR_DEVICE: return "PSV_ERROR_DEVICE: a device call failed";
    default: return "unknown psv_status";
    }
}

}  // extern "C"
