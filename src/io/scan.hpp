// Hand-written scanners for the readers: tokens of a line and decimal numbers.
//
// Inline in this header because the readers call them once per token of every line; a call
// into another translation unit per number would be the reader's hottest overhead.
#pragma once
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace psv::io::detail {

enum class Num { ok, bad, negative, overflow, nonfinite };

inline bool is_digit(char c) { return static_cast<unsigned>(c - '0') < 10u; }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A token for a message: at most 40 characters, non-printable bytes shown as '?'.
std::string show(const char *b, const char *e);

// A decimal integer with an optional sign. Values beyond +-(2^63 - 1) give overflow; a negative
// value gives `negative` when allow_negative is false (out still holds it where it fits).
inline Num scan_int(const char *b, const char *e, int64_t &out, bool allow_negative) {
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

// The parts of a decimal number as scanned: value = (neg ? -1 : 1) * m * 10^exp10 while the
// significand fits 19 digits; `slow` when it does not (the value is then left to from_chars).
struct Decimal {
    bool neg = false;
    const char *num = nullptr;  // from_chars start (after a '-' or '+')
    uint64_t m = 0;
    int64_t exp10 = 0;
    bool slow = false;
};

// One digit into the significand: leading zeros skipped, digits past the 19th only counted.
inline void add_digit(Decimal &d, int &sig, unsigned digit) {
    if (d.m != 0 || digit != 0) {
        if (++sig > 19) d.slow = true;
        else d.m = d.m * 10 + digit;
    }
}

// Scan [+-]digits[.digits][(e|E)[+-]digits] (".5" and "5." too) into d. False if malformed.
inline bool scan_decimal(const char *b, const char *e, Decimal &d) {
    const char *p = b;
    if (p == e) return false;
    if (*p == '+' || *p == '-') {
        d.neg = *p == '-';
        ++p;
    }
    d.num = p;
    int sig = 0;
    bool any = false;
    for (; p < e && is_digit(*p); ++p) {
        any = true;
        add_digit(d, sig, static_cast<unsigned>(*p - '0'));
        if (d.slow) ++d.exp10;
    }
    if (p < e && *p == '.') {
        ++p;
        for (; p < e && is_digit(*p); ++p) {
            any = true;
            add_digit(d, sig, static_cast<unsigned>(*p - '0'));
            if (!d.slow) --d.exp10;
        }
    }
    if (!any) return false;
    if (p < e && (*p == 'e' || *p == 'E')) {
        ++p;
        bool eneg = false;
        if (p < e && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            ++p;
        }
        if (p == e || !is_digit(*p)) return false;
        int64_t x = 0;
        for (; p < e && is_digit(*p); ++p)
            if (x < 100000) x = x * 10 + (*p - '0');
        d.exp10 += eneg ? -x : x;
    }
    return p == e;
}

// The exactly rounded value of a scanned decimal the fast path cannot take, by from_chars
// (strtod where the library has no floating-point from_chars). Sign not applied.
inline Num convert_slow(const Decimal &d, const char *e, double &v) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    auto r = std::from_chars(d.num, e, v);
    if (r.ec == std::errc::result_out_of_range) {
        // Underflow rounds to zero; overflow is not a finite number.
        if (d.exp10 < 0) v = 0.0;
        else return Num::nonfinite;
    } else if (r.ec != std::errc() || r.ptr != e) {
        return Num::bad;
    }
#else
    std::string tmp(d.num, e);
    errno = 0;
    char *end = nullptr;
    v = std::strtod(tmp.c_str(), &end);
    if (end != tmp.c_str() + tmp.size()) return Num::bad;
#endif
    return Num::ok;
}

inline constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// A decimal floating-point number: [+-]digits[.digits][(e|E)[+-]digits] (".5" and "5." too).
// No hex, inf or nan. Exactly rounded: a fast exact path for short numbers, else from_chars.
inline Num scan_double(const char *b, const char *e, double &out) {
    Decimal d;
    if (!scan_decimal(b, e, d)) return Num::bad;
    double v;
    if (d.m == 0 && !d.slow) {
        v = 0.0;
    } else if (!d.slow && d.m <= (uint64_t(1) << 53) && d.exp10 >= -22 && d.exp10 <= 22) {
        double dm = static_cast<double>(d.m);
        v = d.exp10 >= 0 ? dm * kPow10[d.exp10] : dm / kPow10[-d.exp10];
    } else {
        Num r = convert_slow(d, e, v);
        if (r != Num::ok) return r;
    }
    if (d.neg) v = -v;
    if (!std::isfinite(v)) return Num::nonfinite;
    out = v;
    return Num::ok;
}

// One whitespace-separated token of a line.
struct Tok {
    const char *b, *e;
};

// Split a line into whitespace-separated tokens (space, tab, CR, VT, FF). Stores at most
// `maxtok` of them and returns how many there are, counting at most maxtok + 1.
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

// A line whose first non-blank character is '#' or '%'.
inline bool is_comment(const char *b, const char *e) {
    while (b < e && is_space(*b)) ++b;
    return b < e && (*b == '#' || *b == '%');
}

// The token equals `word` (lower case) in any case.
bool ieq(const Tok &t, const char *word);

}  // namespace psv::io::detail
