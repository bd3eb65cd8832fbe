// The read options of psv_matrix_read_with_flags: relabelled ids and undirected graphs.
#pragma once
#include <cstdint>
#include <vector>

#include "core/coo.hpp"
#include "core/format.hpp"

namespace psv::io {

// Compact the ids of c in order of first appearance (rows[k] before cols[k], k ascending):
// c becomes n x n over ids 0 .. n-1 and index_base 0; returns the n original ids (the file's,
// i.e. 0-based id + the old index_base). Memory grows with the distinct ids, not their values.
// More than 2^31-1 distinct ids is PSV_ERROR_INVALID_VALUE.
std::vector<int64_t> relabel(psv::Coo &c);

// The tuples of a CSR matrix, row by row, without values (for relabelling a loaded .psv file:
// tuple k carries a's value k).
psv::Coo coo_of(const psv::CsrHost &a, int32_t index_base);

// A with the mirror A(j,i) of every entry A(i,j) added where A has none (it takes A(i,j)'s
// value); A's own entries are kept as they are. Throws PSV_ERROR_DIMENSION_MISMATCH unless A is
// square.
psv::CsrHost undirected(const psv::CsrHost &a);

}  // namespace psv::io
