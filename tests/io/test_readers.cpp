// Tests of psv::io::read_file: every format quirk on small hand-made files (tests/data/io), the
// small real graphs (tests/data/*), a malformed-file corpus (tests/data/malformed) with the
// expected status and line, I/O failures, bounded reservation for huge declared sizes, and a
// random round trip of the number scanner.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "files.hpp"
#include "core/coo.hpp"
#include "core/error.hpp"
#include "io/read.hpp"
#include "psv/psv.h"
#include "api/internal.h"

using psv::Coo;

namespace {

std::string data_dir() {
    const char *d = std::getenv("PSV_TEST_DATA");
    return d && *d ? d : "tests/data";
}
std::string dpath(const std::string &rel) { return data_dir() + "/" + rel; }

// Read a file that must parse; stops the test if it does not.
Coo must_read(const std::string &rel) {
    try {
        return psv::io::read_file(dpath(rel), false);
    } catch (const psv::Error &e) {
        std::fprintf(stderr, "reading %s failed: %d: %s\n", rel.c_str(), e.status(), e.what());
        ++check_failures;
        return Coo{};
    }
}

// The status and message of a read that must fail (status 0 if it did not).
std::pair<int, std::string> read_error(const std::string &path) {
    try {
        Coo c = psv::io::read_file(path, false);
        return {0, "no error"};
    } catch (const psv::Error &e) {
        return {e.status(), e.what()};
    }
}

using Edge = std::pair<int64_t, int64_t>;
std::vector<Edge> edges(const Coo &c) {
    std::vector<Edge> v;
    for (size_t k = 0; k < c.rows.size(); ++k) v.emplace_back(c.rows[k], c.cols[k]);
    return v;
}

bool consistent(const Coo &c) {
    if (c.rows.size() != c.cols.size()) return false;
    if (c.pattern) {
        if (!c.fvalues.empty() || !c.ivalues.empty()) return false;
    } else if (c.type == PSV_FP64 || c.type == PSV_FP32) {
        if (c.fvalues.size() != c.rows.size() || !c.ivalues.empty()) return false;
    } else {
        if (c.ivalues.size() != c.rows.size() || !c.fvalues.empty()) return false;
    }
    for (size_t k = 0; k < c.rows.size(); ++k)
        if (c.rows[k] < 0 || c.rows[k] >= c.nrows || c.cols[k] < 0 || c.cols[k] >= c.ncols)
            return false;
    return true;
}

bool same(const Coo &a, const Coo &b) {
    return a.nrows == b.nrows && a.ncols == b.ncols && a.type == b.type &&
           a.pattern == b.pattern && a.dup == b.dup && a.rows == b.rows && a.cols == b.cols &&
           a.fvalues == b.fvalues && a.ivalues == b.ivalues;
}

bool is_pattern_graph(const Coo &c) {
    return c.type == PSV_FP32 && c.pattern && c.fvalues.empty() && c.ivalues.empty();
}

// ------------------------------------------------------------------------------------------
void test_edge_lists() {
    {   // tabs vs spaces, '#' and '%' comments, blank lines, leading/trailing blanks, self-loop
        Coo c = must_read("io/tabs_spaces.txt");
        CHECK(is_pattern_graph(c));
        CHECK(c.nrows == 5 && c.ncols == 5);
        std::vector<Edge> want = {{0, 1}, {0, 2}, {1, 2}, {3, 4}, {4, 0}, {2, 2}};
        CHECK(edges(c) == want);
        CHECK(consistent(c));
        CHECK(same(c, must_read("io/tabs_spaces.txt.gz")));
    }
    {   // CRLF, blank CRLF line, last line without a newline
        Coo c = must_read("io/crlf.txt");
        CHECK(is_pattern_graph(c));
        CHECK(c.nrows == 6 && c.ncols == 6);
        std::vector<Edge> want = {{0, 1}, {1, 2}, {2, 0}, {5, 1}};
        CHECK(edges(c) == want);
        CHECK(same(c, must_read("io/crlf.txt.gz")));
    }
    {   // third-column weights: FP64, summed duplicates, number syntax
        Coo c = must_read("io/weighted.txt");
        CHECK(c.type == PSV_FP64 && !c.pattern && c.dup == PSV_PLUS);
        CHECK(c.nrows == 4 && c.ncols == 4);
        std::vector<Edge> want = {{0, 1}, {1, 2}, {2, 0}, {0, 1}, {3, 3}};
        CHECK(edges(c) == want);
        std::vector<double> w = {0.5, -2.0, 1000.0, 0.25, 0.5};
        CHECK(c.fvalues == w);
        CHECK(c.ivalues.empty());
        CHECK(consistent(c));
        CHECK(same(c, must_read("io/weighted.txt.gz")));
    }
    {   // vertex count header (n larger than max id + 1)
        Coo c = must_read("io/count_header.txt");
        CHECK(c.nrows == 4 && c.ncols == 4);
        CHECK(c.type == PSV_FP64 && !c.pattern);
        std::vector<Edge> want = {{0, 1}, {1, 2}};
        CHECK(edges(c) == want);
        CHECK((c.fvalues == std::vector<double>{1.0, 1.0}));
        CHECK(same(c, must_read("io/count_header.txt.gz")));
    }
    {   // oregon style: count header, CRLF, "u v 1" lines, a final "-1" end marker
        Coo c = must_read("io/oregon_style.txt");
        CHECK(c.nrows == 10 && c.ncols == 10);
        CHECK(c.type == PSV_FP64 && !c.pattern && c.dup == PSV_PLUS);
        CHECK(c.rows.size() == 2);
    }
    {   // ids that are not contiguous: max id + 1 vertices
        Coo c = must_read("io/noncontig.txt");
        CHECK(c.nrows == 101 && c.ncols == 101);
        std::vector<Edge> want = {{7, 100}, {100, 7}, {42, 7}};
        CHECK(edges(c) == want);
        CHECK(is_pattern_graph(c));
    }
    {   // duplicate edges are kept in the tuples (the build counts them once)
        Coo c = must_read("io/duplicates.txt");
        CHECK(c.nrows == 2);
        CHECK(c.rows.size() == 4);
        CHECK(is_pattern_graph(c));
    }
    {   // a UTF-8 byte order mark before the first line
        Coo c = must_read("io/bom.txt");
        CHECK(is_pattern_graph(c) && c.nrows == 2);
        CHECK(edges(c) == (std::vector<Edge>{{0, 1}, {1, 0}}));
        Coo m = must_read("io/bom.mtx");
        CHECK(is_pattern_graph(m) && m.nrows == 2 && edges(m) == (std::vector<Edge>{{0, 1}}));
    }
    {   // a gzip file of two concatenated members
        Coo c = must_read("io/two_members.txt.gz");
        CHECK(c.nrows == 4);
        CHECK(edges(c) == (std::vector<Edge>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
    }
    {   // progress on: a fast read prints nothing and gives the same result
        Coo c = psv::io::read_file(dpath("io/tabs_spaces.txt.gz"), true);
        CHECK(same(c, must_read("io/tabs_spaces.txt")));
    }
    {   // detection by content, not by name
        Coo c = must_read("io/edges_named.mtx.gz");
        CHECK(same(c, must_read("io/noncontig.txt")));
        Coo s = must_read("io/skew_gz_named.txt");
        CHECK(same(s, must_read("io/skew.mtx")));
    }
}

void test_matrix_market() {
    {   // real general: comments and blank lines anywhere, duplicates kept with dup PLUS
        Coo c = must_read("io/real_general.mtx");
        CHECK(c.nrows == 3 && c.ncols == 4);
        CHECK(c.type == PSV_FP64 && !c.pattern && c.dup == PSV_PLUS);
        std::vector<Edge> want = {{0, 0}, {2, 3}, {1, 2}, {0, 0}};
        CHECK(edges(c) == want);
        CHECK((c.fvalues == std::vector<double>{1.5, -0.2, 7.0, 0.5}));
        CHECK(consistent(c));
        CHECK(same(c, must_read("io/real_general.mtx.gz")));
    }
    {
        Coo c = must_read("io/double_general.mtx");
        CHECK(c.type == PSV_FP64 && c.nrows == 2 && c.ncols == 2);
        CHECK(edges(c) == (std::vector<Edge>{{1, 0}}));
        CHECK(c.fvalues == std::vector<double>{3.25});
    }
    {   // integer symmetric: mirrored off-diagonal, the diagonal once, int64 extremes
        Coo c = must_read("io/int_symmetric.mtx");
        CHECK(c.type == PSV_INT64 && !c.pattern && c.dup == PSV_PLUS);
        CHECK(c.nrows == 3 && c.ncols == 3);
        std::vector<Edge> want = {{0, 0}, {1, 0}, {0, 1}, {2, 1}, {1, 2}};
        CHECK(edges(c) == want);
        CHECK((c.ivalues == std::vector<int64_t>{5, -7, -7, INT64_MAX, INT64_MAX}));
        CHECK(c.fvalues.empty());
        CHECK(consistent(c));
    }
    {   // skew-symmetric: mirrored with negated values
        Coo c = must_read("io/skew.mtx");
        CHECK(c.type == PSV_FP64);
        std::vector<Edge> want = {{1, 0}, {0, 1}, {2, 0}, {0, 2}};
        CHECK(edges(c) == want);
        CHECK((c.fvalues == std::vector<double>{1.5, -1.5, -4.0, 4.0}));
    }
    {   // integer skew-symmetric with an explicit zero diagonal (allowed)
        Coo c = must_read("io/skew_int.mtx");
        CHECK(c.type == PSV_INT64);
        std::vector<Edge> want = {{1, 0}, {0, 1}, {0, 0}};
        CHECK(edges(c) == want);
        CHECK((c.ivalues == std::vector<int64_t>{3, -3, 0}));
    }
    {   // pattern symmetric
        Coo c = must_read("io/pattern_symmetric.mtx");
        CHECK(is_pattern_graph(c));
        CHECK(c.nrows == 4 && c.ncols == 4);
        std::vector<Edge> want = {{1, 0}, {0, 1}, {2, 2}, {3, 1}, {1, 3}};
        CHECK(edges(c) == want);
        CHECK(same(c, must_read("io/pattern_symmetric.mtx.gz")));
    }
    {   // pattern general, CRLF, rectangular
        Coo c = must_read("io/pattern_crlf.mtx");
        CHECK(is_pattern_graph(c));
        CHECK(c.nrows == 2 && c.ncols == 3);
        CHECK(edges(c) == (std::vector<Edge>{{0, 2}, {1, 0}}));
    }
    {   // banner words in any case
        Coo c = must_read("io/banner_case.mtx");
        CHECK(c.type == PSV_FP64 && c.nrows == 1 && c.fvalues == std::vector<double>{2.0});
    }
    {   // no entries at all is a valid (empty) matrix
        Coo c = must_read("io/empty_matrix.mtx");
        CHECK(c.nrows == 5 && c.ncols == 5 && c.rows.empty() && c.type == PSV_FP64);
    }
}

// ------------------------------------------------------------------------------------------
void test_real_graphs() {
    struct Real {
        const char *file;
        int64_t n;          // vertices / rows (square)
        size_t entries;     // tuples in the Coo (symmetric MM: mirrored)
        psv_type type;
        bool pattern;
    };
    const Real real[] = {
        {"karate.mtx", 34, 156, PSV_FP32, true},                 // 78 stored, symmetric
        {"west0067.mtx", 67, 294, PSV_FP64, false},
        {"ldbc-directed-example.mtx", 10, 17, PSV_FP64, false},
        {"email-Eu-core.txt.gz", 1005, 25571, PSV_FP32, true},
        {"wiki-Vote.txt.gz", 8298, 103689, PSV_FP32, true},      // 7115 nodes, ids up to 8297
        {"oregon1_010331.txt.gz", 10670, 44004, PSV_FP64, false},// count header, "u v 1", "-1"
        {"polblogs.txt.gz", 1490, 19090, PSV_FP32, true},
        {"p2p-Gnutella31.txt.gz", 62586, 147892, PSV_FP32, true},// CRLF
    };
    for (const Real &r : real) {
        Coo c = must_read(r.file);
        CHECK_MSG(c.nrows == r.n && c.ncols == r.n, "%s: %" PRId64 " x %" PRId64, r.file,
                  c.nrows, c.ncols);
        CHECK_MSG(c.rows.size() == r.entries, "%s: %zu entries", r.file, c.rows.size());
        CHECK_MSG(c.type == r.type && c.pattern == r.pattern, "%s: type %d pattern %d", r.file,
                  c.type, (int)c.pattern);
        CHECK_MSG(consistent(c), "%s", r.file);
    }
    {   // wiki-Vote: 7115 distinct vertices appear
        Coo c = must_read("wiki-Vote.txt.gz");
        std::vector<char> seen(static_cast<size_t>(c.nrows), 0);
        for (size_t k = 0; k < c.rows.size(); ++k) seen[c.rows[k]] = seen[c.cols[k]] = 1;
        CHECK(std::count(seen.begin(), seen.end(), 1) == 7115);
    }
    {   // oregon: every weight is 1
        Coo c = must_read("oregon1_010331.txt.gz");
        CHECK(std::all_of(c.fvalues.begin(), c.fvalues.end(), [](double w) { return w == 1.0; }));
    }
    {   // west0067: first stored entry "5 1 -.2788416"
        Coo c = must_read("west0067.mtx");
        REQUIRE(!c.rows.empty());
        CHECK(c.rows[0] == 4 && c.cols[0] == 0 && c.fvalues[0] == -0.2788416);
    }
}

// ------------------------------------------------------------------------------------------
void test_malformed() {
    struct Bad {
        const char *file;
        int status;
        int line;  // the message must contain "line N" (0: no line required)
    };
    const int P = PSV_ERROR_PARSE, X = PSV_ERROR_INVALID_INDEX, NI = PSV_ERROR_NOT_IMPLEMENTED,
              IO = PSV_ERROR_IO;
    const Bad bad[] = {
        // Matrix Market banner and header
        {"mm_bad_banner_word.mtx", P, 1},
        {"mm_banner_short.mtx", P, 1},
        {"mm_bad_object.mtx", P, 1},
        {"mm_bad_field.mtx", P, 1},
        {"mm_bad_symmetry.mtx", P, 1},
        {"mm_array.mtx", NI, 1},
        {"mm_complex.mtx", NI, 1},
        {"mm_hermitian.mtx", NI, 1},
        {"mm_skew_pattern.mtx", P, 1},
        {"mm_no_size_line.mtx", P, 2},
        {"mm_size_line_short.mtx", P, 2},
        {"mm_size_not_number.mtx", P, 2},
        {"mm_negative_rows.mtx", P, 2},
        {"mm_negative_nnz.mtx", P, 2},
        {"mm_size_overflow64.mtx", P, 3},
        {"mm_rows_over_2e31.mtx", P, 2},
        {"mm_nnz_over_2e62.mtx", P, 2},
        {"mm_symmetric_not_square.mtx", P, 2},
        // Matrix Market entries
        {"mm_too_few.mtx", P, 6},
        {"mm_too_few.mtx.gz", P, 4},
        {"mm_too_many.mtx", P, 6},
        {"mm_index_zero.mtx", X, 4},
        {"mm_index_too_big.mtx", X, 4},
        {"mm_index_negative.mtx", X, 4},
        {"mm_index_overflow.mtx", X, 4},
        {"mm_index_not_number.mtx", P, 3},
        {"mm_truncated_line.mtx", P, 4},
        {"mm_extra_column.mtx", P, 3},
        {"mm_nan.mtx", P, 4},
        {"mm_inf.mtx", P, 3},
        {"mm_overflow_value.mtx", P, 4},
        {"mm_bad_value.mtx", P, 4},
        {"mm_int_not_int.mtx", P, 4},
        {"mm_int_overflow.mtx", P, 4},
        {"mm_skew_diag.mtx", P, 4},
        {"mm_huge_declared.mtx", P, 3},
        {"mm_huge_declared_sym.mtx.gz", P, 4},
        // edge lists
        {"el_negative_id.txt", P, 3},
        {"el_non_numeric.txt", P, 3},
        {"el_four_columns.txt", P, 2},
        {"el_single_token.txt", P, 3},
        {"el_mixed_columns.txt", P, 4},
        {"el_mixed_columns2.txt", P, 3},
        {"el_nan_weight.txt", P, 2},
        {"el_inf_weight.txt", P, 1},
        {"el_bad_weight.txt", P, 2},
        {"el_id_overflow.txt", X, 2},
        {"el_id_too_large.txt", X, 2},
        {"el_data_after_end.txt", P, 4},
        {"el_bad_header.txt", P, 1},
        {"el_hex.txt", P, 2},
        {"empty.txt", P, 1},
        {"empty.gz", P, 1},
        {"only_comments.txt", P, 4},
        {"blank_lines.txt", P, 3},
        {"binary_junk.bin", P, 1},
        // compressed data that cannot be read
        {"truncated.gz", IO, 0},
        {"corrupt.gz", IO, 0},
    };
    for (const Bad &b : bad) {
        auto r = read_error(dpath(std::string("malformed/") + b.file));
        CHECK_MSG(r.first == b.status, "%s: status %d (%s), expected %d", b.file, r.first,
                  r.second.c_str(), b.status);
        if (b.line > 0) {
            std::string want = "line " + std::to_string(b.line);
            // "line N" followed by a non-digit (so "line 1" does not match "line 12")
            size_t at = r.second.find(want);
            bool ok = at != std::string::npos &&
                      (at + want.size() == r.second.size() ||
                       !std::isdigit(static_cast<unsigned char>(r.second[at + want.size()])));
            CHECK_MSG(ok, "%s: message '%s' does not name %s", b.file, r.second.c_str(),
                      want.c_str());
        }
        CHECK_MSG(r.second.find(b.file) != std::string::npos, "%s: message '%s' lacks the file",
                  b.file, r.second.c_str());
    }
    // Specific messages
    CHECK(read_error(dpath("malformed/mm_too_few.mtx")).second.find("expected 4 entries, found 3") !=
          std::string::npos);
    CHECK(read_error(dpath("malformed/empty.txt")).second.find("empty file") != std::string::npos);
    CHECK(read_error(dpath("malformed/el_mixed_columns.txt")).second.find("mixed") !=
          std::string::npos);
}

void test_io_errors() {
    CHECK(read_error(dpath("io/no-such-file.txt")).first == PSV_ERROR_IO);
    CHECK(read_error(dpath("io")).first == PSV_ERROR_IO);  // a directory
    CHECK(read_error("").first == PSV_ERROR_IO);
    // The caller's Coo is untouched when a read fails.
    Coo c = must_read("io/weighted.txt");
    Coo before = c;
    try {
        c = psv::io::read_file(dpath("malformed/mm_too_few.mtx"), false);
    } catch (const psv::Error &) {
    }
    CHECK(same(c, before));
}

// A huge declared size must not allocate memory up front: read under an address-space limit in
// a child process.
void test_huge_declared_size() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    std::fprintf(stderr, "huge-size test skipped under a sanitizer\n");
#else
    std::fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = rlim_t(1) << 30;  // 1 GiB of address space
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
        const char *files[] = {"malformed/mm_huge_declared.mtx",
                               "malformed/mm_huge_declared_sym.mtx.gz"};
        for (const char *f : files) {
            try {
                psv::io::read_file(dpath(f), false);
                _exit(4);
            } catch (const psv::Error &e) {
                if (e.status() != PSV_ERROR_PARSE) _exit(5);
            } catch (const std::bad_alloc &) {
                _exit(6);
            } catch (...) {
                _exit(7);
            }
        }
        // A valid file still reads under the limit.
        try {
            Coo c = psv::io::read_file(dpath("wiki-Vote.txt.gz"), false);
            if (c.rows.size() != 103689) _exit(8);
        } catch (...) {
            _exit(9);
        }
        _exit(0);
    }
    REQUIRE(pid > 0);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
#endif
}

// Random numbers written with printf and read back must be exactly equal.
void test_number_round_trip() {
    char tmpl[] = "/tmp/psv_io_roundtripXXXXXX";
    int fd = mkstemp(tmpl);
    REQUIRE(fd >= 0);
    FILE *f = fdopen(fd, "w");
    REQUIRE(f);
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> mant(-1.0, 1.0);
    std::uniform_int_distribution<int> ex(-300, 300), fmt(0, 4);
    const int n = 20000;
    std::vector<double> want;
    std::vector<Edge> we;
    std::fprintf(f, "# round trip\n");
    for (int k = 0; k < n; ++k) {
        double v = mant(rng) * std::pow(10.0, ex(rng) / (k % 3 == 0 ? 1 : 30));
        int64_t u = static_cast<int64_t>(rng() % 1000000), w = static_cast<int64_t>(rng() % 1000);
        char buf[64];
        switch (fmt(rng)) {
        case 0: std::snprintf(buf, sizeof buf, "%.17g", v); break;
        case 1: std::snprintf(buf, sizeof buf, "%.6e", v); break;
        case 2: std::snprintf(buf, sizeof buf, "%.3f", v); break;
        case 3: std::snprintf(buf, sizeof buf, "%.25g", v); break;
        default: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(rng() % 100000) - 50000); break;
        }
        want.push_back(std::strtod(buf, nullptr));
        we.emplace_back(u, w);
        std::fprintf(f, "%lld%s%lld %s\n", static_cast<long long>(u), k % 2 ? "\t" : " ",
                     static_cast<long long>(w), buf);
    }
    std::fclose(f);
    Coo c;
    try {
        c = psv::io::read_file(tmpl, false);
    } catch (const psv::Error &e) {
        std::fprintf(stderr, "round trip: %s\n", e.what());
    }
    unlink(tmpl);
    CHECK(c.rows.size() == static_cast<size_t>(n));
    CHECK(edges(c) == we);
    size_t bad = 0;
    for (size_t k = 0; k < std::min(want.size(), c.fvalues.size()); ++k)
        if (c.fvalues[k] != want[k] && bad++ < 5)
            std::fprintf(stderr, "round trip: entry %zu: %.17g != %.17g\n", k, c.fvalues[k],
                         want[k]);
    CHECK(bad == 0 && c.fvalues.size() == want.size());
}

