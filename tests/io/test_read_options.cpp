// Tests of the read options (psv_matrix_read_with_flags, psv_matrix_labels): undirected reads
// against the symmetrized tuples of the plain read, relabelled hashed ids (up to 2^63-1) giving
// the matrix and PageRank of the compacted file, standard input equal to the file with both
// options, .psv files, and the error paths.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "check.h"
#include "psv/psv.h"
#include "files.hpp"

namespace {

using test_files::tmp_dir;

using test_files::write_file;
std::string dpath(const std::string &rel) { return test_files::data_path(rel); }

psv_context *ctx = nullptr;

struct Tuples {
    int64_t nrows = -1, ncols = -1;
    std::vector<int64_t> rows, cols;
    std::vector<double> values;  // FP64 matrices only
    bool operator==(const Tuples &o) const {
        return nrows == o.nrows && ncols == o.ncols && rows == o.rows && cols == o.cols &&
               values == o.values;
    }
};

Tuples tuples(const psv_matrix *A) {
    Tuples t;
    int64_t n = 0;
    psv_type type = 0;
    psv_matrix_nrows(A, &t.nrows);
    psv_matrix_ncols(A, &t.ncols);
    psv_matrix_nvals(A, &n);
    psv_matrix_type(A, &type);
    int32_t pattern = 1;
    psv_matrix_is_pattern(A, &pattern);
    t.rows.resize(n);
    t.cols.resize(n);
    if (!pattern && type == PSV_FP64) t.values.resize(n);
    CHECK_STATUS(psv_matrix_extract_tuples(A, t.rows.data(), t.cols.data(),
                                           t.values.empty() ? nullptr : t.values.data(), &n),
                 PSV_SUCCESS);
    return t;
}

std::vector<int64_t> labels_of(const psv_matrix *A) {
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    std::vector<int64_t> l(n + 1, -7);
    int64_t cap = n + 1;
    CHECK_STATUS(psv_matrix_labels(A, l.data(), &cap), PSV_SUCCESS);
    CHECK(cap == n);
    l.resize(n);
    return l;
}

psv_matrix *read(const std::string &path, int32_t flags) {
    psv_matrix *A = nullptr;
    psv_status s = psv_matrix_read_with_flags(ctx, path.c_str(), flags, &A);
    CHECK_MSG(s == PSV_SUCCESS, "%s flags %d: %s", path.c_str(), flags,
              psv_context_last_error(ctx));
    return A;
}

std::vector<float> pagerank(const psv_matrix *A) {
    psv_vector *r = nullptr;
    int32_t it = 0;
    CHECK_STATUS(psv_pagerank(&r, &it, A, 0.85, 1e-7, 200), PSV_SUCCESS);
    int64_t n = 0;
    psv_vector_size(r, &n);
    std::vector<float> v(n);
    psv_vector_get(r, v.data(), n);
    psv_vector_free(&r);
    return v;
}

// The undirected read is the plain read's tuples with every mirror added (a set of pairs).
void test_undirected_equals_symmetrized() {
    for (const char *rel : {"p2p-Gnutella31.txt.gz", "email-Eu-core.txt.gz", "karate.mtx",
                            "4elt.metis.graph.gz"}) {
        psv_matrix *A = read(dpath(rel), 0), *U = read(dpath(rel), PSV_READ_UNDIRECTED);
        if (!A || !U) continue;
        Tuples a = tuples(A), u = tuples(U);
        std::set<std::pair<int64_t, int64_t>> want;
        for (size_t k = 0; k < a.rows.size(); ++k) {
            want.insert({a.rows[k], a.cols[k]});
            want.insert({a.cols[k], a.rows[k]});
        }
        std::vector<std::pair<int64_t, int64_t>> got;
        for (size_t k = 0; k < u.rows.size(); ++k) got.push_back({u.rows[k], u.cols[k]});
        CHECK_MSG(u.nrows == a.nrows && u.ncols == a.ncols, "%s: shape", rel);
        CHECK_MSG(std::equal(got.begin(), got.end(), want.begin(), want.end()), "%s: %zu "
                  "entries, want %zu", rel, got.size(), want.size());
        psv_matrix_free(&A);
        psv_matrix_free(&U);
    }
    // Self loops once, both directions once, a file entry keeping its own value.
    std::string p = write_file("w.txt", "0 1 2.5\n1 2 4\n2 1 7\n3 3 1.5\n3 3 1\n");
    psv_matrix *U = read(p, PSV_READ_UNDIRECTED);
    if (U) {
        Tuples u = tuples(U);
        Tuples want;
        want.nrows = want.ncols = 4;
        want.rows = {0, 1, 1, 2, 3};
        want.cols = {1, 0, 2, 1, 3};
        want.values = {2.5, 2.5, 4, 7, 2.5};  // duplicates summed first (3,3)
        CHECK(u == want);
        psv_matrix_free(&U);
    }
    // Not square: a dimension mismatch, A untouched.
    p = write_file("r.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 2\n2 3\n");
    psv_matrix *X = reinterpret_cast<psv_matrix *>(&p);
    CHECK_STATUS(psv_matrix_read_with_flags(ctx, p.c_str(), PSV_READ_UNDIRECTED, &X),
                 PSV_ERROR_DIMENSION_MISMATCH);
    CHECK(X == reinterpret_cast<psv_matrix *>(&p));
}

uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A graph with hashed ids up to 2^63-1, relabelled, is the file with the ids compacted in order
// of first appearance: the same tuples, the same PageRank, labels naming the hashed ids.
void test_relabel_hashed_ids() {
    psv_matrix *A = read(dpath("email-Eu-core.txt.gz"), 0);
    if (!A) return;
    Tuples a = tuples(A);
    psv_matrix_free(&A);
    // Shuffle the edge order so first appearance differs from id order.
    std::vector<size_t> order(a.rows.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    for (size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[splitmix(k) % k]);
    std::unordered_map<int64_t, int64_t> compact;
    std::vector<int64_t> hashed_of;  // by compact id
    std::string hashed, compacted;
    auto cid = [&](int64_t v) {
        auto it = compact.find(v);
        if (it != compact.end()) return it->second;
        const int64_t h = static_cast<int64_t>(splitmix(static_cast<uint64_t>(v)) >> 1);
        hashed_of.push_back(v == 0 ? INT64_MAX : h);  // the largest id there is
        return compact[v] = static_cast<int64_t>(hashed_of.size()) - 1;
    };
    for (size_t k : order) {
        int64_t cu = cid(a.rows[k]), cv = cid(a.cols[k]);
        compacted += std::to_string(cu) + " " + std::to_string(cv) + "\n";
        hashed += std::to_string(hashed_of[cu]) + "\t" + std::to_string(hashed_of[cv]) + "\n";
    }
    std::string ph = write_file("hashed.txt", "# hashed ids\n" + hashed);
    std::string pc = write_file("compacted.txt", compacted);
    std::string csv = "source,target\n" + hashed;
    std::replace(csv.begin(), csv.end(), '\t', ',');
    std::string pcsv = write_file("hashed.csv", csv);
    psv_matrix *C = read(pc, 0), *H = read(ph, PSV_READ_RELABEL), *V = read(pcsv, PSV_READ_RELABEL);
    if (C && H && V) {
        CHECK(tuples(H) == tuples(C));
        CHECK(tuples(V) == tuples(C));
        CHECK(labels_of(H) == hashed_of);
        CHECK(labels_of(V) == hashed_of);
        std::vector<float> rc = pagerank(C), rh = pagerank(H);
        CHECK(rc == rh);  // the same matrix: bit-identical ranks
        // Relabelling an already compact file changes nothing (its ids appear in order).
        psv_matrix *CC = read(pc, PSV_READ_RELABEL);
        std::vector<int64_t> id(hashed_of.size());
        for (size_t k = 0; k < id.size(); ++k) id[k] = static_cast<int64_t>(k);
        if (CC) CHECK(labels_of(CC) == id && tuples(CC) == tuples(C));
        psv_matrix_free(&CC);
        // Both options: the undirected form of the compacted file.
        psv_matrix *HU = read(ph, PSV_READ_RELABEL | PSV_READ_UNDIRECTED);
        psv_matrix *CU = read(pc, PSV_READ_UNDIRECTED);
        if (HU && CU) CHECK(tuples(HU) == tuples(CU) && pagerank(HU) == pagerank(CU));
        psv_matrix_free(&HU);
        psv_matrix_free(&CU);
    }
    // Without relabelling the hashed ids are refused (no matrix sized by them).
    psv_matrix *X = nullptr;
    CHECK_STATUS(psv_matrix_read(ctx, ph.c_str(), &X), PSV_ERROR_INVALID_INDEX);
    CHECK(X == nullptr && std::strstr(psv_context_last_error(ctx), "--relabel") != nullptr);
    psv_matrix_free(&C);
    psv_matrix_free(&H);
    psv_matrix_free(&V);
}

// Labels in order of first appearance, row id before column id; Matrix Market ids 1-based.
void test_relabel_order_and_bases() {
    psv_matrix *A = read(write_file("o.txt", "10 5\n5 100\n10 100\n100 100\n"), PSV_READ_RELABEL);
    if (A) {
        CHECK((labels_of(A) == std::vector<int64_t>{10, 5, 100}));
        Tuples t = tuples(A);
        CHECK(t.nrows == 3 && (t.rows == std::vector<int64_t>{0, 0, 1, 2}) &&
              (t.cols == std::vector<int64_t>{1, 2, 2, 2}));
    }
    psv_matrix_free(&A);
    A = read(dpath("karate.mtx"), PSV_READ_RELABEL);
    if (A) {
        std::vector<int64_t> l = labels_of(A);
        std::sort(l.begin(), l.end());
        std::vector<int64_t> want(34);
        for (int k = 0; k < 34; ++k) want[k] = k + 1;
        CHECK(l == want);
    }
    psv_matrix_free(&A);
    // 2^63-1 is an id; 2^63 is not (the line is named).
    A = read(write_file("max.txt", "9223372036854775807 0\n"), PSV_READ_RELABEL);
    if (A) CHECK((labels_of(A) == std::vector<int64_t>{INT64_MAX, 0}));
    psv_matrix_free(&A);
    CHECK_STATUS(psv_matrix_read_with_flags(ctx, write_file("over.txt", "1 2\n9223372036854775808 0\n").c_str(),
                                            PSV_READ_RELABEL, &A),
                 PSV_ERROR_INVALID_INDEX);
    CHECK(std::strstr(psv_context_last_error(ctx), "line 2:") != nullptr);
}

// A file read through a pipe on standard input ("-"), with flags.
psv_matrix *read_stdin(const std::string &path, int32_t flags) {
    return test_files::with_stdin_pipe(path, [&] { return read("-", flags); });
}

void test_stdin_equals_file() {
    const int32_t both = PSV_READ_UNDIRECTED | PSV_READ_RELABEL;
    for (const char *rel : {"wiki-Vote.txt.gz", "karate.mtx", "io/weighted.txt", "io/noncontig.txt"}) {
        for (int32_t flags : {PSV_READ_UNDIRECTED, PSV_READ_RELABEL, both}) {
            psv_matrix *F = read(dpath(rel), flags), *S = read_stdin(dpath(rel), flags);
            if (F && S) {
                CHECK_MSG(tuples(F) == tuples(S), "%s flags %d", rel, flags);
                if (flags & PSV_READ_RELABEL) CHECK(labels_of(F) == labels_of(S));
            }
            psv_matrix_free(&F);
            psv_matrix_free(&S);
        }
    }
}

// A .psv file takes the options too: undirected as its source read undirected; relabelled in
// its entries' order, with the file's ids.
void test_psv_files() {
    psv_matrix *A = read(dpath("karate.mtx"), 0);
    if (!A) return;
    std::string p = tmp_dir() + "/k.psv";
    CHECK_STATUS(psv_matrix_write(A, p.c_str()), PSV_SUCCESS);
    psv_matrix *U = read(p, PSV_READ_UNDIRECTED), *W = read(dpath("karate.mtx"), PSV_READ_UNDIRECTED);
    if (U && W) CHECK(tuples(U) == tuples(W));
    psv_matrix *R = read(p, PSV_READ_RELABEL);
    if (R) {
        std::vector<int64_t> l = labels_of(R);
        CHECK(l.size() == 34 && l[0] == 1 && l[1] == 2);  // row 0's first neighbour is vertex 2
    }
    psv_matrix_free(&A);
    psv_matrix_free(&U);
    psv_matrix_free(&W);
    psv_matrix_free(&R);
    // a weighted .psv file relabelled keeps its values (ids already in order of first appearance:
    // the same matrix comes back)
    const int64_t r[] = {0, 1, 2, 2}, c[] = {1, 2, 0, 1};
    const double v[] = {2.5, -1.25, 4.0, 0.5};
    psv_matrix *V = nullptr;
    CHECK_STATUS(psv_matrix_build(ctx, PSV_FP64, 3, 3, 4, r, c, v, PSV_NOOP, &V), PSV_SUCCESS);
    const std::string pv = tmp_dir() + "/w.psv";
    CHECK_STATUS(psv_matrix_write(V, pv.c_str()), PSV_SUCCESS);
    psv_matrix *RV = read(pv, PSV_READ_RELABEL);
    if (V && RV) CHECK(tuples(RV) == tuples(V) && tuples(RV).values.size() == 4);
    psv_matrix_free(&V);
    psv_matrix_free(&RV);
}

void test_errors() {
    psv_matrix *A = nullptr;
    const std::string p = dpath("karate.mtx");
    CHECK_STATUS(psv_matrix_read_with_flags(ctx, p.c_str(), 4, &A), PSV_ERROR_INVALID_VALUE);
    CHECK_STATUS(psv_matrix_read_with_flags(ctx, p.c_str(), -1, &A), PSV_ERROR_INVALID_VALUE);
    CHECK(A == nullptr);
    CHECK_STATUS(psv_matrix_read_with_flags(nullptr, p.c_str(), 0, &A), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_read_with_flags(ctx, nullptr, 0, &A), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_read_with_flags(ctx, p.c_str(), 0, nullptr), PSV_ERROR_NULL_POINTER);
    A = read(p, 0);
    int64_t l[40] = {-7}, n = 40;
    CHECK_STATUS(psv_matrix_labels(A, l, &n), PSV_NO_VALUE);  // not relabelled
    CHECK(n == 40 && l[0] == -7);
    psv_matrix_free(&A);
    A = read(p, PSV_READ_RELABEL);
    n = 33;
    CHECK_STATUS(psv_matrix_labels(A, l, &n), PSV_ERROR_INSUFFICIENT_SPACE);
    CHECK(n == 33 && l[0] == -7);
    CHECK_STATUS(psv_matrix_labels(A, nullptr, &n), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_labels(A, l, nullptr), PSV_ERROR_NULL_POINTER);
    CHECK_STATUS(psv_matrix_labels(nullptr, l, &n), PSV_ERROR_NULL_POINTER);
    psv_matrix *stale = A;
    psv_matrix_free(&A);
    n = 40;
    CHECK_STATUS(psv_matrix_labels(stale, l, &n), PSV_ERROR_UNINITIALIZED_OBJECT);
}

}  // namespace

int main() {
    if (psv_context_create(PSV_BACKEND_CPU, 0, &ctx) != PSV_SUCCESS) return 1;
    test_undirected_equals_symmetrized();
    test_relabel_hashed_ids();
    test_relabel_order_and_bases();
    test_stdin_equals_file();
    test_psv_files();
    test_errors();
    psv_context_free(&ctx);
    test_files::remove_tmp_dir();
    return check_exit();
}
