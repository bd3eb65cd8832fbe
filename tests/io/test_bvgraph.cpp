// BVGraph (LAW WebGraph) reading. Without arguments: the small graphs of tests/data/bvgraph
// (made by make_bvgraph.py, an encoder independent of the decoder) equal their edge lists, with
// every coding; parallel (.offsets) and sequential decoding give the same CSR; malformed files
// (truncated, lying node/arc counts, missing .properties, bad flags and properties, corrupt
// offsets, flipped bytes) fail fast with the right status through psv_matrix_read, leaving the
// output untouched. With "law": cnr-2000 and uk-2007-05@100000 from the shared data folder
// (PSV_SHARED_DATA) as .graph equal their .txt.gz edge lists, PageRank included; exit 77 when
// the folder is missing.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "core/coo.hpp"
#include "core/error.hpp"
#include "io/read.hpp"
#include "psv/psv.h"

namespace {

std::string data_dir() {
    const char *d = std::getenv("PSV_TEST_DATA");
    return std::string(d && *d ? d : "tests/data") + "/bvgraph";
}

std::string tmpdir;

std::string slurp(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void spit(const std::string &path, const std::string &bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << bytes;
}

// A copy of tests/data/bvgraph/NAME in tmpdir as BASE (.graph, .properties, and .offsets if
// with_offsets); returns tmpdir/BASE.
std::string copy_graph(const std::string &name, const std::string &base, bool with_offsets) {
    const std::string src = data_dir() + "/" + name, dst = tmpdir + "/" + base;
    spit(dst + ".graph", slurp(src + ".graph"));
    spit(dst + ".properties", slurp(src + ".properties"));
    if (with_offsets) spit(dst + ".offsets", slurp(src + ".offsets"));
    else std::remove((dst + ".offsets").c_str());
    return dst;
}

// The properties text with key's line set to "key=value" (removed when value is null).
std::string set_property(const std::string &props, const std::string &key, const char *value) {
    std::stringstream in(props);
    std::string line, out;
    bool done = false;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size() + 1, key + "=") == 0) {
            if (value) out += key + "=" + value + "\n";
            done = true;
            continue;
        }
        out += line + "\n";
    }
    if (!done && value) out += key + "=" + value + "\n";
    return out;
}

psv::Coo read_coo(const std::string &path) {
    try {
        return psv::io::read_file(path, false);
    } catch (const psv::Error &e) {
        std::fprintf(stderr, "reading %s failed: %d: %s\n", path.c_str(), e.status(), e.what());
        ++check_failures;
        return psv::Coo{};
    }
}

struct Csr {
    int64_t n = -1;
    std::vector<int64_t> rows, cols;
    bool operator==(const Csr &o) const { return n == o.n && rows == o.rows && cols == o.cols; }
};

Csr tuples(psv_matrix *A) {
    Csr c;
    int64_t nv = 0;
    if (psv_matrix_nrows(A, &c.n) || psv_matrix_nvals(A, &nv)) return Csr{};
    c.rows.resize((size_t)nv);
    c.cols.resize((size_t)nv);
    int64_t got = nv;
    if (psv_matrix_extract_tuples(A, c.rows.data(), c.cols.data(), nullptr, &got) || got != nv) return Csr{};
    return c;
}

// psv_matrix_read of path: its tuples (n = -1 on failure), the status and message.
Csr read_api(psv_context *ctx, const std::string &path, int *status = nullptr, std::string *msg = nullptr) {
    psv_matrix *const sentinel = reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000));
    psv_matrix *A = sentinel;
    const psv_status s = psv_matrix_read(ctx, path.c_str(), &A);
    if (status) *status = s;
    if (msg) *msg = psv_context_last_error(ctx);
    if (s != PSV_SUCCESS) {
        CHECK_MSG(A == sentinel, "%s: output changed on failure", path.c_str());
        return Csr{};
    }
    Csr c = tuples(A);
    psv_matrix_free(&A);
    return c;
}