// Read `path` through a pipe on standard input, as `name` ("-" or "/dev/stdin"): a child
// process writes the file's bytes into the pipe, so the reader sees a non-seekable input.
std::pair<int, Coo> read_via_pipe(const std::string &path, const char *name) {
    return test_files::with_stdin_pipe(path, [&] {
        std::pair<int, Coo> r{0, Coo{}};
        try {
            r.second = psv::io::read_file(name, false);
        } catch (const psv::Error &e) {
            std::fprintf(stderr, "reading %s through %s: %s\n", path.c_str(), name, e.what());
            r.first = e.status();
        }
        return r;
    });
}

// Standard input ("-") and pipes read in one pass give what the file gives, every format, with
// the id base (1 for Matrix Market) decided during that one read.
void test_stdin_and_pipes() {
    const char *files[] = {"karate.mtx", "wiki-Vote.txt.gz", "west0067.mtx",
                           "io/weighted.txt"};
    for (const char *rel : files) {
        Coo want = must_read(rel);
        for (const char *name : {"-", "/dev/stdin"}) {
            auto got = read_via_pipe(dpath(rel), name);
            CHECK_MSG(got.first == 0 && same(got.second, want), "%s via %s", rel, name);
            CHECK_MSG(got.second.index_base == want.index_base, "%s via %s: index base", rel,
                      name);
        }
    }
    CHECK(must_read("karate.mtx").index_base == 1);
    CHECK(must_read("wiki-Vote.txt.gz").index_base == 0);
    // Through the C API: the matrix remembers the base for the psv program.
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_read(ctx, dpath("karate.mtx").c_str(), &A) == PSV_SUCCESS);
    CHECK(psv_internal_matrix_index_base(A) == 1);
    psv_matrix_free(&A);
    REQUIRE(psv_matrix_read(ctx, dpath("wiki-Vote.txt.gz").c_str(), &A) == PSV_SUCCESS);
    CHECK(psv_internal_matrix_index_base(A) == 0);
    psv_matrix_free(&A);
    CHECK(psv_internal_matrix_index_base(nullptr) == 0);
    psv_context_free(&ctx);
    // A CUDA context in a build or on a machine without CUDA says why.
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        CHECK(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_ERROR_BACKEND_UNAVAILABLE);
        CHECK(std::strlen(psv_internal_context_create_error()) > 0);
        std::fprintf(stderr, "no CUDA: %s\n", psv_internal_context_create_error());
    }
    CHECK(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
    CHECK(std::strlen(psv_internal_context_create_error()) == 0);
    psv_context_free(&ctx);
}

