// BVGraph (LAW WebGraph) decoding: the properties, a 64-bit bit-buffer reader of the instantaneous
// codes, one node's successor list (copy blocks, intervals, residuals merged), and two drivers:
// sequential, and parallel over chunks of nodes when X.offsets gives where each list starts.
//
// Every value read is checked before it is used (a reference within the window and the nodes
// decoded, blocks within the referenced list, successors in 0..nodes-1 and strictly increasing,
// outdegrees within what the declared arc count leaves), so a corrupt stream ends in an error
// naming the node and bit, in time proportional to the declared arcs.
#include "io/bvgraph.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/csr_build.hpp"
#include "core/error.hpp"

namespace psv::io {
namespace {

constexpr int64_t kMaxNodes = 2147483647;        // psv's dimensions: 2^31 - 1
constexpr size_t kMaxPropertiesBytes = 1 << 20;  // a longer .properties file is not one
constexpr size_t kPad = 16;                      // zero bytes after the data: two 8-byte loads
constexpr int64_t kChunkNodes = 1024;            // nodes per parallel chunk (at least)
constexpr int64_t kMaxChunks = 256;
constexpr uint64_t kMaxParallelRefChain = 64;    // deeper chains (maxrefcount) decode sequentially

enum class Code : uint8_t { gamma, delta, unary, zeta };

struct Params {
    int64_t nodes = 0;
    uint64_t arcs = 0;
    uint64_t window = 0, min_interval = 0;
    uint64_t max_ref = UINT64_MAX;  // maxrefcount; UINT64_MAX when absent
    unsigned zeta_k = 3;
    Code outdegree = Code::gamma, block = Code::gamma, residual = Code::zeta,
         reference = Code::unary, block_count = Code::gamma, offset = Code::gamma;
};

// compressionflags: the names WebGraph writes, separated by '|', and the coding each selects.
struct FlagName {
    const char *name;
    Code Params::*field;
    Code code;
};
const FlagName kFlags[] = {
    {"OUTDEGREES_GAMMA", &Params::outdegree, Code::gamma},
    {"OUTDEGREES_DELTA", &Params::outdegree, Code::delta},
    {"BLOCKS_GAMMA", &Params::block, Code::gamma},
    {"BLOCKS_DELTA", &Params::block, Code::delta},
    {"BLOCKS_UNARY", &Params::block, Code::unary},
    {"RESIDUALS_GAMMA", &Params::residual, Code::gamma},
    {"RESIDUALS_DELTA", &Params::residual, Code::delta},
    {"RESIDUALS_ZETA", &Params::residual, Code::zeta},
    {"REFERENCES_GAMMA", &Params::reference, Code::gamma},
    {"REFERENCES_DELTA", &Params::reference, Code::delta},
    {"REFERENCES_UNARY", &Params::reference, Code::unary},
    {"BLOCK_COUNT_GAMMA", &Params::block_count, Code::gamma},
    {"BLOCK_COUNT_DELTA", &Params::block_count, Code::delta},
    {"BLOCK_COUNT_UNARY", &Params::block_count, Code::unary},
    {"OFFSETS_GAMMA", &Params::offset, Code::gamma},
    {"OFFSETS_DELTA", &Params::offset, Code::delta},
};
const char *const kUnsupportedFlags[] = {"RESIDUALS_GOLOMB", "RESIDUALS_NIBBLE",
                                         "RESIDUALS_SKEWED_GOLOMB"};

std::string trim(const std::string &s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\f' || s[b] == '\r')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\f' || s[e - 1] == '\r')) --e;
    return s.substr(b, e - b);
}

// A Java properties file as WebGraph writes it: "key=value" lines, '#' and '!' comments.
std::map<std::string, std::string> load_properties(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        fail(PSV_ERROR_IO, format("cannot open %s: %s (a BVGraph .graph is read with its "
                                  ".properties file next to it)",
                                  path.c_str(), std::strerror(errno)));
    std::string text;
    char buf[4096];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() <= kMaxPropertiesBytes)
        text.append(buf, k);
    const bool err = std::ferror(f) != 0;
    std::fclose(f);
    if (err) fail(PSV_ERROR_IO, format("cannot read %s", path.c_str()));
    if (text.size() > kMaxPropertiesBytes)
        fail(PSV_ERROR_PARSE, format("%s: longer than %zu bytes, not a BVGraph .properties file",
                                     path.c_str(), kMaxPropertiesBytes));
    std::map<std::string, std::string> kv;
    size_t p = 0;
    while (p < text.size()) {
        size_t nl = text.find('\n', p);
        if (nl == std::string::npos) nl = text.size();
        const std::string line = trim(text.substr(p, nl - p));
        p = nl + 1;
        if (line.empty() || line[0] == '#' || line[0] == '!') continue;
        size_t sep = line.find_first_of("=:");
        if (sep == std::string::npos) sep = line.find_first_of(" \t");
        if (sep == std::string::npos) kv[line] = "";
        else kv[trim(line.substr(0, sep))] = trim(line.substr(sep + 1));
    }
    return kv;
}

