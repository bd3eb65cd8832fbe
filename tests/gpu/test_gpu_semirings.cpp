// CUDA against CPU through the C API, two contexts side by side: every semiring (add x multiply)
// x type x descriptor (transpose, value/structural mask, complement, replace, accumulator), u
// full and u with absent entries, for the kernels (tile-composite, TILE-COO, CSR, SELL-32); the
// vector operations; PageRank. Exact for integer and boolean types, a float tolerance otherwise.
#include <cuda_runtime.h>

#include "gpu_common.hpp"
#include "psv/psv.h"

namespace {

const psv_type kTypes[] = {PSV_BOOL, PSV_INT32, PSV_INT64, PSV_FP32, PSV_FP64};
// From the operator table: every monoid as add, every monoid or BINARY operator as multiply.
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) PSV_TEST_ADD_##KIND(PSV_##NAME)
#define PSV_TEST_ADD_MONOID(op) op,
#define PSV_TEST_ADD_BINARY(op)
#define PSV_TEST_ADD_EWISE(op)
const psv_op kAdds[] = {
#include "core/operators.def"
};
#undef PSV_OPERATOR
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) PSV_TEST_MUL_##KIND(PSV_##NAME)
#define PSV_TEST_MUL_MONOID(op) op,
#define PSV_TEST_MUL_BINARY(op) op,
#define PSV_TEST_MUL_EWISE(op)
const psv_op kMuls[] = {
#include "core/operators.def"
};
#undef PSV_OPERATOR
// Every operator, for the element-wise operations.
#define PSV_OPERATOR(NAME, KIND, ON_BOOL, IDENTITY, EXPR) PSV_##NAME,
const psv_op kAllOps[] = {
#include "core/operators.def"
};
#undef PSV_OPERATOR

struct Both {
    psv_context *cpu = nullptr, *gpu = nullptr;
};

// Random values of type t (small integers, floats in [0.5, 1.5] or [-1.5, 1.5]).
std::vector<uint8_t> random_values(psv_type t, int64_t n, uint64_t seed) {
    const size_t vs = psv_type_size(t);
    std::vector<uint8_t> out((size_t)n * vs);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = gputest::splitmix(s);
        psv::dispatch_type(t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            T v;
            if (std::is_floating_point<T>::value) v = (T)((r & 1 ? -1.0 : 1.0) * (0.5 + (double)((r >> 1) % 1000) / 1000.0));
            else if (std::is_same<T, psv::bool_t>::value) v = (T)((r >> 3) & 1);
            else v = (T)((int64_t)(r % 9) - 4);
            std::memcpy(&out[(size_t)i * vs], &v, vs);
        });
    }
    return out;
}

bool values_equal(psv_type t, const uint8_t *a, const uint8_t *b) {
    switch (t) {
    case PSV_FP32: {
        float x, y;
        std::memcpy(&x, a, 4);
        std::memcpy(&y, b, 4);
        if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
        if (std::isinf(x) || std::isinf(y)) return x == y;
        return std::fabs(x - y) <= 1e-3 + 1e-4 * std::fabs(y);
    }
    case PSV_FP64: {
        double x, y;
        std::memcpy(&x, a, 8);
        std::memcpy(&y, b, 8);
        if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
        if (std::isinf(x) || std::isinf(y)) return x == y;
        return std::fabs(x - y) <= 1e-9 + 1e-10 * std::fabs(y);
    }
    default: return std::memcmp(a, b, psv_type_size(t)) == 0;
    }
}

// Compare two vectors' present entries and values.
bool same_vector(const psv_vector *a, const psv_vector *b, psv_type t, const char *what) {
    int64_t n = 0;
    psv_vector_size(a, &n);
    const size_t vs = psv_type_size(t);
    std::vector<int64_t> ia((size_t)n), ib((size_t)n);
    std::vector<uint8_t> va((size_t)n * vs + 1), vb((size_t)n * vs + 1);
    int64_t na = n, nb = n;
    if (psv_vector_extract_tuples(a, ia.data(), va.data(), &na) != PSV_SUCCESS ||
        psv_vector_extract_tuples(b, ib.data(), vb.data(), &nb) != PSV_SUCCESS) {
        std::fprintf(stderr, "%s: extract failed\n", what);
        return false;
    }
    if (na != nb) {
        std::fprintf(stderr, "%s: %lld vs %lld present entries\n", what, (long long)na, (long long)nb);
        return false;
    }
    for (int64_t k = 0; k < na; ++k) {
        if (ia[k] != ib[k]) {
            std::fprintf(stderr, "%s: entry %lld at index %lld vs %lld\n", what, (long long)k, (long long)ia[k], (long long)ib[k]);
            return false;
        }
        if (!values_equal(t, &va[k * vs], &vb[k * vs])) {
            std::fprintf(stderr, "%s: value at index %lld differs\n", what, (long long)ia[k]);
            return false;
        }
    }
    return true;
}

