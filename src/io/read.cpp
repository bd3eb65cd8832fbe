// read_file: the format detected from the first line, then read by its reader.
//
// Everything is built into a local Coo that is returned only when the whole file has been read,
// so an error never leaves anything half-built behind.
#include "io/read.hpp"

#include "io/formats.hpp"
#include "io/input.hpp"

namespace psv::io {
namespace {

// "%%MatrixMarket ..." is Matrix Market. A first line starting "%%matrix" in any case (a
// misspelt banner) goes there too, to be reported rather than read as a comment.
bool is_matrix_market(const char *b, const char *e) {
    static const char kBanner[] = "%%matrix";
    const size_t nb = sizeof kBanner - 1;
    bool mm = static_cast<size_t>(e - b) >= nb;
    for (size_t k = 0; mm && k < nb; ++k) {
        char ch = b[k];
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
        mm = ch == kBanner[k];
    }
    return mm;
}

}  // namespace

Coo read_file(const std::string &path, bool progress) {
    detail::Input in(path, progress);
    const char *b = nullptr, *e = nullptr;
    if (!in.next(b, e)) {
        fail(PSV_ERROR_PARSE, format("line 1: empty file (no edges) (%s)", path.c_str()));
    }
    if (e - b >= 3 && static_cast<unsigned char>(b[0]) == 0xEF &&
        static_cast<unsigned char>(b[1]) == 0xBB && static_cast<unsigned char>(b[2]) == 0xBF)
        b += 3;  // a UTF-8 byte order mark
    if (is_matrix_market(b, e)) return detail::read_matrix_market(in, b, e);
    return detail::read_edge_list(in, b, e);
}

}  // namespace psv::io