uint64_t property(const std::map<std::string, std::string> &kv, const std::string &path,
                  const char *key, uint64_t max, bool required, uint64_t dflt) {
    auto it = kv.find(key);
    if (it == kv.end()) {
        if (required) fail(PSV_ERROR_PARSE, format("%s: no '%s' property", path.c_str(), key));
        return dflt;
    }
    const std::string &v = it->second;
    uint64_t x = 0;
    bool ok = !v.empty() && v.size() <= 19;
    for (char c : v) {
        if (c < '0' || c > '9') ok = false;
        else x = x * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!ok || x > max)
        fail(PSV_ERROR_PARSE, format("%s: %s = '%s' is not an integer in 0..%llu", path.c_str(), key,
                                     v.c_str(), static_cast<unsigned long long>(max)));
    return x;
}

Params parse_properties(const std::string &path) {
    const auto kv = load_properties(path);
    Params P;
    auto cls = kv.find("graphclass");
    if (cls != kv.end() && cls->second != "it.unimi.dsi.webgraph.BVGraph" &&
        cls->second != "it.unimi.dsi.big.webgraph.BVGraph" && cls->second != "class it.unimi.dsi.webgraph.BVGraph")
        fail(PSV_ERROR_NOT_IMPLEMENTED, format("%s: graphclass %s: psv reads BVGraph only",
                                               path.c_str(), cls->second.c_str()));
    const uint64_t version = property(kv, path, "version", UINT64_MAX / 10, false, 0);
    if (version != 0)
        fail(PSV_ERROR_NOT_IMPLEMENTED, format("%s: BVGraph format version %llu, psv reads version 0",
                                               path.c_str(), static_cast<unsigned long long>(version)));
    P.nodes = static_cast<int64_t>(property(kv, path, "nodes", kMaxNodes, true, 0));
    P.arcs = property(kv, path, "arcs", UINT64_MAX / 10, true, 0);
    P.window = property(kv, path, "windowsize", kMaxNodes, true, 0);
    P.min_interval = property(kv, path, "minintervallength", kMaxNodes, true, 0);
    if (kv.count("maxrefcount")) P.max_ref = property(kv, path, "maxrefcount", kMaxNodes, true, 0);
    P.zeta_k = static_cast<unsigned>(property(kv, path, "zetak", 32, false, 3));
    if (P.zeta_k == 0) fail(PSV_ERROR_PARSE, format("%s: zetak = 0 (zeta codes need k >= 1)", path.c_str()));
    auto fl = kv.find("compressionflags");
    if (fl != kv.end()) {
        const std::string &s = fl->second;
        size_t b = 0;
        while (b <= s.size()) {
            size_t e = s.find('|', b);
            if (e == std::string::npos) e = s.size();
            const std::string name = trim(s.substr(b, e - b));
            b = e + 1;
            if (name.empty()) {
                if (e == s.size()) break;
                fail(PSV_ERROR_PARSE, format("%s: compressionflags '%s' has an empty flag", path.c_str(), s.c_str()));
            }
            bool known = false;
            for (const FlagName &f : kFlags)
                if (name == f.name) {
                    P.*(f.field) = f.code;
                    known = true;
                }
            for (const char *u : kUnsupportedFlags)
                if (name == u)
                    fail(PSV_ERROR_NOT_IMPLEMENTED, format("%s: compression flag %s: psv decodes gamma, delta, "
                                                           "unary and zeta codes only", path.c_str(), u));
            if (!known)
                fail(PSV_ERROR_PARSE, format("%s: unknown compression flag '%s' in compressionflags",
                                             path.c_str(), name.c_str()));
        }
    }
    return P;
}

