// The format readers behind read_file, and what they share.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/coo.hpp"
#include "io/input.hpp"

namespace psv::io::detail {

constexpr int64_t kMaxDim = 2147483647;        // 2^31 - 1 rows/columns at most
constexpr int64_t kMaxNnz = int64_t(1) << 62;  // declared entries at most

// Matrix Market; `b, e` is the banner line (already read).
psv::Coo read_matrix_market(Input &in, const char *b, const char *e);

// A SNAP-style edge list; `b, e` is the file's first line (already read).
psv::Coo read_edge_list(Input &in, const char *b, const char *e);

// A METIS graph; `b, e` is the header line "n m [fmt [ncon]]" (already read). metis_header_like:
// the line is 2 to 4 unsigned integers.
psv::Coo read_metis(Input &in, const char *b, const char *e);
bool metis_header_like(const char *b, const char *e);

// Reserve n entries in rows, cols and the value array that will be used.
inline void reserve_all(psv::Coo &c, uint64_t n, bool fv, bool iv) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, uint64_t(1) << 40));
    c.rows.reserve(k);
    c.cols.reserve(k);
    if (fv) c.fvalues.reserve(k);
    if (iv) c.ivalues.reserve(k);
}

}  // namespace psv::io::detail