struct Pair {
    psv_vector *c = nullptr, *g = nullptr;
    ~Pair() {
        psv_vector_free(&c);
        psv_vector_free(&g);
    }
};

// A vector in both contexts: n values, entries present with probability `density` (1: full).
void make_vector(Both &B, Pair &p, psv_type t, int64_t n, double density, uint64_t seed) {
    REQUIRE(psv_vector_create(B.cpu, t, n, &p.c) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(B.gpu, t, n, &p.g) == PSV_SUCCESS);
    std::vector<uint8_t> v = random_values(t, n, seed);
    if (density >= 1) {
        REQUIRE(psv_vector_set(p.c, v.data(), n) == PSV_SUCCESS);
        REQUIRE(psv_vector_set(p.g, v.data(), n) == PSV_SUCCESS);
        return;
    }
    std::vector<int64_t> idx;
    std::vector<uint8_t> vals;
    const size_t vs = psv_type_size(t);
    uint64_t s = seed ^ 0x55;
    for (int64_t i = 0; i < n; ++i)
        if ((double)(gputest::splitmix(s) % 1000) < density * 1000) {
            idx.push_back(i);
            vals.insert(vals.end(), &v[i * vs], &v[i * vs] + vs);
        }
    REQUIRE(psv_vector_build(p.c, idx.data(), vals.data(), (int64_t)idx.size()) == PSV_SUCCESS);
    REQUIRE(psv_vector_build(p.g, idx.data(), vals.data(), (int64_t)idx.size()) == PSV_SUCCESS);
}

struct MatPair {
    psv_matrix *c = nullptr, *g = nullptr;
    ~MatPair() {
        psv_matrix_free(&c);
        psv_matrix_free(&g);
    }
};

void make_matrix(Both &B, MatPair &m, const gputest::Edges &E, psv_type t, bool pattern, uint64_t seed) {
    std::vector<uint8_t> v = random_values(t, (int64_t)E.rows.size(), seed);
    const void *vals = pattern ? nullptr : v.data();
    psv_status s1 = psv_matrix_build(B.cpu, t, E.nrows, E.ncols, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(), vals,
                                     PSV_FIRST, &m.c);
    psv_status s2 = psv_matrix_build(B.gpu, t, E.nrows, E.ncols, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(), vals,
                                     PSV_FIRST, &m.g);
    if (s2 != PSV_SUCCESS) std::fprintf(stderr, "gpu build: %s\n", psv_context_last_error(B.gpu));
    REQUIRE(s1 == PSV_SUCCESS && s2 == PSV_SUCCESS);
}

struct Desc {
    const char *name;
    int32_t desc;
    bool mask, accum, sparse_u, w_partial;
};

