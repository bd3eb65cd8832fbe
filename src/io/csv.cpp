// CSV edge lists: "u,v" or "u,v,w" lines separated by ',', ';' or a tab (the separator of the
// first data line), an optional header line whose first field is not a number (e.g.
// "source,target,weight"), '#'/'%' comment lines and blank lines skipped. Ids are 0-based as in
// the SNAP edge-list reader (same id and weight scanning, max id + 1 vertices, FP64 weights
// summed for duplicates, else a pattern). Blanks around fields are ignored. A line holding
// another separator than the file's is an error (mixed separators).
#include <algorithm>

#include "core/error.hpp"
#include "io/formats.hpp"
#include "io/parallel.hpp"
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

namespace {

// The reader's state across lines.
class CsvReader {
public:
    CsvReader(Input &in, char sep, bool relabel)
        : in_(in), sep_(sep), max_id_(max_edge_id(relabel)) {}

    // Once the field count is fixed, lines are read in blocks, in parallel (parse_block).
    bool blocks() const { return nf_ != 0; }

    // Any line: a comment, a blank line, the header, an edge; or an error.
    void line(const char *b, const char *e) {
        if (is_comment(b, e)) return;
        const char *p = b;
        while (p < e && is_space(*p)) ++p;
        if (p == e) return;
        if (const char *q = other_separator(b, e))
            parse_error(in_, format("mixed separators: %s in a file separated by %s",
                                    sep_name(*q), sep_name(sep_)));
        Tok f[4];
        int n = split(b, e, sep_, f);
        if (first_) {
            first_ = false;
            if (!numeric(f[0])) return;  // a header line
        }
        if (n < 2 || n > 3)
            parse_error(in_, format("expected 2 or 3 fields 'u%cv[%cw]' separated by %s, found %s",
                                    sep_, sep_, sep_name(sep_), n > 3 ? "more than 3" : "1"));
        edge_fields(in_, c_, n, "fields", nf_, nf_line_, bpl_);
        int64_t u = edge_vertex(in_, f[0], "source", max_id_);
        int64_t v = edge_vertex(in_, f[1], "target", max_id_);
        if (nf_ == 3) c_.fvalues.push_back(edge_weight(in_, f[2]));
        c_.rows.push_back(u);
        c_.cols.push_back(v);
        maxid_ = std::max(maxid_, std::max(u, v));
    }

    // Parse a block of lines; true if it stopped at a line for line() to read.
    bool block(const char *b, const char *e) {
        return parse_block<EdgePart>(
            in_, b, e,
            [&](int k, size_t bytes) { return edge_part(c_, k, bytes, bpl_, nf_ == 3); },
            [&](const char *lb, const char *le, EdgePart &p) { return take(lb, le, p); },
            [&](EdgePart &p, int k) {
                join_edge_part(c_, maxid_, p, k);
                return true;
            });
    }

    Coo finish(bool relabel) {
        if (c_.rows.empty()) parse_error(in_, "empty file (no edges)");
        c_.nrows = c_.ncols = relabel ? 0 : maxid_ + 1;
        set_value_kind(c_, nf_ == 3 ? PSV_FP64 : kPattern);
        in_.finish(static_cast<int64_t>(c_.rows.size()));
        return std::move(c_);
    }

private:
    // ',' or ';' other than the separator, or a tab in a line without the separator.
    const char *other_separator(const char *b, const char *e) const {
        const bool has_sep = std::find(b, e, sep_) != e;
        for (const char *q = b; q < e; ++q)
            if (*q != sep_ && (*q == ',' || *q == ';' || (*q == '\t' && !has_sep))) return q;
        return nullptr;
    }

    // A line as line() reads it once the field count is fixed: a comment, a blank line or an
    // edge (into p). False for any other line, which line() then reports.
    bool take(const char *b, const char *e, EdgePart &p) const {
        if (is_comment(b, e)) return true;
        const char *q = b;
        while (q < e && is_space(*q)) ++q;
        if (q == e) return true;
        if (other_separator(b, e)) return false;
        Tok f[4];
        if (split(b, e, sep_, f) != nf_) return false;
        return p.take_fields(f, nf_, max_id_);
    }

    Input &in_;
    const char sep_;
    const int64_t max_id_;
    Coo c_;
    int nf_ = 0;            // fields per line, fixed by the first data line
    int64_t nf_line_ = 0;   // that line
    bool first_ = true;     // the next non-comment line is the first (maybe a header)
    int64_t maxid_ = -1;
    double bpl_ = 64.0;     // bytes per line, a little under the estimate (for reserving)
};

}  // namespace

Coo read_csv(Input &in, const char *b, const char *e, char sep, bool relabel) {
    CsvReader r(in, sep, relabel);
    read_lines(in, r, b, e);
    return r.finish(relabel);
}

}  // namespace psv::io::detail
