// Readers for Matrix Market and SNAP-style edge lists, plain or gzip-compressed.
//
// The whole file is streamed through one large buffer (zlib's gzread, which also reads plain
// files transparently); lines are split with memchr and numbers scanned by hand. Everything is
// built into a local Coo that is returned only when the whole file has been read, so an error
// never leaves anything half-built behind.
#include "io/read.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace psv::io {
namespace {

constexpr int64_t kMaxDim = 2147483647;           // 2^31 - 1 rows/columns at most
constexpr int64_t kMaxNnz = int64_t(1) << 62;     // declared entries at most
constexpr size_t kChunk = size_t(4) << 20;        // bytes per read
constexpr size_t kMaxLine = size_t(16) << 20;     // a longer line is malformed

// ------------------------------------------------------------------------------------------
// Messages
// ------------------------------------------------------------------------------------------

// A token for a message: at most 40 characters, non-printable bytes shown as '?'.
std::string show(const char *b, const char *e) {
    std::string s;
    size_t n = static_cast<size_t>(e - b);
    bool cut = n > 40;
    if (cut) n = 40;
    s.reserve(n + 3);
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(b[i]);
        s.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
    }
    if (cut) s += "...";
    return s;
}

// ------------------------------------------------------------------------------------------
// Number scanners
// ------------------------------------------------------------------------------------------

enum class Num { ok, bad, negative, overflow, nonfinite };

inline bool is_digit(char c) { return static_cast<unsigned>(c - '0') < 10u; }

// A decimal integer with an optional sign. Values beyond +-(2^63 - 1) give overflow; a negative
// value gives `negative` when allow_negative is false (out still holds it where it fits).
Num scan_int(const char *b, const char *e, int64_t &out, bool allow_negative) {
    if (b == e) return Num::bad;
    bool neg = false;
    if (*b == '+' || *b == '-') {
        neg = *b == '-';
        ++b;
        if (b == e) return Num::bad;
    }
    uint64_t v = 0;
    if (e - b <= 18) {  // cannot overflow
        for (const char *p = b; p < e; ++p) {
            unsigned d = static_cast<unsigned>(*p - '0');
            if (d > 9) return Num::bad;
            v = v * 10 + d;
        }
    } else {
        bool over = false;
        for (const char *p = b; p < e; ++p) {
            unsigned d = static_cast<unsigned>(*p - '0');
            if (d > 9) return Num::bad;
            if (v > (static_cast<uint64_t>(INT64_MAX) - d) / 10) over = true;
            else v = v * 10 + d;
        }
        if (over) return Num::overflow;
    }
    out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    if (neg && v != 0 && !allow_negative) return Num::negative;
    return Num::ok;
}

