// Parsing blocks of whole lines in parallel: each thread takes a share of a block (cut at line
// ends) and parses its lines with a reader's `take` until a line `take` does not accept; the
// shares are then joined in file order up to the first such line, which the reader reads next
// on its own (line by line), so results, errors and their line numbers are those of a
// sequential read.
#pragma once
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/input.hpp"

namespace psv::io::detail {

// Threads for a block of `bytes`: a share of at least kMinShare bytes each.
inline int block_threads(size_t bytes) {
    constexpr size_t kMinShare = size_t(1) << 20;
#ifdef _OPENMP
    size_t t = bytes / kMinShare;
    int most = omp_get_max_threads();
    return t < 1 ? 1 : t < static_cast<size_t>(most) ? static_cast<int>(t) : most;
#else
    (void)bytes;
    return 1;
#endif
}

// The start of the line holding p (p itself if it starts one), within [b, e).
inline const char *line_start_after(const char *b, const char *e, const char *p) {
    if (p <= b) return b;
    const char *nl = static_cast<const char *>(std::memchr(p - 1, '\n', e - (p - 1)));
    return nl ? nl + 1 : e;
}

// The next '\n' in [p, e), or nullptr: a plain loop over the first bytes (lines of an edge
// list are short; a memchr call per line costs more), memchr beyond.
inline const char *find_newline(const char *p, const char *e) {
    const char *q = p;
    for (const char *s = e - p > 64 ? p + 64 : e; q < s; ++q)
        if (*q == '\n') return q;
    return q < e ? static_cast<const char *>(std::memchr(q, '\n', e - q)) : nullptr;
}

// One thread's share: its parsed data (Part), the lines taken, the first line not taken.
template <class Part>
struct Share {
    Part part;
    const char *begin = nullptr, *end = nullptr;
    int64_t lines = 0;
    const char *stop = nullptr;  // nullptr: every line taken
    bool out_of_memory = false;
};

// Parse the block [b, e) of whole lines (Input::lines_ahead) with take(lb, le, part) -> bool
// (le: the line's end without "\n" or "\r\n"), then join(part, k) -> bool the shares k = 0, 1,
// ... in order until one stopped or join refuses one (false: the input is left at that share's
// start). make_part(k, bytes) gives share k's empty part for `bytes` of lines; share 0's may carry the reader's own data
// (so share 0 needs no copy), which join(part, 0) takes back, even when refusing. Consumes the
// lines joined. Returns true if a line was not taken (or a share refused): the caller reads on
// with Input::next.
template <class Part, class Make, class Take, class Join>
bool parse_block(Input &in, const char *b, const char *e, const Make &make_part, const Take &take,
                 const Join &join) {
    const int nt = block_threads(static_cast<size_t>(e - b));
    std::vector<Share<Part>> shares(static_cast<size_t>(nt));
    for (int k = 0; k < nt; ++k) {
        shares[k].begin = line_start_after(b, e, b + (e - b) / nt * k);
        shares[k].end = k + 1 < nt ? line_start_after(b, e, b + (e - b) / nt * (k + 1)) : e;
        shares[k].part = make_part(k, static_cast<size_t>(shares[k].end - shares[k].begin));
    }
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int k = 0; k < nt; ++k) {
        Share<Part> &s = shares[k];
        try {
            const char *p = s.begin;
            while (p < s.end) {
                const char *nl = find_newline(p, s.end);
                const char *le = nl ? nl : s.end;
                if (static_cast<size_t>(le - p) >= Input::kMaxLine) break;
                const char *lee = le > p && le[-1] == '\r' ? le - 1 : le;
                if (!take(p, lee, s.part)) break;
                ++s.lines;
                p = nl ? nl + 1 : s.end;
            }
            if (p < s.end) s.stop = p;
        } catch (const std::bad_alloc &) {  // no exception may leave an OpenMP region
            s.out_of_memory = true;
        }
    }
    for (const Share<Part> &s : shares)
        if (s.out_of_memory) throw std::bad_alloc();
    int64_t lines = 0;
    for (int k = 0; k < nt; ++k) {
        Share<Part> &s = shares[k];
        if (!join(s.part, k)) {
            in.consume(s.begin, lines);
            return true;
        }
        lines += s.lines;
        if (s.stop) {
            in.consume(s.stop, lines);
            return true;
        }
    }
    in.consume(e, lines);
    return false;
}

// Run a line reader over the rest of in, from its first line [b, e): r.line(first), then, while
// r.blocks(), whole blocks of lines ahead through r.block (false: the block stopped at a line the
// fast path refused, read on with r.line), else line by line through r.line.
template <class Reader>
void read_lines(Input &in, Reader &r, const char *b, const char *e) {
    r.line(b, e);
    for (;;) {
        if (r.blocks()) {
            const char *bb, *be;
            if (!in.lines_ahead(bb, be)) break;
            if (!r.block(bb, be)) continue;
        }
        if (!in.next(b, e)) break;
        r.line(b, e);
    }
}

}  // namespace psv::io::detail