// A whole file (plain or gzip) with kPad zero bytes after its data.
std::vector<uint8_t> load_bytes(const std::string &path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
        fail(PSV_ERROR_IO, format("cannot open %s: %s", path.c_str(), std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) fail(PSV_ERROR_IO, format("cannot read %s: it is a directory", path.c_str()));
    errno = 0;
    gzFile g = gzopen(path.c_str(), "rb");
    if (!g)
        fail(PSV_ERROR_IO, format("cannot open %s: %s", path.c_str(), errno ? std::strerror(errno) : "out of memory"));
    std::vector<uint8_t> data;
    size_t n = 0;
    try {
        // A plain file in one read (one byte more to see its end); gzip and pipes grow the buffer.
        data.resize((S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) + 1 : size_t(1) << 16) + kPad);
        for (;;) {
            if (data.size() - n < kPad + 1) data.resize(data.size() * 2);
            const unsigned want = static_cast<unsigned>(std::min<size_t>(data.size() - n - kPad, 1u << 30));
            const int got = gzread(g, data.data() + n, want);
            if (got < 0) {
                int e = 0;
                const char *m = gzerror(g, &e);
                fail(PSV_ERROR_IO, format("cannot read %s: %s", path.c_str(), e == Z_ERRNO ? std::strerror(errno) : m));
            }
            if (got == 0) break;
            n += static_cast<size_t>(got);
        }
    } catch (...) {
        gzclose(g);
        throw;
    }
    gzclose(g);
    data.resize(n + kPad);
    std::fill(data.end() - kPad, data.end(), 0);
    return data;
}

// The bit stream, most significant bit of each byte first. Reads never fail on their own: past
// the end they see the zero padding, and every read first checks that the position has not
// passed the end (so no load leaves the padding); the caller checks the end of each list.
class Bits {
public:
    Bits(const uint8_t *data, uint64_t nbits, const std::string &file) : d_(data), nbits_(nbits), file_(file) {}

    uint64_t pos = 0;
    int64_t node = 0;  // the list being read, for messages

    uint64_t nbits() const { return nbits_; }

    void check_end() const {
        if (pos > nbits_) truncated();
    }

    [[noreturn]] void truncated() const {
        fail(PSV_ERROR_PARSE, format("%s: truncated: the list of node %lld runs past the end of the "
                                     "bit stream (%llu bits)",
                                     file_.c_str(), static_cast<long long>(node),
                                     static_cast<unsigned long long>(nbits_)));
    }

    [[noreturn]] void corrupt(const std::string &what) const {
        check_end();  // reading zeros past the end is truncation, whatever they looked like
        fail(PSV_ERROR_PARSE, format("%s: node %lld (bit %llu): %s", file_.c_str(),
                                     static_cast<long long>(node),
                                     static_cast<unsigned long long>(pos), what.c_str()));
    }

    // 64 bits from pos on; at least the first 57 are the stream's.
    uint64_t peek() const {
        uint64_t w;
        std::memcpy(&w, d_ + (pos >> 3), 8);
        return __builtin_bswap64(w) << (pos & 7);
    }

    uint64_t unary() {
        uint64_t n = 0;
        for (;;) {
            check_end();
            const uint64_t w = peek();
            const unsigned valid = 64 - static_cast<unsigned>(pos & 7);
            if (w) {
                const unsigned z = static_cast<unsigned>(__builtin_clzll(w));
                pos += z + 1;
                return n + z;
            }
            n += valid;
            pos += valid;
        }
    }

    uint64_t bits(unsigned k) {  // k <= 64
        if (k == 0) return 0;
        if (k > 56) {
            const uint64_t hi = bits(k - 32);
            return (hi << 32) | bits(32);
        }
        check_end();
        const uint64_t v = peek() >> (64 - k);
        pos += k;
        return v;
    }

    uint64_t gamma() {
        check_end();
        const uint64_t w = peek();
        if (w) {
            const unsigned z = static_cast<unsigned>(__builtin_clzll(w));
            if (2 * z + 1 <= 57) {
                pos += 2 * z + 1;
                return (w >> (63 - 2 * z)) - 1;
            }
        }
        const uint64_t m = unary();
        if (m >= 64) corrupt("a gamma code longer than 64 bits");
        return ((uint64_t(1) << m) | bits(static_cast<unsigned>(m))) - 1;
    }

    uint64_t delta() {
        const uint64_t m = gamma();
        if (m >= 64) corrupt("a delta code longer than 64 bits");
        return ((uint64_t(1) << m) | bits(static_cast<unsigned>(m))) - 1;
    }