const double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// A decimal floating-point number: [+-]digits[.digits][(e|E)[+-]digits] (".5" and "5." too).
// No hex, inf or nan. Exactly rounded: a fast exact path for short numbers, else from_chars.
Num scan_double(const char *b, const char *e, double &out) {
    const char *p = b;
    if (p == e) return Num::bad;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        ++p;
    }
    const char *num = p;  // from_chars start (no '+')
    uint64_t m = 0;
    int sig = 0;
    int64_t exp10 = 0;
    bool any = false, slow = false;
    for (; p < e && is_digit(*p); ++p) {
        any = true;
        unsigned d = static_cast<unsigned>(*p - '0');
        if (m != 0 || d != 0) {
            if (++sig > 19) slow = true;
            else m = m * 10 + d;
        }
        if (slow) ++exp10;
    }
    if (p < e && *p == '.') {
        ++p;
        for (; p < e && is_digit(*p); ++p) {
            any = true;
            unsigned d = static_cast<unsigned>(*p - '0');
            if (m != 0 || d != 0) {
                if (++sig > 19) slow = true;
                else m = m * 10 + d;
            }
            if (!slow) --exp10;
        }
    }
    if (!any) return Num::bad;
    if (p < e && (*p == 'e' || *p == 'E')) {
        ++p;
        bool eneg = false;
        if (p < e && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            ++p;
        }
        if (p == e || !is_digit(*p)) return Num::bad;
        int64_t x = 0;
        for (; p < e && is_digit(*p); ++p)
            if (x < 100000) x = x * 10 + (*p - '0');
        exp10 += eneg ? -x : x;
    }
    if (p != e) return Num::bad;
    double v;
    if (m == 0 && !slow) {
        v = 0.0;
    } else if (!slow && m <= (uint64_t(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        double dm = static_cast<double>(m);
        v = exp10 >= 0 ? dm * kPow10[exp10] : dm / kPow10[-exp10];
    } else {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
        auto r = std::from_chars(num, e, v);
        if (r.ec == std::errc::result_out_of_range) {
            // Underflow rounds to zero; overflow is not a finite number.
            if (exp10 < 0) v = 0.0;
            else return Num::nonfinite;
        } else if (r.ec != std::errc() || r.ptr != e) {
            return Num::bad;
        }
#else
        std::string tmp(num, e);
        errno = 0;
        char *end = nullptr;
        v = std::strtod(tmp.c_str(), &end);
        if (end != tmp.c_str() + tmp.size()) return Num::bad;
#endif
        if (neg) v = -v;
        if (!std::isfinite(v)) return Num::nonfinite;
        out = v;
        return Num::ok;
    }
    if (neg) v = -v;
    if (!std::isfinite(v)) return Num::nonfinite;
    out = v;
    return Num::ok;
}

// Split a line into whitespace-separated tokens (space, tab, CR, VT, FF). Stores at most
// `maxtok` of them and returns how many there are, counting at most maxtok + 1.
struct Tok {
    const char *b, *e;
};
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline int tokenize(const char *b, const char *e, Tok *tok, int maxtok) {
    int n = 0;
    const char *p = b;
    for (;;) {
        while (p < e && is_space(*p)) ++p;
        if (p == e) return n;
        const char *s = p;
        while (p < e && !is_space(*p)) ++p;
        if (n == maxtok) return n + 1;
        tok[n].b = s;
        tok[n].e = p;
        ++n;
    }
}

// ------------------------------------------------------------------------------------------
// Input: lines of a (possibly gzip-compressed) file, with progress reports
// ------------------------------------------------------------------------------------------

class Input {
public:
    Input(const std::string &path, bool progress) : path_(path), progress_(progress) {
        struct stat st;
        if (::stat(path.c_str(), &st) != 0)
            fail(PSV_ERROR_IO, format("cannot open %s: %s", path.c_str(), std::strerror(errno)));
        if (S_ISDIR(st.st_mode))
            fail(PSV_ERROR_IO, format("cannot read %s: it is a directory", path.c_str()));
        file_size_ = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
        // gzip magic and, for an estimate of the data size, the trailer's ISIZE (regular files
        // only: a pipe cannot be read twice; zlib detects gzip by itself anyway).
        if (!S_ISREG(st.st_mode)) {
            // nothing to probe
        } else if (FILE *fp = std::fopen(path.c_str(), "rb")) {
            unsigned char magic[2];
            if (std::fread(magic, 1, 2, fp) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
                gz_ = true;
                unsigned char t[4];
                if (file_size_ >= 18 && std::fseek(fp, -4, SEEK_END) == 0 &&
                    std::fread(t, 1, 4, fp) == 4)
                    isize_ = uint32_t(t[0]) | uint32_t(t[1]) << 8 | uint32_t(t[2]) << 16 |
                             uint32_t(t[3]) << 24;
            }
            std::fclose(fp);
        } else {
            fail(PSV_ERROR_IO, format("cannot open %s: %s", path.c_str(), std::strerror(errno)));
        }
        // The buffer first: a constructor that throws after gzopen would leak the gzFile and its
        // file descriptor (the destructor does not run).
        buf_.resize(kChunk);
        errno = 0;
        f_ = gzopen(path.c_str(), "rb");
        if (!f_)
            fail(PSV_ERROR_IO, format("cannot open %s: %s", path.c_str(),
                                      errno ? std::strerror(errno) : "out of memory"));
        gzbuffer(f_, 1u << 20);
        start_ = last_ = std::chrono::steady_clock::now();
    }
    ~Input() {
        if (f_) gzclose(f_);
    }
    Input(const Input &) = delete;
    Input &operator=(const Input &) = delete;

    // The next line, without its '\n' (and a '\r' before it). False at the end of the file.
    bool next(const char *&b, const char *&e) {
        for (;;) {
            const char *s = buf_.data() + pos_;
            const char *nl = static_cast<const char *>(std::memchr(s, '\n', end_ - pos_));
            if (nl) {
                b = s;
                e = nl;
                pos_ = static_cast<size_t>(nl - buf_.data()) + 1;
                ++line_;
                if (e > b && e[-1] == '\r') --e;
                return true;
            }
            if (eof_) {
                if (pos_ == end_) return false;
                b = s;
                e = buf_.data() + end_;
                pos_ = end_;
                ++line_;
                if (e > b && e[-1] == '\r') --e;
                return true;
            }
            fill();
        }
    }

    int64_t line() const { return line_; }
    const std::string &path() const { return path_; }

    // An upper estimate of the bytes of (uncompressed) data, for reserving memory.
    uint64_t data_bytes_estimate() const {
        if (!gz_) return file_size_;
        uint64_t cap = file_size_ * 16;
        return std::min<uint64_t>(std::max<uint64_t>(isize_, file_size_), cap);
    }

    // Average bytes per line over the data buffered ahead (at least 1).
    double bytes_per_line_ahead() const {
        const char *s = buf_.data() + pos_, *e = buf_.data() + end_;
        size_t lines = 0;
        for (const char *p = s; p < e;) {
            const char *nl = static_cast<const char *>(std::memchr(p, '\n', e - p));
            if (!nl) break;
            ++lines;
            p = nl + 1;
        }
        if (lines == 0) return 64.0;
        return std::max(1.0, static_cast<double>(e - s) / static_cast<double>(lines));
    }

    // The final progress line (only if progress lines were due).
    void finish(int64_t entries) {
        if (!progress_) return;
        auto now = std::chrono::steady_clock::now();
        double secs = std::chrono::duration<double>(now - start_).count();
        if (secs < 1.0 && !reported_) return;
        std::fprintf(stderr, "psv: reading %s: done, %lld entries, %.1f MB in %.2f s\n",
                     path_.c_str(), static_cast<long long>(entries),
                     static_cast<double>(total_) / 1e6, secs);
    }

private:
    void fill() {
        size_t rem = end_ - pos_;
        if (rem >= kMaxLine)
            fail(PSV_ERROR_PARSE, format("line %lld: line longer than %zu MB (%s)",
                                         static_cast<long long>(line_ + 1), kMaxLine >> 20,
                                         path_.c_str()));
        if (pos_ > 0 && rem > 0) std::memmove(buf_.data(), buf_.data() + pos_, rem);
        pos_ = 0;
        end_ = rem;
        if (buf_.size() - end_ < kChunk / 2) buf_.resize(buf_.size() * 2);
        size_t want = std::min<size_t>(buf_.size() - end_, INT_MAX);
        int n = gzread(f_, buf_.data() + end_, static_cast<unsigned>(want));
        if (n < 0) {
            int err = 0;
            const char *msg = gzerror(f_, &err);
            if (err == Z_ERRNO)
                fail(PSV_ERROR_IO, format("cannot read %s: %s", path_.c_str(),
                                          std::strerror(errno)));
            if (err == Z_MEM_ERROR) throw std::bad_alloc();
            fail(PSV_ERROR_IO, format("cannot read %s: corrupt or truncated gzip data (%s), "
                                      "after line %lld",
                                      path_.c_str(), msg ? msg : "?",
                                      static_cast<long long>(line_)));
        }
        if (n == 0) {
            // A gzip stream that ends early reads as far as it goes, then Z_BUF_ERROR.
            int err = Z_OK;
            const char *msg = gzerror(f_, &err);
            if (err == Z_BUF_ERROR)
                fail(PSV_ERROR_IO, format("cannot read %s: truncated gzip data (%s), after "
                                          "line %lld",
                                          path_.c_str(), msg ? msg : "?",
                                          static_cast<long long>(line_)));
            eof_ = true;
        }
        end_ += static_cast<size_t>(n);
        total_ += static_cast<uint64_t>(n);
        if (progress_) report();
    }

    void report() {
        auto now = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(now - start_).count() < 1.0) return;
        if (reported_ && std::chrono::duration<double>(now - last_).count() < 1.0) return;
        last_ = now;
        reported_ = true;
        if (file_size_ > 0) {
            // Percent of the file (compressed bytes consumed), MB of data read.
            z_off_t off = gzoffset(f_);
            double pct = 100.0 * static_cast<double>(off) / static_cast<double>(file_size_);
            pct = std::min(100.0, std::max(0.0, pct));
            std::fprintf(stderr, "psv: reading %s: %.0f%% (%.1f MB)\n", path_.c_str(), pct,
                         static_cast<double>(total_) / 1e6);
        } else {  // a pipe: no size known
            std::fprintf(stderr, "psv: reading %s: %.1f MB\n", path_.c_str(),
                         static_cast<double>(total_) / 1e6);
        }
    }

    std::string path_;
    bool progress_;
    gzFile f_ = nullptr;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    bool eof_ = false;
    int64_t line_ = 0;
    uint64_t file_size_ = 0;
    bool gz_ = false;
    uint32_t isize_ = 0;
    uint64_t total_ = 0;
    bool reported_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

[[noreturn]] void parse_error(const Input &in, const std::string &what) {
    fail(PSV_ERROR_PARSE,
         format("line %lld: %s (%s)", static_cast<long long>(in.line()), what.c_str(),
                in.path().c_str()));
}

[[noreturn]] void index_error(const Input &in, const std::string &what) {
    fail(PSV_ERROR_INVALID_INDEX,
         format("line %lld: %s (%s)", static_cast<long long>(in.line()), what.c_str(),
                in.path().c_str()));
}

bool ieq(const Tok &t, const char *word) {
    size_t n = std::strlen(word);
    if (static_cast<size_t>(t.e - t.b) != n) return false;
    for (size_t i = 0; i < n; ++i) {
        char c = t.b[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != word[i]) return false;
    }
    return true;
}

inline bool is_comment(const char *b, const char *e) {
    while (b < e && is_space(*b)) ++b;
    return b < e && (*b == '#' || *b == '%');
}

// Reserve n entries in rows, cols and the value array that will be used.
void reserve_all(Coo &c, uint64_t n, bool fv, bool iv) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, uint64_t(1) << 40));
    c.rows.reserve(k);
    c.cols.reserve(k);
    if (fv) c.fvalues.reserve(k);
    if (iv) c.ivalues.reserve(k);
}

