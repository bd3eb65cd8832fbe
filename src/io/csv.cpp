// CSV edge lists: "u,v" or "u,v,w" lines separated by ',', ';' or a tab (the separator of the
// first data line), an optional header line whose first field is not a number (e.g.
// "source,target,weight"), '#'/'%' comment lines and blank lines skipped. Ids are 0-based as in
// the SNAP edge-list reader (same id and weight scanning, max id + 1 vertices, FP64 weights
// summed for duplicates, else a pattern). Blanks around fields are ignored. A line holding
// another separator than the file's is an error (mixed separators).
#include <algorithm>

#include "core/error.hpp"
#include "io/formats.hpp"
#include "io/scan.hpp"

namespace psv::io::detail {
namespace {

const char *sep_name(char sep) { return sep == ',' ? "','" : sep == ';' ? "';'" : "tab"; }

// Split [b, e) on sep into at most 3 trimmed fields (stored); returns the count (4 = more).
int split(const char *b, const char *e, char sep, Tok *f) {
    int n = 0;
    const char *p = b;
    for (;;) {
        const char *s = p;
        while (p < e && *p != sep) ++p;
        if (n == 3) return 4;
        const char *fb = s, *fe = p;
        while (fb < fe && is_space(*fb)) ++fb;
        while (fe > fb && is_space(fe[-1])) --fe;
        f[n].b = fb;
        f[n].e = fe;
        ++n;
        if (p == e) return n;
        ++p;
    }
}

bool numeric(const Tok &t) {
    double d;
    return scan_double(t.b, t.e, d) == Num::ok;
}

}  // namespace

char csv_separator(const char *b, const char *e) {
    for (const char *p = b; p < e; ++p)
        if (*p == ',' || *p == ';') return *p;
    if (std::find(b, e, '\t') == e) return 0;
    Tok f[4];
    split(b, e, '\t', f);
    return numeric(f[0]) ? 0 : '\t';  // a tab-separated header; tab data is an edge list
}

Coo read_csv(Input &in, const char *b, const char *e, char sep, bool relabel) {
    const int64_t max_id = max_edge_id(relabel);
    Coo c;
    int nf = 0;               // fields per line, fixed by the first data line
    int64_t nf_line = 0;      // that line
    bool first = true;        // the next non-comment line is the first (maybe a header)
    int64_t maxid = -1;
    do {
        if (is_comment(b, e)) continue;
        const char *p = b;
        while (p < e && is_space(*p)) ++p;
        if (p == e) continue;
        // ',' or ';' other than the separator; a tab in a line without the separator
        const bool has_sep = std::find(b, e, sep) != e;
        for (const char *q = b; q < e; ++q)
            if (*q != sep && (*q == ',' || *q == ';' || (*q == '\t' && !has_sep)))
                parse_error(in, format("mixed separators: %s in a file separated by %s",
                                       sep_name(*q), sep_name(sep)));
        Tok f[4];
        int n = split(b, e, sep, f);
        if (first) {
            first = false;
            if (!numeric(f[0])) continue;  // a header line
        }
        if (n < 2 || n > 3)
            parse_error(in, format("expected 2 or 3 fields 'u%cv[%cw]' separated by %s, found %s",
                                   sep, sep, sep_name(sep),
                                   n > 3 ? "more than 3" : "1"));
        if (nf == 0) {
            nf = n;
            nf_line = in.line();
            double bpl = in.bytes_per_line_ahead();
            double est = static_cast<double>(in.data_bytes_estimate()) / bpl * 1.05 + 1024.0;
            reserve_all(c, static_cast<uint64_t>(est), nf == 3, false);
        } else if (n != nf) {
            parse_error(in, format("%d fields, but line %lld has %d (mixed 'u v' and 'u v w' "
                                   "lines)",
                                   n, static_cast<long long>(nf_line), nf));
        }
        int64_t u = edge_vertex(in, f[0], "source", max_id);
        int64_t v = edge_vertex(in, f[1], "target", max_id);
        if (nf == 3) c.fvalues.push_back(edge_weight(in, f[2]));
        c.rows.push_back(u);
        c.cols.push_back(v);
        maxid = std::max(maxid, std::max(u, v));
    } while (in.next(b, e));
    if (c.rows.empty()) parse_error(in, "empty file (no edges)");
    c.nrows = c.ncols = relabel ? 0 : maxid + 1;
    set_value_kind(c, nf == 3 ? PSV_FP64 : kPattern);
    in.finish(static_cast<int64_t>(c.rows.size()));
    return c;
}

}  // namespace psv::io::detail