int run_semirings(Both &B, const gputest::Edges &E, bool all_descs, const char *label) {
    const Desc descs[] = {
        {"plain", 0, false, false, false, false},
        {"u-sparse", 0, false, false, true, false},
        {"transpose", PSV_DESC_TRANSPOSE_A, false, false, false, false},
        {"mask+accum", 0, true, true, false, true},
        {"complement+structure+replace", PSV_DESC_MASK_COMPLEMENT | PSV_DESC_MASK_STRUCTURE | PSV_DESC_REPLACE, true, false,
         true, true},
        {"transpose+mask+u-sparse+accum", PSV_DESC_TRANSPOSE_A, true, true, true, true},
    };
    const int ndesc = all_descs ? 6 : 1;
    int combos = 0;
    uint64_t seed = 100;
    for (psv_type t : kTypes) {
        for (int pat = 0; pat < 2; ++pat) {
            MatPair A;
            make_matrix(B, A, E, t, pat == 1, seed++);
            for (psv_op add : kAdds) {
                // under the sanitizer: a subset (the compile-time specializations and the runtime path)
                if (gputest::small_mode() && add != PSV_PLUS && add != PSV_MIN && add != PSV_LXOR && add != PSV_LOR) continue;
                if (t != PSV_BOOL && (add == PSV_LOR || add == PSV_LAND || add == PSV_LXOR) && pat == 0 && !all_descs) continue;
                for (psv_op mul : kMuls) {
                    if (gputest::small_mode() && mul != PSV_TIMES && mul != PSV_SECOND && mul != PSV_PAIR && mul != PSV_DIV &&
                        mul != PSV_LAND)
                        continue;
                    psv_semiring *sc = nullptr, *sg = nullptr;
                    if (psv_semiring_create(B.cpu, add, mul, t, &sc) != PSV_SUCCESS) continue;
                    REQUIRE(psv_semiring_create(B.gpu, add, mul, t, &sg) == PSV_SUCCESS);
                    for (int di = 0; di < ndesc; ++di) {
                        const Desc &d = descs[di];
                        const bool tr = d.desc & PSV_DESC_TRANSPOSE_A;
                        const int64_t out_n = tr ? E.ncols : E.nrows, in_n = tr ? E.nrows : E.ncols;
                        Pair u, w, mask;
                        make_vector(B, u, t, in_n, d.sparse_u ? 0.6 : 1.0, seed++);
                        make_vector(B, w, t, out_n, d.w_partial ? 0.5 : 1.0, seed++);
                        if (d.mask) make_vector(B, mask, PSV_INT32, out_n, 0.7, seed++);
                        const psv_op accum = d.accum ? (t == PSV_BOOL ? PSV_LOR : PSV_MIN) : PSV_NOOP;
                        psv_status s1 = psv_mxv(w.c, d.mask ? mask.c : nullptr, accum, sc, A.c, u.c, d.desc);
                        psv_status s2 = psv_mxv(w.g, d.mask ? mask.g : nullptr, accum, sg, A.g, u.g, d.desc);
                        char what[256];
                        std::snprintf(what, sizeof what, "%s %s %s.%s %s %s", label, psv::type_name(t), psv::op_name(add),
                                      psv::op_name(mul), d.name, pat ? "pattern" : "valued");
                        CHECK_MSG(s1 == s2, "%s: status %d vs %d (%s)", what, (int)s1, (int)s2, psv_context_last_error(B.gpu));
                        if (s1 == PSV_SUCCESS && s2 == PSV_SUCCESS) CHECK_MSG(same_vector(w.g, w.c, t, what), "%s", what);
                        ++combos;
                    }
                    psv_semiring_free(&sc);
                    psv_semiring_free(&sg);
                }
            }
        }
    }
    return combos;
}

void run_vector_ops(Both &B, int64_t n) {
    uint64_t seed = 9000;
    for (psv_type t : kTypes) {
        for (psv_op op : kAllOps) {
            Pair u, v, w;
            make_vector(B, u, t, n, 0.8, seed++);
            make_vector(B, v, t, n, 0.9, seed++);
            make_vector(B, w, t, n, 1.0, seed++);
            CHECK(psv_vector_ewise(w.c, op, u.c, v.c) == PSV_SUCCESS);
            CHECK(psv_vector_ewise(w.g, op, u.g, v.g) == PSV_SUCCESS);
            char what[128];
            std::snprintf(what, sizeof what, "ewise %s %s", psv::type_name(t), psv::op_name(op));
            CHECK_MSG(same_vector(w.g, w.c, t, what), "%s", what);
            std::vector<uint8_t> s = random_values(t, 1, seed++);
            CHECK(psv_vector_apply(w.c, op, u.c, s.data()) == PSV_SUCCESS);
            CHECK(psv_vector_apply(w.g, op, u.g, s.data()) == PSV_SUCCESS);
            std::snprintf(what, sizeof what, "apply %s %s", psv::type_name(t), psv::op_name(op));
            CHECK_MSG(same_vector(w.g, w.c, t, what), "%s", what);
            if (psv::is_monoid(op)) {
                uint8_t rc[8] = {0}, rg[8] = {0};
                CHECK(psv_vector_reduce(rc, op, u.c) == PSV_SUCCESS);
                CHECK(psv_vector_reduce(rg, op, u.g) == PSV_SUCCESS);
                std::snprintf(what, sizeof what, "reduce %s %s", psv::type_name(t), psv::op_name(op));
                bool ok = values_equal(t, rg, rc);
                if (!ok && (t == PSV_FP32 || t == PSV_FP64) && op == PSV_TIMES) ok = true;  // products of n values under/overflow alike only roughly
                CHECK_MSG(ok, "%s", what);
                int64_t nc = 0, ng = 0;
                psv_vector_nvals(u.c, &nc);
                psv_vector_nvals(u.g, &ng);
                CHECK(nc == ng);
            }
        }
    }
    // device-pointer import/export
    {
        Pair u;
        make_vector(B, u, PSV_FP32, n, 0.5, 77);
        float *d = nullptr;
        REQUIRE(cudaMalloc(&d, (size_t)n * 4) == cudaSuccess);
        CHECK(psv_vector_get_device(u.g, d, n) == PSV_SUCCESS);
        std::vector<float> a((size_t)n), b((size_t)n);
        cudaMemcpy(a.data(), d, (size_t)n * 4, cudaMemcpyDeviceToHost);
        CHECK(psv_vector_get(u.c, b.data(), n) == PSV_SUCCESS);
        CHECK(a == b);
        for (auto &x : a) x += 1.0f;
        cudaMemcpy(d, a.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
        CHECK(psv_vector_set_device(u.g, d, n) == PSV_SUCCESS);
        std::vector<float> c((size_t)n);
        CHECK(psv_vector_get(u.g, c.data(), n) == PSV_SUCCESS);
        CHECK(a == c);
        CHECK(psv_vector_set_device(u.c, d, n) == PSV_ERROR_BACKEND_UNAVAILABLE);
        cudaFree(d);
    }
}

void run_pagerank(Both &B, const gputest::Edges &E) {
    MatPair A;
    make_matrix(B, A, E, PSV_FP32, true, 1);
    psv_vector *rc = nullptr, *rg = nullptr;
    int32_t ic = 0, ig = 0;
    const psv_status s1 = psv_pagerank(&rc, &ic, A.c, 0.85, 1e-7, 100);
    const psv_status s2 = psv_pagerank(&rg, &ig, A.g, 0.85, 1e-7, 100);
    CHECK(s1 == s2);
    CHECK_MSG(std::abs(ic - ig) <= 1, "iterations %d vs %d", ic, ig);
    if (rc && rg) {
        std::vector<float> a((size_t)E.nrows), b((size_t)E.nrows);
        psv_vector_get(rc, a.data(), E.nrows);
        psv_vector_get(rg, b.data(), E.nrows);
        double diff = 0, norm = 0;
        for (int64_t i = 0; i < E.nrows; ++i) {
            diff += std::fabs((double)a[i] - (double)b[i]);
            norm += std::fabs((double)a[i]);
        }
        CHECK_MSG(diff <= 1e-5 * norm, "pagerank: L1 difference %g of %g", diff, norm);
        // deterministic: a second run is bit-identical
        psv_vector *rg2 = nullptr;
        int32_t ig2 = 0;
        psv_pagerank(&rg2, &ig2, A.g, 0.85, 1e-7, 100);
        std::vector<float> c((size_t)E.nrows);
        psv_vector_get(rg2, c.data(), E.nrows);
        CHECK_MSG(ig2 == ig && std::memcmp(b.data(), c.data(), b.size() * 4) == 0, "pagerank not reproducible");
        psv_vector_free(&rg2);
    }
    psv_vector_free(&rc);
    psv_vector_free(&rg);
}

}  // namespace