    uint64_t zeta(unsigned k) {
        check_end();
        const uint64_t w = peek();
        uint64_t h;
        if (w) {
            h = static_cast<unsigned>(__builtin_clzll(w));
            const uint64_t len = h + 1 + (h + 1) * k;  // the longest form: unary, then hk + k bits
            if (len <= 57) {
                const unsigned hk = static_cast<unsigned>(h * k);
                const uint64_t left = uint64_t(1) << hk;
                const unsigned short_len = static_cast<unsigned>(h + 1 + hk + k - 1);
                const unsigned mbits = hk + k - 1;
                const uint64_t m = mbits ? (w << (h + 1)) >> (64 - mbits) : 0;
                if (m < left) {
                    pos += short_len;
                    return m + left - 1;
                }
                const uint64_t m2 = (w << (h + 1)) >> (64 - (hk + k));
                pos += short_len + 1;
                return m2 - 1;
            }
        }
        h = unary();
        if ((h + 1) * k > 63) corrupt("a zeta code longer than 64 bits");
        const unsigned hk = static_cast<unsigned>(h * k);
        const uint64_t left = uint64_t(1) << hk;
        const uint64_t m = bits(hk + k - 1);
        if (m < left) return m + left - 1;
        return ((m << 1) | bits(1)) - 1;
    }

    uint64_t read(Code c, unsigned zeta_k) {
        switch (c) {
            case Code::gamma: return gamma();
            case Code::delta: return delta();
            case Code::unary: return unary();
            case Code::zeta: return zeta(zeta_k);
        }
        return 0;
    }

private:
    const uint8_t *d_;
    uint64_t nbits_;
    const std::string &file_;
};

// WebGraph's map of naturals onto integers: 0, -1, 1, -2, ... from 0, 1, 2, 3, ...
inline int64_t nat2int(uint64_t v) {
    return (v & 1) ? -static_cast<int64_t>(v >> 1) - 1 : static_cast<int64_t>(v >> 1);
}

struct Span {
    const int32_t *p;
    uint64_t n;
};

// One node's successor list after its outdegree; scratch kept between nodes.
class ListDecoder {
public:
    explicit ListDecoder(const Params &P) : P_(P) {}