// ------------------------------------------------------------------------------------------
// Matrix Market
// ------------------------------------------------------------------------------------------

enum class Field { real, integer, pattern };
enum class Sym { general, symmetric, skew };

Coo read_matrix_market(Input &in, const char *bb, const char *be) {
    // Banner: %%MatrixMarket matrix coordinate <field> <symmetry>
    Tok t[6];
    int nt = tokenize(bb, be, t, 5);
    if (nt != 5 || !ieq(t[0], "%%matrixmarket"))
        parse_error(in, "malformed Matrix Market banner: expected '%%MatrixMarket matrix "
                        "coordinate <field> <symmetry>'");
    if (!ieq(t[1], "matrix"))
        parse_error(in, "unsupported Matrix Market object '" + show(t[1].b, t[1].e) +
                            "' (only 'matrix')");
    if (ieq(t[2], "array"))
        fail(PSV_ERROR_NOT_IMPLEMENTED,
             format("line %lld: Matrix Market 'array' (dense) format is not supported, only "
                    "'coordinate' (%s)",
                    static_cast<long long>(in.line()), in.path().c_str()));
    if (!ieq(t[2], "coordinate"))
        parse_error(in, "unknown Matrix Market format '" + show(t[2].b, t[2].e) +
                            "' (expected 'coordinate')");
    Field field;
    if (ieq(t[3], "real") || ieq(t[3], "double")) field = Field::real;
    else if (ieq(t[3], "integer")) field = Field::integer;
    else if (ieq(t[3], "pattern")) field = Field::pattern;
    else if (ieq(t[3], "complex"))
        fail(PSV_ERROR_NOT_IMPLEMENTED,
             format("line %lld: Matrix Market 'complex' matrices are not supported (%s)",
                    static_cast<long long>(in.line()), in.path().c_str()));
    else parse_error(in, "unknown Matrix Market field '" + show(t[3].b, t[3].e) + "'");
    Sym sym;
    if (ieq(t[4], "general")) sym = Sym::general;
    else if (ieq(t[4], "symmetric")) sym = Sym::symmetric;
    else if (ieq(t[4], "skew-symmetric")) sym = Sym::skew;
    else if (ieq(t[4], "hermitian"))
        fail(PSV_ERROR_NOT_IMPLEMENTED,
             format("line %lld: Matrix Market 'hermitian' matrices are not supported (%s)",
                    static_cast<long long>(in.line()), in.path().c_str()));
    else parse_error(in, "unknown Matrix Market symmetry '" + show(t[4].b, t[4].e) + "'");
    if (sym == Sym::skew && field == Field::pattern)
        parse_error(in, "a pattern matrix cannot be skew-symmetric");

    // Size line.
    const char *b, *e;
    int64_t nrows = 0, ncols = 0, nnz = 0;
    for (;;) {
        if (!in.next(b, e))
            parse_error(in, "missing size line 'nrows ncols nnz' (file ends)");
        if (is_comment(b, e)) continue;
        nt = tokenize(b, e, t, 3);
        if (nt == 0) continue;
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
                parse_error(in, format("%s overflows: '%s'", what[k],
                                       show(t[k].b, t[k].e).c_str()));
            if (v[k] < 0)
                parse_error(in, format("%s is negative: %lld", what[k],
                                       static_cast<long long>(v[k])));
        }
        nrows = v[0];
        ncols = v[1];
        nnz = v[2];
        if (nrows > kMaxDim || ncols > kMaxDim)
            parse_error(in, format("dimensions %lld x %lld exceed the limit of 2^31-1",
                                   static_cast<long long>(nrows), static_cast<long long>(ncols)));
        if (nnz > kMaxNnz)
            parse_error(in, format("number of entries %lld exceeds the limit of 2^62",
                                   static_cast<long long>(nnz)));
        if (sym != Sym::general && nrows != ncols)
            parse_error(in, format("a symmetric or skew-symmetric matrix must be square, "
                                   "not %lld x %lld",
                                   static_cast<long long>(nrows), static_cast<long long>(ncols)));
        break;
    }

    Coo c;
    c.nrows = nrows;
    c.ncols = ncols;
    switch (field) {
    case Field::real: c.type = PSV_FP64; c.pattern = false; c.dup = PSV_PLUS; break;
    case Field::integer: c.type = PSV_INT64; c.pattern = false; c.dup = PSV_PLUS; break;
    case Field::pattern: c.type = PSV_FP32; c.pattern = true; c.dup = PSV_NOOP; break;
    }
    const bool fv = field == Field::real, iv = field == Field::integer;
    {
        // Never reserve more than the file can hold: an entry takes at least 4 bytes ("1 1\n").
        uint64_t bound = in.data_bytes_estimate() / 4 + 16;
        uint64_t want = std::min<uint64_t>(static_cast<uint64_t>(nnz), bound);
        if (sym != Sym::general) want *= 2;
        reserve_all(c, want, fv, iv);
    }

    const int ntok = field == Field::pattern ? 2 : 3;
    int64_t count = 0;
    while (in.next(b, e)) {
        if (is_comment(b, e)) continue;
        nt = tokenize(b, e, t, 3);
        if (nt == 0) continue;
        if (count == nnz)
            parse_error(in, format("more entries than the %lld declared on the size line",
                                   static_cast<long long>(nnz)));
        if (nt != ntok)
            parse_error(in, format("expected %d columns '%s', found %s", ntok,
                                   ntok == 2 ? "i j" : "i j value",
                                   nt > 3 ? "more than 3" : std::to_string(nt).c_str()));
        int64_t ij[2];
        for (int k = 0; k < 2; ++k) {
            Num r = scan_int(t[k].b, t[k].e, ij[k], true);
            if (r == Num::bad)
                parse_error(in, format("%s index is not an integer: '%s'", k ? "column" : "row",
                                       show(t[k].b, t[k].e).c_str()));
            int64_t dim = k ? ncols : nrows;
            if (r == Num::overflow || ij[k] < 1 || ij[k] > dim)
                index_error(in, format("%s index %s out of range 1..%lld", k ? "column" : "row",
                                       show(t[k].b, t[k].e).c_str(),
                                       static_cast<long long>(dim)));
        }
        const int64_t i = ij[0] - 1, j = ij[1] - 1;
        double fx = 0.0;
        int64_t ix = 0;
        if (fv) {
            Num r = scan_double(t[2].b, t[2].e, fx);
            if (r == Num::nonfinite)
                parse_error(in, format("value is not finite: '%s'", show(t[2].b, t[2].e).c_str()));
            if (r != Num::ok)
                parse_error(in, format("value is not a number: '%s'", show(t[2].b, t[2].e).c_str()));
        } else if (iv) {
            Num r = scan_int(t[2].b, t[2].e, ix, true);
            if (r == Num::overflow)
                parse_error(in, format("integer value overflows 64 bits: '%s'",
                                       show(t[2].b, t[2].e).c_str()));
            if (r != Num::ok)
                parse_error(in, format("value is not an integer: '%s'",
                                       show(t[2].b, t[2].e).c_str()));
        }
        if (sym == Sym::skew && i == j && (fx != 0.0 || ix != 0))
            parse_error(in, "nonzero diagonal entry in a skew-symmetric matrix");
        ++count;
        c.rows.push_back(i);
        c.cols.push_back(j);
        if (fv) c.fvalues.push_back(fx);
        if (iv) c.ivalues.push_back(ix);
        if (sym != Sym::general && i != j) {
            c.rows.push_back(j);
            c.cols.push_back(i);
            if (sym == Sym::skew) {
                if (fv) c.fvalues.push_back(-fx);
                // Wrapping negation (INT64_MIN stays INT64_MIN), never undefined.
                if (iv) c.ivalues.push_back(static_cast<int64_t>(0 - static_cast<uint64_t>(ix)));
            } else {
                if (fv) c.fvalues.push_back(fx);
                if (iv) c.ivalues.push_back(ix);
            }
        }
    }
    if (count != nnz)
        parse_error(in, format("expected %lld entries, found %lld (the file ends early)",
                               static_cast<long long>(nnz), static_cast<long long>(count)));
    in.finish(static_cast<int64_t>(c.rows.size()));
    return c;
}

