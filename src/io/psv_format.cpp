// psv's binary matrix format: see psv_format.hpp for the layout.
#include "io/psv_format.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef PSV_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "io/input.hpp"
#include "core/ops.hpp"

namespace psv::io {
namespace {

constexpr char kMagic[8] = {'P', 'S', 'V', 'M', 'T', 'X', '\0', '\1'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kEndian = 0x01020304u;
constexpr size_t kHeaderBytes = 128;
constexpr uint64_t kAlign = 64;

struct Header {
    char magic[8];
    uint32_t version;
    uint32_t endian;
    int64_t nrows, ncols, nvals;
    int32_t type, pattern, index_base, reserved;
    uint64_t off_row_ptr, off_col, off_values, file_size;
    uint32_t crc_row_ptr, crc_col, crc_values;
    uint8_t pad[24];
    uint32_t crc_header;
};
static_assert(sizeof(Header) == kHeaderBytes, "the .psv header is 128 bytes");
static_assert(offsetof(Header, crc_row_ptr) == 88 && offsetof(Header, crc_header) == 124, "layout");

// CRC-32 (zlib's polynomial): libdeflate's where built with it (the same values, computed with
// carry-less multiplication), else zlib's.
uint32_t crc(const void *p, uint64_t n) {
#ifdef PSV_HAVE_LIBDEFLATE
    return libdeflate_crc32(0, p, static_cast<size_t>(n));
#else
    uLong c = crc32(0L, Z_NULL, 0);
    const Bytef *b = static_cast<const Bytef *>(p);
    while (n > 0) {
        const uInt chunk = n > (1u << 30) ? (1u << 30) : static_cast<uInt>(n);
        c = crc32(c, b, chunk);
        b += chunk;
        n -= chunk;
    }
    return static_cast<uint32_t>(c);
#endif
}

uint64_t align_up(uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

uint32_t header_crc(const Header &h) { return crc(&h, offsetof(Header, crc_header)); }

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// pread all of [off, off + n) or fail.
void read_at(int fd, void *dst, uint64_t n, uint64_t off, const std::string &path) {
    char *d = static_cast<char *>(dst);
    while (n > 0) {
        const size_t chunk = n > (1ull << 30) ? (1ull << 30) : static_cast<size_t>(n);
        ssize_t r = ::pread(fd, d, chunk, static_cast<off_t>(off));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail(PSV_ERROR_IO, format("%s: read failed: %s", path.c_str(), std::strerror(errno)));
        if (r == 0) fail(PSV_ERROR_PARSE, format("%s: .psv file truncated", path.c_str()));
        d += r;
        n -= static_cast<uint64_t>(r);
        off += static_cast<uint64_t>(r);
    }
}

}  // namespace

bool is_psv_file(const std::string &path) {
    if (path == "-") return false;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) return false;
    char m[8];
    ssize_t r = ::pread(f.fd, m, sizeof m, 0);
    return r == static_cast<ssize_t>(sizeof m) && std::memcmp(m, kMagic, sizeof m) == 0;
}

CsrHost read_psv(const std::string &path, int32_t &index_base) {
    const char *p = path.c_str();
    Fd f;
    f.fd = ::open(p, O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) fail(PSV_ERROR_IO, format("cannot open %s: %s", p, std::strerror(errno)));
    struct stat st;
    if (::fstat(f.fd, &st) != 0) fail(PSV_ERROR_IO, format("%s: %s", p, std::strerror(errno)));
    const uint64_t length = static_cast<uint64_t>(st.st_size);
    if (length < kHeaderBytes)
        fail(PSV_ERROR_PARSE, format("%s: .psv file truncated: %llu bytes, shorter than its header", p,
                                     (unsigned long long)length));
    Header h;
    read_at(f.fd, &h, sizeof h, 0, path);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) fail(PSV_ERROR_PARSE, format("%s: not a .psv file (wrong magic)", p));
    if (h.endian != kEndian)
        fail(PSV_ERROR_PARSE, format("%s: .psv file of another byte order (marker 0x%08x)", p, h.endian));
    if (h.version != kVersion)
        fail(PSV_ERROR_PARSE, format("%s: .psv format version %u, this library reads version %u", p, h.version, kVersion));
    if (header_crc(h) != h.crc_header) fail(PSV_ERROR_PARSE, format("%s: .psv checksum mismatch in the header", p));
    if (h.nrows < 0 || h.ncols < 0 || h.nrows > kMaxDimension || h.ncols > kMaxDimension || h.nvals < 0)
        fail(PSV_ERROR_PARSE, format("%s: .psv header: invalid sizes %lld x %lld, %lld entries", p,
                                     (long long)h.nrows, (long long)h.ncols, (long long)h.nvals));
    const psv_type type = static_cast<psv_type>(h.type);
    if (!valid_type(type) || (h.pattern != 0 && h.pattern != 1) || (h.index_base != 0 && h.index_base != 1))
        fail(PSV_ERROR_PARSE, format("%s: .psv header: invalid type %d, pattern %d or id base %d", p, h.type,
                                     h.pattern, h.index_base));
    if (h.file_size != length)
        fail(PSV_ERROR_PARSE, format("%s: .psv file is %llu bytes, its header says %llu (truncated?)", p,
                                     (unsigned long long)length, (unsigned long long)h.file_size));
    // Every size is bounded by the file's length before anything is allocated (nvals <= 2^62 from
    // here on, so the products below cannot overflow).
    if (static_cast<uint64_t>(h.nvals) > length / 4 || static_cast<uint64_t>(h.nrows) + 1 > length / 8)
        fail(PSV_ERROR_PARSE, format("%s: .psv header declares %lld rows and %lld entries, more than its %llu bytes hold",
                                     p, (long long)h.nrows, (long long)h.nvals, (unsigned long long)length));
    const uint64_t n_rp = (static_cast<uint64_t>(h.nrows) + 1) * 8;
    const uint64_t n_col = static_cast<uint64_t>(h.nvals) * 4;
    const uint64_t n_val = h.pattern ? 0 : static_cast<uint64_t>(h.nvals) * type_size(type);
    auto in_file = [&](uint64_t off, uint64_t n, uint64_t min_off) {
        return off % kAlign == 0 && off >= min_off && off <= length && n <= length - off;
    };
    if (!in_file(h.off_row_ptr, n_rp, kHeaderBytes) || !in_file(h.off_col, n_col, h.off_row_ptr + n_rp) ||
        (!h.pattern && !in_file(h.off_values, n_val, h.off_col + n_col)))
        fail(PSV_ERROR_PARSE, format("%s: .psv header: array offsets outside the file or overlapping (%llu bytes)",
                                     p, (unsigned long long)length));
    CsrHost csr;
    csr.nrows = h.nrows;
    csr.ncols = h.ncols;
    csr.type = type;
    csr.pattern = h.pattern != 0;
    detail::reserve_huge(csr.row_ptr, static_cast<size_t>(h.nrows) + 1);
    detail::reserve_huge(csr.col, static_cast<size_t>(h.nvals));
    detail::reserve_huge(csr.values, static_cast<size_t>(n_val));
    csr.row_ptr.resize(static_cast<size_t>(h.nrows) + 1);
    csr.col.resize(static_cast<size_t>(h.nvals));
    csr.values.resize(static_cast<size_t>(n_val));
    read_at(f.fd, csr.row_ptr.data(), n_rp, h.off_row_ptr, path);
    read_at(f.fd, csr.col.data(), n_col, h.off_col, path);
    if (n_val) read_at(f.fd, csr.values.data(), n_val, h.off_values, path);
    if (crc(csr.row_ptr.data(), n_rp) != h.crc_row_ptr) fail(PSV_ERROR_PARSE, format("%s: .psv checksum mismatch in row_ptr", p));
    if (crc(csr.col.data(), n_col) != h.crc_col) fail(PSV_ERROR_PARSE, format("%s: .psv checksum mismatch in col", p));
    if (n_val && crc(csr.values.data(), n_val) != h.crc_values)
        fail(PSV_ERROR_PARSE, format("%s: .psv checksum mismatch in values", p));
    // The CSR itself: row_ptr from 0 to nvals, monotone; columns in range, increasing in a row.
    const int64_t *rp = csr.row_ptr.data();
    if (rp[0] != 0 || rp[h.nrows] != h.nvals) fail(PSV_ERROR_PARSE, format("%s: .psv row_ptr does not span 0 .. nvals", p));
    const int32_t *col = csr.col.data();
    const int32_t ncols = static_cast<int32_t>(h.ncols);
    for (int64_t i = 0; i < h.nrows; ++i) {
        const int64_t b = rp[i], e = rp[i + 1];
        if (e < b || e > h.nvals) fail(PSV_ERROR_PARSE, format("%s: .psv row_ptr decreases at row %lld", p, (long long)i));
        int32_t prev = -1;
        for (int64_t k = b; k < e; ++k) {
            const int32_t c = col[k];
            if (c <= prev || c >= ncols)
                fail(PSV_ERROR_PARSE, format("%s: .psv row %lld: column %d out of range or not increasing", p,
                                             (long long)i, c));
            prev = c;
        }
    }
    index_base = h.index_base;
    return csr;
}

void write_psv(const CsrHost &csr, int32_t index_base, const std::string &path) {
    const int64_t nvals = csr.nvals();
    Header h;
    std::memset(&h, 0, sizeof h);
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.endian = kEndian;
    h.nrows = csr.nrows;
    h.ncols = csr.ncols;
    h.nvals = nvals;
    h.type = static_cast<int32_t>(csr.type);
    h.pattern = csr.pattern ? 1 : 0;
    h.index_base = index_base;
    const uint64_t n_rp = csr.row_ptr.size() * 8, n_col = csr.col.size() * 4;
    const uint64_t n_val = csr.pattern ? 0 : csr.values.size();
    h.off_row_ptr = align_up(kHeaderBytes);
    h.off_col = align_up(h.off_row_ptr + n_rp);
    h.off_values = csr.pattern ? 0 : align_up(h.off_col + n_col);
    h.file_size = csr.pattern ? h.off_col + n_col : h.off_values + n_val;
    h.crc_row_ptr = crc(csr.row_ptr.data(), n_rp);
    h.crc_col = crc(csr.col.data(), n_col);
    h.crc_values = n_val ? crc(csr.values.data(), n_val) : 0;
    h.crc_header = header_crc(h);

    // The rename would replace whatever path names: only a regular file (or nothing) is replaced.
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        fail(PSV_ERROR_IO, format("cannot write %s: not a regular file", path.c_str()));
    const std::string tmp = path + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "wb");
    if (!f) fail(PSV_ERROR_IO, format("cannot create %s: %s", tmp.c_str(), std::strerror(errno)));
    bool ok = true;
    uint64_t pos = 0;
    static const char zeros[kAlign] = {};
    auto put = [&](const void *d, uint64_t n) {
        if (ok && n && std::fwrite(d, 1, n, f) != n) ok = false;
        pos += n;
    };
    auto pad_to = [&](uint64_t off) { put(zeros, off - pos); };
    put(&h, sizeof h);
    pad_to(h.off_row_ptr);
    put(csr.row_ptr.data(), n_rp);
    pad_to(h.off_col);
    put(csr.col.data(), n_col);
    if (!csr.pattern) {
        pad_to(h.off_values);
        put(csr.values.data(), n_val);
    }
    int err = ok ? 0 : errno;
    if (std::fflush(f) != 0 && ok) { ok = false; err = errno; }
    if (ok && ::fsync(fileno(f)) != 0) { ok = false; err = errno; }  // on disk before the rename
    if (std::fclose(f) != 0 && ok) { ok = false; err = errno; }
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) { ok = false; err = errno; }
    if (!ok) {
        std::remove(tmp.c_str());
        fail(PSV_ERROR_IO, format("cannot write %s: %s", path.c_str(), std::strerror(err ? err : EIO)));
    }
}

}  // namespace psv::io
