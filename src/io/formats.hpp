// The format readers behind read_file, and what they share.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/coo.hpp"
#include "core/error.hpp"
#include "io/input.hpp"
#include "io/scan.hpp"

namespace psv::io::detail {

constexpr int64_t kMaxDim = 2147483647;        // 2^31 - 1 rows/columns at most
constexpr int64_t kMaxNnz = int64_t(1) << 62;  // declared entries at most

// Matrix Market; `b, e` is the banner line (already read).
psv::Coo read_matrix_market(Input &in, const char *b, const char *e);

// A SNAP-style edge list; `b, e` is the file's first line (already read). relabel: ids up to
// 2^63-1 are taken and the dimensions left 0 (relabel() sets them).
psv::Coo read_edge_list(Input &in, const char *b, const char *e, bool relabel);

// A METIS graph; `b, e` is the header line "n m [fmt [ncon]]" (already read). metis_header_like:
// the line is 2 to 4 unsigned integers.
psv::Coo read_metis(Input &in, const char *b, const char *e);
bool metis_header_like(const char *b, const char *e);

// A CSV edge list separated by `sep` (',', ';' or '\t'); `b, e` is its first non-comment line.
// csv_separator: the separator a first data line says the file is CSV with, or 0 (not CSV):
// ',' or ';' when the line holds one, '\t' for a tab-separated header line. relabel: as for
// read_edge_list.
psv::Coo read_csv(Input &in, const char *b, const char *e, char sep, bool relabel);
char csv_separator(const char *b, const char *e);

// Value kinds of a read: no values (a pattern PSV_FP32 matrix, duplicates counting once) or
// weights of type PSV_FP64 or PSV_INT64 (duplicates summed).
constexpr psv_type kPattern = 0;
inline void set_value_kind(psv::Coo &c, psv_type weights) {
    c.pattern = weights == kPattern;
    c.type = c.pattern ? PSV_FP32 : weights;
    c.dup = c.pattern ? PSV_NOOP : PSV_PLUS;  // NOOP: ignored for a pattern
}

// The largest 0-based vertex id of an edge list (SNAP, CSV): any non-negative int64 when the ids
// are relabelled (PSV_READ_RELABEL), else the last index of the largest dimension.
inline int64_t max_edge_id(bool relabel) { return relabel ? INT64_MAX : kMaxDim - 1; }

// The edge-list readers' 0-based vertex id (at most max_id) and weight tokens, or the error.
inline int64_t edge_vertex(const Input &in, const Tok &t, const char *what, int64_t max_id) {
    int64_t v = 0;
    Num r = scan_int(t.b, t.e, v, false);
    if (r == Num::bad)
        parse_error(in, format("%s is not a vertex id: '%s'", what, show(t.b, t.e).c_str()));
    if (r == Num::negative)
        parse_error(in, format("%s is a negative vertex id: %s", what, show(t.b, t.e).c_str()));
    if (r == Num::overflow || v > max_id)
        index_error(in, format("%s vertex id %s is too large (at most %s)", what,
                               show(t.b, t.e).c_str(),
                               max_id == INT64_MAX ? "2^63-1" : "2^31-2; --relabel reads any "
                                                                "id up to 2^63-1"));
    return v;
}

inline double edge_weight(const Input &in, const Tok &t) {
    double w = 0.0;
    Num r = scan_double(t.b, t.e, w);
    if (r == Num::nonfinite)
        parse_error(in, format("weight is not finite: '%s'", show(t.b, t.e).c_str()));
    if (r != Num::ok)
        parse_error(in, format("weight is not a number: '%s'", show(t.b, t.e).c_str()));
    return w;
}

// A share of a block of edge-list lines (SNAP, CSV) parsed by one thread (parallel.hpp).
struct EdgePart {
    std::vector<int64_t> rows, cols;
    std::vector<double> w;
    int64_t maxid = -1;
    void add(int64_t u, int64_t v) {
        rows.push_back(u);
        cols.push_back(v);
        maxid = std::max(maxid, std::max(u, v));
    }
    // The fast path's edge from a line's fields (u v, or u v w where nf is 3): false where an id
    // is not a whole number in 0 .. max_id or the weight not a number (the sequential reader
    // then reports the line).
    bool take_fields(const Tok *f, int nf, int64_t max_id) {
        int64_t u, v;
        if (scan_int(f[0].b, f[0].e, u, false) != Num::ok || u > max_id) return false;
        if (scan_int(f[1].b, f[1].e, v, false) != Num::ok || v > max_id) return false;
        if (nf == 3) {
            double x;
            if (scan_double(f[2].b, f[2].e, x) != Num::ok) return false;
            w.push_back(x);
        }
        add(u, v);
        return true;
    }
};

// Share k's part for `bytes` of lines: share 0 takes the edges read so far (appended to in
// place, no copy), the others room for bytes / bytes_per_line edges.
inline EdgePart edge_part(psv::Coo &c, int k, size_t bytes, double bytes_per_line, bool weighted) {
    EdgePart p;
    if (k == 0) {
        p.rows.swap(c.rows);
        p.cols.swap(c.cols);
        p.w.swap(c.fvalues);
    } else {
        size_t n = static_cast<size_t>(static_cast<double>(bytes) / bytes_per_line) + 16;
        reserve_huge(p.rows, n);
        reserve_huge(p.cols, n);
        if (weighted) reserve_huge(p.w, n);
    }
    return p;
}

// Share k's edges joined to c (in file order), maxid updated.
inline void join_edge_part(psv::Coo &c, int64_t &maxid, EdgePart &p, int k) {
    if (k == 0) {
        c.rows.swap(p.rows);
        c.cols.swap(p.cols);
        c.fvalues.swap(p.w);
    } else {
        c.rows.insert(c.rows.end(), p.rows.begin(), p.rows.end());
        c.cols.insert(c.cols.end(), p.cols.begin(), p.cols.end());
        c.fvalues.insert(c.fvalues.end(), p.w.begin(), p.w.end());
    }
    maxid = std::max(maxid, p.maxid);
}

// Reserve n entries in rows, cols and the value array that will be used.
inline void reserve_all(psv::Coo &c, uint64_t n, bool fv, bool iv) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, uint64_t(1) << 40));
    reserve_huge(c.rows, k);
    reserve_huge(c.cols, k);
    if (fv) reserve_huge(c.fvalues, k);
    if (iv) reserve_huge(c.ivalues, k);
}

// An edge list's first edge line fixes its 2 or 3 fields (`fixed`, and `fixed_line` the line
// that did) and reserves the tuples for the whole file from the bytes per line ahead (`bpl`: a
// little under that estimate, for the parallel shares); a later line of another count is an
// error naming both. `what`: "fields" (CSV) or "columns" (SNAP).
inline void edge_fields(Input &in, psv::Coo &c, int n, const char *what, int &fixed, int64_t &fixed_line, double &bpl) {
    if (fixed == 0) {
        fixed = n;
        fixed_line = in.line();
        const double ahead = in.bytes_per_line_ahead();
        bpl = ahead / 1.05;
        const double est = static_cast<double>(in.data_bytes_estimate()) / ahead * 1.05 + 1024.0;
        reserve_all(c, static_cast<uint64_t>(est), fixed == 3, false);
    } else if (n != fixed) {
        parse_error(in, format("%d %s, but line %lld has %d (mixed 'u v' and 'u v w' lines)", n, what,
                               static_cast<long long>(fixed_line), fixed));
    }
}

}  // namespace psv::io::detail
