// The scanners' out-of-line helpers (used on error paths and banners only).
#include "io/scan.hpp"

namespace psv::io::detail {

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

}  // namespace psv::io::detail
