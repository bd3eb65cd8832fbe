// SELL-32 (PSV_KERNEL_SELL, and AUTO's rule for regular matrices): the plan's slices and slots
// against a count on the host; products of every value type, weighted and pattern, under
// compile-time and run-time semirings, against the CPU backend (exact for integers and booleans)
// and a float64 reference (relative L1), bit for bit run to run; rows that are empty, a row much
// longer than the rest, a row count that is not a multiple of 32; u with absent entries (the CSR
// kernel's path), a mask and an accumulator; and AUTO's rule: SELL on a 27-point stencil, not on
// a power-law matrix, nor on one whose slices pad, nor below its size bound.
#include <cmath>
#include <cstring>

#include "cuda/internal.hpp"
#include "cuda/tuning/policy.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"

namespace {

// The 27-point stencil on an n^3 grid (rows and columns in grid order), sorted.
gputest::Edges stencil(int64_t n) {
    gputest::Edges E;
    E.nrows = E.ncols = n * n * n;
    for (int64_t z = 0; z < n; ++z)
        for (int64_t y = 0; y < n; ++y)
            for (int64_t x = 0; x < n; ++x)
                for (int64_t dz = -1; dz <= 1; ++dz)
                    for (int64_t dy = -1; dy <= 1; ++dy)
                        for (int64_t dx = -1; dx <= 1; ++dx) {
                            const int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                            if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
                            E.rows.push_back((z * n + y) * n + x);
                            E.cols.push_back((zz * n + yy) * n + xx);
                        }
    return E;
}

// SELL-32's slices and slots of E (sorted, no duplicates), counted on the host.
void host_slots(const gputest::Edges &E, int64_t &slices, int64_t &slots) {
    std::vector<int64_t> len((size_t)E.nrows, 0);
    for (int64_t r : E.rows) ++len[(size_t)r];
    slices = (E.nrows + 31) / 32;
    slots = 0;
    for (int64_t s = 0; s < slices; ++s) {
        int64_t w = 0;
        for (int64_t i = s * 32; i < std::min(E.nrows, s * 32 + 32); ++i) w = std::max(w, len[(size_t)i]);
        slots += 32 * w;
    }
}

// Entry k's value as type t (positive: float sums stay away from cancellation).
std::vector<uint8_t> values_of(psv_type t, int64_t n) {
    const size_t vs = psv_type_size(t);
    std::vector<uint8_t> out((size_t)n * vs);
    for (int64_t k = 0; k < n; ++k) {
        const int64_t q = (k * 7919) % 13;
        psv::dispatch_type(t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            T v;
            if (std::is_floating_point<T>::value) v = (T)(0.5 + (double)q / 8.0);
            else if (std::is_same<T, psv::bool_t>::value) v = (T)(q % 3 != 0);
            else v = (T)(q - 6);
            std::memcpy(&out[(size_t)k * vs], &v, vs);
        });
    }
    return out;
}

psv_matrix *build(psv_context *ctx, const gputest::Edges &E, psv_type t, bool pattern) {
    std::vector<uint8_t> v = values_of(t, (int64_t)E.rows.size());
    psv_matrix *A = nullptr;
    const psv_status s = psv_matrix_build(ctx, t, E.nrows, E.ncols, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(),
                                          pattern ? nullptr : v.data(), PSV_FIRST, &A);
    CHECK_MSG(s == PSV_SUCCESS, "build: %s", psv_context_last_error(ctx));
    return A;
}

psv_vector *vec(psv_context *ctx, psv_type t, int64_t n, double density, uint64_t seed) {
    psv_vector *v = nullptr;
    REQUIRE(psv_vector_create(ctx, t, n, &v) == PSV_SUCCESS);
    std::vector<uint8_t> x = values_of(t, n + (int64_t)seed);
    x.erase(x.begin(), x.begin() + (ptrdiff_t)(seed * psv_type_size(t)));
    if (density >= 1) {
        REQUIRE(psv_vector_set(v, x.data(), n) == PSV_SUCCESS);
        return v;
    }
    std::vector<int64_t> idx;
    std::vector<uint8_t> vals;
    const size_t vs = psv_type_size(t);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; ++i)
        if ((double)(gputest::splitmix(s) % 1000) < density * 1000) {
            idx.push_back(i);
            vals.insert(vals.end(), &x[(size_t)i * vs], &x[(size_t)i * vs] + vs);
        }
    REQUIRE(psv_vector_build(v, idx.data(), vals.data(), (int64_t)idx.size()) == PSV_SUCCESS);
    return v;
}

