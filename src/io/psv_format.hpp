// psv's own binary matrix format (.psv): written by psv_matrix_write, recognised and loaded by
// psv_matrix_read. Layout (little-endian hosts write it; a file from another byte order is
// refused by its endianness marker):
//
//   header, 128 bytes:
//     0  magic "PSVMTX\0\1"          8 bytes
//     8  version (1)                 uint32
//    12  endianness marker           uint32 0x01020304 as written by the host
//    16  nrows, ncols, nvals         int64 x 3
//    40  type (psv_type), pattern (0/1), id base (0/1), reserved (0)   int32 x 4
//    56  offsets of row_ptr, col, values; the file's length             uint64 x 4
//    88  CRC-32 (zlib) of row_ptr, col, values                          uint32 x 3
//   100  zero padding up to 124
//   124  CRC-32 of bytes 0..123                                        uint32
//   row_ptr: int64 x (nrows + 1); col: int32 x nvals (sorted within rows); values: nvals x type
//   size (absent for a pattern). Each array starts on a 64-byte boundary, so the file can be
//   mmap'ed and the arrays used in place.
#pragma once
#include <cstdint>
#include <string>

#include "core/format.hpp"

namespace psv::io {

// True if path names a regular file starting with the .psv magic (never reads a pipe or "-").
bool is_psv_file(const std::string &path);

// Load a .psv file. Throws psv::Error: PSV_ERROR_IO (cannot open or read), PSV_ERROR_PARSE
// (wrong magic or version, sizes that disagree with the file's length, a checksum mismatch
// naming the part, an invalid CSR). Sizes are checked against the file's length before anything
// is allocated. index_base receives the id base stored in the file.
CsrHost read_psv(const std::string &path, int32_t &index_base);

// Write csr to path through path + ".tmp" and a rename; on failure (PSV_ERROR_IO) nothing is
// left behind (the temporary is removed, an existing file at path is untouched).
void write_psv(const CsrHost &csr, int32_t index_base, const std::string &path);

}  // namespace psv::io
