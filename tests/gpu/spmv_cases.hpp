// The SpMV test cases the CSR chunk kernel and the streamed product share (test_gpu_chunks.cpp,
// test_gpu_stream.cpp): row lengths placed on and around the chunk size (rows of exactly C, C + 1,
// 2C, a long row starting and ending on a cut, long rows back to back, empty rows first, last and
// between, one row holding every entry, a Zipf-like spread, many short rows), and the checks of
// one product: against a float64 host reference (fp32, fp64, pattern) or the CPU backend (exact
// for int32 min-plus and boolean, A and A'), each run three times and required bit-identical.
#pragma once
#include <cmath>
#include <cstring>
#include <vector>

#include "gpu_common.hpp"
#include "psv/psv.h"

namespace spmvcases {

// The chunk plan's cut spacings (cuda/tuning/policy.hpp, Policy::chunk_stride): kChunkThreads x
// kChunkPerThread, and 64 less on matrices of few waves without hot columns (AUTO's plain passes
// below; the hot passes cut at 2048). The cut cases are placed for both.
constexpr int64_t kStrides[] = {2048, 1984};

struct Case {
    const char *name;
    std::vector<int64_t> lengths;
    int64_t ncols;
};

// Distinct columns per row: a stride coprime to the (prime) column count.
inline gputest::Edges edges_for(const Case &c, uint64_t seed) {
    gputest::Edges E;
    E.nrows = (int64_t)c.lengths.size();
    E.ncols = c.ncols;
    uint64_t s = seed;
    for (int64_t i = 0; i < E.nrows; ++i) {
        const int64_t L = c.lengths[(size_t)i];
        const int64_t start = (int64_t)(gputest::splitmix(s) % (uint64_t)c.ncols);
        const int64_t step = 1 + (int64_t)(gputest::splitmix(s) % (uint64_t)(c.ncols - 1));
        for (int64_t j = 0; j < L; ++j) {
            E.rows.push_back(i);
            E.cols.push_back((start + j * step) % c.ncols);
        }
    }
    return E;
}

inline std::vector<Case> cases() {
    std::vector<Case> out;
    for (const int64_t C : kStrides) {
        Case c{C == 2048 ? "cuts-2048" : "cuts-1984", {}, 65537};
        auto add = [&](int64_t len, int64_t times) {
            for (int64_t k = 0; k < times; ++k) c.lengths.push_back(len);
        };
        add(0, 2);          // empty rows first
        add(32, C / 32);    // exactly C entries: the next row starts on a cut
        add(3 * C, 1);      // a long row from one cut to another
        add(0, 1);
        add(C + 1, 1);      // just long
        add(1, 3000);
        add(C, 1);          // just short
        add(C - 1, 1);
        add(2 * C + 1, 1);  // long rows back to back
        add(4 * C + 3, 1);
        add(0, 5);
        add(3, 100);
        add(2 * C, 1);
        add(20000, 1);
        add(7, 333);
        add(0, 2);          // empty rows last
        out.push_back(c);
        out.push_back(Case{C == 2048 ? "long-first-last-2048" : "long-first-last-1984", {5 * C + 17, 1, 2, 3, 9 * C}, 65537});
    }
    out.push_back(Case{"one-row", {0, 0, 50000, 0}, 65537});
    {
        Case c{"zipf", {}, 65537};
        uint64_t s = 99;
        for (int64_t i = 0; i < 30000; ++i) {
            const double u = ((double)(gputest::splitmix(s) >> 11) + 0.5) / 9007199254740992.0;
            c.lengths.push_back(std::min<int64_t>(30000, (int64_t)(1.0 / std::pow(u, 0.9)) - 1));
        }
        out.push_back(c);
    }
    {
        Case c{"short", {}, 65537};
        for (int64_t i = 0; i < 40000; ++i) c.lengths.push_back(i % 11);
        out.push_back(c);
    }
    out.push_back(Case{"tiny", {1, 0, 2}, 3});
    return out;
}

inline double rel_err_rows(const std::vector<double> &got, const std::vector<double> &ref, const std::vector<double> &scale) {
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double d = std::fabs(got[i] - ref[i]) / (scale[i] > 0 ? scale[i] : 1.0);
        if (!(d <= worst)) worst = d;  // NaN propagates
    }
    return worst;
}

