// What the dist tests share: their graph, R-MAT (a = 0.57, b = c = 0.19) of 2^scale vertices, edges * 2^scale
// tuples from a fixed LCG seed; duplicates and self-loops kept (a pattern build merges them).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

struct Graph {
    int64_t n = 0;
    std::vector<int64_t> rows, cols;
};

inline Graph rmat(int scale, int edges_per_vertex, uint64_t seed) {
    Graph g;
    g.n = int64_t(1) << scale;
    uint64_t s = seed;
    auto next = [&] {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (double)(s >> 11) / 9007199254740992.0;
    };
    for (int64_t e = 0; e < g.n * edges_per_vertex; ++e) {
        int64_t r = 0, c = 0;
        for (int b = 0; b < scale; ++b) {
            const double x = next();
            const int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
            r = r * 2 + (q >> 1);
            c = c * 2 + (q & 1);
        }
        g.rows.push_back(r);
        g.cols.push_back(c);
    }
    return g;
}

// ||x - y||_1 / ||y||_1 (0 for two empty vectors)
inline double rel_l1(const std::vector<float> &x, const std::vector<float> &y) {
    double d = 0, t = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        d += std::fabs((double)x[i] - (double)y[i]);
        t += std::fabs((double)y[i]);
    }
    return t > 0 ? d / t : d;
}
