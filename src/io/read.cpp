// read_file: the format detected from the first line, then read by its reader.
//
// Everything is built into a local Coo that is returned only when the whole file has been read,
// so an error never leaves anything half-built behind.
#include "io/read.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include "io/bvgraph.hpp"
#include "io/formats.hpp"
#include "io/input.hpp"
#include "io/scan.hpp"

#include <cstring>

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

bool ends_with(const std::string &s, const char *suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A ".graph" or ".graph.gz" file: METIS when its first non-comment line is 2-4 integers; a
// binary one is LAW's BVGraph (WebGraph), read with the ".properties" file next to it.
bool graph_name(const std::string &path) {
    return ends_with(path, ".graph") || ends_with(path, ".graph.gz");
}

// The next line, or at the end an empty one: the failed read may have moved the buffer that
// the previous line was in.
bool next_or_empty(detail::Input &in, const char *&b, const char *&e) {
    if (in.next(b, e)) return true;
    static const char kEmpty[] = "";
    b = e = kEmpty;
    return false;
}

bool file_exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

bool blank(const char *b, const char *e) {
    while (b < e && detail::is_space(*b)) ++b;
    return b == e;
}

// The line's first non-blank character could start a number.
bool number_start(const char *b, const char *e) {
    while (b < e && detail::is_space(*b)) ++b;
    return b < e && (detail::is_digit(*b) || *b == '-' || *b == '+' || *b == '.');
}

// The line is a '%' comment or printable ASCII text (binary files such as BVGraph's are not).
bool is_text_line(const char *b, const char *e) {
    if (b < e && *b == '%') return true;
    for (const char *p = b; p < e; ++p) {
        unsigned char ch = static_cast<unsigned char>(*p);
        if ((ch < 0x20 && ch != '\t') || ch >= 0x7F) return false;
    }
    return true;
}

void skip_bom(const char *&b, const char *e) {
    if (e - b >= 3 && static_cast<unsigned char>(b[0]) == 0xEF && static_cast<unsigned char>(b[1]) == 0xBB &&
        static_cast<unsigned char>(b[2]) == 0xBF)
        b += 3;  // a UTF-8 byte order mark
}

}  // namespace

bool bvgraph_file(const std::string &path, std::string &base) {
    if (!graph_name(path)) return false;
    // The first line of the (inflated) file, from a small prefix: a BVGraph's .graph.gz is not
    // inflated whole just to look at it.
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;  // read_file reports the file that cannot be opened
    char prefix[4096];
    const int got = gzread(f, prefix, sizeof prefix);
    gzclose(f);
    if (got < 0) return false;
    const char *b = prefix, *e = prefix + got;
    const char *nl = static_cast<const char *>(std::memchr(b, '\n', static_cast<size_t>(got)));
    if (nl) e = nl;
    if (e > b && e[-1] == '\r') --e;
    const bool have_line = got > 0;
    skip_bom(b, e);
    if (have_line && is_text_line(b, e)) return false;
    // a binary (or empty) .graph; its .properties missing is an error naming it (decode_bvgraph)
    base = path.substr(0, path.size() - (ends_with(path, ".gz") ? 9 : 6));
    return have_line || file_exists(base + ".properties");
}

Coo read_file(const std::string &path, bool progress, bool relabel) {
    std::string bv_base;
    if (bvgraph_file(path, bv_base)) return read_bvgraph(path, bv_base);
    detail::Input in(path, progress);
    const char *b = nullptr, *e = nullptr;
    const bool have_line = in.next(b, e);
    if (have_line) skip_bom(b, e);
    if (!have_line) {
        fail(PSV_ERROR_PARSE, format("line 1: empty file (no edges) (%s)", path.c_str()));
    }
    if (is_matrix_market(b, e)) return detail::read_matrix_market(in, b, e);
    if (graph_name(path)) {
        while (detail::is_comment(b, e) || blank(b, e))
            if (!next_or_empty(in, b, e)) break;
        if (detail::metis_header_like(b, e)) return detail::read_metis(in, b, e);
    }
    // The first data line decides between CSV and a whitespace edge list.
    while (detail::is_comment(b, e) || blank(b, e))
        if (!next_or_empty(in, b, e)) break;
    if (char sep = detail::csv_separator(b, e)) return detail::read_csv(in, b, e, sep, relabel);
    if (!detail::is_comment(b, e) && !blank(b, e) && !number_start(b, e))
        detail::parse_error(in, "not a Matrix Market banner, an edge list, CSV or METIS header: "
                                "psv reads Matrix Market (.mtx), SNAP/whitespace edge lists, CSV "
                                "edge lists and METIS graphs (.graph), plain or gzip, and "
                                "WebGraph BVGraph (.graph with .properties)");
    return detail::read_edge_list(in, b, e, relabel);
}

}  // namespace psv::io