// y = A x on the host in float64 (and sum |a x| per row for the relative error).
inline void reference(const gputest::Edges &E, const std::vector<double> &a, const std::vector<double> &x, bool pattern,
               std::vector<double> &y, std::vector<double> &scale) {
    y.assign((size_t)E.nrows, 0.0);
    scale.assign((size_t)E.nrows, 0.0);
    for (size_t k = 0; k < E.rows.size(); ++k) {
        const double p = (pattern ? 1.0 : a[k]) * x[(size_t)E.cols[k]];
        y[(size_t)E.rows[k]] += p;
        scale[(size_t)E.rows[k]] += std::fabs(p);
    }
}

template <class T> int run_float(psv_context *gpu, const Case &cs, const gputest::Edges &E, psv_type t, bool pattern) {
    const int64_t n = E.nrows, m = E.ncols, nnz = (int64_t)E.rows.size();
    uint64_t s = 7 + (uint64_t)nnz;
    std::vector<T> a((size_t)nnz), x((size_t)m);
    for (auto &v : a) v = (T)(0.25 + (double)(gputest::splitmix(s) % 1000) / 1000.0);
    for (auto &v : x) v = (T)((gputest::splitmix(s) & 1 ? -1.0 : 1.0) * (0.5 + (double)(gputest::splitmix(s) % 1000) / 997.0));
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(gpu, t, n, m, nnz, E.rows.data(), E.cols.data(), pattern ? nullptr : a.data(), PSV_FIRST, &A) ==
            PSV_SUCCESS);
    psv_vector *u = nullptr, *w = nullptr;
    REQUIRE(psv_vector_create(gpu, t, m, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(gpu, t, n, &w) == PSV_SUCCESS);
    REQUIRE(psv_vector_set(u, x.data(), m) == PSV_SUCCESS);
    psv_semiring *sr = nullptr;
    REQUIRE(psv_semiring_create(gpu, PSV_PLUS, pattern ? PSV_SECOND : PSV_TIMES, t, &sr) == PSV_SUCCESS);
    std::vector<double> ad(a.begin(), a.end()), xd(x.begin(), x.end()), ref, scale;
    reference(E, ad, xd, pattern, ref, scale);
    std::vector<T> first;
    for (int rep = 0; rep < 3; ++rep) {
        std::vector<T> y((size_t)n, (T)12345);
        CHECK(psv_mxv(w, nullptr, PSV_NOOP, sr, A, u, 0) == PSV_SUCCESS);
        int64_t nv = -1;
        psv_vector_nvals(w, &nv);
        int64_t nonempty = 0;
        for (int64_t i = 0, k = 0; i < n; ++i) {
            bool any = false;
            while (k < nnz && E.rows[(size_t)k] == i) any = true, ++k;
            nonempty += any;
        }
        CHECK_MSG(nv == nonempty, "%s: %lld entries present, %lld rows have entries", cs.name, (long long)nv, (long long)nonempty);
        std::vector<int64_t> idx((size_t)n);
        std::vector<T> vals((size_t)n);
        int64_t got = n;
        REQUIRE(psv_vector_extract_tuples(w, idx.data(), vals.data(), &got) == PSV_SUCCESS);
        for (int64_t k = 0; k < got; ++k) y[(size_t)idx[k]] = vals[k];
        std::vector<double> yd((size_t)n);
        for (int64_t i = 0; i < n; ++i) yd[(size_t)i] = scale[(size_t)i] > 0 ? (double)y[(size_t)i] : 0.0;
        const double err = rel_err_rows(yd, ref, scale);
        const double tol = sizeof(T) == 4 ? 1e-6 : 1e-13;
        CHECK_MSG(err <= tol, "%s %s%s: worst row error %.3g (tolerance %.1g)", cs.name, psv::type_name(t),
                  pattern ? " pattern" : "", err, tol);
        if (rep == 0) first = y;
        else CHECK_MSG(std::memcmp(first.data(), y.data(), y.size() * sizeof(T)) == 0, "%s %s: run %d differs from run 0",
                       cs.name, psv::type_name(t), rep);
    }
    psv_semiring_free(&sr);
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_matrix_free(&A);
    return 1;
}