    // The d successors of node x into out[0..d). get(y) is the list of an earlier node y.
    // Returns the reference (0: none).
    template <class GetList>
    uint64_t decode(Bits &in, int64_t x, uint64_t d, GetList get, int32_t *out) {
        const int64_t n = P_.nodes;
        copied_.clear();
        resid_.clear();
        ivl_.clear();
        uint64_t ref = 0;
        if (P_.window > 0) {
            ref = in.read(P_.reference, P_.zeta_k);
            if (ref > P_.window || ref > static_cast<uint64_t>(x))
                in.corrupt(format("reference %llu outside the window (windowsize %llu)",
                                  (unsigned long long)ref, (unsigned long long)P_.window));
        }
        if (ref > 0) {
            const Span s = get(x - static_cast<int64_t>(ref));
            const uint64_t blocks = in.read(P_.block_count, P_.zeta_k);
            if (blocks > s.n + 1)
                in.corrupt(format("%llu copy blocks for a referenced list of %llu",
                                  (unsigned long long)blocks, (unsigned long long)s.n));
            uint64_t i = 0;
            bool copy = true;
            for (uint64_t k = 0; k < blocks; ++k) {
                const uint64_t b = in.read(P_.block, P_.zeta_k);
                const uint64_t len = b + (k ? 1 : 0);
                if (b > s.n || len > s.n - i)
                    in.corrupt("copy blocks longer than the referenced list");
                if (copy) copied_.insert(copied_.end(), s.p + i, s.p + i + len);
                i += len;
                copy = !copy;
            }
            if (copy) copied_.insert(copied_.end(), s.p + i, s.p + s.n);
            if (copied_.size() > d)
                in.corrupt(format("%zu successors copied, more than the outdegree %llu", copied_.size(),
                                  (unsigned long long)d));
        }
        uint64_t extra = d - copied_.size();
        if (extra > 0 && P_.min_interval > 0) {
            const uint64_t count = in.gamma();
            if (count > extra / P_.min_interval)
                in.corrupt(format("%llu intervals of at least %llu successors, more than the %llu left",
                                  (unsigned long long)count, (unsigned long long)P_.min_interval,
                                  (unsigned long long)extra));
            int64_t next = 0;  // one past the previous interval
            for (uint64_t k = 0; k < count; ++k) {
                const uint64_t v = in.gamma();
                if (v > 2 * static_cast<uint64_t>(n) + 2) in.corrupt("an interval outside 0..nodes-1");
                const int64_t left = k == 0 ? x + nat2int(v) : next + static_cast<int64_t>(v) + 1;
                const uint64_t lv = in.gamma();
                if (lv > extra) in.corrupt("an interval longer than the outdegree");
                const uint64_t len = lv + P_.min_interval;
                if (len > extra) in.corrupt("an interval longer than the outdegree");
                if (left < 0 || left > n || static_cast<uint64_t>(n - left) < len)
                    in.corrupt("an interval outside 0..nodes-1");
                ivl_.push_back(left);
                ivl_.push_back(static_cast<int64_t>(len));
                extra -= len;
                next = left + static_cast<int64_t>(len);
            }
        }
        if (extra > 0) {
            const uint64_t v = in.read(P_.residual, P_.zeta_k);
            if (v > 2 * static_cast<uint64_t>(n) + 2) in.corrupt("a successor outside 0..nodes-1");
            int64_t prev = x + nat2int(v);
            if (prev < 0 || prev >= n) in.corrupt("a successor outside 0..nodes-1");
            resid_.push_back(static_cast<int32_t>(prev));
            for (uint64_t k = 1; k < extra; ++k) {
                const uint64_t g = in.read(P_.residual, P_.zeta_k);
                if (g >= static_cast<uint64_t>(n - prev)) in.corrupt("a successor outside 0..nodes-1");
                prev += static_cast<int64_t>(g) + 1;
                if (prev >= n) in.corrupt("a successor outside 0..nodes-1");
                resid_.push_back(static_cast<int32_t>(prev));
            }
        }
        merge(in, d, out);
        return ref;
    }

private:
    // copied_, the intervals and resid_ (each increasing) into one strictly increasing list.
    void merge(const Bits &in, uint64_t d, int32_t *out) const {
        if (ivl_.empty() && resid_.empty()) {
            std::memcpy(out, copied_.data(), d * sizeof(int32_t));
            return;
        }
        if (ivl_.empty() && copied_.empty()) {
            std::memcpy(out, resid_.data(), d * sizeof(int32_t));
            return;
        }
        constexpr int64_t kEnd = INT64_MAX;
        size_t a = 0, r = 0, iv = 0;
        int64_t cur = ivl_.empty() ? kEnd : ivl_[0], stop = ivl_.empty() ? kEnd : ivl_[0] + ivl_[1];
        int64_t last = -1;
        for (uint64_t t = 0; t < d; ++t) {
            const int64_t va = a < copied_.size() ? copied_[a] : kEnd;
            const int64_t vr = r < resid_.size() ? resid_[r] : kEnd;
            int64_t v;
            if (va <= vr && va <= cur) {
                v = va;
                ++a;
            } else if (vr <= cur) {
                v = vr;
                ++r;
            } else {
                v = cur++;
                if (cur == stop) {
                    iv += 2;
                    cur = iv < ivl_.size() ? ivl_[iv] : kEnd;
                    stop = iv < ivl_.size() ? ivl_[iv] + ivl_[iv + 1] : kEnd;
                }
            }
            if (v <= last) in.corrupt(format("successor %lld listed twice or out of order", (long long)v));
            out[t] = static_cast<int32_t>(v);
            last = v;
        }
    }

    const Params &P_;
    std::vector<int32_t> copied_, resid_;
    std::vector<int64_t> ivl_;  // left, length pairs
};

// The arc count a list's outdegree may still claim.
inline uint64_t check_outdegree(const Bits &in, const Params &P, uint64_t d, uint64_t used) {
    if (d > static_cast<uint64_t>(P.nodes))
        in.corrupt(format("outdegree %llu exceeds nodes = %lld", (unsigned long long)d, (long long)P.nodes));
    if (d > P.arcs - used)
        in.corrupt(format("the lists hold more arcs than the properties' arcs = %llu",
                          (unsigned long long)P.arcs));
    return d;
}

void check_chain(const Bits &in, const Params &P, uint64_t chain) {
    if (chain > P.max_ref)
        in.corrupt(format("a reference chain of %llu lists, longer than maxrefcount = %llu",
                          (unsigned long long)chain, (unsigned long long)P.max_ref));
}

// After the last list only zero padding may follow (WebGraph pads to whole bytes, some files
// more): a set bit is another list, so the declared node count is too small.
void check_trailing(Bits &in, const std::string &file) {
    in.check_end();
    const int64_t last = in.node;
    while (in.pos < in.nbits()) {
        const uint64_t left = in.nbits() - in.pos;
        if (in.bits(static_cast<unsigned>(std::min<uint64_t>(left, 32))) != 0)
            fail(PSV_ERROR_PARSE, format("%s: data after the list of the last node (node %lld): the "
                                         ".properties' nodes = %lld is too small",
                                         file.c_str(), (long long)last, (long long)last + 1));
    }
}

