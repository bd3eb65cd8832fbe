// Malformed files through the public API. tests/io/test_readers.cpp holds the expectation table
// (status and line of every file in tests/data/malformed) for the internal reader; this test
// takes the internal reader as the oracle and adds the public layer, for every file of the
// corpus (new files are picked up automatically) and for a gzip-compressed copy of each:
//  - psv_matrix_read fails with the reader's status, and its message (psv_context_last_error)
//    is the reader's, naming the file and, for a parse or index error, the line ("line N");
//  - the output handle is untouched, and no backend buffer or handle is left behind;
//  - the context stays usable.
#include <dirent.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "psv/psv.h"  // before check.h: its backend and data helpers need it
#include "check.h"
#include "core/error.hpp"
#include "core/test_hooks.hpp"
#include "io/read.hpp"

namespace {

struct Result {
    int status;
    std::string message;
};

Result internal_read(const std::string &path) {
    try {
        psv::io::read_file(path, false);
        return {0, ""};
    } catch (const psv::Error &e) {
        return {e.status(), e.what()};
    }
}

// The line number named in a message ("line N"), or -1.
long named_line(const std::string &m) {
    size_t at = m.find("line ");
    while (at != std::string::npos) {
        if (at + 5 < m.size() && std::isdigit((unsigned char)m[at + 5])) return std::strtol(m.c_str() + at + 5, nullptr, 10);
        at = m.find("line ", at + 1);
    }
    return -1;
}

bool gzip_copy(const std::string &from, const std::string &to) {
    FILE *in = std::fopen(from.c_str(), "rb");
    if (!in) return false;
    gzFile out = gzopen(to.c_str(), "wb");
    if (!out) {
        std::fclose(in);
        return false;
    }
    char buf[4096];
    size_t n;
    bool ok = true;
    while ((n = std::fread(buf, 1, sizeof buf, in)) > 0)
        if (gzwrite(out, buf, (unsigned)n) != (int)n) ok = false;
    std::fclose(in);
    return gzclose(out) == Z_OK && ok;
}

int files_checked = 0;

void check_file(psv_context *ctx, const std::string &path, const std::string &label, const Result *expect) {
    const Result want = expect ? *expect : internal_read(path);
    CHECK_MSG(want.status < 0, "%s: the reader accepts it (not malformed?)", label.c_str());
    if (want.status >= 0) return;
    const int64_t buffers = psv::test_hooks::live_buffers.load();
    psv_matrix *const sentinel = reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000));
    psv_matrix *A = sentinel;
    const psv_status st = psv_matrix_read(ctx, path.c_str(), &A);
    const std::string msg = psv_context_last_error(ctx);
    CHECK_MSG(st == want.status, "%s: psv_matrix_read returned %d (%s), the reader %d: %s", label.c_str(), (int)st,
              psv_status_string(st), want.status, msg.c_str());
    CHECK_MSG(A == sentinel, "%s: the output handle was changed", label.c_str());
    if (A != sentinel && st == PSV_SUCCESS) psv_matrix_free(&A);
    CHECK_MSG(psv::test_hooks::live_buffers.load() == buffers, "%s: backend buffers left behind", label.c_str());
    CHECK_MSG(st == PSV_ERROR_PARSE || st == PSV_ERROR_INVALID_INDEX || st == PSV_ERROR_IO ||
                  st == PSV_ERROR_NOT_IMPLEMENTED,
              "%s: unexpected status %d", label.c_str(), (int)st);
    if (!expect) {
        CHECK_MSG(msg == "psv_matrix_read: " + want.message, "%s: message '%s', the reader's '%s'", label.c_str(),
                  msg.c_str(), want.message.c_str());
    }
    CHECK_MSG(msg.find(path) != std::string::npos, "%s: message '%s' does not name the file", label.c_str(), msg.c_str());
    if (st == PSV_ERROR_PARSE || st == PSV_ERROR_INVALID_INDEX) {
        const long line = named_line(msg);
        CHECK_MSG(line >= 1, "%s: message '%s' names no line", label.c_str(), msg.c_str());
        if (expect) {
            CHECK_MSG(line == named_line(expect->message), "%s: line %ld, plain file: line %ld", label.c_str(), line,
                      named_line(expect->message));
        }
    }
    ++files_checked;
}

}  // namespace

int main() {
    const psv_backend B = test_backend();
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    const std::string dir = test_data("malformed");
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (e->d_name[0] != '.') names.push_back(e->d_name);
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    REQUIRE(names.size() >= 20);
    char tmpdir[] = "/tmp/psv_malformed_XXXXXX";
    REQUIRE(mkdtemp(tmpdir) != nullptr);
    for (const std::string &n : names) {
        const std::string path = dir + "/" + n;
        check_file(ctx, path, n, nullptr);
        // The same content compressed: the same status and line (a compressed copy of a corrupt
        // or truncated gzip is a valid gzip of junk, so those are left out).
        const bool is_gz = n.size() > 3 && n.compare(n.size() - 3, 3, ".gz") == 0;
        if (!is_gz) {
            const Result plain = internal_read(path);
            const std::string gz = std::string(tmpdir) + "/" + n + ".gz";
            REQUIRE(gzip_copy(path, gz));
            if (plain.status == PSV_ERROR_PARSE || plain.status == PSV_ERROR_INVALID_INDEX ||
                plain.status == PSV_ERROR_NOT_IMPLEMENTED)
                check_file(ctx, gz, n + " (gzip)", &plain);
            unlink(gz.c_str());
        }
    }
    rmdir(tmpdir);
    // Files that cannot be opened: an I/O error naming the file, output untouched.
    {
        psv_matrix *A = reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000));
        CHECK_STATUS(psv_matrix_read(ctx, "/nonexistent/psv/file.mtx", &A), PSV_ERROR_IO);
        CHECK(std::strstr(psv_context_last_error(ctx), "/nonexistent/psv/file.mtx") != nullptr);
        CHECK_STATUS(psv_matrix_read(ctx, dir.c_str(), &A), PSV_ERROR_IO);  // a directory
        CHECK_STATUS(psv_matrix_read(ctx, "", &A), PSV_ERROR_IO);
        CHECK(A == reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000)));
    }
    // The context still reads a good file.
    psv_matrix *A = nullptr;
    CHECK_STATUS(psv_matrix_read(ctx, test_data("karate.mtx"), &A), PSV_SUCCESS);
    int64_t nv = 0;
    CHECK_STATUS(psv_matrix_nvals(A, &nv), PSV_SUCCESS);
    CHECK(nv == 156);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    CHECK(psv::test_hooks::live_buffers.load() == 0);
    std::fprintf(stderr, "%d malformed files (plain and gzip) rejected through the API\n", files_checked);
    return check_exit();
}