// Bytes of memory available (MemAvailable), 0 if unknown.
uint64_t mem_available() {
    FILE *f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    std::fclose(f);
    return static_cast<uint64_t>(kb) * 1024;
}

// Small files declaring 2^31-1 vertices fail at once (before allocating for the dimensions)
// with PSV_ERROR_OUT_OF_MEMORY and a message naming the sizes; so does psv_matrix_build.
void test_hostile_dimensions() {
    // 2^31-1 rows and columns need about 120 GB to build; a machine with that much free memory
    // would build them (legitimately: isolated vertices), so the test needs less.
    const uint64_t avail = mem_available();
    if (avail == 0 || avail > (uint64_t(100) << 30)) {
        std::fprintf(stderr, "hostile-dimension test skipped: %.1f GB available\n",
                     static_cast<double>(avail) / 1e9);
        return;
    }
    const char *files[] = {"hostile/mm_huge_dims.mtx", "hostile/edge_huge_id.txt"};
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
    for (const char *rel : files) {
        auto t0 = std::chrono::steady_clock::now();
        psv_matrix *A = nullptr;
        psv_status s = psv_matrix_read(ctx, dpath(rel).c_str(), &A);
        double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const char *msg = psv_context_last_error(ctx);
        CHECK_MSG(s == PSV_ERROR_OUT_OF_MEMORY, "%s: status %d", rel, (int)s);
        CHECK_MSG(std::strstr(msg, "2147483647 x 2147483647") && std::strstr(msg, "GB"),
                  "%s: message '%s'", rel, msg);
        CHECK_MSG(dt < 5.0, "%s: %.2f s", rel, dt);
        CHECK(A == nullptr);
        std::fprintf(stderr, "%s: %.3f s: %s\n", rel, dt, msg);
        // The same through standard input.
        auto got = read_via_pipe(dpath(rel), "-");
        CHECK(got.first == 0 && got.second.nrows == 2147483647);
    }
    int64_t r = 0, c = 2147483646;
    auto t0 = std::chrono::steady_clock::now();
    psv_matrix *A = nullptr;
    psv_status s = psv_matrix_build(ctx, PSV_FP32, 2147483647, 2147483647, 1, &r, &c, nullptr,
                                    PSV_NOOP, &A);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK_MSG(s == PSV_ERROR_OUT_OF_MEMORY, "build: status %d", (int)s);
    CHECK(std::strstr(psv_context_last_error(ctx), "2147483647 x 2147483647") != nullptr);
    CHECK(dt < 5.0);
    // A dimension far beyond the entries that fits in memory is legal (isolated vertices).
    s = psv_matrix_build(ctx, PSV_FP32, 1 << 20, 1 << 20, 1, &r, &r, nullptr, PSV_NOOP, &A);
    CHECK(s == PSV_SUCCESS);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
}