int main() {
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        std::fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    const bool small = gputest::small_mode();
    Both B;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &B.cpu) == PSV_SUCCESS);
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &B.gpu) == PSV_SUCCESS);
    // small tiles, so these small matrices have several dense tiles and a sparse one
    for (psv_context *c : {B.cpu, B.gpu}) {
        psv_context_set_option(c, PSV_OPT_TILE_WIDTH, 16);
    }
    gputest::Edges E = small ? gputest::rmat(7, 6, 3) : gputest::rmat(9, 8, 3);
    E.ncols = E.ncols + 37;  // rectangular: the transpose is a different shape (extra empty columns)
    int combos = 0;
    combos += run_semirings(B, E, true, "tile-composite");
    psv_context_set_option(B.gpu, PSV_OPT_KERNEL, PSV_KERNEL_TILE_COO);
    combos += run_semirings(B, E, !small, "tile-coo");
    psv_context_set_option(B.gpu, PSV_OPT_KERNEL, PSV_KERNEL_CSR);
    combos += run_semirings(B, E, false, "csr");
    psv_context_set_option(B.gpu, PSV_OPT_KERNEL, PSV_KERNEL_SELL);
    combos += run_semirings(B, E, !small, "sell");
    psv_context_set_option(B.gpu, PSV_OPT_KERNEL, PSV_KERNEL_AUTO);
    // a larger one with the default tile width
    if (!small) {
        psv_context_set_option(B.cpu, PSV_OPT_TILE_WIDTH, 0);
        psv_context_set_option(B.gpu, PSV_OPT_TILE_WIDTH, 0);
        gputest::Edges L = gputest::rmat(15, 16, 8);
        combos += run_semirings(B, L, false, "rmat-15");
    }
    run_vector_ops(B, small ? 3000 : 100000);
    {
        gputest::Edges P = gputest::rmat(small ? 8 : 14, 16, 4);
        run_pagerank(B, P);
    }
    std::fprintf(stderr, "%d mxv combinations compared\n", combos);
    psv_context_free(&B.cpu);
    psv_context_free(&B.gpu);
    return check_exit();
}
