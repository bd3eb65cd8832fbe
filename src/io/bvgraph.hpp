// LAW WebGraph BVGraph files (Boldi & Vigna, "The WebGraph Framework I: Compression Techniques"):
// X.graph, the bit stream of successor lists; X.properties, its parameters (nodes, arcs,
// windowsize, maxrefcount, minintervallength, zetak, compressionflags); X.offsets, when present,
// the gamma-coded bit offset of each list, which lets the lists be decoded in parallel.
//
// Each node's list in X.graph: its outdegree; if windowsize > 0 a reference r (0: none) to the
// list of node x - r, then a block count and copy blocks saying which of that list's successors
// are copied; then, when minintervallength > 0, intervals of consecutive successors (left end
// relative to x, then gaps); then residuals (the first relative to x, the next as gaps).
// Codes: gamma, delta, unary and zeta_k (the defaults and every alternative that the flags
// OUTDEGREES_*, BLOCKS_*, RESIDUALS_*, REFERENCES_*, BLOCK_COUNT_* and OFFSETS_* may pick, except
// RESIDUALS_GOLOMB and RESIDUALS_NIBBLE, which are refused as PSV_ERROR_NOT_IMPLEMENTED).
#pragma once
#include <string>

#include "core/coo.hpp"
#include "core/format.hpp"

namespace psv::io {

// Decode the BVGraph whose files are base + ".graph" (graph_path, plain or gzip), base +
// ".properties" and, when it exists, base + ".offsets". The result is the nodes x nodes pattern
// (PSV_FP32) with one entry (x, y) per arc, columns sorted within each row.
// Throws psv::Error: PSV_ERROR_IO (a file cannot be opened or read, the .properties missing);
// PSV_ERROR_PARSE (a missing or malformed property, a property that the bit stream contradicts
// such as the node or arc count, a truncated or corrupt bit stream; the message names the file,
// the node and the bit); PSV_ERROR_NOT_IMPLEMENTED (a coding psv does not decode, a format
// version above 0, a graph class other than BVGraph); PSV_ERROR_OUT_OF_MEMORY (the declared sizes
// need more memory than is available, checked before allocating). Sizes are checked against the
// files' lengths before anything is allocated for them; the work is bounded by the declared arc
// count (decoding stops as soon as the stream holds more).
CsrHost decode_bvgraph(const std::string &graph_path, const std::string &base);

// decode_bvgraph's result as the coordinate tuples read_file returns (index base 0).
psv::Coo read_bvgraph(const std::string &graph_path, const std::string &base);

}  // namespace psv::io
