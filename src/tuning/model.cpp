// The performance model: features, the fit, the text form of a table, the choice, and where
// tables are found. See model.hpp; the features' physics is in docs/design.md section 6.
#include "tuning/model.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace psv {
namespace tuning {

// ---- the families table ----------------------------------------------------------------------------

namespace {
struct FamilyRow {
    const char *name;
    int32_t kernel;
    int nfeat;
    const char *text;
};
const FamilyRow kFamilyRows[] = {
#define PSV_FAMILY(id, name, kernel, nfeat, text) {name, kernel, nfeat, text},
#include "tuning/families.def"
#undef PSV_FAMILY
};
static_assert(sizeof kFamilyRows / sizeof kFamilyRows[0] == (size_t)kFamilies, "one row per family");
}  // namespace

const char *family_name(Family f) { return kFamilyRows[(int)f].name; }
const char *family_text(Family f) { return kFamilyRows[(int)f].text; }
int32_t family_kernel(Family f) { return kFamilyRows[(int)f].kernel; }
int family_features(Family f) { return kFamilyRows[(int)f].nfeat; }
bool family_from_name(const std::string &s, Family &f) {
    for (int i = 0; i < kFamilies; ++i)
        if (s == kFamilyRows[i].name) {
            f = (Family)i;
            return true;
        }
    return false;
}

// ---- matrix statistics -------------------------------------------------------------------------------

double MatrixStats::top_entries(double k) const {
    if (k <= 0) return 0;
    double cols = 0, entries = 0;
    for (const auto &r : col_lengths) {
        const double c = (double)r.second, len = (double)r.first;
        if (cols + c >= k) return entries + (k - cols) * len;
        cols += c;
        entries += c * len;
    }
    return entries;
}

int64_t MatrixStats::columns_at_least(int64_t len) const {
    int64_t c = 0;
    for (const auto &r : col_lengths) {
        if (r.first < len) break;
        c += r.second;
    }
    return c;
}

double MatrixStats::expected_pairs(int64_t parts, int64_t hot) const {
    if (parts <= 0) return 0;
    const double P = (double)parts;
    const double lq = std::log1p(-1.0 / P);  // log(1 - 1/P); -inf for one partition
    double skip = (double)hot, pairs = 0;
    for (const auto &r : col_lengths) {
        double c = (double)r.second;
        if (skip >= c) {
            skip -= c;
            continue;
        }
        c -= skip;
        skip = 0;
        if (r.first == 0) break;
        const double per = parts == 1 ? 1.0 : P * -std::expm1((double)r.first * lq);
        pairs += c * std::min(per, (double)r.first);
    }
    return pairs;
}

// ---- plans ----------------------------------------------------------------------------------------------

std::string Plan::describe() const {
    char b[160];
    switch (family) {
    case Family::Chunk:
    case Family::Hot:
        if (ranked)
            std::snprintf(b, sizeof b, "%s, %lld hot, ranked columns (first %lld)", family_text(family), (long long)hot,
                          (long long)prefix);
        else
            std::snprintf(b, sizeof b, "%s, %lld hot, plain columns", family_text(family), (long long)hot);
        break;
    case Family::Tile:
        std::snprintf(b, sizeof b, "%s, tile width %lld, %s dense tiles, workload size %s", family_text(family),
                      (long long)tile_width,
                      max_tiles < 0 ? "Algorithm 1's" : std::to_string((long long)max_tiles).c_str(),
                      workload_size > 0 ? std::to_string((long long)workload_size).c_str() : "autotuned");
        break;
    default: std::snprintf(b, sizeof b, "%s", family_text(family)); break;
    }
    return b;
}

std::string Plan::key() const {
    char b[96];
    switch (family) {
    case Family::Chunk:
    case Family::Hot:
        std::snprintf(b, sizeof b, "%s:%lld:%s%lld", family_name(family), (long long)hot, ranked ? "r" : "p",
                      (long long)(ranked ? prefix : 0));
        break;
    case Family::Tile:
        std::snprintf(b, sizeof b, "%s:%lld:%lld:%lld", family_name(family), (long long)tile_width, (long long)max_tiles,
                      (long long)workload_size);
        break;
    case Family::TileCoo: std::snprintf(b, sizeof b, "%s:%lld", family_name(family), (long long)tile_width); break;
    default: std::snprintf(b, sizeof b, "%s", family_name(family)); break;
    }
    return b;
}

bool Plan::from_key(const std::string &k, Plan &p) {
    std::vector<std::string> part;
    size_t a = 0;
    for (size_t i = 0; i <= k.size(); ++i)
        if (i == k.size() || k[i] == ':') part.push_back(k.substr(a, i - a)), a = i + 1;
    Plan q;
    if (part.empty() || !family_from_name(part[0], q.family)) return false;
    auto num = [](const std::string &t, int64_t &v) {
        char *end = nullptr;
        errno = 0;
        const long long x = std::strtoll(t.c_str(), &end, 10);
        if (t.empty() || *end || errno) return false;
        v = x;
        return true;
    };
    switch (q.family) {
    case Family::Chunk:
    case Family::Hot:
        if (part.size() != 3 || !num(part[1], q.hot) || part[2].size() < 2 || (part[2][0] != 'r' && part[2][0] != 'p') ||
            !num(part[2].substr(1), q.prefix))
            return false;
        q.ranked = part[2][0] == 'r';
        break;
    case Family::Tile:
        if (part.size() != 4 || !num(part[1], q.tile_width) || !num(part[2], q.max_tiles) || !num(part[3], q.workload_size))
            return false;
        break;
    case Family::TileCoo:
        if (part.size() != 2 || !num(part[1], q.tile_width)) return false;
        break;
    default:
        if (part.size() != 1) return false;
        break;
    }
    p = q;
    return true;
}

bool Plan::operator==(const Plan &o) const {
    return family == o.family && hot == o.hot && ranked == o.ranked && prefix == o.prefix && max_tiles == o.max_tiles &&
           tile_width == o.tile_width && workload_size == o.workload_size;
}

// ---- features -------------------------------------------------------------------------------------------

namespace {
const char *const kChunkNames[] = {"launch",       "stream_mb",    "gathers_m", "beyond_l1_m", "beyond_l2q_m", "beyond_l2h_m",
                                   "beyond_l2_m", "permute_m",    "rows_m",    "near_m",      "hot_copy_mb",  "hot_entries_m"};
const char *const kStreamNames[] = {"launch", "bytes_mb", "pairs_m", "entries_m", "rows_m", "chain_m"};
const char *const kSellNames[] = {"launch", "stream_mb", "gathers_m", "beyond_l1_m", "beyond_l2q_m", "beyond_l2h_m",
                                  "beyond_l2_m", "rows_m", "near_m"};
const char *const kTileNames[] = {"launch",       "stream_mb", "gathers_m",    "beyond_l1_m", "beyond_l2q_m", "beyond_l2h_m",
                                  "beyond_l2_m",  "permute_m", "tile_rows_mb", "tiles",       "max_row_m"};

// The streamed plan's shape as stream_plan.cu will cut it (Policy::stream_shape): partitions of
// stream_rows rows, fewer where that gives fewer than stream_parts_per_sm partitions per SM; the
// pairs expected of them, and the pieces they fill.
struct StreamShape {
    double parts = 1, pairs = 0, pieces = 1;
};
StreamShape stream_shape(const MatrixStats &s, const KernelShape &k, const DeviceShape &d) {
    StreamShape z;
    const int64_t rows = stream_partition_rows(s.nrows, d.sms, k.stream_rows, k.stream_parts_per_sm);
    z.parts = std::max(1.0, std::ceil((double)s.nrows / (double)rows));
    z.pairs = s.expected_pairs((int64_t)z.parts, 0);
    const double slots = (double)k.stream_slots * 4.0 / (double)std::max(1, s.value_bytes);
    z.pieces = std::max(z.parts, std::ceil(z.pairs / slots));
    return z;
}
}  // namespace

const char *feature_name(Family f, int i) {
    if (i < 0 || i >= family_features(f)) return "";
    switch (f) {
    case Family::Chunk:
    case Family::Hot: return kChunkNames[i];
    case Family::Stream: return kStreamNames[i];
    case Family::Sell: return kSellNames[i];
    default: return kTileNames[i];
    }
}

Features features(const MatrixStats &s, const Plan &p, const DeviceShape &d, const KernelShape &k) {
    Features f{};
    constexpr double M = 1e6;
    const double E = (double)s.nnz, R = (double)s.nrows, N = (double)s.ncols, vb = (double)s.value_bytes;
    const double near = E > 0 ? std::min(1.0, (double)s.near_entries / E) : 0.0;
    const double l2 = (double)d.l2_bytes;
    // The gathers of x of the entries not served from shared memory (`served` of them, the
    // longest columns'), a banded matrix's window excepted (near_m); then, cumulatively, those
    // that miss a cache of L1 (l1 bytes) and of a quarter, half and all of L2. A cache of c
    // bytes holds, in rank order, the longest c / vb columns (within the ranked prefix; what is
    // left of it holds that share of the plain-order tail); in plain order the sectors of the
    // longest c / 32 columns and, of every other column, the share c / (x's bytes) (the columns
    // sharing a hot column's sector, and the recently used ones).
    auto gathers = [&](double served, double served_cols, bool ranked, double prefix, double l1, int at) {
        f[at] = std::max(0.0, E - served) * (1.0 - near) / M;
        const double caps[4] = {l1, 0.25 * l2, 0.5 * l2, l2};
        const double xb = N * vb;
        for (int i = 0; i < 4; ++i) {
            const double c = caps[i];
            double hits;
            if (ranked) {
                const double pre = prefix > 0 ? std::min(prefix, N) : N;
                const double k = std::min(served_cols + c / vb, pre);
                hits = s.top_entries(k);
                if (k >= pre && pre < N) hits += (E - s.top_entries(pre)) * std::min(1.0, (c - pre * vb) / ((N - pre) * vb));
            } else {
                const double h = s.top_entries(served_cols + c / 32.0);
                hits = h + (E - h) * std::min(1.0, xb > 0 ? c / xb : 1.0);
            }
            f[at + 1 + i] = std::max(0.0, E - std::max(hits, served)) * (1.0 - near) / M;
        }
    };
    const double csr_mb = (8.0 * (R + 1) + 4.0 * E + (s.weighted ? vb * E : 0.0) + vb * R) / M;
    f[0] = 1.0;
    switch (p.family) {
    case Family::Chunk:
    case Family::Hot: {
        const bool hotk = p.family == Family::Hot;
        const double hot = hotk ? (double)p.hot : 0.0;
        const double eh = s.top_entries(hot);
        const double smem = hotk ? (double)k.hot_blocks_per_sm * ((double)k.hot_fixed_smem + hot * vb)
                                 : (double)k.chunk_smem_per_sm;
        const double l1 = std::max(16384.0, (double)k.l1_total - smem);
        f[1] = csr_mb;
        gathers(eh, hot, p.ranked, (double)p.prefix, l1, 2);
        f[7] = (p.ranked ? (double)p.prefix : hot) / M;
        f[8] = R / M;
        f[9] = (E - eh) * near / M;
        if (hotk) {
            f[10] = hot * vb * (double)k.hot_blocks / M;
            f[11] = eh / M;
        }
        break;
    }
    case Family::Stream: {
        const StreamShape z = stream_shape(s, k, d);
        const double bytes = stream_model_bytes(R, N, z.pairs, 0.0, E, vb, s.weighted);
        f[1] = bytes / M;
        f[2] = z.pairs / M;
        f[3] = E / M;
        f[4] = R / M;
        // the longest chain of one SM: its waves of partitions, each a block's serial share
        f[5] = std::ceil(z.parts / (double)std::max(1, d.sms)) * (E / z.parts) / M;
        break;
    }
    case Family::Sell: {
        // the slots counted as the entries (AUTO's rule takes SELL where the padding is at most
        // a tenth), their columns and values streamed once, a slice's group offset, t written;
        // the gathers as the plain-order chunk kernel's, with all of L1 (no shared memory)
        f[1] = (E * (4.0 + (s.weighted ? vb : 0.0)) + 8.0 * std::ceil(R / 32.0) + vb * R) / M;
        gathers(0.0, 0.0, false, 0.0, (double)k.l1_total, 2);
        f[7] = R / M;
        f[8] = E * near / M;
        break;
    }
    case Family::Tile:
    case Family::TileCoo: {
        const double tw = (double)std::max<int64_t>(1, p.tile_width);
        double dense = 0;
        if (p.family == Family::Tile && p.max_tiles != 0) {
            dense = std::min(std::floor(N / tw), std::ceil((double)s.columns_at_least(2) / tw));
            if (p.max_tiles > 0) dense = std::min(dense, (double)p.max_tiles);
        }
        const double es = s.top_entries(dense * tw);
        const double tiles = dense + (E > es ? 1.0 : 0.0);
        f[1] = (E * (4.0 + (s.weighted ? vb : 0.0)) + 8.0 * R) / M;
        gathers(es, dense * tw, true, N, (double)k.l1_total / 2, 2);
        f[7] = N / M;
        f[8] = tiles * R * vb / M;
        f[9] = tiles;
        f[10] = (double)s.max_row_length / M;
        break;
    }
    }
    return f;
}

// ---- the fit ---------------------------------------------------------------------------------------------

namespace {
// Solve the n x n system G x = h (symmetric positive semi-definite) by Gaussian elimination with
// partial pivoting; a vanishing pivot leaves that unknown 0.
std::vector<double> solve(std::vector<double> G, std::vector<double> h, int n) {
    for (int c = 0; c < n; ++c) {
        int piv = c;
        for (int r = c + 1; r < n; ++r)
            if (std::fabs(G[(size_t)r * n + c]) > std::fabs(G[(size_t)piv * n + c])) piv = r;
        if (std::fabs(G[(size_t)piv * n + c]) < 1e-300) continue;
        if (piv != c) {
            for (int j = 0; j < n; ++j) std::swap(G[(size_t)c * n + j], G[(size_t)piv * n + j]);
            std::swap(h[c], h[piv]);
        }
        for (int r = c + 1; r < n; ++r) {
            const double m = G[(size_t)r * n + c] / G[(size_t)c * n + c];
            if (m == 0) continue;
            for (int j = c; j < n; ++j) G[(size_t)r * n + j] -= m * G[(size_t)c * n + j];
            h[r] -= m * h[c];
        }
    }
    std::vector<double> x(n, 0.0);
    for (int c = n - 1; c >= 0; --c) {
        const double piv = G[(size_t)c * n + c];
        if (std::fabs(piv) < 1e-300) continue;
        double v = h[c];
        for (int j = c + 1; j < n; ++j) v -= G[(size_t)c * n + j] * x[j];
        x[c] = v / piv;
    }
    return x;
}
// Least squares restricted to the columns in `set` (others 0).
std::vector<double> ls_on(const std::vector<double> &A, const std::vector<double> &b, int rows, int cols,
                          const std::vector<int> &set) {
    const int n = (int)set.size();
    std::vector<double> G((size_t)n * n, 0.0), h(n, 0.0);
    for (int r = 0; r < rows; ++r) {
        const double *a = &A[(size_t)r * cols];
        for (int i = 0; i < n; ++i) {
            h[i] += a[set[i]] * b[r];
            for (int j = 0; j < n; ++j) G[(size_t)i * n + j] += a[set[i]] * a[set[j]];
        }
    }
    for (int i = 0; i < n; ++i) G[(size_t)i * n + i] *= 1.0 + 1e-12;
    const std::vector<double> z = solve(G, h, n);
    std::vector<double> x(cols, 0.0);
    for (int i = 0; i < n; ++i) x[set[i]] = z[i];
    return x;
}
}  // namespace

std::vector<double> nnls(const std::vector<double> &A, const std::vector<double> &b, int rows, int cols) {
    std::vector<double> x(cols, 0.0);
    std::vector<char> passive(cols, 0);
    for (int outer = 0; outer < 3 * cols + 10; ++outer) {
        // gradient w = A' (b - A x)
        std::vector<double> w(cols, 0.0);
        for (int r = 0; r < rows; ++r) {
            double res = b[r];
            for (int j = 0; j < cols; ++j) res -= A[(size_t)r * cols + j] * x[j];
            for (int j = 0; j < cols; ++j) w[j] += A[(size_t)r * cols + j] * res;
        }
        int best = -1;
        double wmax = 1e-12;
        for (int j = 0; j < cols; ++j)
            if (!passive[j] && w[j] > wmax) wmax = w[j], best = j;
        if (best < 0) break;
        passive[best] = 1;
        for (int inner = 0; inner < 3 * cols + 10; ++inner) {
            std::vector<int> set;
            for (int j = 0; j < cols; ++j)
                if (passive[j]) set.push_back(j);
            const std::vector<double> z = ls_on(A, b, rows, cols, set);
            bool feasible = true;
            for (int j : set)
                if (z[j] <= 0) feasible = false;
            if (feasible) {
                x = z;
                break;
            }
            // step from x toward z until a passive coefficient reaches 0; it leaves the set
            double alpha = 1.0;
            for (int j : set)
                if (z[j] <= 0) alpha = std::min(alpha, x[j] / (x[j] - z[j]));
            for (int j = 0; j < cols; ++j) {
                x[j] += alpha * (z[j] - x[j]);
                if (passive[j] && x[j] <= 1e-15) passive[j] = 0, x[j] = 0;
            }
        }
    }
    return x;
}

std::string coef_key(const Plan &p) {
    return p.family == Family::Hot ? std::string(family_name(p.family)) + ":" + std::to_string((long long)p.hot)
                                   : std::string(family_name(p.family));
}

namespace {
bool key_family(const std::string &key, Family &f, int64_t &hot) {
    const size_t c = key.find(':');
    if (!family_from_name(key.substr(0, c), f)) return false;
    hot = 0;
    if (c == std::string::npos) return true;  // the family's one set (the hot kernel's: any hot count)
    if (f != Family::Hot) return false;
    char *end = nullptr;
    const long long h = std::strtoll(key.c_str() + c + 1, &end, 10);
    if (*end || h <= 0) return false;
    hot = h;
    return true;
}
}  // namespace

bool Table::has(Family f) const {
    for (const auto &c : coef) {
        Family g;
        int64_t h;
        if (key_family(c.first, g, h) && g == f && !c.second.empty()) return true;
    }
    return false;
}

const std::vector<double> *Table::coefficients(const Plan &p) const {
    const auto it = coef.find(coef_key(p));
    if (it != coef.end()) return &it->second;
    if (p.family != Family::Hot) return nullptr;
    const std::vector<double> *best = nullptr;
    double dist = 0;
    for (const auto &c : coef) {
        Family g;
        int64_t h;
        if (!key_family(c.first, g, h) || g != Family::Hot) continue;
        const double d = h == 0 ? 1e300 : std::fabs(std::log((double)h / (double)std::max<int64_t>(1, p.hot)));
        if (!best || d < dist) best = &c.second, dist = d;
    }
    return best;
}

void fit(Table &t) {
    std::map<std::string, int64_t> nnz;
    for (const auto &m : t.matrices) nnz[m.first] = m.second.nnz;
    std::map<std::string, std::vector<const Sample *>> groups;
    for (const Sample &s : t.samples)
        if (s.ms > 0) groups[coef_key(s.plan)].push_back(&s);
    for (const auto &g : groups) {
        const int n = family_features(g.second.front()->family());
        std::vector<double> A, b;
        const int rows = (int)g.second.size();
        for (const Sample *s : g.second) {
            const auto it = nnz.find(s->matrix);
            const double w = it != nnz.end() && it->second >= kLargeEntries ? kLargeWeight : 1.0;
            for (int j = 0; j < n; ++j) A.push_back(w * s->f[j] / s->ms);
            b.push_back(w);
        }
        // columns scaled to unit norm for the solve, the coefficients scaled back
        std::vector<double> scale(n, 0.0);
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < n; ++j) scale[j] += A[(size_t)r * n + j] * A[(size_t)r * n + j];
        for (int j = 0; j < n; ++j) scale[j] = scale[j] > 0 ? 1.0 / std::sqrt(scale[j]) : 0.0;
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < n; ++j) A[(size_t)r * n + j] *= scale[j];
        std::vector<double> c = nnls(A, b, rows, n);
        for (int j = 0; j < n; ++j) c[j] *= scale[j];
        t.coef[g.first] = c;
    }
}