// ------------------------------------------------------------------------------------------
// Edge lists
// ------------------------------------------------------------------------------------------

int64_t scan_vertex(const Input &in, const Tok &t, const char *what) {
    int64_t v = 0;
    Num r = scan_int(t.b, t.e, v, false);
    if (r == Num::bad)
        parse_error(in, format("%s is not a vertex id: '%s'", what, show(t.b, t.e).c_str()));
    if (r == Num::negative)
        parse_error(in, format("%s is a negative vertex id: %s", what, show(t.b, t.e).c_str()));
    if (r == Num::overflow || v > kMaxDim - 1)
        index_error(in, format("%s vertex id %s is too large (at most 2^31-2)", what,
                               show(t.b, t.e).c_str()));
    return v;
}

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

// `b, e` is the file's first line (already read).
Coo read_edge_list(Input &in, const char *b, const char *e) {
    Coo c;
    int mode = 0;                 // 2 or 3 columns, fixed by the first edge line
    int64_t mode_line = 0;        // the line that fixed it
    int64_t header = -1;          // vertex count from a header line
    int64_t end_marker = 0;       // line of a "-1" end marker
    bool seen_data = false;       // a header or an edge has been read
    int64_t maxid = -1;
    Tok t[4];
    bool have = true;             // b, e hold a line not yet handled
    while (have || in.next(b, e)) {
        have = false;
        if (mode != 0 && !end_marker) {
            // Fast path for the common "u<ws>v[<ws>w]" line with ids below 10^9; anything
            // else (including every error) goes through the general path below.
            int64_t u, v;
            const char *p = fast_pair(b, e, u, v);
            if (p) {
                if (mode == 2) {
                    while (p < e && is_space(*p)) ++p;
                    if (p == e) {
                        c.rows.push_back(u);
                        c.cols.push_back(v);
                        maxid = std::max(maxid, std::max(u, v));
                        continue;
                    }
                } else {
                    const char *wb = p;
                    while (p < e && !is_space(*p)) ++p;
                    const char *we = p;
                    while (p < e && is_space(*p)) ++p;
                    double w;
                    if (p == e && wb != we && scan_double(wb, we, w) == Num::ok) {
                        c.rows.push_back(u);
                        c.cols.push_back(v);
                        c.fvalues.push_back(w);
                        maxid = std::max(maxid, std::max(u, v));
                        continue;
                    }
                }
            }
        }
        if (is_comment(b, e)) continue;
        int nt = tokenize(b, e, t, 3);
        if (nt == 0) continue;
        if (end_marker)
            parse_error(in, format("data after the end marker '-1' on line %lld",
                                   static_cast<long long>(end_marker)));
        if (nt == 1) {
            if (t[0].e - t[0].b == 2 && t[0].b[0] == '-' && t[0].b[1] == '1') {
                end_marker = in.line();  // only the last data line may be "-1"
                continue;
            }
            if (seen_data)
                parse_error(in, format("expected 2 or 3 columns 'u v [w]', found 1: '%s'",
                                       show(t[0].b, t[0].e).c_str()));
            int64_t v = 0;
            Num r = scan_int(t[0].b, t[0].e, v, false);
            if (r != Num::ok || v > kMaxDim)
                parse_error(in, format("a single-number first line must be the vertex count "
                                       "(0..2^31-1), found '%s'",
                                       show(t[0].b, t[0].e).c_str()));
            header = v;
            seen_data = true;
            continue;
        }
        if (nt > 3) parse_error(in, "expected 2 or 3 columns 'u v [w]', found more than 3");
        seen_data = true;
        if (mode == 0) {
            mode = nt;
            mode_line = in.line();
            // Reserve for the whole file, estimated from the bytes per line ahead.
            double bpl = in.bytes_per_line_ahead();
            double est = static_cast<double>(in.data_bytes_estimate()) / bpl * 1.05 + 1024.0;
            reserve_all(c, static_cast<uint64_t>(est), mode == 3, false);
        } else if (nt != mode) {
            parse_error(in, format("%d columns, but line %lld has %d (mixed 'u v' and 'u v w' "
                                   "lines)",
                                   nt, static_cast<long long>(mode_line), mode));
        }
        int64_t u = scan_vertex(in, t[0], "source");
        int64_t v = scan_vertex(in, t[1], "target");
        if (mode == 3) {
            double w = 0.0;
            Num r = scan_double(t[2].b, t[2].e, w);
            if (r == Num::nonfinite)
                parse_error(in, format("weight is not finite: '%s'", show(t[2].b, t[2].e).c_str()));
            if (r != Num::ok)
                parse_error(in, format("weight is not a number: '%s'", show(t[2].b, t[2].e).c_str()));
            c.fvalues.push_back(w);
        }
        c.rows.push_back(u);
        c.cols.push_back(v);
        maxid = std::max(maxid, std::max(u, v));
    }
    if (c.rows.empty()) parse_error(in, "empty file (no edges)");
    int64_t n = std::max(header, maxid + 1);
    c.nrows = c.ncols = n;
    if (mode == 3) {
        c.type = PSV_FP64;
        c.pattern = false;
        c.dup = PSV_PLUS;
    } else {
        c.type = PSV_FP32;
        c.pattern = true;
        c.dup = PSV_NOOP;  // ignored for a pattern: duplicates count once
    }
    in.finish(static_cast<int64_t>(c.rows.size()));
    return c;
}

}  // namespace

Coo read_file(const std::string &path, bool progress) {
    Input in(path, progress);
    const char *b = nullptr, *e = nullptr;
    if (!in.next(b, e)) {
        fail(PSV_ERROR_PARSE, format("line 1: empty file (no edges) (%s)", path.c_str()));
    }
    if (e - b >= 3 && static_cast<unsigned char>(b[0]) == 0xEF &&
        static_cast<unsigned char>(b[1]) == 0xBB && static_cast<unsigned char>(b[2]) == 0xBF)
        b += 3;  // a UTF-8 byte order mark
    // "%%MatrixMarket ..." is Matrix Market. A first line starting "%%matrix" in any case
    // (a misspelt banner) goes there too, to be reported rather than read as a comment.
    static const char kBanner[] = "%%matrix";
    const size_t nb = sizeof kBanner - 1;
    bool mm = static_cast<size_t>(e - b) >= nb;
    for (size_t k = 0; mm && k < nb; ++k) {
        char ch = b[k];
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
        mm = ch == kBanner[k];
    }
    if (mm) return read_matrix_market(in, b, e);
    return read_edge_list(in, b, e);
}

}  // namespace psv::io