// w's present entries and values, as tuples.
struct Tuples {
    std::vector<int64_t> idx;
    std::vector<uint8_t> val;
};
Tuples tuples(const psv_vector *w, psv_type t) {
    int64_t n = 0;
    psv_vector_size(w, &n);
    Tuples r;
    r.idx.resize((size_t)n);
    r.val.resize((size_t)n * psv_type_size(t) + 1);
    int64_t k = n;
    REQUIRE(psv_vector_extract_tuples(w, r.idx.data(), r.val.data(), &k) == PSV_SUCCESS);
    r.idx.resize((size_t)k);
    r.val.resize((size_t)k * psv_type_size(t));
    return r;
}

bool close(psv_type t, const Tuples &a, const Tuples &b) {
    if (a.idx != b.idx) return false;
    if (t != PSV_FP32 && t != PSV_FP64) return a.val == b.val;
    for (size_t k = 0; k < a.idx.size(); ++k) {
        double x, y;
        if (t == PSV_FP32) {
            float p, q;
            std::memcpy(&p, &a.val[k * 4], 4);
            std::memcpy(&q, &b.val[k * 4], 4);
            x = p, y = q;
        } else {
            std::memcpy(&x, &a.val[k * 8], 8);
            std::memcpy(&y, &b.val[k * 8], 8);
        }
        if (std::fabs(x - y) > 1e-5 * std::max(1.0, std::fabs(y))) return false;
    }
    return true;
}

struct Ctx {
    psv_context *cpu = nullptr, *gpu = nullptr;
};

// w = A u (optionally masked and accumulated) on both backends, A under SELL on the GPU; the GPU
// twice, bit for bit; the GPU against the CPU.
void compare(Ctx &C, const gputest::Edges &E, psv_type t, bool pattern, psv_op add, psv_op mul, double u_density, bool masked,
             const char *what) {
    psv_matrix *Ac = build(C.cpu, E, t, pattern);
    psv_matrix *Ag = build(C.gpu, E, t, pattern);
    psv_matrix_info info;
    REQUIRE(psv_matrix_info_get(Ag, &info) == PSV_SUCCESS);
    CHECK_MSG(info.kernel == PSV_KERNEL_SELL, "%s: kernel %d", what, info.kernel);
    psv_semiring *sc = nullptr, *sg = nullptr;
    REQUIRE(psv_semiring_create(C.cpu, add, mul, t, &sc) == PSV_SUCCESS);
    REQUIRE(psv_semiring_create(C.gpu, add, mul, t, &sg) == PSV_SUCCESS);
    psv_vector *uc = vec(C.cpu, t, E.ncols, u_density, 3), *ug = vec(C.gpu, t, E.ncols, u_density, 3);
    psv_vector *mc = masked ? vec(C.cpu, PSV_INT32, E.nrows, 0.7, 5) : nullptr;
    psv_vector *mg = masked ? vec(C.gpu, PSV_INT32, E.nrows, 0.7, 5) : nullptr;
    const psv_op accum = masked ? (t == PSV_BOOL ? PSV_LOR : PSV_PLUS) : PSV_NOOP;
    Tuples r[3];
    for (int run = 0; run < 3; ++run) {
        psv_context *ctx = run == 0 ? C.cpu : C.gpu;
        psv_vector *w = vec(ctx, t, E.nrows, masked ? 0.5 : 1.0, 9);
        const psv_status s = psv_mxv(w, masked ? (run == 0 ? mc : mg) : nullptr, accum, run == 0 ? sc : sg,
                                     run == 0 ? Ac : Ag, run == 0 ? uc : ug, 0);
        CHECK_MSG(s == PSV_SUCCESS, "%s: mxv %d: %s", what, run, psv_context_last_error(ctx));
        r[run] = tuples(w, t);
        psv_vector_free(&w);
    }
    CHECK_MSG(close(t, r[1], r[0]), "%s: the GPU's SELL product differs from the CPU's", what);
    CHECK_MSG(r[1].idx == r[2].idx && r[1].val == r[2].val, "%s: two runs differ", what);
    for (psv_vector **v : {&uc, &ug, &mc, &mg}) psv_vector_free(v);
    psv_semiring_free(&sc);
    psv_semiring_free(&sg);
    psv_matrix_free(&Ac);
    psv_matrix_free(&Ag);
}

