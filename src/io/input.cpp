// The line reader under every format: opening, gzip probing, buffer refills, progress lines.
#include "io/input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <new>

#include "core/error.hpp"

#ifdef PSV_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace psv::io::detail {
namespace {

constexpr size_t kChunk = size_t(4) << 20;     // bytes per read
// The largest gzip data inflated at once by libdeflate (it holds the whole data in memory).
constexpr uint64_t kWholeGzip = uint64_t(2) << 30;

}  // namespace

Input::Input(const std::string &path, bool progress) : path_(path), progress_(progress) {
    // "-" is standard input, read once like any pipe (gzip is detected by zlib).
    const bool std_in = path == "-";
    if (std_in) path_ = "<stdin>";
    struct stat st;
    if ((std_in ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st)) != 0)
        fail(PSV_ERROR_IO, format("cannot open %s: %s", path_.c_str(), std::strerror(errno)));
    if (S_ISDIR(st.st_mode))
        fail(PSV_ERROR_IO, format("cannot read %s: it is a directory", path_.c_str()));
    file_size_ = S_ISREG(st.st_mode) && !std_in ? static_cast<uint64_t>(st.st_size) : 0;
    probe_gzip(S_ISREG(st.st_mode) && !std_in);
    if (inflate_whole()) {
        start_ = last_ = std::chrono::steady_clock::now();
        return;
    }
    // The buffer first: a constructor that throws after gzopen would leak the gzFile and its
    // file descriptor (the destructor does not run).
    // A small regular file gets a small buffer (fill() grows it as needed): a 4 MiB buffer
    // zero-filled for every small file is what bounded the fuzzer's executions per second.
    // (gzip: the trailer's size of the data, which only sizes the first buffer).
    const size_t first = file_size_ == 0 ? kChunk : static_cast<size_t>(gz_ ? isize_ : file_size_) + 1;
    buf_.resize(std::min(kChunk, std::max<size_t>(first, 4096)));
    errno = 0;
    if (std_in) {
        // A duplicate, so that gzclose leaves the process's standard input open.
        int fd = ::dup(STDIN_FILENO);
        if (fd < 0)
            fail(PSV_ERROR_IO, format("cannot open %s: %s", path_.c_str(), std::strerror(errno)));
        f_ = gzdopen(fd, "rb");
        if (!f_) ::close(fd);
    } else {
        f_ = gzopen(path.c_str(), "rb");
    }
    if (!f_)
        fail(PSV_ERROR_IO, format("cannot open %s: %s", path_.c_str(),
                                  errno ? std::strerror(errno) : "out of memory"));
    gzbuffer(f_, file_size_ > 0 && file_size_ < (1u << 20) ? 1u << 16 : 1u << 20);
    start_ = last_ = std::chrono::steady_clock::now();
}

// gzip magic and, for an estimate of the data size, the trailer's ISIZE (regular files only: a
// pipe cannot be read twice; zlib detects gzip by itself anyway).
void Input::probe_gzip(bool regular) {
    if (!regular) return;
    FILE *fp = std::fopen(path_.c_str(), "rb");
    if (!fp) fail(PSV_ERROR_IO, format("cannot open %s: %s", path_.c_str(), std::strerror(errno)));
    unsigned char magic[2];
    if (std::fread(magic, 1, 2, fp) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        gz_ = true;
        unsigned char t[4];
        if (file_size_ >= 18 && std::fseek(fp, -4, SEEK_END) == 0 && std::fread(t, 1, 4, fp) == 4)
            isize_ = uint32_t(t[0]) | uint32_t(t[1]) << 8 | uint32_t(t[2]) << 16 |
                     uint32_t(t[3]) << 24;
    }
    std::fclose(fp);
}

