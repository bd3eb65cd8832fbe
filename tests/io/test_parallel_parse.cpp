// The readers' parallel parsing (src/io/parallel.hpp) on files of several MB, so that a block is
// cut into shares: the tuples equal the generated ones, and a malformed line anywhere (in the
// second share too) gives the status and message, line number included, of a one-thread read.
// Edge lists (CRLF, comments, tabs, ids past the fast path, weights), Matrix Market (general,
// symmetric, one entry too many), CSV, each plain and gzip.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "check.h"
#include "files.hpp"
#include "core/coo.hpp"
#include "core/error.hpp"
#include "io/read.hpp"

using psv::Coo;

namespace {

using test_files::tmp_dir;

// Writes text to name and name.gz; returns the path.
std::string write_file(const std::string &name, const std::string &text) {
    return test_files::write_file(name, text, true);
}

struct Result {
    int status = 0;
    std::string message;
    Coo coo;
};

Result read(const std::string &path, int threads, bool relabel = false) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
    Result r;
    try {
        r.coo = psv::io::read_file(path, false, relabel);
    } catch (const psv::Error &e) {
        r.status = e.status();
        r.message = e.what();
    }
    return r;
}

bool same(const Coo &a, const Coo &b) {
    return a.nrows == b.nrows && a.ncols == b.ncols && a.type == b.type &&
           a.pattern == b.pattern && a.rows == b.rows && a.cols == b.cols &&
           a.fvalues == b.fvalues && a.ivalues == b.ivalues;
}

uint64_t rng_state = 12345;
uint64_t next_random() {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 33;
}

// Reads path (and path.gz) with 2 threads: the tuples must be `want`, and equal a 1-thread read.
void check_valid(const std::string &path, const Coo &want, bool relabel = false) {
    for (const std::string &p : {path, path + ".gz"}) {
        Result two = read(p, 2, relabel), one = read(p, 1, relabel);
        CHECK_MSG(two.status == 0 && one.status == 0, "%s: %s", p.c_str(), two.message.c_str());
        CHECK_MSG(same(two.coo, want), "%s: %zu tuples, want %zu", p.c_str(),
                  two.coo.rows.size(), want.rows.size());
        CHECK_MSG(same(one.coo, want), "%s (1 thread)", p.c_str());
    }
}

// Reads path (and path.gz): status `status` and a message naming `line`, with 1 and 2 threads.
void check_error(const std::string &path, int status, long line) {
    const std::string at = "line " + std::to_string(line) + ":";
    for (const std::string &p : {path, path + ".gz"}) {
        Result two = read(p, 2), one = read(p, 1);
        CHECK_MSG(two.status == status && two.message.find(at) != std::string::npos,
                  "%s: status %d '%s', want %d at %s", p.c_str(), two.status,
                  two.message.c_str(), status, at.c_str());
        CHECK_MSG(one.status == two.status && one.message == two.message, "%s: '%s' vs '%s'",
                  p.c_str(), one.message.c_str(), two.message.c_str());
    }
}

constexpr int kLines = 400000;  // about 5 MB of edge list

// An edge list with comments, CRLF and tab lines, and ids the fast path leaves to tokenizing.
void test_edge_lists() {
    for (int weighted = 0; weighted < 2; ++weighted) {
        std::string text = "# a comment\n";
        Coo want;
        int64_t maxid = 0;
        for (int k = 0; k < kLines; ++k) {
            int64_t u = static_cast<int64_t>(next_random() % 1000000);
            int64_t v = static_cast<int64_t>(next_random() % 1000000);
            if (k % 1000 == 7) v = 1500000000 + k;  // ten digits: not the fast path
            const char *sep = k % 3 == 1 ? "\t" : " ";
            text += std::to_string(u) + sep + std::to_string(v);
            if (weighted) {
                text += " " + std::to_string(k % 17) + ".25";
                want.fvalues.push_back((k % 17) + 0.25);
            }
            text += k % 5 == 2 ? "\r\n" : "\n";
            if (k % 977 == 0) text += "% comment in the middle\n\n";
            want.rows.push_back(u);
            want.cols.push_back(v);
            maxid = std::max(maxid, std::max(u, v));
        }
        want.nrows = want.ncols = maxid + 1;
        want.type = weighted ? PSV_FP64 : PSV_FP32;
        want.pattern = !weighted;
        std::string p = write_file(weighted ? "w.txt" : "e.txt", text);
        check_valid(p, want);
        // Relabelled: the same tuples through compact ids (checked by size here).
        Result r = read(p, 2, true), r1 = read(p, 1, true);
        CHECK(r.status == 0 && r.coo.rows.size() == want.rows.size() && same(r.coo, r1.coo));
        if (weighted) continue;
        // Malformed lines late in the file (the second share): the line is named.
        const size_t cut = text.size() * 3 / 4;
        const size_t ls = text.find('\n', cut) + 1;
        long line = 1;  // the line starting at ls
        for (size_t q = 0; q < ls; ++q) line += text[q] == '\n';
        auto with = [&](const std::string &bad) {
            return text.substr(0, ls) + bad + "\n" + text.substr(ls);
        };
        check_error(write_file("bad_id.txt", with("12 x7")), PSV_ERROR_PARSE, line);
        check_error(write_file("neg.txt", with("12 -7")), PSV_ERROR_PARSE, line);
        check_error(write_file("cols.txt", with("1 2 3")), PSV_ERROR_PARSE, line);
        check_error(write_file("one.txt", with("12")), PSV_ERROR_PARSE, line);
        check_error(write_file("big.txt", with("1 2147483647")), PSV_ERROR_INVALID_INDEX, line);
        // The end marker only as the last data line.
        check_error(write_file("marker.txt", with("-1")), PSV_ERROR_PARSE, line + 1);
        Result m = read(write_file("marker_end.txt", text + "-1\n# end\n"), 2);
        CHECK(m.status == 0 && m.coo.rows.size() == want.rows.size());
    }
}