// Irregular rows under an explicit PSV_KERNEL_SELL: 1000 rows (not a multiple of 32), the last
// hundred empty, row 5 much longer than the rest.
gputest::Edges irregular() {
    gputest::Edges E = gputest::random_edges(900, 700, 6000, 21);
    E.nrows = 1000;
    for (int64_t j = 0; j < 600; ++j) E.rows.push_back(5), E.cols.push_back(j);
    return gputest::sorted_unique(E);
}

void check_explicit(Ctx &C) {
    const gputest::Edges E = irregular();
    REQUIRE(psv_context_set_option(C.gpu, PSV_OPT_KERNEL, PSV_KERNEL_SELL) == PSV_SUCCESS);
    // the plan's shape and bytes
    {
        psv_matrix *A = build(C.gpu, E, PSV_FP64, false);
        int64_t slices = 0, slots = 0;
        host_slots(E, slices, slots);
        const psv::cuda::SellCounts sc = psv::cuda::sell_counts(A);
        CHECK_MSG(sc.slices == slices && sc.slots == slots, "slices %lld / %lld, slots %lld / %lld", (long long)sc.slices,
                  (long long)slices, (long long)sc.slots, (long long)slots);
        CHECK(sc.bytes == 8 * (slices + 1) + 12 * slots);
        // the byte model (fp32 values): every slot's column (and value), the offsets, x and y once
        const int64_t xy = 4 * (E.nrows + E.ncols);
        CHECK(sc.bytes_weighted == 8 * slots + 8 * (slices + 1) + xy);
        CHECK(sc.bytes_pattern == 4 * slots + 8 * (slices + 1) + xy);
        const std::string d = psv::cuda::plan_description(A);
        CHECK_MSG(d.find("SELL-32") == 0, "plan: %s", d.c_str());
        psv_matrix *P = build(C.gpu, E, PSV_FP64, true);
        CHECK(psv::cuda::sell_counts(P).bytes == 8 * (slices + 1) + 4 * slots);
        psv_matrix_free(&P);
        psv_matrix_free(&A);
    }
    const bool small = gputest::small_mode();
    const psv_type types[] = {PSV_FP32, PSV_FP64, PSV_INT32, PSV_INT64, PSV_BOOL};
    for (psv_type t : types)
        for (int pat = 0; pat < 2; ++pat) {
            char what[128];
            const psv_op add = t == PSV_BOOL ? PSV_LOR : PSV_PLUS, mul = t == PSV_BOOL ? PSV_LAND : PSV_TIMES;
            std::snprintf(what, sizeof what, "%s %s plus-times", psv::type_name(t), pat ? "pattern" : "weighted");
            compare(C, E, t, pat == 1, add, mul, 1.0, false, what);
            if (small) continue;
            std::snprintf(what, sizeof what, "%s %s u-sparse mask accum", psv::type_name(t), pat ? "pattern" : "weighted");
            compare(C, E, t, pat == 1, add, mul, 0.6, true, what);
        }
    // padding must add nothing under a semiring whose zero is not 0 (min-plus, max-plus), and a
    // run-time semiring (no compile-time instantiation)
    compare(C, E, PSV_FP32, false, PSV_MIN, PSV_PLUS, 1.0, false, "fp32 min-plus");
    compare(C, E, PSV_INT32, false, PSV_MAX, PSV_PLUS, 1.0, false, "int32 max-plus");
    compare(C, E, PSV_FP64, false, PSV_MAX, PSV_TIMES, 1.0, false, "fp64 max-times (run-time)");
    compare(C, E, PSV_INT64, false, PSV_MIN, PSV_TIMES, 1.0, true, "int64 min-times masked (run-time)");
    REQUIRE(psv_context_set_option(C.gpu, PSV_OPT_KERNEL, PSV_KERNEL_AUTO) == PSV_SUCCESS);
}

int32_t kernel_of(psv_context *ctx, const gputest::Edges &E) {
    psv_matrix *A = build(ctx, E, PSV_FP32, false);
    psv_matrix_info info;
    REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
    psv_matrix_free(&A);
    return info.kernel;
}

// Rows of 8 and 24 entries by turns (mean 16, slices padded to 24: 1.5 slots an entry), columns
// spread evenly (no power law).
gputest::Edges padded(int64_t n) {
    gputest::Edges E;
    E.nrows = E.ncols = n;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < (i % 2 ? 24 : 8); ++k) E.rows.push_back(i), E.cols.push_back((i * 7 + k * 131) % n);
    return gputest::sorted_unique(E);
}