// A regular, single-member gzip file inflated at once by libdeflate into buf_ (all of the data,
// eof_ set). False, with nothing changed, where libdeflate is absent or cannot serve: the file is
// then read through zlib, which reports any damage as it always has.
bool Input::inflate_whole() {
#ifdef PSV_HAVE_LIBDEFLATE
    if (!gz_ || isize_ == 0 || isize_ > kWholeGzip || file_size_ < 18) return false;
    std::vector<char> packed(static_cast<size_t>(file_size_));
    FILE *fp = std::fopen(path_.c_str(), "rb");
    if (!fp) return false;
    const bool read_all = std::fread(packed.data(), 1, packed.size(), fp) == packed.size();
    std::fclose(fp);
    if (!read_all) return false;
    std::vector<char> data;
    data.reserve(static_cast<size_t>(isize_));
    huge_pages(data.data(), data.capacity());
    data.resize(static_cast<size_t>(isize_));
    libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d) throw std::bad_alloc();
    size_t in_used = 0, out_used = 0;
    libdeflate_result r = libdeflate_gzip_decompress_ex(d, packed.data(), packed.size(),
                                                        data.data(), data.size(), &in_used,
                                                        &out_used);
    libdeflate_free_decompressor(d);
    // ISIZE is the size modulo 2^32 and of the last member only: trust it only when one member
    // covers the whole file and fills the buffer exactly.
    if (r != LIBDEFLATE_SUCCESS || in_used != packed.size() || out_used != data.size())
        return false;
    buf_.swap(data);
    end_ = out_used;
    total_ = out_used;
    eof_ = true;
    whole_ = true;
    return true;
#else
    return false;
#endif
}

uint64_t Input::data_bytes_estimate() const {
    if (!gz_) return file_size_;
    uint64_t cap = file_size_ * 16;
    return std::min<uint64_t>(std::max<uint64_t>(isize_, file_size_), cap);
}

double Input::bytes_per_line_ahead() const {
    // A sample of at most 1 MB (the buffer may hold the whole file).
    const char *s = buf_.data() + pos_, *e = buf_.data() + std::min(end_, pos_ + (size_t(1) << 20));
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

void Input::finish(int64_t entries) {
    if (!progress_) return;
    auto now = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(now - start_).count();
    if (secs < 1.0 && !reported_) return;
    std::fprintf(stderr, "psv: reading %s: done, %lld entries, %.1f MB in %.2f s\n",
                 path_.c_str(), static_cast<long long>(entries),
                 static_cast<double>(total_) / 1e6, secs);
}

void Input::long_line() const {
    fail(PSV_ERROR_PARSE, format("line %lld: line longer than %zu MB (%s)",
                                 static_cast<long long>(line_ + 1), kMaxLine >> 20,
                                 path_.c_str()));
}

void Input::fill() {
    size_t rem = end_ - pos_;
    if (rem >= kMaxLine) long_line();
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
            fail(PSV_ERROR_IO, format("cannot read %s: %s", path_.c_str(), std::strerror(errno)));
        if (err == Z_MEM_ERROR) throw std::bad_alloc();
        fail(PSV_ERROR_IO, format("cannot read %s: corrupt or truncated gzip data (%s), "
                                  "after line %lld",
                                  path_.c_str(), msg ? msg : "?", static_cast<long long>(line_)));
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

void Input::report() {
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

void huge_pages(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    uintptr_t e = (reinterpret_cast<uintptr_t>(p) + n) & ~(kHuge - 1);
    if (e > b) ::madvise(reinterpret_cast<void *>(b), e - b, MADV_HUGEPAGE);  // advice only
#else
    (void)p;
    (void)n;
#endif
}

void parse_error(const Input &in, const std::string &what) {
    fail(PSV_ERROR_PARSE, format("line %lld: %s (%s)", static_cast<long long>(in.line()),
                                 what.c_str(), in.path().c_str()));
}

void index_error(const Input &in, const std::string &what) {
    fail(PSV_ERROR_INVALID_INDEX, format("line %lld: %s (%s)", static_cast<long long>(in.line()),
                                         what.c_str(), in.path().c_str()));
}

}  // namespace psv::io::detail
