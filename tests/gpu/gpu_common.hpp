// Helpers of the GPU tests: device detection (exit 77 without one), matrix generators (uniform
// random and R-MAT), host CSR construction and comparisons.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "check.h"
#include "core/backend.hpp"
#include "core/format.hpp"
#include "core/ops.hpp"

namespace gputest {

// Exit 77 (Meson: skipped) where no CUDA device exists.
inline void require_device() {
    if (!psv::cuda_backend_available()) {
        std::fprintf(stderr, "no CUDA device: skipped\n");
        std::exit(77);
    }
}

// PSV_GPU_TEST_SMALL=1 (set under compute-sanitizer) shrinks every input.
inline bool small_mode() {
    const char *s = std::getenv("PSV_GPU_TEST_SMALL");
    return s && *s && *s != '0';
}

struct Edges {
    int64_t nrows = 0, ncols = 0;
    std::vector<int64_t> rows, cols;
};

inline uint64_t splitmix(uint64_t &s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Graph500 R-MAT (a=.57, b=.19, c=.19), 2^scale vertices, edge_factor * 2^scale edges (before
// duplicate removal), vertices relabelled by a random permutation. Threads share the work.
inline Edges rmat(int scale, int64_t edge_factor, uint64_t seed) {
    Edges E;
    const int64_t n = int64_t(1) << scale, m = edge_factor * n;
    E.nrows = E.ncols = n;
    E.rows.resize((size_t)m);
    E.cols.resize((size_t)m);
    std::vector<int64_t> perm((size_t)n);
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937_64 g(seed);
    std::shuffle(perm.begin(), perm.end(), g);
    const unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> th;
    for (unsigned k = 0; k < nt; ++k) {
        th.emplace_back([&, k] {
            uint64_t s = seed * 7919 + k * 104729 + 1;
            const int64_t b = m * k / nt, e = m * (k + 1) / nt;
            const uint32_t A = (uint32_t)(0.57 * 4294967296.0), B = (uint32_t)(0.76 * 4294967296.0),
                           C = (uint32_t)(0.95 * 4294967296.0);
            for (int64_t x = b; x < e; ++x) {
                int64_t r = 0, c = 0;
                for (int l = 0; l < scale; l += 2) {
                    const uint64_t z = splitmix(s);
                    for (int h = 0; h < 2 && l + h < scale; ++h) {
                        const uint32_t p = (uint32_t)(z >> (32 * h));
                        const int bit = scale - 1 - (l + h);
                        if (p < A) {
                        } else if (p < B) {
                            c |= int64_t(1) << bit;
                        } else if (p < C) {
                            r |= int64_t(1) << bit;
                        } else {
                            r |= int64_t(1) << bit;
                            c |= int64_t(1) << bit;
                        }
                    }
                }
                E.rows[x] = perm[r];
                E.cols[x] = perm[c];
            }
        });
    }
    for (auto &t : th) t.join();
    return E;
}

// Uniform random: nrows x ncols, about nnz entries, rows of skewed lengths if skew.
inline Edges random_edges(int64_t nrows, int64_t ncols, int64_t nnz, uint64_t seed) {
    Edges E;
    E.nrows = nrows;
    E.ncols = ncols;
    std::mt19937_64 g(seed);
    for (int64_t k = 0; k < nnz && nrows > 0 && ncols > 0; ++k) {
        E.rows.push_back((int64_t)(g() % (uint64_t)nrows));
        // half the columns skewed towards low ids: some columns are long
        const uint64_t r = g();
        int64_t c = (r & 1) ? (int64_t)((r >> 1) % (uint64_t)ncols)
                            : (int64_t)(((r >> 1) % (uint64_t)ncols) * ((g() % 1000) / 1000.0) * ((g() % 1000) / 1000.0));
        E.cols.push_back(std::min<int64_t>(c, ncols - 1));
    }
    return E;
}

// E's edges sorted by (row, column), duplicates dropped (for checks that count rows in edge
// order, or count every edge once).
inline Edges sorted_unique(Edges E) {
    std::vector<std::pair<int64_t, int64_t>> v(E.rows.size());
    for (size_t k = 0; k < v.size(); ++k) v[k] = {E.rows[k], E.cols[k]};
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    E.rows.resize(v.size());
    E.cols.resize(v.size());
    for (size_t k = 0; k < v.size(); ++k) E.rows[k] = v[k].first, E.cols[k] = v[k].second;
    return E;
}

// Host CSR (sorted, duplicates removed) with values drawn per entry for type t.
inline psv::CsrHost to_csr(const Edges &E, psv_type t, bool pattern, uint64_t seed) {
    psv::CsrHost A;
    A.nrows = E.nrows;
    A.ncols = E.ncols;
    A.type = t;
    A.pattern = pattern;
    const int64_t m = (int64_t)E.rows.size();
    std::vector<int64_t> cnt((size_t)E.nrows + 1, 0);
    for (int64_t k = 0; k < m; ++k) cnt[E.rows[k] + 1]++;
    for (int64_t i = 0; i < E.nrows; ++i) cnt[i + 1] += cnt[i];
    std::vector<int32_t> c((size_t)m);
    {
        std::vector<int64_t> next(cnt.begin(), cnt.end() - 1);
        for (int64_t k = 0; k < m; ++k) c[next[E.rows[k]]++] = (int32_t)E.cols[k];
    }
    // sort and deduplicate each row (threads over row ranges), then compact
    std::vector<int64_t> keep((size_t)E.nrows + 1, 0);
    {
        const unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
        std::vector<std::thread> th;
        for (unsigned k = 0; k < nt; ++k)
            th.emplace_back([&, k] {
                for (int64_t i = E.nrows * k / nt; i < E.nrows * (k + 1) / nt; ++i) {
                    std::sort(c.begin() + cnt[i], c.begin() + cnt[i + 1]);
                    keep[i + 1] = std::unique(c.begin() + cnt[i], c.begin() + cnt[i + 1]) - (c.begin() + cnt[i]);
                }
            });
        for (auto &t : th) t.join();
    }
    A.row_ptr.assign((size_t)E.nrows + 1, 0);
    for (int64_t i = 0; i < E.nrows; ++i) A.row_ptr[i + 1] = A.row_ptr[i] + keep[i + 1];
    A.col.resize((size_t)A.row_ptr[E.nrows]);
    for (int64_t i = 0; i < E.nrows; ++i)
        std::copy(c.begin() + cnt[i], c.begin() + cnt[i] + keep[i + 1], A.col.begin() + A.row_ptr[i]);
    if (!pattern) {
        const size_t vs = psv::type_size(t);
        A.values.resize(A.col.size() * vs);
        uint64_t s = seed;
        for (size_t e = 0; e < A.col.size(); ++e) {
            const uint64_t r = splitmix(s);
            psv::dispatch_type(t, [&](auto tag) {
                using T = typename decltype(tag)::type;
                T v;
                if (std::is_floating_point<T>::value) v = (T)(0.5 + (double)(r % 1000) / 1000.0);
                else if (std::is_same<T, psv::bool_t>::value) v = (T)(r & 1);
                else v = (T)((int64_t)(r % 7) - 3);
                std::memcpy(&A.values[e * vs], &v, vs);
            });
        }
    }
    return A;
}

}  // namespace gputest