// int32 min-plus and boolean lor-land, exactly as the CPU backend computes them; also A'.
inline int run_exact(psv_context *cpu, psv_context *gpu, const Case &cs, const gputest::Edges &E, psv_type t) {
    const int64_t n = E.nrows, m = E.ncols, nnz = (int64_t)E.rows.size();
    const size_t vs = psv_type_size(t);
    uint64_t s = 31 + (uint64_t)nnz;
    std::vector<uint8_t> a((size_t)nnz * vs), x((size_t)std::max(n, m) * vs);
    auto fill = [&](std::vector<uint8_t> &v) {
        for (size_t k = 0; k < v.size() / vs; ++k) {
            const uint64_t r = gputest::splitmix(s);
            if (t == PSV_BOOL) v[k] = (uint8_t)(r % 5 != 0);
            else {
                const int32_t q = (int32_t)(r % 1000) - 300;
                std::memcpy(&v[k * vs], &q, 4);
            }
        }
    };
    fill(a);
    fill(x);
    const psv_op add = t == PSV_BOOL ? PSV_LOR : PSV_MIN, mul = t == PSV_BOOL ? PSV_LAND : PSV_PLUS;
    int checks = 0;
    for (int tr = 0; tr < 2; ++tr) {
        const int64_t out_n = tr ? m : n, in_n = tr ? n : m;
        std::vector<std::vector<uint8_t>> res(2);
        std::vector<std::vector<int64_t>> ids(2);
        psv_context *ctx[2] = {cpu, gpu};
        for (int b = 0; b < 2; ++b) {
            psv_matrix *A = nullptr;
            REQUIRE(psv_matrix_build(ctx[b], t, n, m, nnz, E.rows.data(), E.cols.data(), a.data(), PSV_FIRST, &A) == PSV_SUCCESS);
            psv_vector *u = nullptr, *w = nullptr;
            REQUIRE(psv_vector_create(ctx[b], t, in_n, &u) == PSV_SUCCESS);
            REQUIRE(psv_vector_create(ctx[b], t, out_n, &w) == PSV_SUCCESS);
            REQUIRE(psv_vector_set(u, x.data(), in_n) == PSV_SUCCESS);
            psv_semiring *sr = nullptr;
            REQUIRE(psv_semiring_create(ctx[b], add, mul, t, &sr) == PSV_SUCCESS);
            for (int rep = 0; rep < (b ? 3 : 1); ++rep) {
                CHECK(psv_mxv(w, nullptr, PSV_NOOP, sr, A, u, tr ? PSV_DESC_TRANSPOSE_A : 0) == PSV_SUCCESS);
                std::vector<int64_t> idx((size_t)out_n);
                std::vector<uint8_t> v((size_t)out_n * vs);
                int64_t got = out_n;
                REQUIRE(psv_vector_extract_tuples(w, idx.data(), v.data(), &got) == PSV_SUCCESS);
                idx.resize((size_t)got);
                v.resize((size_t)got * vs);
                if (rep == 0) {
                    ids[b] = idx;
                    res[b] = v;
                } else {
                    CHECK_MSG(idx == ids[b] && v == res[b], "%s %s%s: run %d differs", cs.name, psv::type_name(t), tr ? "'" : "", rep);
                }
            }
            psv_semiring_free(&sr);
            psv_vector_free(&u);
            psv_vector_free(&w);
            psv_matrix_free(&A);
        }
        CHECK_MSG(ids[0] == ids[1] && res[0] == res[1], "%s %s%s: GPU and CPU differ", cs.name, psv::type_name(t), tr ? "'" : "");
        ++checks;
    }
    return checks;
}

}  // namespace spmvcases