double predict(const Table &t, const MatrixStats &s, const Plan &plan, const KernelShape &k, const DeviceShape &d) {
    const std::vector<double> *cp = t.coefficients(plan);
    if (!cp) return -1.0;
    const std::vector<double> &c = *cp;
    const Features f = features(s, plan, d, k);
    double ms = 0;
    for (size_t j = 0; j < c.size(); ++j) ms += c[j] * f[j];
    return ms;
}

std::vector<Ranked> rank_plans(const Table &t, const MatrixStats &s, const std::vector<Plan> &candidates,
                               const KernelShape &k, const DeviceShape &d) {
    std::vector<Ranked> r;
    for (const Plan &p : candidates) {
        const double ms = predict(t, s, p, k, d);
        if (ms >= 0) r.push_back({p, ms});
    }
    std::stable_sort(r.begin(), r.end(), [](const Ranked &a, const Ranked &b) { return a.ms < b.ms; });
    return r;
}

void Table::refeature() {
    for (Sample &x : samples)
        for (const auto &m : matrices)
            if (m.first == x.matrix) {
                MatrixStats st = m.second;
                st.weighted = x.weighted;
                x.f = features(st, x.plan, device, kernels);
                break;
            }
}

std::string stats_line(const std::string &name, const MatrixStats &s) {
    std::ostringstream o;
    o << "stats " << name << ' ' << s.nrows << ' ' << s.ncols << ' ' << s.nnz << ' ' << s.value_bytes << ' '
      << s.max_row_length << ' ' << s.near_entries << ' ' << s.col_lengths.size();
    for (const auto &r : s.col_lengths) o << ' ' << r.first << ' ' << r.second;
    return o.str();
}