// A read that must fail with status `want`, within a second, its message holding `needle`.
void expect_failure(psv_context *ctx, const std::string &path, int want, const char *needle, const char *what) {
    int s = 0;
    std::string m;
    const auto t0 = std::chrono::steady_clock::now();
    read_api(ctx, path, &s, &m);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK_MSG(s == want, "%s: status %d (%s), expected %d: %s", what, s, psv_status_string(s), want, m.c_str());
    CHECK_MSG(std::strstr(m.c_str(), needle) != nullptr, "%s: message lacks '%s': %s", what, needle, m.c_str());
    CHECK_MSG(secs < 1.0, "%s: took %.2f s", what, secs);
}

void test_small_graphs(psv_context *ctx) {
    struct {
        const char *name, *edges;
        int64_t nodes;
    } cases[] = {{"web", "web", 2500}, {"codes", "codes", 300}, {"plain", "codes", 300}};
    for (auto &k : cases) {
        const std::string g = data_dir() + "/" + k.name + ".graph";
        psv::Coo c = read_coo(g), e = read_coo(data_dir() + "/" + k.edges + ".txt.gz");
        CHECK_MSG(c.nrows == k.nodes && c.ncols == k.nodes, "%s: %lld nodes", k.name, (long long)c.nrows);
        CHECK_MSG(c.pattern && c.type == PSV_FP32 && c.index_base == 0, "%s: not a 0-based pattern", k.name);
        CHECK_MSG(!c.rows.empty() && c.rows == e.rows && c.cols == e.cols, "%s: arcs differ from %s.txt.gz", k.name,
                  k.edges);
        // Through the C API, with .offsets (parallel under OMP_NUM_THREADS=2) and without.
        const Csr with = read_api(ctx, g);
        const Csr without = read_api(ctx, copy_graph(k.name, std::string(k.name) + "-seq", false) + ".graph");
        CHECK_MSG(with.n == k.nodes && with == without, "%s: decoded differently with and without .offsets", k.name);
        CHECK_MSG(with.rows == e.rows && with.cols == e.cols, "%s: psv_matrix_read differs from the edge list", k.name);
    }
}

// The same failure expected with .offsets (parallel) and without (sequential).
void both_ways(psv_context *ctx, const std::string &graph_bytes, const std::string &props, int want,
               const char *needle, const char *what) {
    for (int off = 0; off < 2; ++off) {
        const std::string base = copy_graph("web", off ? "bad-par" : "bad-seq", off == 1);
        spit(base + ".graph", graph_bytes);
        spit(base + ".properties", props);
        expect_failure(ctx, base + ".graph", want, needle, (std::string(what) + (off ? " (offsets)" : "")).c_str());
    }
}

