// The lines of a (possibly gzip-compressed) file, with progress reports.
//
// The whole file is streamed through one large buffer (zlib's gzread, which also reads plain
// files transparently); lines are split with memchr. A regular single-member gzip file of at
// most kWholeGzip bytes is decompressed at once by libdeflate where psv was built with it
// (several times zlib's speed); anything else (pipes, multi-member or damaged files) goes through
// zlib, whose messages name what is wrong. Readers take lines one by one (next) or as blocks of
// whole lines (lines_ahead, consume) to parse in parallel.
#pragma once
#include <string.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace psv::io::detail {

class Input {
public:
    static constexpr size_t kMaxLine = size_t(16) << 20;  // a longer line is malformed

    // Opens path (PSV_ERROR_IO when it cannot be opened or is a directory).
    Input(const std::string &path, bool progress);
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
                if (whole_ && static_cast<size_t>(nl - s) >= kMaxLine) long_line();
                b = s;
                e = nl;
                pos_ = static_cast<size_t>(nl - buf_.data()) + 1;
                ++line_;
                if (e > b && e[-1] == '\r') --e;
                return true;
            }
            if (eof_) {
                if (pos_ == end_) return false;
                if (whole_ && end_ - pos_ >= kMaxLine) long_line();
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

    // The complete lines buffered ahead (refilling as needed): [b, e) ends after a '\n', or at
    // the end of the file. False at the end of the file. Valid until the next call of next,
    // lines_ahead or consume.
    bool lines_ahead(const char *&b, const char *&e) {
        for (;;) {
            const char *s = buf_.data() + pos_;
            if (eof_) {
                if (pos_ == end_) return false;
                b = s;
                e = buf_.data() + end_;
                return true;
            }
            const char *nl = static_cast<const char *>(::memrchr(s, '\n', end_ - pos_));
            if (nl) {
                b = s;
                e = nl + 1;
                return true;
            }
            fill();
        }
    }

    // `lines` lines from the start of the last lines_ahead block have been read: the next line
    // starts at p.
    void consume(const char *p, int64_t lines) {
        pos_ = static_cast<size_t>(p - buf_.data());
        line_ += lines;
    }

    int64_t line() const { return line_; }
    const std::string &path() const { return path_; }

    // An upper estimate of the bytes of (uncompressed) data, for reserving memory.
    uint64_t data_bytes_estimate() const;

    // Average bytes per line over (at most 1 MB of) the data buffered ahead (at least 1).
    double bytes_per_line_ahead() const;

    // The final progress line (only if progress lines were due).
    void finish(int64_t entries);

private:
    void probe_gzip(bool regular);
    bool inflate_whole();
    [[noreturn]] void long_line() const;
    void fill();
    void report();

    std::string path_;
    bool progress_;
    gzFile f_ = nullptr;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    bool eof_ = false;
    bool whole_ = false;  // all of the data is in buf_ (libdeflate)
    int64_t line_ = 0;
    uint64_t file_size_ = 0;
    bool gz_ = false;
    uint32_t isize_ = 0;
    uint64_t total_ = 0;
    bool reported_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

// Ask for transparent huge pages on the 2 MB extents inside [p, p + n), before they are first
// touched: a buffer of tens of MB then takes tens of page faults, not thousands (advice only).
void huge_pages(void *p, size_t n);

// Reserve n elements, on huge pages where the kernel gives them.
template <class T>
void reserve_huge(std::vector<T> &v, size_t n) {
    v.reserve(n);
    huge_pages(v.data(), v.capacity() * sizeof(T));
}

// Errors naming the current line and the file: "line N: what (path)".
[[noreturn]] void parse_error(const Input &in, const std::string &what);  // PSV_ERROR_PARSE
[[noreturn]] void index_error(const Input &in, const std::string &what);  // PSV_ERROR_INVALID_INDEX

}  // namespace psv::io::detail
