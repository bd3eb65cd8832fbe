// Coordinate tuples as the readers produce them and psv_matrix_build consumes them.
#pragma once
#include <cstdint>
#include <vector>

#include "psv/psv.h"

namespace psv {

struct Coo {
    int64_t nrows = 0, ncols = 0;
    psv_type type = PSV_FP64;
    bool pattern = true;                   // no values: every entry is 1
    psv_op dup = PSV_NOOP;                 // how duplicates combine (ignored for a pattern)
    int32_t index_base = 0;                // ids in the file: 0 edge lists, 1 MM/METIS
    std::vector<int64_t> rows, cols;       // 0-based
    std::vector<double> fvalues;           // values when type is PSV_FP32/PSV_FP64 (as double)
    std::vector<int64_t> ivalues;          // values when type is integer or bool
};

}  // namespace psv