void test_malformed(psv_context *ctx) {
    const std::string graph = slurp(data_dir() + "/web.graph"), props = slurp(data_dir() + "/web.properties");
    const int P = PSV_ERROR_PARSE;
    // Truncated streams.
    both_ways(ctx, graph.substr(0, graph.size() / 2), props, P, "truncated", "truncated to half");
    both_ways(ctx, graph.substr(0, graph.size() - 1), props, P, "truncated", "last byte cut");
    both_ways(ctx, std::string(), props, P, "nodes = 2500", "empty .graph");
    // Lying counts.
    both_ways(ctx, graph, set_property(props, "nodes", "2501"), P, "", "one node too many");
    both_ways(ctx, graph, set_property(props, "nodes", "2499"), P, "", "one node too few");
    both_ways(ctx, graph, set_property(props, "nodes", "2147483647"), P, "holds only", "2^31-1 nodes");
    both_ways(ctx, graph, set_property(props, "nodes", "2147483648"), P, "nodes", "2^31 nodes");
    both_ways(ctx, graph, set_property(props, "arcs", "20186"), P, "arcs = 20186", "one arc too many");
    both_ways(ctx, graph, set_property(props, "arcs", "20184"), P, "arcs = 20184", "one arc too few");
    both_ways(ctx, graph, set_property(props, "arcs", "6250000"), P, "arcs = 6250000", "arcs = nodes^2");
    both_ways(ctx, graph, set_property(props, "arcs", "1000000000000000000"), P, "exceeds nodes^2", "arcs 10^18");
    both_ways(ctx, graph, set_property(props, "maxrefcount", "1"), P, "maxrefcount", "chains above maxrefcount");
    both_ways(ctx, graph, set_property(props, "windowsize", "1"), P, "window", "references beyond the window");
    both_ways(ctx, graph, set_property(props, "minintervallength", "5"), P, ".graph: node ", "another interval length");
    // Wrong codings for the stream, unknown and unsupported flags, other properties.
    both_ways(ctx, graph, set_property(props, "compressionflags", "RESIDUALS_GAMMA"), P, ".graph: node ", "wrong coding");
    both_ways(ctx, graph, set_property(props, "compressionflags", "OUTDEGREES_FOO"), P, "OUTDEGREES_FOO", "unknown flag");
    both_ways(ctx, graph, set_property(props, "compressionflags", "OUTDEGREES_GAMMA||BLOCKS_GAMMA"), P, "empty flag",
              "empty flag");
    both_ways(ctx, graph, set_property(props, "compressionflags", "RESIDUALS_NIBBLE"), PSV_ERROR_NOT_IMPLEMENTED,
              "RESIDUALS_NIBBLE", "nibble residuals");
    both_ways(ctx, graph, set_property(props, "version", "1"), PSV_ERROR_NOT_IMPLEMENTED, "version 1", "version 1");
    both_ways(ctx, graph, set_property(props, "graphclass", "it.unimi.dsi.webgraph.EFGraph"),
              PSV_ERROR_NOT_IMPLEMENTED, "EFGraph", "another graph class");
    both_ways(ctx, graph, set_property(props, "nodes", nullptr), P, "no 'nodes'", "no nodes property");
    both_ways(ctx, graph, set_property(props, "windowsize", "seven"), P, "windowsize", "windowsize not a number");
    both_ways(ctx, graph, set_property(props, "zetak", "0"), P, "zetak", "zetak 0");
    both_ways(ctx, graph, std::string(2 << 20, 'x'), P, "", "2 MiB of junk");
    both_ways(ctx, graph, props + std::string(2 << 20, '#'), P, "longer than", "huge .properties");
    // No .properties: an I/O error naming it.
    {
        const std::string base = copy_graph("web", "noprops", false);
        std::remove((base + ".properties").c_str());
        expect_failure(ctx, base + ".graph", PSV_ERROR_IO, "noprops.properties", "missing .properties");
    }
    // Corrupt .offsets: a byte flipped, truncated.
    {
        const std::string base = copy_graph("web", "badoff", true), off = slurp(base + ".offsets");
        std::string flipped = off;
        flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x10);
        spit(base + ".offsets", flipped);
        expect_failure(ctx, base + ".graph", P, "", "flipped .offsets");
        spit(base + ".offsets", off.substr(0, off.size() / 3));
        expect_failure(ctx, base + ".graph", P, "badoff.offsets", "truncated .offsets");
    }
    // Bytes flipped anywhere in the stream: a documented status, a valid graph when it reads.
    for (int off = 0; off < 2; ++off) {
        const std::string base = copy_graph("web", "flip", off == 1);
        int ok = 0, parse = 0, other = 0;
        for (size_t at = 0; at < graph.size(); at += 101) {
            std::string g = graph;
            g[at] = static_cast<char>(g[at] ^ (1 << (at % 8)));
            spit(base + ".graph", g);
            int s = 0;
            std::string m;
            const Csr c = read_api(ctx, base + ".graph", &s, &m);
            if (s == PSV_SUCCESS) {
                ++ok;
                bool sorted = true;
                for (size_t k = 1; k < c.rows.size(); ++k)
                    if (c.rows[k] < c.rows[k - 1] || (c.rows[k] == c.rows[k - 1] && c.cols[k] <= c.cols[k - 1]))
                        sorted = false;
                CHECK_MSG(sorted && c.n == 2500, "flipped byte %zu: an invalid graph", at);
            } else if (s == P && std::strstr(m.c_str(), "flip.graph")) {
                ++parse;
            } else {
                ++other;
                std::fprintf(stderr, "flipped byte %zu: status %d: %s\n", at, s, m.c_str());
            }
        }
        CHECK_MSG(other == 0 && parse > 0, "flipped bytes: %d read, %d parse errors, %d other", ok, parse, other);
    }
}