[[noreturn]] void offsets_disagree(const Bits &in, const std::vector<uint64_t> &off) {
    in.corrupt(format("the list ends at bit %llu, .offsets says the next starts at %llu", (unsigned long long)in.pos,
                      (unsigned long long)off[static_cast<size_t>(in.node) + 1]));
}

// All lists one after the other (checked against X.offsets when given). col grows with what the stream holds (never beyond the declared
// arcs), so a lying arc count costs nothing before it is found out.
void decode_sequential(const Params &P, Bits &in, const std::string &file, const std::vector<uint64_t> *off,
                       CsrHost &A) {
    const int64_t n = P.nodes;
    ListDecoder dec(P);
    std::vector<int32_t> &col = A.col;
    col.resize(static_cast<size_t>(std::min<uint64_t>(P.arcs, (in.nbits() >> 3) * 4 + 1024)));
    const size_t wsize = static_cast<size_t>(std::min<uint64_t>(P.window, static_cast<uint64_t>(n))) + 1;
    std::vector<uint32_t> chain(wsize, 0);
    int64_t *rp = A.row_ptr.data();
    uint64_t out = 0;
    rp[0] = 0;
    for (int64_t x = 0; x < n; ++x) {
        in.node = x;
        const uint64_t d = check_outdegree(in, P, in.read(P.outdegree, P.zeta_k), out);
        uint64_t ref = 0;
        if (d) {
            if (out + d > col.size())
                col.resize(static_cast<size_t>(std::min<uint64_t>(P.arcs, std::max<uint64_t>(out + d, 2 * col.size()))));
            ref = dec.decode(
                in, x, d,
                [&](int64_t y) { return Span{col.data() + rp[y], static_cast<uint64_t>(rp[y + 1] - rp[y])}; },
                col.data() + out);
        }
        const uint64_t c = ref ? uint64_t(chain[static_cast<size_t>(x - static_cast<int64_t>(ref)) % wsize]) + 1 : 0;
        check_chain(in, P, c);
        chain[static_cast<size_t>(x) % wsize] = static_cast<uint32_t>(c);
        in.check_end();
        if (off && in.pos != (*off)[static_cast<size_t>(x) + 1]) offsets_disagree(in, *off);
        out += d;
        rp[x + 1] = static_cast<int64_t>(out);
    }
    if (out != P.arcs)
        fail(PSV_ERROR_PARSE, format("%s: the lists hold %llu arcs, the properties say arcs = %llu", file.c_str(),
                                     (unsigned long long)out, (unsigned long long)P.arcs));
    check_trailing(in, file);
    col.resize(static_cast<size_t>(out));
    col.shrink_to_fit();
}

// X.offsets: nodes + 1 bit offsets (the first 0), each coded as the difference from the previous.
std::vector<uint64_t> read_offsets(const Params &P, const std::string &path, uint64_t graph_bits) {
    const std::vector<uint8_t> data = load_bytes(path);
    const uint64_t nbits = static_cast<uint64_t>(data.size() - kPad) * 8;
    const uint64_t count = static_cast<uint64_t>(P.nodes) + 1;
    if (count > nbits)
        fail(PSV_ERROR_PARSE, format("%s: truncated: %llu offsets need at least %llu bits, the file has %llu",
                                     path.c_str(), (unsigned long long)count, (unsigned long long)count,
                                     (unsigned long long)nbits));
    Bits in(data.data(), nbits, path);
    std::vector<uint64_t> off(static_cast<size_t>(count));
    uint64_t at = 0;
    for (uint64_t k = 0; k < count; ++k) {
        in.node = static_cast<int64_t>(k);
        const uint64_t g = in.read(P.offset, P.zeta_k);
        if (k == 0 && g != 0) in.corrupt("the first offset is not 0");
        if (g > graph_bits - at)
            in.corrupt(format("an offset beyond the end of the .graph file (%llu bits): the .graph file is "
                              "truncated or the .offsets file corrupt",
                              (unsigned long long)graph_bits));
        at += g;
        off[static_cast<size_t>(k)] = at;
    }
    in.check_end();
    return off;
}