// ------------------------------------------------------------------------------------------
// A temporary file holding `text`, its name ending in `suffix` (removed by the caller).
std::string write_tmp(const std::string &suffix, const std::string &text) {
    std::string tmpl = "/tmp/psv_io_fmtXXXXXX" + suffix;
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    int fd = mkstemps(buf.data(), static_cast<int>(suffix.size()));
    if (fd < 0) return "";
    FILE *f = fdopen(fd, "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return std::string(buf.data());
}

// Read `text` from a temporary file named *suffix: the Coo, or the error's status and message.
std::pair<int, std::string> read_text(const std::string &suffix, const std::string &text,
                                      Coo *out = nullptr) {
    std::string path = write_tmp(suffix, text);
    std::pair<int, std::string> r{0, "no error"};
    try {
        Coo c = psv::io::read_file(path, false);
        if (out) *out = std::move(c);
    } catch (const psv::Error &e) {
        r = {e.status(), e.what()};
    }
    std::remove(path.c_str());
    return r;
}

bool has(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }

// An independent parse of an unweighted METIS file (zlib, istringstream): its 0-based edges.
std::vector<Edge> metis_by_hand(const std::string &path, int64_t &n, int64_t &m) {
    std::vector<Edge> v;
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return v;
    std::string text;
    char buf[1 << 16];
    int k;
    while ((k = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(k));
    gzclose(f);
    std::istringstream in(text);
    std::string line;
    bool header = false;
    int64_t i = 0;
    n = m = -1;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '%') continue;
        std::istringstream ls(line);
        if (!header) {
            ls >> n >> m;
            header = true;
            continue;
        }
        int64_t j;
        while (ls >> j) v.emplace_back(i, j - 1);
        ++i;
    }
    return v;
}

