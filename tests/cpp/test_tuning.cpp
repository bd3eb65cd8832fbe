// The performance model's host half (src/tuning): non-negative least squares, the statistics'
// queries, plan keys, the table's text form and its errors, the fit on samples of a known model,
// the ranking of candidates, and where tables are found (the user's cache, the shipped ones).
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "check.h"
#include "psv/psv.h"
#include "tuning/model.hpp"

using namespace psv::tuning;

namespace {

void check_nnls() {
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(0.1, 2.0);
    const int rows = 40, cols = 5;
    std::vector<double> A(rows * cols), b(rows), truth = {0.5, 0.0, 2.0, 1e-3, 3.0};
    for (int r = 0; r < rows; ++r) {
        b[r] = 0;
        for (int c = 0; c < cols; ++c) b[r] += (A[r * cols + c] = u(g)) * truth[c];
    }
    std::vector<double> x = nnls(A, b, rows, cols);
    for (int c = 0; c < cols; ++c) CHECK_MSG(std::fabs(x[c] - truth[c]) < 1e-8, "coefficient %d: %g for %g", c, x[c], truth[c]);
    // a target that wants a negative coefficient: the result stays >= 0 and is optimal (KKT: the
    // gradient A'(b - Ax) is 0 on the positive coefficients and <= 0 on the zero ones)
    for (int r = 0; r < rows; ++r) b[r] = A[r * cols + 0] - 0.7 * A[r * cols + 1];
    x = nnls(A, b, rows, cols);
    std::vector<double> grad(cols, 0.0);
    for (int r = 0; r < rows; ++r) {
        double res = b[r];
        for (int c = 0; c < cols; ++c) res -= A[r * cols + c] * x[c];
        for (int c = 0; c < cols; ++c) grad[c] += A[r * cols + c] * res;
    }
    for (int c = 0; c < cols; ++c) {
        CHECK(x[c] >= 0);
        CHECK_MSG(x[c] > 0 ? std::fabs(grad[c]) < 1e-7 : grad[c] < 1e-7, "KKT at %d: x %g gradient %g", c, x[c], grad[c]);
    }
}

MatrixStats power_law_stats() {
    MatrixStats s;
    s.nrows = s.ncols = 1 << 16;
    // lengths 2^k for 2^(10-k) columns... and the rest of length 1 or 0
    int64_t cols = 0, nnz = 0;
    for (int k = 10; k >= 1; --k) {
        const int64_t c = int64_t(1) << (10 - k);
        s.col_lengths.push_back({int64_t(1) << k, c});
        cols += c, nnz += c << k;
    }
    s.col_lengths.push_back({1, 30000});
    s.col_lengths.push_back({0, s.ncols - cols - 30000});
    s.nnz = nnz + 30000;
    s.max_row_length = 40;
    return s;
}

void check_stats() {
    const MatrixStats s = power_law_stats();
    CHECK(s.top_entries(0) == 0);
    CHECK(s.top_entries(1) == 1024);
    CHECK(s.top_entries(3) == 1024 + 2 * 512);
    CHECK(s.top_entries(2.5) == 1024 + 1.5 * 512);
    CHECK(s.top_entries(1e12) == (double)s.nnz);
    CHECK(s.columns_at_least(512) == 3);
    CHECK(s.columns_at_least(1) == 1023 + 30000);
    // pairs: a column of length L over P partitions lands in P (1 - (1 - 1/P)^L) of them
    MatrixStats t;
    t.col_lengths = {{5, 1000}, {1, 10}};
    const double expect = 1000 * 10 * (1 - std::pow(0.9, 5)) + 10;
    CHECK_MSG(std::fabs(t.expected_pairs(10, 0) - expect) < 1e-6, "%g for %g", t.expected_pairs(10, 0), expect);
    CHECK(std::fabs(t.expected_pairs(10, 1000) - 10) < 1e-9);  // the long ones hot
    CHECK(t.expected_pairs(1, 0) == 1010);
    // against a simulation: 2000 columns of length 7 dropped on 13 partitions
    std::mt19937_64 g(3);
    double sim = 0;
    for (int c = 0; c < 2000; ++c) {
        std::vector<int> hit(13, 0);
        for (int e = 0; e < 7; ++e) hit[g() % 13] = 1;
        for (int h : hit) sim += h;
    }
    MatrixStats w;
    w.col_lengths = {{7, 2000}};
    CHECK_MSG(std::fabs(w.expected_pairs(13, 0) - sim) / sim < 0.02, "expected %g simulated %g", w.expected_pairs(13, 0), sim);
    // the statistics' line, and back
    std::string name;
    MatrixStats back;
    MatrixStats ls = s;
    ls.near_entries = 77;
    CHECK(parse_stats_line(stats_line("m1", ls), name, back));
    CHECK(name == "m1" && back.nnz == ls.nnz && back.near_entries == 77 && back.col_lengths == ls.col_lengths);
    CHECK(!parse_stats_line("stats m 10 10 5 4 1 0 1 3 1", name, back));   // 3 entries, not 5
    CHECK(!parse_stats_line("stats m 10 10 5 4 1 0 1 5 1 x", name, back)); // trailing field
}

void check_plans() {
    Plan a;
    a.family = Family::Hot, a.hot = 8192, a.ranked = true, a.prefix = 7864320;
    Plan b;
    b.family = Family::Tile, b.tile_width = 28672, b.max_tiles = -1;
    Plan c;
    c.family = Family::Stream;
    Plan d;
    d.family = Family::Chunk;
    Plan e;
    e.family = Family::Sell;
    for (const Plan &p : {a, b, c, d, e}) {
        Plan q;
        CHECK_MSG(Plan::from_key(p.key(), q) && q == p, "key %s", p.key().c_str());
    }
    CHECK(a.key() == "hot:8192:r7864320" && d.key() == "chunk:0:p0" && e.key() == "sell");
    CHECK(family_kernel(Family::Sell) == PSV_KERNEL_SELL && e.describe() == "SELL-32 kernel");
    Plan q;
    for (const char *bad : {"", "warp", "hot:1", "hot:x:r1", "hot:1:q1", "tile:1:2", "stream:1", "chunk:0:p", "sell:32"})
        CHECK_MSG(!Plan::from_key(bad, q), "'%s' parsed", bad);
    CHECK(a.describe().find("8192 hot") != std::string::npos);
}

DeviceShape device(const char *name, int major, int minor) {
    DeviceShape d;
    d.name = name;
    d.cc_major = major, d.cc_minor = minor;
    d.sms = 132;
    d.l2_bytes = 60 << 20;
    d.smem_per_sm = 228 * 1024;
    return d;
}

// A table whose samples follow a known model exactly: fit must reproduce their times.
Table known_table() {
    Table t;
    t.device = device("Test GPU", 9, 0);
    std::mt19937_64 g(11);
    for (int m = 0; m < 12; ++m) {
        MatrixStats s = power_law_stats();
        const double scale = 1 << (m % 6);
        s.nrows = s.ncols = (int64_t)(s.nrows * scale);
        for (auto &r : s.col_lengths) r.second = (int64_t)(r.second * scale);
        int64_t cols = 0, nnz = 0;
        for (auto &r : s.col_lengths) cols += r.second, nnz += r.first * r.second;
        s.ncols = s.nrows = cols;
        s.nnz = nnz;
        s.near_entries = m >= 6 ? nnz / 3 : 0;
        const std::string name = "synthetic:" + std::to_string(m);
        t.matrices.push_back({name, s});
        for (int f = 0; f < kFamilies; ++f)
            for (int w = 0; w < 2; ++w) {
                Sample x;
                x.matrix = name;
                x.plan.family = (Family)f;
                x.plan.hot = x.plan.family == Family::Hot ? 2048 << (m % 3) : 0;
                x.plan.ranked = m % 2 == 1 && (x.plan.family == Family::Chunk || x.plan.family == Family::Hot);
                x.plan.prefix = x.plan.ranked ? s.ncols : 0;
                x.plan.tile_width = x.plan.family == Family::Tile || x.plan.family == Family::TileCoo ? 28672 : 0;
                x.plan.max_tiles = x.plan.family == Family::Tile ? -(m % 2) : 0;
                x.weighted = w == 0;
                MatrixStats sw = s;
                sw.weighted = x.weighted;
                x.f = features(sw, x.plan, t.device, t.kernels);
                x.ms = 0;
                for (int j = 0; j < family_features(x.family()); ++j) x.ms += (0.001 + 0.0001 * j) * x.f[j];
                t.samples.push_back(x);
            }
    }
    fit(t);
    return t;
}

void check_fit_and_text() {
    Table t = known_table();
    for (int f = 0; f < kFamilies; ++f) CHECK(t.has((Family)f));
    double worst = 0;
    for (const Sample &x : t.samples) {
        double p = 0;
        const std::vector<double> &c = *t.coefficients(x.plan);
        for (size_t j = 0; j < c.size(); ++j) p += c[j] * x.f[j];
        worst = std::max(worst, std::fabs(p - x.ms) / x.ms);
    }
    CHECK_MSG(worst < 1e-6, "a fit of an exact model is off by %g", worst);
    // text round trip, exactly
    Table u;
    std::string err;
    CHECK_MSG(parse(to_text(t), u, err), "%s", err.c_str());
    CHECK(u.device.name == t.device.name && u.device.l2_bytes == t.device.l2_bytes && u.samples.size() == t.samples.size());
    CHECK(u.matrices.size() == t.matrices.size() && u.kernels.hot_fixed_smem == t.kernels.hot_fixed_smem);
    CHECK(u.coef == t.coef && u.coef.size() == 8);  // chunk, hot:2048/4096/8192, stream, tile, tilecoo, sell
    // a hot count not measured is priced with the nearest one's set
    Plan h;
    h.family = Family::Hot, h.hot = 5000;
    CHECK(t.coefficients(h) == &t.coef.at("hot:4096"));
    h.hot = 100000;
    CHECK(t.coefficients(h) == &t.coef.at("hot:8192"));
    CHECK(coef_key(h) == "hot:100000");
    bool same = true;
    for (size_t i = 0; i < t.samples.size(); ++i)
        same = same && u.samples[i].ms == t.samples[i].ms && u.samples[i].plan == t.samples[i].plan &&
               u.samples[i].f == t.samples[i].f && u.samples[i].weighted == t.samples[i].weighted;
    CHECK(same);
    // features recomputed from the kept statistics are the same
    Table v = u;
    for (Sample &x : v.samples) x.f = Features{};
    v.refeature();
    for (size_t i = 0; i < v.samples.size(); ++i) CHECK(v.samples[i].f == t.samples[i].f);
    // malformed texts: a message with the line
    const std::string good = to_text(t);
    struct Bad {
        std::string text, says;
    };
    const Bad bads[] = {
        {"", "empty"},
        {"not-a-table 1\n", "not a psv tuning table"},
        {"psv-tuning-table 1\n", "version 1"},
        {"psv-tuning-table 3\n", "version 3"},
        {"psv-tuning-table 2\ndevice X\nsms 1\nl2_bytes 1\nfrobnicate 3\n", "unknown key"},
        {"psv-tuning-table 2\ndevice X\nsms 1\nl2_bytes 1\ncoef chunk -1 0 0 0 0 0 0 0 0 0\n", "non-negative"},
        {"psv-tuning-table 2\ndevice X\nsms 1\nl2_bytes 1\ncoef warp 1\n", "unknown kernel family"},
        {"psv-tuning-table 2\ndevice X\nsms 1\nl2_bytes 1\ncoef hot:x 1\n", "unknown kernel family"},
        {"psv-tuning-table 2\ndevice X\nsms 1\nl2_bytes 1\nsample m warp:1 1 0.5\n", "unknown plan"},
        {"psv-tuning-table 2\nsms 1\nl2_bytes 1\n", "no device"},
    };
    for (const Bad &b : bads) {
        Table z;
        z.device.name = "untouched";
        err.clear();
        CHECK_MSG(!parse(b.text, z, err) && err.find(b.says) != std::string::npos && z.device.name == "untouched",
                  "'%s' gave '%s'", b.says.c_str(), err.c_str());
    }
    // the ranking: by predicted time, ties in candidate order; a family the table lacks left out
    MatrixStats s = t.matrices[3].second;
    std::vector<Plan> cands;
    for (int f = 0; f < kFamilies; ++f) {
        Plan p;
        p.family = (Family)f;
        p.tile_width = 28672;
        cands.push_back(p);
    }
    std::vector<Ranked> r = rank_plans(t, s, cands, t.kernels, t.device);
    CHECK(r.size() == cands.size());
    for (size_t i = 1; i < r.size(); ++i) CHECK(r[i - 1].ms <= r[i].ms);
    for (const Ranked &x : r) CHECK(std::fabs(x.ms - predict(t, s, x.plan, t.kernels, t.device)) == 0);
    Table w = t;
    w.coef.erase("stream");
    CHECK(rank_plans(w, s, cands, t.kernels, t.device).size() == cands.size() - 1);
    CHECK(predict(w, s, cands[(int)Family::Stream], t.kernels, t.device) < 0);
}

void check_files() {
    char dir[] = "/tmp/psv-tuning-test-XXXXXX";
    REQUIRE(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    CHECK(user_table_dir() == std::string(dir) + "/psv/tuning");
    const DeviceShape d = device("Test GPU 9000 (x)", 9, 0);
    CHECK(table_file_name(d) == "test-gpu-9000-x-sm90.tbl");
    Table t = known_table();
    t.device = d;
    std::string err;
    const std::string path = user_table_dir() + "/" + table_file_name(d);
    CHECK_MSG(save_table(t, path, err), "%s", err.c_str());
    Loaded L = load_table(d);
    CHECK(L.source == Source::User && L.path == path && L.table.samples.size() == t.samples.size());
    // another device of the name is not served the user's table
    DeviceShape other = d;
    other.cc_minor = 1;
    CHECK(load_table(other).source != Source::User);
    // a corrupt cached file is skipped
    {
        std::ofstream f(path);
        f << "psv-tuning-table 2\ngarbage\n";
    }
    CHECK(load_table(d).source != Source::User);
    // an unwritable place: false, a message, nothing left
    CHECK(!save_table(t, "/proc/psv-none/x.tbl", err) && !err.empty());
    // the shipped tables parse, each for the device its name says, and serve their own device
    for (const auto &s : shipped_tables()) {
        Table z;
        CHECK_MSG(parse(s.second, z, err), "%s: %s", s.first.c_str(), err.c_str());
        CHECK_MSG(table_file_name(z.device) == s.first, "%s holds %s", s.first.c_str(), z.device.name.c_str());
        // every family but SELL-32's, which came after the shipped table was measured (AUTO
        // takes it by its rule, not by the model: docs/design.md, section 3)
        for (int f = 0; f < kFamilies; ++f)
            if ((Family)f != Family::Sell)
                CHECK_MSG(z.has((Family)f), "%s lacks %s", s.first.c_str(), family_name((Family)f));
        const Loaded own = load_table(z.device);
        CHECK(own.source == Source::Shipped && own.path == s.first);
    }
    // an unknown device: the nearest shipped architecture's table, or none where none is shipped
    const Loaded n = load_table(device("Unknown GPU", 9, 0));
    CHECK(shipped_tables().empty() ? n.source == Source::None : n.source == Source::Nearest);
    std::remove(path.c_str());
    rmdir((std::string(dir) + "/psv/tuning").c_str());
    rmdir((std::string(dir) + "/psv").c_str());
    rmdir(dir);
}

}  // namespace

int main() {
    check_nnls();
    check_stats();
    check_plans();
    check_fit_and_text();
    check_files();
    return check_exit();
}