// Node y's list, decoded at its offset into level depth of the scratch (y before the chunk whose
// lists reference it); chain receives its reference chain length. The levels are sized once
// (maxrefcount + 2): a deeper chain is an error, so they never move while a level is in use.
class RandomAccess {
public:
    RandomAccess(const Params &P, const std::vector<uint64_t> &off, Bits &in)
        : P_(P), off_(off), in_(in), lists_(static_cast<size_t>(P.max_ref) + 2) {
        dec_.reserve(lists_.size());
        for (size_t k = 0; k < lists_.size(); ++k) dec_.emplace_back(P);
    }

    int64_t root = 0;  // the node whose reference led here, named by a chain error

    Span get(int64_t y, size_t depth, uint64_t &chain) {
        if (depth > P_.max_ref) {
            in_.node = root;
            check_chain(in_, P_, depth);
        }
        const uint64_t saved = in_.pos;
        const int64_t saved_node = in_.node;
        in_.pos = off_[static_cast<size_t>(y)];
        in_.node = y;
        const uint64_t d = in_.read(P_.outdegree, P_.zeta_k);
        if (d > static_cast<uint64_t>(P_.nodes))
            in_.corrupt(format("outdegree %llu exceeds nodes = %lld", (unsigned long long)d, (long long)P_.nodes));
        std::vector<int32_t> &out = lists_[depth];
        out.resize(static_cast<size_t>(d));
        uint64_t c = 0;
        if (d) {
            const uint64_t ref = dec_[depth].decode(
                in_, y, d, [&](int64_t z) { return get(z, depth + 1, c); }, out.data());
            if (ref) ++c;
        }
        in_.pos = saved;
        in_.node = saved_node;
        chain = c;
        return Span{out.data(), d};
    }

private:
    const Params &P_;
    const std::vector<uint64_t> &off_;
    Bits &in_;
    std::vector<ListDecoder> dec_;
    std::vector<std::vector<int32_t>> lists_;
};

// Lists decoded in parallel: outdegrees first (row_ptr exactly, the arc count checked before col
// is allocated), then chunks of nodes, each reading the lists before its first node that it
// references at their offsets. Every list must end where the next one's offset says.
void decode_parallel(const Params &P, const uint8_t *data, uint64_t nbits, const std::string &file,
                     const std::vector<uint64_t> &off, CsrHost &A) {
    const int64_t n = P.nodes;
    int64_t *rp = A.row_ptr.data();
    const int64_t nchunks = std::min<int64_t>(kMaxChunks, (n + kChunkNodes - 1) / kChunkNodes);
    const int64_t per = (n + nchunks - 1) / nchunks;
    std::vector<std::exception_ptr> errors(static_cast<size_t>(nchunks));
    // The first error in node order, as the sequential decoder would report it.
    auto rethrow_first = [&] {
        for (auto &e : errors)
            if (e) std::rethrow_exception(e);
    };
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nchunks; ++c) {
        try {
            Bits in(data, nbits, file);
            for (int64_t x = c * per; x < std::min(n, (c + 1) * per); ++x) {
                in.node = x;
                in.pos = off[static_cast<size_t>(x)];
                const uint64_t d = in.read(P.outdegree, P.zeta_k);
                if (d > static_cast<uint64_t>(n))
                    in.corrupt(format("outdegree %llu exceeds nodes = %lld", (unsigned long long)d, (long long)n));
                if (in.pos > off[static_cast<size_t>(x) + 1])
                    in.corrupt("the outdegree runs past the next list's offset (.offsets disagrees)");
                rp[x + 1] = static_cast<int64_t>(d);
            }
        } catch (...) {
            errors[static_cast<size_t>(c)] = std::current_exception();
        }
    }
    rethrow_first();
    rp[0] = 0;
    for (int64_t x = 0; x < n; ++x) {
        if (static_cast<uint64_t>(rp[x + 1]) > P.arcs - static_cast<uint64_t>(rp[x]))
            fail(PSV_ERROR_PARSE, format("%s: the lists hold more arcs than the properties' arcs = %llu "
                                         "(by node %lld)",
                                         file.c_str(), (unsigned long long)P.arcs, (long long)x));
        rp[x + 1] += rp[x];
    }
    if (static_cast<uint64_t>(rp[n]) != P.arcs)
        fail(PSV_ERROR_PARSE, format("%s: the lists hold %llu arcs, the properties say arcs = %llu", file.c_str(),
                                     (unsigned long long)rp[n], (unsigned long long)P.arcs));
    A.col.resize(static_cast<size_t>(P.arcs));
    int32_t *col = A.col.data();
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nchunks; ++c) {
        try {
            const int64_t first = c * per, last = std::min(n, (c + 1) * per);
            Bits in(data, nbits, file);
            ListDecoder dec(P);
            RandomAccess ra(P, off, in);
            const size_t wsize = static_cast<size_t>(std::min<uint64_t>(P.window, static_cast<uint64_t>(n))) + 1;
            std::vector<uint32_t> chain(wsize, 0);
            for (int64_t x = first; x < last; ++x) {
                in.node = ra.root = x;
                in.pos = off[static_cast<size_t>(x)];
                const uint64_t d = in.read(P.outdegree, P.zeta_k);
                uint64_t ref = 0, far_chain = 0;
                if (d)
                    ref = dec.decode(
                        in, x, d,
                        [&](int64_t y) {
                            if (y >= first)
                                return Span{col + rp[y], static_cast<uint64_t>(rp[y + 1] - rp[y])};
                            return ra.get(y, 1, far_chain);
                        },
                        col + rp[x]);
                const int64_t y = x - static_cast<int64_t>(ref);
                const uint64_t ch = !ref ? 0 : (y >= first ? uint64_t(chain[static_cast<size_t>(y) % wsize]) : far_chain) + 1;
                check_chain(in, P, ch);
                chain[static_cast<size_t>(x) % wsize] = static_cast<uint32_t>(ch);
                in.check_end();
                if (in.pos != off[static_cast<size_t>(x) + 1]) offsets_disagree(in, off);
            }
        } catch (...) {
            errors[static_cast<size_t>(c)] = std::current_exception();
        }
    }
    rethrow_first();
    Bits end(data, nbits, file);
    end.pos = off[static_cast<size_t>(n)];
    end.node = n - 1;
    check_trailing(end, file);
}