// PageRank of the graph read from `path` (nullptr on failure).
std::vector<float> pagerank_of(psv_context *ctx, const std::string &path, psv_matrix **keep) {
    std::vector<float> r;
    psv_matrix *A = nullptr;
    if (psv_matrix_read(ctx, path.c_str(), &A) != PSV_SUCCESS) return r;
    psv_vector *rank = nullptr;
    int32_t it = 0;
    if (psv_pagerank(&rank, &it, A, 0.85, 1e-7, 200) == PSV_SUCCESS) {
        int64_t n = 0;
        psv_vector_size(rank, &n);
        r.resize(static_cast<size_t>(n));
        psv_vector_get(rank, r.data(), n);
        psv_vector_free(&rank);
    }
    if (keep)
        *keep = A;
    else
        psv_matrix_free(&A);
    return r;
}

void test_metis() {
    for (const char *rel : {"4elt.metis.graph.gz", "wing.metis.graph.gz"}) {
        Coo c = must_read(rel);
        int64_t n = 0, m = 0;
        std::vector<Edge> want = metis_by_hand(dpath(rel), n, m);
        CHECK_MSG(c.nrows == n && c.ncols == n, "%s: %lld x %lld, n = %lld", rel,
                  (long long)c.nrows, (long long)c.ncols, (long long)n);
        CHECK_MSG(static_cast<int64_t>(c.rows.size()) == 2 * m, "%s: %zu entries, m = %lld", rel,
                  c.rows.size(), (long long)m);
        CHECK(edges(c) == want);
        CHECK(is_pattern_graph(c));
        CHECK(c.index_base == 1);
        CHECK(consistent(c));
        std::fprintf(stderr, "%s: %lld vertices, %zu entries\n", rel, (long long)n, c.rows.size());
    }
    // PageRank of the METIS graph = PageRank of the same graph as a 0-based edge list.
    {
        psv_context *ctx = nullptr;
        REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
        psv_matrix *A = nullptr;
        std::vector<float> r1 = pagerank_of(ctx, dpath("4elt.metis.graph.gz"), &A);
        REQUIRE(A != nullptr && !r1.empty());
        CHECK(psv_internal_matrix_index_base(A) == 1);
        int64_t nv = 0;
        REQUIRE(psv_matrix_nvals(A, &nv) == PSV_SUCCESS);
        std::vector<int64_t> rows(static_cast<size_t>(nv)), cols(static_cast<size_t>(nv));
        REQUIRE(psv_matrix_extract_tuples(A, rows.data(), cols.data(), nullptr, &nv) ==
                PSV_SUCCESS);
        std::string text = std::to_string(r1.size()) + "\n";
        for (int64_t k = 0; k < nv; ++k)
            text += std::to_string(rows[k]) + " " + std::to_string(cols[k]) + "\n";
        psv_matrix_free(&A);
        std::string path = write_tmp(".txt", text);
        std::vector<float> r2 = pagerank_of(ctx, path, nullptr);
        std::remove(path.c_str());
        CHECK(r1.size() == r2.size());
        CHECK(r1 == r2);
        psv_context_free(&ctx);
    }
    {   // fmt 1: edge weights after each neighbour; '%' comments anywhere; a blank line is an
        // isolated vertex
        Coo c;
        auto r = read_text(".graph", "% a comment\n4 2 1\n2 5 3 7\n1 5\n% mid\n1 7\n\n", &c);
        CHECK_MSG(r.first == 0, "%s", r.second.c_str());
        CHECK(c.nrows == 4 && c.type == PSV_INT64 && !c.pattern && c.index_base == 1);
        std::vector<Edge> want = {{0, 1}, {0, 2}, {1, 0}, {2, 0}};
        CHECK(edges(c) == want);
        CHECK((c.ivalues == std::vector<int64_t>{5, 7, 5, 7}));
        CHECK(consistent(c));
    }
    {   // fmt 11 with ncon 2: two vertex weights, then neighbour/weight pairs; fmt 100: sizes
        Coo c;
        auto r = read_text(".graph", "3 2 11 2\n1 2 2 4\n3 4 1 4 3 9\n0 0 2 9\n", &c);
        CHECK_MSG(r.first == 0, "%s", r.second.c_str());
        std::vector<Edge> want = {{0, 1}, {1, 0}, {1, 2}, {2, 1}};
        CHECK(edges(c) == want);
        CHECK((c.ivalues == std::vector<int64_t>{4, 4, 9, 9}));
        r = read_text(".graph", "2 1 100\n5 2\n6 1\n", &c);
        CHECK_MSG(r.first == 0, "%s", r.second.c_str());
        CHECK(is_pattern_graph(c) && (edges(c) == std::vector<Edge>{{0, 1}, {1, 0}}));
        r = read_text(".graph", "2 1 10\n3 2\n1 1\n", &c);  // one vertex weight
        CHECK_MSG(r.first == 0, "%s", r.second.c_str());
        CHECK((edges(c) == std::vector<Edge>{{0, 1}, {1, 0}}));
    }
    {   // malformed: the line and the reason
        struct Bad {
            const char *text;
            int status;
            const char *line, *what;
        } bad[] = {
            {"3 2 12\n2\n1 3\n2\n", PSV_ERROR_PARSE, "line 1", "fmt"},
            {"3 2 1 0\n2 1\n1 1 3 1\n2 1\n", PSV_ERROR_PARSE, "line 1", "ncon"},
            {"3 2\n2\n1 3\n", PSV_ERROR_PARSE, "line 3", "expected 3 vertex lines"},
            {"2 1\n2\n1\n1\n", PSV_ERROR_PARSE, "line 4", "more vertex lines"},
            {"3 2\n2\n1 4\n2\n", PSV_ERROR_INVALID_INDEX, "line 3", "out of range"},
            {"3 2\n2\n0 3\n2\n", PSV_ERROR_INVALID_INDEX, "line 3", "out of range"},
            {"3 2\n2\n1 x\n2\n", PSV_ERROR_PARSE, "line 3", "not a vertex id"},
            {"3 3\n2\n1 3\n2\n", PSV_ERROR_PARSE, "line 4", "expected 2m = 6"},
            {"3 1\n2\n1 3\n2\n", PSV_ERROR_PARSE, "line 3", "more neighbours"},
            {"2 1 1\n2 1\n1\n", PSV_ERROR_PARSE, "line 3", "no edge weight"},
            {"2 1 1\n2 0\n1 1\n", PSV_ERROR_PARSE, "line 2", "positive"},
            {"2 1 10\n\n1 1\n", PSV_ERROR_PARSE, "line 2", "vertex size/weight"},
        };
        for (const Bad &b : bad) {
            auto r = read_text(".graph", b.text);
            CHECK_MSG(r.first == b.status && has(r.second, b.line) && has(r.second, b.what),
                      "'%s': %d %s", b.text, r.first, r.second.c_str());
        }
        // Not a METIS header: a .graph text file that is not METIS goes to the edge-list reader.
        auto r = read_text(".graph", "0 1 2 3 4\n");
        CHECK(r.first == PSV_ERROR_PARSE);
        // A binary .graph is BVGraph, read with its .properties (test_bvgraph.cpp tests more).
        std::string g = write_tmp(".graph", std::string("7w\x85\xa7\x0c\xba\n", 7));
        std::string props = g.substr(0, g.size() - 6) + ".properties";
        FILE *f = std::fopen(props.c_str(), "w");
        REQUIRE(f);
        std::fputs("graphclass=it.unimi.dsi.webgraph.BVGraph\n", f);
        std::fclose(f);
        auto e = read_error(g);
        CHECK_MSG(e.first == PSV_ERROR_PARSE && has(e.second, "no 'nodes' property"), "%s",
                  e.second.c_str());
        std::remove(g.c_str());
        std::remove(props.c_str());
    }
}