bool parse_stats_line(const std::string &line, std::string &name, MatrixStats &s) {
    std::istringstream ls(line);
    std::string key;
    MatrixStats out;
    size_t n = 0;
    if (!(ls >> key >> name >> out.nrows >> out.ncols >> out.nnz >> out.value_bytes >> out.max_row_length >>
          out.near_entries >> n) ||
        key != "stats" || out.nrows < 0 || out.ncols < 0 || out.nnz < 0 || n > (size_t)out.ncols + 1)
        return false;
    int64_t cols = 0, entries = 0;
    for (size_t i = 0; i < n; ++i) {
        int64_t len = 0, c = 0;
        if (!(ls >> len >> c) || len < 0 || c <= 0) return false;
        if (!out.col_lengths.empty() && len >= out.col_lengths.back().first) return false;
        out.col_lengths.push_back({len, c});
        cols += c;
        entries += len * c;
    }
    std::string extra;
    if (ls >> extra || (n > 0 && (cols != out.ncols || entries != out.nnz))) return false;
    s = std::move(out);
    return true;
}

// ---- text form -------------------------------------------------------------------------------------------

namespace {
constexpr const char *kMagic = "psv-tuning-table";
constexpr int kVersion = 2;

std::string token(std::string s) {  // one whitespace-free token
    for (char &c : s)
        if (std::isspace((unsigned char)c)) c = '_';
    return s.empty() ? "-" : s;
}
std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}
}  // namespace