bool exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

CsrHost decode_bvgraph(const std::string &graph_path, const std::string &base) {
    const std::string props = base + ".properties";
    const Params P = parse_properties(props);
    const std::vector<uint8_t> data = load_bytes(graph_path);
    const uint64_t nbits = static_cast<uint64_t>(data.size() - kPad) * 8;
    // Each list takes at least one bit; a graph without repeated arcs has at most nodes^2.
    if (static_cast<uint64_t>(P.nodes) > nbits)
        fail(PSV_ERROR_PARSE, format("%s: nodes = %lld, but %s holds only %llu bits (each node's list "
                                     "takes at least one)",
                                     props.c_str(), (long long)P.nodes, graph_path.c_str(),
                                     (unsigned long long)nbits));
    const unsigned __int128 max_arcs = static_cast<unsigned __int128>(P.nodes) * static_cast<unsigned __int128>(P.nodes);
    if (P.arcs > max_arcs)
        fail(PSV_ERROR_PARSE, format("%s: arcs = %llu exceeds nodes^2 (nodes = %lld)", props.c_str(),
                                     (unsigned long long)P.arcs, (long long)P.nodes));
    // The reader's col (4 bytes an arc) and the tuples (16) come before the build's own arrays.
    check_build_memory(P.nodes, P.nodes, static_cast<int64_t>(P.arcs), 20);
    CsrHost A;
    A.nrows = A.ncols = P.nodes;
    A.type = PSV_FP32;
    A.pattern = true;
    A.row_ptr.assign(static_cast<size_t>(P.nodes) + 1, 0);
    const std::string offsets = base + ".offsets";
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    std::vector<uint64_t> off;
    if (exists(offsets)) off = read_offsets(P, offsets, nbits);
    if (!off.empty() && threads > 1 && P.nodes > kChunkNodes && P.max_ref <= kMaxParallelRefChain) {
        decode_parallel(P, data.data(), nbits, graph_path, off, A);
    } else {
        Bits in(data.data(), nbits, graph_path);
        decode_sequential(P, in, graph_path, off.empty() ? nullptr : &off, A);
    }
    return A;
}

psv::Coo read_bvgraph(const std::string &graph_path, const std::string &base) {
    CsrHost A = decode_bvgraph(graph_path, base);
    psv::Coo c;
    c.nrows = c.ncols = A.nrows;
    c.type = PSV_FP32;
    c.pattern = true;
    c.index_base = 0;
    const size_t m = A.col.size();
    c.rows.resize(m);
    c.cols.resize(m);
    const int64_t *rp = A.row_ptr.data();
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < A.nrows; ++x)
        for (int64_t k = rp[x]; k < rp[x + 1]; ++k) {
            c.rows[static_cast<size_t>(k)] = x;
            c.cols[static_cast<size_t>(k)] = A.col[static_cast<size_t>(k)];
        }
    return c;
}

}  // namespace psv::io
