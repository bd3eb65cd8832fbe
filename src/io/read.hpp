// Graph and matrix file readers behind psv_matrix_read.
#pragma once
#include <string>

#include "core/coo.hpp"
#include "core/error.hpp"

namespace psv::io {

// Read a graph/matrix file into coordinate form. Throws psv::Error on bad input
// (PSV_ERROR_IO: cannot open/read; PSV_ERROR_PARSE: malformed, message names the line as "line N";
//  PSV_ERROR_INVALID_INDEX: index out of range, message names the line). std::bad_alloc may propagate.
// progress: if true and the read takes more than a second, print progress lines to stderr
// ("psv: reading FILE: 45% (12.3 MB)") at most about once a second, and a final line.
// relabel: edge-list and CSV ids may be up to 2^63-1 and their dimensions are left 0, for
// relabel() (read_options.hpp) to compact them.
//
// The format is detected from the content: gzip (magic 1f 8b) is decompressed transparently;
// then a first line starting with "%%MatrixMarket" means Matrix Market (coordinate; real,
// double, integer or pattern; general, symmetric or skew-symmetric); a file named *.graph or
// *.graph.gz whose first non-comment line is 2-4 integers "n m [fmt [ncon]]" a METIS graph
// (1-based); a first data line holding ',' or ';' (or a tab-separated header) a CSV edge list;
// a first data line starting with a number a SNAP-style 0-based edge list ("u v" or "u v w"
// lines; '#'/'%' comments; an optional first line holding the vertex count; an optional last
// line "-1" as an end marker). Anything else is an error naming the formats psv reads.
psv::Coo read_file(const std::string &path, bool progress, bool relabel = false);

// Whether path names a LAW WebGraph BVGraph (a *.graph or *.graph.gz whose first line is binary,
// or an empty one with X.properties beside it); base is then X, the path without ".graph[.gz]".
// Only a prefix of the file is read. decode_bvgraph (bvgraph.hpp) reads it straight into CSR.
bool bvgraph_file(const std::string &path, std::string &base);

}  // namespace psv::io