std::string to_text(const Table &t) {
    std::ostringstream o;
    o << kMagic << ' ' << kVersion << '\n';
    o << "# psv's performance model for one device: coefficients (ms per feature unit) of each kernel family,\n"
         "# fitted to the samples below (psv tune-device). docs/design.md section 6.\n";
    o << "device " << t.device.name << '\n';
    o << "cc " << t.device.cc_major << ' ' << t.device.cc_minor << '\n';
    o << "sms " << t.device.sms << '\n';
    o << "l2_bytes " << t.device.l2_bytes << '\n';
    o << "smem_per_sm " << t.device.smem_per_sm << '\n';
    const KernelShape &k = t.kernels;
    o << "kernels " << k.chunk_entries << ' ' << k.chunk_smem_per_sm << ' ' << k.hot_blocks << ' ' << k.hot_blocks_per_sm
      << ' ' << k.hot_fixed_smem << ' ' << k.l1_total << ' ' << k.stream_rows << ' ' << k.stream_parts_per_sm << ' '
      << k.stream_slots << '\n';
    for (int fi = 0; fi < kFamilies; ++fi) {
        o << "# " << family_name((Family)fi) << ':';
        for (int j = 0; j < family_features((Family)fi); ++j) o << ' ' << feature_name((Family)fi, j);
        o << '\n';
    }
    for (const auto &c : t.coef) {
        o << "coef " << c.first;
        for (double x : c.second) o << ' ' << num(x);
        o << '\n';
    }
    for (const auto &m : t.matrices) o << stats_line(token(m.first), m.second) << '\n';
    for (const Sample &s : t.samples) {
        o << "sample " << token(s.matrix) << ' ' << s.plan.key() << ' ' << (s.weighted ? 1 : 0) << ' ' << num(s.ms);
        for (int j = 0; j < family_features(s.family()); ++j) o << ' ' << num(s.f[j]);
        o << '\n';
    }
    return o.str();
}

