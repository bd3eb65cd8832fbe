// METIS graph files: a header "n m [fmt [ncon]]" (after '%' comment lines), then one line per
// vertex i = 1..n listing its 1-based neighbours. fmt has up to three digits "abc": a = 1 when
// each line starts with the vertex size, b = 1 when vertex weights follow (ncon of them, default
// 1), c = 1 when every neighbour is followed by the edge's weight. m counts undirected edges, each
// listed twice (once in each endpoint's line), so the lines hold 2m neighbours in all.
//
// Result: n x n, one entry (i, j) per listed neighbour j of i (0-based internally, 1-based in the
// file: index_base 1); INT64 edge weights when fmt says so, else a pattern. Vertex sizes and
// weights are checked and dropped. A blank line is a vertex without neighbours; '%' lines are
// comments anywhere.
#include <algorithm>

#include "core/error.hpp"
#include "io/formats.hpp"
#include "io/scan.hpp"

namespace psv::io::detail {
namespace {

// The next whitespace-separated token in [p, e), or false at the end of the line.
inline bool next_tok(const char *&p, const char *e, Tok &t) {
    while (p < e && is_space(*p)) ++p;
    if (p == e) return false;
    t.b = p;
    while (p < e && !is_space(*p)) ++p;
    t.e = p;
    return true;
}

int64_t header_int(const Input &in, const Tok &t, const char *what, int64_t max) {
    int64_t v = 0;
    Num r = scan_int(t.b, t.e, v, false);
    if (r != Num::ok || v > max)
        parse_error(in, format("METIS header: %s is not an integer in 0..%lld: '%s'", what,
                               static_cast<long long>(max), show(t.b, t.e).c_str()));
    return v;
}

}  // namespace

bool metis_header_like(const char *b, const char *e) {
    Tok t[5];
    int nt = tokenize(b, e, t, 4);
    if (nt < 2 || nt > 4) return false;
    for (int k = 0; k < nt; ++k)
        for (const char *p = t[k].b; p < t[k].e; ++p)
            if (!is_digit(*p)) return false;
    return true;
}

Coo read_metis(Input &in, const char *b, const char *e) {
    Tok t[5];
    int nt = tokenize(b, e, t, 4);
    if (nt < 2 || nt > 4)
        parse_error(in, "METIS header must be 'n m [fmt [ncon]]' (2 to 4 integers)");
    const int64_t n = header_int(in, t[0], "the vertex count n", kMaxDim);
    const int64_t m = header_int(in, t[1], "the edge count m", kMaxNnz / 2);
    bool has_size = false, has_vwgt = false, has_ewgt = false;
    int64_t ncon = 1;
    if (nt >= 3) {
        const Tok &f = t[2];
        bool ok = f.e - f.b <= 3;
        for (const char *p = f.b; ok && p < f.e; ++p) ok = *p == '0' || *p == '1';
        if (!ok)
            parse_error(in, format("METIS header: fmt must be up to three digits 0 or 1 "
                                   "(e.g. 1, 10, 11, 100), found '%s'",
                                   show(f.b, f.e).c_str()));
        const int len = static_cast<int>(f.e - f.b);
        has_ewgt = f.e[-1] == '1';
        has_vwgt = len >= 2 && f.e[-2] == '1';
        has_size = len >= 3 && f.e[-3] == '1';
    }
    if (nt == 4) {
        ncon = header_int(in, t[3], "ncon", 1 << 20);
        if (ncon < 1) parse_error(in, "METIS header: ncon must be at least 1");
    }
    const int64_t nvw = (has_size ? 1 : 0) + (has_vwgt ? ncon : 0);

    Coo c;
    c.index_base = 1;
    c.nrows = c.ncols = n;
    set_value_kind(c, has_ewgt ? PSV_INT64 : kPattern);
    // Memory as the input allows: each listed neighbour takes at least two bytes.
    reserve_all(c, std::min<uint64_t>(static_cast<uint64_t>(m) * 2,
                                      in.data_bytes_estimate() / 2 + 1024),
                false, has_ewgt);
    const uint64_t want = static_cast<uint64_t>(m) * 2;

    int64_t i = 0;  // vertex lines read
    while (in.next(b, e)) {
        const char *p = b;
        while (p < e && is_space(*p)) ++p;
        if (p < e && *p == '%') continue;
        if (i == n) {
            if (p == e) continue;  // trailing blank lines
            parse_error(in, format("more vertex lines than the header's n = %lld",
                                   static_cast<long long>(n)));
        }
        Tok tk;
        for (int64_t k = 0; k < nvw; ++k) {
            if (!next_tok(p, e, tk))
                parse_error(in, format("vertex %lld: expected %lld vertex size/weight value(s) "
                                       "before the neighbours (fmt)",
                                       static_cast<long long>(i + 1),
                                       static_cast<long long>(nvw)));
            int64_t v = 0;
            if (scan_int(tk.b, tk.e, v, false) != Num::ok)
                parse_error(in, format("vertex %lld: vertex size/weight is not a non-negative "
                                       "integer: '%s'",
                                       static_cast<long long>(i + 1), show(tk.b, tk.e).c_str()));
        }
        while (next_tok(p, e, tk)) {
            int64_t v = 0;
            Num r = scan_int(tk.b, tk.e, v, true);
            if (r == Num::bad)
                parse_error(in, format("vertex %lld: neighbour is not a vertex id: '%s'",
                                       static_cast<long long>(i + 1), show(tk.b, tk.e).c_str()));
            if (r != Num::ok || v < 1 || v > n)
                index_error(in, format("vertex %lld: neighbour %s is out of range 1..%lld",
                                       static_cast<long long>(i + 1), show(tk.b, tk.e).c_str(),
                                       static_cast<long long>(n)));
            if (has_ewgt) {
                Tok wt;
                int64_t w = 0;
                if (!next_tok(p, e, wt))
                    parse_error(in, format("vertex %lld: neighbour %lld has no edge weight (fmt "
                                           "says edge weights follow each neighbour)",
                                           static_cast<long long>(i + 1),
                                           static_cast<long long>(v)));
                Num rw = scan_int(wt.b, wt.e, w, true);
                if (rw != Num::ok || w < 1)
                    parse_error(in, format("vertex %lld: edge weight must be a positive integer, "
                                           "found '%s'",
                                           static_cast<long long>(i + 1),
                                           show(wt.b, wt.e).c_str()));
                c.ivalues.push_back(w);
            }
            if (c.rows.size() == want)
                parse_error(in, format("more neighbours than the header's 2m = %llu (m = %lld "
                                       "undirected edges, each listed twice)",
                                       static_cast<unsigned long long>(want),
                                       static_cast<long long>(m)));
            c.rows.push_back(i);
            c.cols.push_back(v - 1);
        }
        ++i;
    }
    if (i != n)
        parse_error(in, format("expected %lld vertex lines (the header's n), found %lld",
                               static_cast<long long>(n), static_cast<long long>(i)));
    if (c.rows.size() != want)
        parse_error(in, format("expected 2m = %llu neighbours (m = %lld undirected edges, each "
                               "listed twice), found %llu",
                               static_cast<unsigned long long>(want), static_cast<long long>(m),
                               static_cast<unsigned long long>(c.rows.size())));
    in.finish(static_cast<int64_t>(c.rows.size()));
    return c;
}

}  // namespace psv::io::detail