void test_csv() {
    const std::vector<Edge> want = {{0, 1}, {1, 2}, {3, 0}};
    for (const char *text : {"0,1\n1,2\n3,0\n", "source,target\n0,1\n1,2\n3,0\n",
                             "0;1\n1;2\n3;0\n", "# c\nfrom;to\n0 ; 1\n1;2\r\n\n3;0",
                             "src\tdst\n0\t1\n1\t2\n3\t0\n", "0\t1\n1\t2\n3\t0\n"}) {
        Coo c;
        auto r = read_text(".csv", text, &c);
        CHECK_MSG(r.first == 0, "'%s': %s", text, r.second.c_str());
        CHECK_MSG(edges(c) == want && c.nrows == 4 && is_pattern_graph(c) && c.index_base == 0,
                  "'%s'", text);
        CHECK(consistent(c));
    }
    {   // weights: FP64, duplicates summed like the edge-list reader; a header with quotes
        Coo c;
        auto r = read_text(".csv", "\"source\",\"target\",\"weight\"\n0,1,0.5\n2,0,-2e3\n0,1,1\n",
                           &c);
        CHECK_MSG(r.first == 0, "%s", r.second.c_str());
        CHECK(c.type == PSV_FP64 && !c.pattern && c.dup == PSV_PLUS && c.nrows == 3);
        CHECK((edges(c) == std::vector<Edge>{{0, 1}, {2, 0}, {0, 1}}));
        CHECK((c.fvalues == std::vector<double>{0.5, -2000.0, 1.0}));
        Coo t;
        r = read_text(".txt", "0 1 0.5\n2 0 -2e3\n0 1 1\n", &t);
        CHECK(same(c, t));  // = the whitespace edge list
    }
    {   // malformed
        struct Bad {
            const char *text;
            int status;
            const char *line, *what;
        } bad[] = {
            {"0,1\n1;2\n", PSV_ERROR_PARSE, "line 2", "mixed separators"},
            {"0;1\n1,2\n", PSV_ERROR_PARSE, "line 2", "mixed separators"},
            {"a,b\n0,1\n1\t2\n", PSV_ERROR_PARSE, "line 3", "mixed separators"},
            {"0,1\n1,2,3,4\n", PSV_ERROR_PARSE, "line 2", "2 or 3 fields"},
            {"0,1\n7\n", PSV_ERROR_PARSE, "line 2", "2 or 3 fields"},
            {"0,1\n1,2,3\n", PSV_ERROR_PARSE, "line 2", "mixed"},
            {"0,1\nx,2\n", PSV_ERROR_PARSE, "line 2", "not a vertex id"},
            {"0,-1\n", PSV_ERROR_PARSE, "line 1", "negative"},
            {"0,1,abc\n", PSV_ERROR_PARSE, "line 1", "weight is not a number"},
            {"0,1,\n", PSV_ERROR_PARSE, "line 1", "weight is not a number"},
            {"source,target\n", PSV_ERROR_PARSE, "line 1", "empty file"},
            {"0,99999999999\n", PSV_ERROR_INVALID_INDEX, "line 1", "too large"},
        };
        for (const Bad &b : bad) {
            auto r = read_text(".csv", b.text);
            CHECK_MSG(r.first == b.status && has(r.second, b.line) && has(r.second, b.what),
                      "'%s': %d %s", b.text, r.first, r.second.c_str());
        }
    }
    {   // an unknown format names the formats psv reads
        auto r = read_text(".dat", "# comment\nhello world\n");
        CHECK_MSG(r.first == PSV_ERROR_PARSE && has(r.second, "line 2") &&
                      has(r.second, "psv reads Matrix Market (.mtx)") &&
                      has(r.second, "METIS graphs (.graph)"),
                  "%s", r.second.c_str());
    }
}

}  // namespace

int main() {
    test_stdin_and_pipes();
    test_hostile_dimensions();
    test_edge_lists();
    test_matrix_market();
    test_real_graphs();
    test_malformed();
    test_io_errors();
    test_huge_declared_size();
    test_number_round_trip();
    test_metis();
    test_csv();
    return check_exit();
}