bool parse(const std::string &text, Table &t, std::string &error) {
    Table out;
    std::istringstream in(text);
    std::string line;
    int ln = 0;
    bool magic = false, have_device = false;
    auto bad = [&](const std::string &what) {
        error = "line " + std::to_string(ln) + ": " + what;
        return false;
    };
    while (std::getline(in, line)) {
        ++ln;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string key;
        ls >> key;
        if (!magic) {
            int v = 0;
            if (key != kMagic || !(ls >> v)) return bad("not a psv tuning table");
            if (v != kVersion) return bad("table version " + std::to_string(v) + " (this psv reads version " +
                                          std::to_string(kVersion) + ")");
            magic = true;
            continue;
        }
        if (key == "device") {
            std::getline(ls >> std::ws, out.device.name);
            if (out.device.name.empty()) return bad("empty device name");
            have_device = true;
        } else if (key == "cc") {
            if (!(ls >> out.device.cc_major >> out.device.cc_minor)) return bad("cc needs two integers");
        } else if (key == "sms") {
            if (!(ls >> out.device.sms) || out.device.sms <= 0) return bad("sms needs a positive integer");
        } else if (key == "l2_bytes") {
            if (!(ls >> out.device.l2_bytes) || out.device.l2_bytes <= 0) return bad("l2_bytes needs a positive integer");
        } else if (key == "smem_per_sm") {
            if (!(ls >> out.device.smem_per_sm) || out.device.smem_per_sm < 0) return bad("smem_per_sm needs an integer");
        } else if (key == "kernels") {
            KernelShape &k = out.kernels;
            if (!(ls >> k.chunk_entries >> k.chunk_smem_per_sm >> k.hot_blocks >> k.hot_blocks_per_sm >> k.hot_fixed_smem >>
                  k.l1_total >> k.stream_rows >> k.stream_parts_per_sm >> k.stream_slots) ||
                k.stream_rows <= 0 || k.stream_parts_per_sm <= 0 || k.stream_slots <= 0)
                return bad("kernels needs 9 numbers");
        } else if (key == "stats") {
            std::string name;
            MatrixStats st;
            if (!parse_stats_line(line, name, st)) return bad("malformed stats line");
            out.matrices.push_back({name, st});
        } else if (key == "sample") {
            Sample x;
            std::string pk;
            int w = 0;
            if (!(ls >> x.matrix >> pk >> w >> x.ms) || !std::isfinite(x.ms) || (w != 0 && w != 1))
                return bad("malformed sample");
            if (!Plan::from_key(pk, x.plan)) return bad("unknown plan '" + pk + "'");
            x.weighted = w == 1;
            const int n = family_features(x.family());
            for (int j = 0; j < n; ++j)
                if (!(ls >> x.f[j]) || !std::isfinite(x.f[j]))
                    return bad("sample needs " + std::to_string(n) + " features");
            std::string extra;
            if (ls >> extra) return bad("extra field '" + extra + "'");
            out.samples.push_back(x);
        } else if (key == "coef") {
            std::string fam;
            Family f;
            int64_t hot = 0;
            if (!(ls >> fam) || !key_family(fam, f, hot)) return bad("unknown kernel family '" + fam + "'");
            const int n = family_features(f);
            std::vector<double> c(n);
            for (int j = 0; j < n; ++j)
                if (!(ls >> c[j]) || !std::isfinite(c[j]) || c[j] < 0)
                    return bad("coef " + fam + " needs " + std::to_string(n) + " finite non-negative numbers");
            out.coef[fam] = c;
            std::string extra;
            if (ls >> extra) return bad("extra field '" + extra + "'");
        } else {
            return bad("unknown key '" + key + "'");
        }
    }
    if (!magic) return bad("empty table");
    if (!have_device) return bad("no device line");
    if (out.device.l2_bytes <= 0 || out.device.sms <= 0) return bad("no sms or l2_bytes line");
    t = std::move(out);
    return true;
}

