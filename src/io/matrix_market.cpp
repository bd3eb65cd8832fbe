// Matrix Market coordinate files: real, double, integer or pattern; general, symmetric or
// skew-symmetric (a symmetric file stores one triangle; the other is added here).
#include <string>

#include "core/error.hpp"
#include "io/formats.hpp"
#include "io/parallel.hpp"
#include "io/scan.hpp"

namespace psv::io::detail {
namespace {

enum class Field { real, integer, pattern };
enum class Sym { general, symmetric, skew };

struct Header {
    Field field;
    Sym sym;
    int64_t nrows = 0, ncols = 0, nnz = 0;
};

[[noreturn]] void not_supported(const Input &in, const char *what) {
    fail(PSV_ERROR_NOT_IMPLEMENTED, format("line %lld: Matrix Market %s (%s)",
                                           static_cast<long long>(in.line()), what,
                                           in.path().c_str()));
}

Field parse_field(const Input &in, const Tok &t) {
    if (ieq(t, "real") || ieq(t, "double")) return Field::real;
    if (ieq(t, "integer")) return Field::integer;
    if (ieq(t, "pattern")) return Field::pattern;
    if (ieq(t, "complex")) not_supported(in, "'complex' matrices are not supported");
    parse_error(in, "unknown Matrix Market field '" + show(t.b, t.e) + "'");
}

Sym parse_symmetry(const Input &in, const Tok &t) {
    if (ieq(t, "general")) return Sym::general;
    if (ieq(t, "symmetric")) return Sym::symmetric;
    if (ieq(t, "skew-symmetric")) return Sym::skew;
    if (ieq(t, "hermitian")) not_supported(in, "'hermitian' matrices are not supported");
    parse_error(in, "unknown Matrix Market symmetry '" + show(t.b, t.e) + "'");
}

// Banner: %%MatrixMarket matrix coordinate <field> <symmetry>
void parse_banner(const Input &in, const char *b, const char *e, Header &h) {
    Tok t[6];
    int nt = tokenize(b, e, t, 5);
    if (nt != 5 || !ieq(t[0], "%%matrixmarket"))
        parse_error(in, "malformed Matrix Market banner: expected '%%MatrixMarket matrix "
                        "coordinate <field> <symmetry>'");
    if (!ieq(t[1], "matrix"))
        parse_error(in, "unsupported Matrix Market object '" + show(t[1].b, t[1].e) +
                            "' (only 'matrix')");
    if (ieq(t[2], "array"))
        not_supported(in, "'array' (dense) format is not supported, only 'coordinate'");
    if (!ieq(t[2], "coordinate"))
        parse_error(in, "unknown Matrix Market format '" + show(t[2].b, t[2].e) +
                            "' (expected 'coordinate')");
    h.field = parse_field(in, t[3]);
    h.sym = parse_symmetry(in, t[4]);
    if (h.sym == Sym::skew && h.field == Field::pattern)
        parse_error(in, "a pattern matrix cannot be skew-symmetric");
}

// The size line "nrows ncols nnz" (after any comments and blank lines), checked.
void parse_size_line(Input &in, Header &h) {
    const char *b, *e;
    Tok t[4];
    int nt = 0;
    for (;;) {
        if (!in.next(b, e)) parse_error(in, "missing size line 'nrows ncols nnz' (file ends)");
        if (is_comment(b, e)) continue;
        nt = tokenize(b, e, t, 3);
        if (nt != 0) break;
    }
    if (nt != 3)
        parse_error(in, format("size line must hold 3 numbers 'nrows ncols nnz', found %d "
                               "tokens",
                               nt));
    const char *what[3] = {"number of rows", "number of columns", "number of entries"};
    int64_t v[3];
    for (int k = 0; k < 3; ++k) {
        Num r = scan_int(t[k].b, t[k].e, v[k], true);
        if (r == Num::bad)
            parse_error(in, format("%s is not an integer: '%s'", what[k],
                                   show(t[k].b, t[k].e).c_str()));
        if (r == Num::overflow)
            parse_error(in, format("%s overflows: '%s'", what[k], show(t[k].b, t[k].e).c_str()));
        if (v[k] < 0)
            parse_error(in, format("%s is negative: %lld", what[k], static_cast<long long>(v[k])));
    }
    h.nrows = v[0];
    h.ncols = v[1];
    h.nnz = v[2];
    if (h.nrows > kMaxDim || h.ncols > kMaxDim)
        parse_error(in, format("dimensions %lld x %lld exceed the limit of 2^31-1",
                               static_cast<long long>(h.nrows), static_cast<long long>(h.ncols)));
    if (h.nnz > kMaxNnz)
        parse_error(in, format("number of entries %lld exceeds the limit of 2^62",
                               static_cast<long long>(h.nnz)));
    if (h.sym != Sym::general && h.nrows != h.ncols)
        parse_error(in, format("a symmetric or skew-symmetric matrix must be square, "
                               "not %lld x %lld",
                               static_cast<long long>(h.nrows), static_cast<long long>(h.ncols)));
}

// An empty Coo of the header's type and shape, with room for the entries.
Coo make_coo(const Input &in, const Header &h) {
    Coo c;
    c.index_base = 1;
    c.nrows = h.nrows;
    c.ncols = h.ncols;
    set_value_kind(c, h.field == Field::real      ? PSV_FP64
                      : h.field == Field::integer ? PSV_INT64
                                                  : kPattern);
    // Never reserve more than the file can hold: an entry takes at least 4 bytes ("1 1\n").
    uint64_t bound = in.data_bytes_estimate() / 4 + 16;
    uint64_t want = std::min<uint64_t>(static_cast<uint64_t>(h.nnz), bound);
    if (h.sym != Sym::general) want *= 2;
    reserve_all(c, want, h.field == Field::real, h.field == Field::integer);
    return c;
}

// One entry line's value: fx for a real field, ix for an integer one.
void parse_value(const Input &in, const Header &h, const Tok &t, double &fx, int64_t &ix) {
    if (h.field == Field::real) {
        Num r = scan_double(t.b, t.e, fx);
        if (r == Num::nonfinite)
            parse_error(in, format("value is not finite: '%s'", show(t.b, t.e).c_str()));
        if (r != Num::ok)
            parse_error(in, format("value is not a number: '%s'", show(t.b, t.e).c_str()));
    } else if (h.field == Field::integer) {
        Num r = scan_int(t.b, t.e, ix, true);
        if (r == Num::overflow)
            parse_error(in, format("integer value overflows 64 bits: '%s'",
                                   show(t.b, t.e).c_str()));
        if (r != Num::ok)
            parse_error(in, format("value is not an integer: '%s'", show(t.b, t.e).c_str()));
    }
}

// The 0-based row and column of an entry line, checked against the size line.
void parse_position(const Input &in, const Header &h, const Tok *t, int64_t &i, int64_t &j) {
    int64_t ij[2];
    for (int k = 0; k < 2; ++k) {
        Num r = scan_int(t[k].b, t[k].e, ij[k], true);
        if (r == Num::bad)
            parse_error(in, format("%s index is not an integer: '%s'", k ? "column" : "row",
                                   show(t[k].b, t[k].e).c_str()));
        int64_t dim = k ? h.ncols : h.nrows;
        if (r == Num::overflow || ij[k] < 1 || ij[k] > dim)
            index_error(in, format("%s index %s out of range 1..%lld", k ? "column" : "row",
                                   show(t[k].b, t[k].e).c_str(), static_cast<long long>(dim)));
    }
    i = ij[0] - 1;
    j = ij[1] - 1;
}

// Append entry (i, j) and, for a symmetric or skew-symmetric file, its mirror (j, i).
void append_entry(Coo &c, const Header &h, int64_t i, int64_t j, double fx, int64_t ix) {
    const bool fv = h.field == Field::real, iv = h.field == Field::integer;
    c.rows.push_back(i);
    c.cols.push_back(j);
    if (fv) c.fvalues.push_back(fx);
    if (iv) c.ivalues.push_back(ix);
    if (h.sym == Sym::general || i == j) return;
    c.rows.push_back(j);
    c.cols.push_back(i);
    if (h.sym == Sym::skew) {
        if (fv) c.fvalues.push_back(-fx);
        // Wrapping negation (INT64_MIN stays INT64_MIN), never undefined.
        if (iv) c.ivalues.push_back(static_cast<int64_t>(0 - static_cast<uint64_t>(ix)));
    } else {
        if (fv) c.fvalues.push_back(fx);
        if (iv) c.ivalues.push_back(ix);
    }
}

// An entry line as read_matrix_market reads it, without the entry count: a comment, a blank line
// or an entry (appended to c, counted in entries). False for any other line, which the
// sequential loop then reads or reports.
bool take_entry(const Header &h, int ntok, const char *b, const char *e, Coo &c,
                int64_t &entries) {
    if (is_comment(b, e)) return true;
    Tok t[4];
    int nt = tokenize(b, e, t, 3);
    if (nt == 0) return true;
    if (nt != ntok) return false;
    int64_t ij[2];
    for (int k = 0; k < 2; ++k)
        if (scan_int(t[k].b, t[k].e, ij[k], true) != Num::ok || ij[k] < 1 ||
            ij[k] > (k ? h.ncols : h.nrows))
            return false;
    double fx = 0.0;
    int64_t ix = 0;
    if (h.field == Field::real && scan_double(t[2].b, t[2].e, fx) != Num::ok) return false;
    if (h.field == Field::integer && scan_int(t[2].b, t[2].e, ix, true) != Num::ok) return false;
    if (h.sym == Sym::skew && ij[0] == ij[1] && (fx != 0.0 || ix != 0)) return false;
    append_entry(c, h, ij[0] - 1, ij[1] - 1, fx, ix);
    ++entries;
    return true;
}

// A share of a block's entries.
struct Part {
    Coo c;
    int64_t entries = 0;
    size_t before = 0;  // share 0: the tuples read before the block
};

}  // namespace

Coo read_matrix_market(Input &in, const char *bb, const char *be) {
    Header h;
    parse_banner(in, bb, be, h);
    parse_size_line(in, h);
    Coo c = make_coo(in, h);
    const int ntok = h.field == Field::pattern ? 2 : 3;
    const char *b, *e;
    Tok t[4];
    int64_t count = 0;
    // Blocks of lines in parallel until a share would pass the declared count (then line by
    // line, which names the line of the first entry too many).
    bool blocks = true;
    auto make = [&](int k, size_t) {
        Part p;
        if (k == 0) {
            p.before = c.rows.size();
            p.c = std::move(c);
        }
        return p;
    };
    auto take = [&](const char *lb, const char *le, Part &p) {
        return take_entry(h, ntok, lb, le, p.c, p.entries);
    };
    auto join = [&](Part &p, int k) {
        const bool fits = p.entries <= h.nnz - count;
        if (k == 0) {
            c = std::move(p.c);
            if (!fits) {
                c.rows.resize(p.before);
                c.cols.resize(p.before);
                if (!c.fvalues.empty()) c.fvalues.resize(p.before);
                if (!c.ivalues.empty()) c.ivalues.resize(p.before);
            }
        } else if (fits) {
            c.rows.insert(c.rows.end(), p.c.rows.begin(), p.c.rows.end());
            c.cols.insert(c.cols.end(), p.c.cols.begin(), p.c.cols.end());
            c.fvalues.insert(c.fvalues.end(), p.c.fvalues.begin(), p.c.fvalues.end());
            c.ivalues.insert(c.ivalues.end(), p.c.ivalues.begin(), p.c.ivalues.end());
        }
        if (fits) count += p.entries;
        else blocks = false;
        return fits;
    };
    for (;;) {
        if (blocks) {
            const char *lb, *le;
            if (!in.lines_ahead(lb, le)) break;
            if (!parse_block<Part>(in, lb, le, make, take, join)) continue;
        }
        if (!in.next(b, e)) break;
        if (is_comment(b, e)) continue;
        int nt = tokenize(b, e, t, 3);
        if (nt == 0) continue;
        if (count == h.nnz)
            parse_error(in, format("more entries than the %lld declared on the size line",
                                   static_cast<long long>(h.nnz)));
        if (nt != ntok)
            parse_error(in, format("expected %d columns '%s', found %s", ntok,
                                   ntok == 2 ? "i j" : "i j value",
                                   nt > 3 ? "more than 3" : std::to_string(nt).c_str()));
        int64_t i, j;
        parse_position(in, h, t, i, j);
        double fx = 0.0;
        int64_t ix = 0;
        parse_value(in, h, t[2], fx, ix);
        if (h.sym == Sym::skew && i == j && (fx != 0.0 || ix != 0))
            parse_error(in, "nonzero diagonal entry in a skew-symmetric matrix");
        ++count;
        append_entry(c, h, i, j, fx, ix);
    }
    if (count != h.nnz)
        parse_error(in, format("expected %lld entries, found %lld (the file ends early)",
                               static_cast<long long>(h.nnz), static_cast<long long>(count)));
    in.finish(static_cast<int64_t>(c.rows.size()));
    return c;
}

}  // namespace psv::io::detail