void test_matrix_market() {
    const int n = 100000;
    for (int sym = 0; sym < 2; ++sym) {
        std::string body;
        Coo want;
        want.type = sym ? PSV_INT64 : PSV_FP64;
        want.pattern = false;
        want.index_base = 1;
        want.nrows = want.ncols = n;
        for (int k = 0; k < kLines; ++k) {
            int64_t i = static_cast<int64_t>(next_random() % n), j = static_cast<int64_t>(next_random() % n);
            body += std::to_string(i + 1) + " " + std::to_string(j + 1) + " ";
            want.rows.push_back(i);
            want.cols.push_back(j);
            if (sym) {
                body += std::to_string(k - 1000) + "\n";
                want.ivalues.push_back(k - 1000);
                if (i != j) {
                    want.rows.push_back(j);
                    want.cols.push_back(i);
                    want.ivalues.push_back(k - 1000);
                }
            } else {
                body += std::to_string(k) + "e-3\n";
                want.fvalues.push_back(k * 1e-3);  // k / 1000 rounded as the reader rounds it
            }
            if (k % 5000 == 3) body += "% a comment\n";
        }
        const std::string head = std::string("%%MatrixMarket matrix coordinate ") +
                                 (sym ? "integer symmetric" : "real general") + "\n" +
                                 std::to_string(n) + " " + std::to_string(n) + " ";
        std::string p = write_file(sym ? "s.mtx" : "g.mtx", head + std::to_string(kLines) + "\n" + body);
        if (!sym) {  // the values as scan_double gives them: compare with a one-thread read
            Result one = read(p, 1);
            want.fvalues = one.coo.fvalues;
        }
        check_valid(p, want);
        if (sym) continue;
        // One entry more than declared: the line of that entry (the file's last).
        long lines = 2;
        for (char ch : body) lines += ch == '\n';
        check_error(write_file("more.mtx", head + std::to_string(kLines - 1) + "\n" + body),
                    PSV_ERROR_PARSE, lines);
        check_error(write_file("fewer.mtx", head + std::to_string(kLines + 1) + "\n" + body),
                    PSV_ERROR_PARSE, lines);
        const size_t ls = body.find('\n', body.size() * 2 / 3) + 1;
        long line = 3;
        for (size_t q = 0; q < ls; ++q) line += body[q] == '\n';
        std::string bad = head + std::to_string(kLines) + "\n" + body.substr(0, ls) + "1 " +
                          std::to_string(n + 1) + " 2\n" + body.substr(ls);
        check_error(write_file("range.mtx", bad), PSV_ERROR_INVALID_INDEX, line);
    }
}

void test_csv() {
    std::string text = "source,target\n";
    Coo want;
    int64_t maxid = 0;
    for (int k = 0; k < kLines; ++k) {
        int64_t u = static_cast<int64_t>(next_random() % 300000), v = static_cast<int64_t>(next_random() % 300000);
        text += std::to_string(u) + (k % 4 == 1 ? " , " : ",") + std::to_string(v) + "\n";
        want.rows.push_back(u);
        want.cols.push_back(v);
        maxid = std::max(maxid, std::max(u, v));
    }
    want.nrows = want.ncols = maxid + 1;
    want.type = PSV_FP32;
    std::string p = write_file("e.csv", text);
    check_valid(p, want);
    const size_t ls = text.find('\n', text.size() * 4 / 5) + 1;
    long line = 1;
    for (size_t q = 0; q < ls; ++q) line += text[q] == '\n';
    check_error(write_file("mixed.csv", text.substr(0, ls) + "1;2\n" + text.substr(ls)),
                PSV_ERROR_PARSE, line);
    check_error(write_file("fields.csv", text.substr(0, ls) + "1,2,3\n" + text.substr(ls)),
                PSV_ERROR_PARSE, line);
}

}  // namespace

int main() {
#ifndef _OPENMP
    std::fprintf(stderr, "built without OpenMP: one thread only\n");
#endif
    test_edge_lists();
    test_matrix_market();
    test_csv();
    test_files::remove_tmp_dir();
    return check_exit();
}