void check_auto(Ctx &C) {
    const psv::cuda::Policy base = psv::cuda::policy_of(C.gpu);
    const gputest::Edges S = stencil(32);  // 32768 rows, 830584 entries: 1.02 slots an entry
    CHECK_MSG(kernel_of(C.gpu, S) == PSV_KERNEL_CSR, "below sell_min_entries the stencil should run the chunk kernel");
    psv::cuda::Policy p = base;
    p.sell_min_entries = 0;
    psv::cuda::set_policy(C.gpu, p);
    CHECK_MSG(kernel_of(C.gpu, S) == PSV_KERNEL_SELL, "AUTO on the stencil: not SELL");
    const gputest::Edges R = gputest::rmat(12, 16, 5);
    CHECK_MSG(kernel_of(C.gpu, R) != PSV_KERNEL_SELL, "AUTO took SELL on a power-law matrix");
    const gputest::Edges Q = padded(8192);
    CHECK_MSG(kernel_of(C.gpu, Q) != PSV_KERNEL_SELL, "AUTO took SELL where the slices pad by half");
    p.sell_max_padding = 1.6;
    psv::cuda::set_policy(C.gpu, p);
    CHECK_MSG(kernel_of(C.gpu, Q) == PSV_KERNEL_SELL, "padding within the policy's bound: not SELL");
    p.sell_auto = false;
    psv::cuda::set_policy(C.gpu, p);
    CHECK(kernel_of(C.gpu, S) == PSV_KERNEL_CSR);
    psv::cuda::set_policy(C.gpu, base);
}

// AUTO at the default bounds on a stencil of 64^3 (6.9 M entries): SELL, against a float64
// reference computed here, and bit for bit run to run.
void check_large() {
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_SUCCESS);
    const gputest::Edges S = stencil(64);
    psv_matrix *A = build(ctx, S, PSV_FP32, false);
    psv_matrix_info info;
    REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
    CHECK_MSG(info.kernel == PSV_KERNEL_SELL, "AUTO on the 64^3 stencil: kernel %d", info.kernel);
    int64_t slices = 0, slots = 0;
    host_slots(S, slices, slots);
    CHECK(psv::cuda::sell_counts(A).slots == slots && (double)slots <= 1.1 * (double)S.rows.size());
    const int64_t n = S.nrows;
    std::vector<float> x((size_t)n);
    for (int64_t i = 0; i < n; ++i) x[(size_t)i] = 0.25f + (float)((i * 2654435761ll) % 1000) / 1000.0f;
    const std::vector<uint8_t> vb = values_of(PSV_FP32, (int64_t)S.rows.size());
    std::vector<double> ref((size_t)n, 0.0);
    for (size_t k = 0; k < S.rows.size(); ++k) {
        float a;
        std::memcpy(&a, &vb[k * 4], 4);
        ref[(size_t)S.rows[k]] += (double)a * (double)x[(size_t)S.cols[k]];
    }
    psv_vector *u = nullptr, *w = nullptr;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, n, &u) == PSV_SUCCESS && psv_vector_create(ctx, PSV_FP32, n, &w) == PSV_SUCCESS);
    REQUIRE(psv_vector_set(u, x.data(), n) == PSV_SUCCESS);
    psv_semiring *s = nullptr;
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    std::vector<float> y[2];
    for (int run = 0; run < 2; ++run) {
        REQUIRE(psv_mxv(w, nullptr, PSV_NOOP, s, A, u, 0) == PSV_SUCCESS);
        y[run].resize((size_t)n);
        REQUIRE(psv_vector_get(w, y[run].data(), n) == PSV_SUCCESS);
    }
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; ++i) num += std::fabs((double)y[0][(size_t)i] - ref[(size_t)i]), den += std::fabs(ref[(size_t)i]);
    CHECK_MSG(num / den < 1e-6, "relative L1 error %.3g", num / den);
    CHECK(std::memcmp(y[0].data(), y[1].data(), (size_t)n * 4) == 0);
    psv_semiring_free(&s);
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
}

}  // namespace

int main() {
    gputest::require_device();
    Ctx C;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &C.cpu) == PSV_SUCCESS);
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &C.gpu) == PSV_SUCCESS);
    // the rules (the model's choice is test_gpu_tuning's); SELL's rule comes ahead of either
    REQUIRE(psv_context_set_option(C.gpu, PSV_OPT_PLAN_CHOICE, PSV_CHOICE_RULES) == PSV_SUCCESS);
    check_explicit(C);
    check_auto(C);
    if (!gputest::small_mode()) check_large();
    psv_context_free(&C.cpu);
    psv_context_free(&C.gpu);
    return check_exit();
}