// ---- where tables come from ------------------------------------------------------------------------------

std::string table_file_name(const DeviceShape &d) {
    std::string s;
    bool dash = false;
    for (char c : d.name) {
        if (std::isalnum((unsigned char)c)) {
            s += (char)std::tolower((unsigned char)c);
            dash = false;
        } else if (!dash && !s.empty()) {
            s += '-';
            dash = true;
        }
    }
    if (!s.empty() && s.back() == '-') s.pop_back();
    if (s.empty()) s = "device";
    return s + "-sm" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ".tbl";
}

std::string user_table_dir() {
    const char *x = std::getenv("XDG_CACHE_HOME");
    if (x && *x) return std::string(x) + "/psv/tuning";
    const char *h = std::getenv("HOME");
    if (h && *h) return std::string(h) + "/.cache/psv/tuning";
    return "";
}

namespace {
bool read_file(const std::string &path, std::string &text) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream o;
    o << f.rdbuf();
    text = o.str();
    return (bool)f || f.eof();
}
bool same_device(const DeviceShape &a, const DeviceShape &b) {
    return a.name == b.name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor;
}
}  // namespace

Loaded load_table(const DeviceShape &d) {
    Loaded L;
    const std::string name = table_file_name(d);
    std::string text, err;
    const std::string dir = user_table_dir();
    if (!dir.empty() && read_file(dir + "/" + name, text) && parse(text, L.table, err) && same_device(L.table.device, d)) {
        L.source = Source::User;
        L.path = dir + "/" + name;
        return L;
    }
    // the shipped tables (parsed once per process: every context of a device looks them up):
    // the device's own, else the nearest architecture's
    static const std::vector<std::pair<std::string, Table>> ship = [] {
        std::vector<std::pair<std::string, Table>> v;
        std::string e;
        for (const auto &s : shipped_tables()) {
            Table t;
            if (parse(s.second, t, e)) v.push_back({s.first, std::move(t)});
        }
        return v;
    }();
    int best = -1;
    long best_score = 0;
    for (size_t i = 0; i < ship.size(); ++i) {
        const Table &t = ship[i].second;
        if (ship[i].first == name && same_device(t.device, d)) {
            L.table = t;
            L.source = Source::Shipped;
            L.path = ship[i].first;
            return L;
        }
        const long cc_a = d.cc_major * 10 + d.cc_minor, cc_b = t.device.cc_major * 10 + t.device.cc_minor;
        // same major first, then the closest compute capability, then the most SMs alike
        const long score = (t.device.cc_major == d.cc_major ? 0 : 1000000) + std::labs(cc_a - cc_b) * 1000 +
                           std::labs((long)t.device.sms - (long)d.sms);
        if (best < 0 || score < best_score) best = (int)i, best_score = score;
    }
    if (best >= 0) {
        L.table = ship[best].second;
        L.source = Source::Nearest;
        L.path = ship[best].first;
    }
    return L;
}

bool save_table(const Table &t, const std::string &path, std::string &error) {
    // make the folders
    for (size_t i = 1; i < path.size(); ++i) {
        if (path[i] != '/') continue;
        const std::string dir = path.substr(0, i);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
            error = "cannot create " + dir + ": " + std::strerror(errno);
            return false;
        }
    }
    const std::string tmp = path + ".tmp" + std::to_string((long)::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) {
            error = "cannot write " + tmp + ": " + std::strerror(errno);
            return false;
        }
        const std::string text = to_text(t);
        f.write(text.data(), (std::streamsize)text.size());
        f.close();
        if (!f) {
            error = "cannot write " + tmp + ": " + std::strerror(errno);
            std::remove(tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

}  // namespace tuning
}  // namespace psv