// cnr-2000 and uk-2007-05@100000: .graph = .txt.gz, PageRank bit-identical.
int test_law(psv_context *ctx) {
    const char *d = std::getenv("PSV_SHARED_DATA");
    const std::string dir = std::string(d && *d ? d : "../shared/data") + "/law";
    struct stat st;
    if (::stat((dir + "/cnr-2000.graph").c_str(), &st) != 0) {
        std::fprintf(stderr, "skipped: no %s/cnr-2000.graph (PSV_SHARED_DATA)\n", dir.c_str());
        return 77;
    }
    const struct {
        const char *name;
        int64_t nodes, arcs;
    } graphs[] = {{"cnr-2000", 325557, 3216152}, {"uk-2007-05@100000", 100000, 3050615}};
    for (auto &g : graphs) {
        const std::string base = dir + "/" + g.name;
        psv_matrix *A = nullptr, *B = nullptr;
        CHECK_STATUS(psv_matrix_read(ctx, (base + ".graph").c_str(), &A), PSV_SUCCESS);
        CHECK_STATUS(psv_matrix_read(ctx, (base + ".txt.gz").c_str(), &B), PSV_SUCCESS);
        if (!A || !B) {
            psv_matrix_free(&A);
            psv_matrix_free(&B);
            continue;
        }
        const Csr a = tuples(A), b = tuples(B);
        CHECK_MSG(a.n == g.nodes && (int64_t)a.rows.size() == g.arcs, "%s: %lld nodes, %zu arcs", g.name,
                  (long long)a.n, a.rows.size());
        CHECK_MSG(a == b, "%s: .graph and .txt.gz differ", g.name);
        psv_vector *ra = nullptr, *rb = nullptr;
        int32_t ia = 0, ib = 0;
        const psv_status sa = psv_pagerank(&ra, &ia, A, 0.85, 1e-6, 100);
        const psv_status sb = psv_pagerank(&rb, &ib, B, 0.85, 1e-6, 100);
        CHECK_MSG(sa >= 0 && sa == sb, "%s: PageRank status %d and %d", g.name, sa, sb);
        if (ra && rb) {
            std::vector<float> va((size_t)g.nodes), vb((size_t)g.nodes);
            CHECK_STATUS(psv_vector_get(ra, va.data(), g.nodes), PSV_SUCCESS);
            CHECK_STATUS(psv_vector_get(rb, vb.data(), g.nodes), PSV_SUCCESS);
            CHECK_MSG(ia == ib && va == vb, "%s: PageRank differs (%d vs %d iterations)", g.name, ia, ib);
        }
        psv_vector_free(&ra);
        psv_vector_free(&rb);
        psv_matrix_free(&A);
        psv_matrix_free(&B);
    }
    return check_failures ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
    psv_context *ctx = nullptr;
    if (psv_context_create(PSV_BACKEND_CPU, 0, &ctx) != PSV_SUCCESS) return 1;
    if (argc > 1 && std::strcmp(argv[1], "law") == 0) {
        const int r = test_law(ctx);
        psv_context_free(&ctx);
        return r;
    }
    char tmpl[] = "/tmp/psv-bvgraph-XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    tmpdir = tmpl;
    test_small_graphs(ctx);
    test_malformed(ctx);
    psv_context_free(&ctx);
    std::string cmd = "rm -rf '" + tmpdir + "'";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", tmpdir.c_str());
    std::printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
