// SNAP-style 0-based edge lists: "u v" or "u v w" lines, '#'/'%' comments, an optional first
// line holding the vertex count, an optional last line "-1" as an end marker.
#include <algorithm>

#include "core/error.hpp"
#include "io/formats.hpp"
#include "io/parallel.hpp"
#include "io/scan.hpp"

namespace psv::io::detail {
namespace {

// "u<space or tab>v" at the very start of a line, both below 10^9: returns the position after
// v and the blanks that follow it, or nullptr if the line does not start that way.
inline const char *fast_pair(const char *p, const char *e, int64_t &u, int64_t &v) {
    int64_t x[2];
    for (int k = 0; k < 2; ++k) {
        const char *s = p;
        uint64_t a = 0;
        while (p < e && is_digit(*p)) a = a * 10 + static_cast<unsigned>(*p++ - '0');
        if (p == s || p - s > 9) return nullptr;
        x[k] = static_cast<int64_t>(a);
        if (k == 0) {
            if (p == e || (*p != ' ' && *p != '\t')) return nullptr;
            while (p < e && (*p == ' ' || *p == '\t')) ++p;
        } else if (p < e && !is_space(*p)) {
            return nullptr;
        }
    }
    while (p < e && (*p == ' ' || *p == '\t')) ++p;
    u = x[0];
    v = x[1];
    return p;
}

// The reader's state across lines.
class EdgeReader {
public:
    EdgeReader(Input &in, bool relabel)
        : in_(in), relabel_(relabel), max_id_(max_edge_id(relabel)) {}

    // Once the number of columns is known (and no end marker seen), lines are read in blocks,
    // in parallel (parse_block).
    bool blocks() const { return mode_ != 0 && !end_marker_; }

    // Parse a block of lines; true if it stopped at a line for line() to read.
    bool block(const char *b, const char *e) {
        return parse_block<EdgePart>(
            in_, b, e,
            [&](int k, size_t bytes) { return edge_part(c_, k, bytes, bpl_, mode_ == 3); },
            [&](const char *lb, const char *le, EdgePart &p) { return take(lb, le, p); },
            [&](EdgePart &p, int k) {
                join_edge_part(c_, maxid_, p, k);
                return true;
            });
    }

    // Any line: comments, blank lines, the header, the end marker, an edge; or an error.
    void line(const char *b, const char *e) {
        if (is_comment(b, e)) return;
        Tok t[4];
        int nt = tokenize(b, e, t, 3);
        if (nt == 0) return;
        if (end_marker_)
            parse_error(in_, format("data after the end marker '-1' on line %lld",
                                    static_cast<long long>(end_marker_)));
        if (nt == 1) return single(t[0]);
        if (nt > 3) parse_error(in_, "expected 2 or 3 columns 'u v [w]', found more than 3");
        seen_data_ = true;
        columns(nt);
        int64_t u = edge_vertex(in_, t[0], "source", max_id_);
        int64_t v = edge_vertex(in_, t[1], "target", max_id_);
        if (mode_ == 3) c_.fvalues.push_back(edge_weight(in_, t[2]));
        add(u, v);
    }

    Coo finish() {
        if (c_.rows.empty()) parse_error(in_, "empty file (no edges)");
        int64_t n = relabel_ ? 0 : std::max(header_, maxid_ + 1);
        c_.nrows = c_.ncols = n;
        set_value_kind(c_, mode_ == 3 ? PSV_FP64 : kPattern);
        in_.finish(static_cast<int64_t>(c_.rows.size()));
        return std::move(c_);
    }

private:
    // A line as line() reads it, once the columns are fixed: a comment, a blank line or an edge
    // (into p). False for any other line (a count or end marker, a wrong column count, a bad id
    // or weight): line() reads it or reports it.
    bool take(const char *b, const char *e, EdgePart &p) const {
        int64_t u, v;
        if (const char *q = fast_pair(b, e, u, v)) {  // "u<ws>v" with ids below 10^9
            const char *wb = q;
            while (q < e && !is_space(*q)) ++q;
            const char *we = q;
            while (q < e && is_space(*q)) ++q;
            double w;
            if (q == e && mode_ == 2 && wb == we) {
                p.add(u, v);
                return true;
            }
            if (q == e && mode_ == 3 && wb != we && scan_double(wb, we, w) == Num::ok) {
                p.w.push_back(w);
                p.add(u, v);
                return true;
            }
        }
        if (is_comment(b, e)) return true;
        Tok t[4];
        int nt = tokenize(b, e, t, 3);
        if (nt == 0) return true;
        if (nt != mode_) return false;
        return p.take_fields(t, mode_, max_id_);
    }

    void add(int64_t u, int64_t v) {
        c_.rows.push_back(u);
        c_.cols.push_back(v);
        maxid_ = std::max(maxid_, std::max(u, v));
    }

    // A one-token line: the end marker "-1", or the vertex count on the first data line.
    void single(const Tok &t) {
        if (t.e - t.b == 2 && t.b[0] == '-' && t.b[1] == '1') {
            end_marker_ = in_.line();  // only the last data line may be "-1"
            return;
        }
        if (seen_data_)
            parse_error(in_, format("expected 2 or 3 columns 'u v [w]', found 1: '%s'",
                                    show(t.b, t.e).c_str()));
        int64_t v = 0;
        Num r = scan_int(t.b, t.e, v, false);
        if (r != Num::ok || v > kMaxDim)
            parse_error(in_, format("a single-number first line must be the vertex count "
                                    "(0..2^31-1), found '%s'",
                                    show(t.b, t.e).c_str()));
        header_ = v;
        seen_data_ = true;
    }

    // The first edge line fixes 2 or 3 columns (and reserves for the whole file); later lines
    // must match it.
    void columns(int nt) { edge_fields(in_, c_, nt, "columns", mode_, mode_line_, bpl_); }

    Input &in_;
    const bool relabel_;
    const int64_t max_id_;
    Coo c_;
    int mode_ = 0;            // 2 or 3 columns, fixed by the first edge line
    int64_t mode_line_ = 0;   // the line that fixed it
    int64_t header_ = -1;     // vertex count from a header line
    int64_t end_marker_ = 0;  // line of a "-1" end marker
    bool seen_data_ = false;  // a header or an edge has been read
    int64_t maxid_ = -1;
    double bpl_ = 64.0;  // bytes per line, a little under the estimate (for reserving)
};

}  // namespace

Coo read_edge_list(Input &in, const char *b, const char *e, bool relabel) {
    EdgeReader r(in, relabel);
    read_lines(in, r, b, e);
    return r.finish();
}

}  // namespace psv::io::detail
