#pragma once
#include "core/format.hpp"

namespace psv {

// Tuples -> CSR on the host. values == nullptr: a pattern (duplicates count once); otherwise
// duplicates combine with dup in input order, or throw PSV_ERROR_DUPLICATE_ENTRY if dup is
// PSV_NOOP. An index out of range throws PSV_ERROR_INVALID_INDEX. Dimensions are checked by the
// caller (<= kMaxDimension).
// Throws PSV_ERROR_OUT_OF_MEMORY, naming the sizes, when building an nrows x ncols matrix of nvals
// entries would need more than the memory available now (checked before allocating).
void check_build_memory(int64_t nrows, int64_t ncols, int64_t nvals, size_t value_size);

CsrHost build_csr(int64_t nrows, int64_t ncols, int64_t nvals, const int64_t *rows,
                  const int64_t *cols, const void *values, psv_type type, psv_op dup);

}  // namespace psv
