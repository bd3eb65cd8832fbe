// Partitioned matrices built from tuples delivered in each part's memory (dist::matrix_from_chunks,
// src/dist/build.cpp) on the backend PSV_TEST_BACKEND names: one-part contexts, multi-part contexts of 2, 3 and 7
// parts, and rank contexts (threads joined over loopback; on CUDA every rank on device 0 through
// the host, and one rank through NCCL where the build has it). Each part's share is uneven (part 0
// holds about twice the others, so the parts route different numbers of rounds), some tuples are
// in two shares with different values (the lower part's is kept) and some are dropped (negative
// row). The matrix's tuples must equal those of psv_matrix_build over the shares concatenated in
// part order with dup PSV_FIRST, exactly, for a pattern and for bool, int32, fp32 and fp64 values,
// square and rectangular; PageRank must equal the one-part result within 1e-6 (L1). Also: empty
// shares, a matrix without entries, a bad index on one part failing the build (every rank) with
// the context usable after, and no buffer left.
#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>
#include <tuple>
#include <vector>

#include "psv/psv.h"  // before check.h: its test_backend()
#include "check.h"
#include "core/objects.hpp"
#include "core/test_hooks.hpp"
#include "cuda/internal.hpp"
#include "dist/chunks.hpp"
#include "dist_common.hpp"

namespace {

using psv::dist::ChunkSource;

constexpr double kTol = 1e-6;

// One part's share: int32 indices and a value per tuple (as double; converted to the type).
struct Share {
    std::vector<int32_t> r, c;
    std::vector<double> v;
};

// g's tuples over P shares: tuple e to part 0 where e % (P + 1) is 0 or P, else to part e % (P + 1)
// (part 0 holds about twice the others); every 13th also to the next part with another value;
// every 17th dropped (row -1). Columns >= ncols are left out.
std::vector<Share> split(const Graph &g, int32_t P, int64_t ncols) {
    std::vector<Share> s((size_t)P);
    for (size_t e = 0; e < g.rows.size(); ++e) {
        if (g.cols[e] >= ncols) continue;
        const int32_t k = (int32_t)(e % (size_t)(P + 1)), p = k == P ? 0 : k;
        const int32_t r = e % 17 == 5 ? -1 : (int32_t)g.rows[e];
        s[p].r.push_back(r);
        s[p].c.push_back((int32_t)g.cols[e]);
        s[p].v.push_back(1.0 + (double)(e % 5) + 0.5 * p);
        if (e % 13 == 0 && P > 1) {
            const int32_t q = (p + 1) % P;
            s[q].r.push_back(r);
            s[q].c.push_back((int32_t)g.cols[e]);
            s[q].v.push_back(10.0 + (double)(e % 5) + 0.5 * q);
        }
    }
    return s;
}

size_t size_of(psv_type t) { return t == PSV_BOOL ? 1 : (t == PSV_INT32 || t == PSV_FP32) ? 4 : 8; }

void put(psv_type t, double v, uint8_t *out) {
    switch (t) {
    case PSV_BOOL: *out = (uint8_t)((int64_t)v % 2); break;
    case PSV_INT32: { int32_t x = (int32_t)v * 3; std::memcpy(out, &x, 4); break; }
    case PSV_FP32: { float x = (float)v; std::memcpy(out, &x, 4); break; }
    case PSV_INT64: { int64_t x = (int64_t)v * 5; std::memcpy(out, &x, 8); break; }
    default: std::memcpy(out, &v, 8); break;
    }
}

// The share as a source delivering into part p's memory (through its backend).
ChunkSource source(psv_context *ctx, int32_t p, const Share &s, psv_type t, bool pattern) {
    ChunkSource src;
    src.count = (int64_t)s.r.size();
    psv::Backend *be = ctx->core->multi() ? ctx->core->parts[(size_t)p].backend : ctx->core->backend.get();
    src.deliver = [be, &s, t, pattern](int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *vals) {
        be->upload(rows, s.r.data() + first, (size_t)n * 4);
        be->upload(cols, s.c.data() + first, (size_t)n * 4);
        if (!pattern && vals) {
            std::vector<uint8_t> v((size_t)n * size_of(t));
            for (int64_t i = 0; i < n; ++i) put(t, s.v[(size_t)(first + i)], &v[(size_t)i * size_of(t)]);
            be->upload(vals, v.data(), v.size());
        }
    };
    return src;
}

// The expected matrix: the shares in part order built with PSV_FIRST on one part.
psv_matrix *reference(psv_context *c1, const std::vector<Share> &s, psv_type t, bool pattern, int64_t nrows, int64_t ncols) {
    std::vector<int64_t> r, c;
    std::vector<uint8_t> v;
    for (const Share &sh : s)
        for (size_t e = 0; e < sh.r.size(); ++e) {
            if (sh.r[e] < 0) continue;
            r.push_back(sh.r[e]);
            c.push_back(sh.c[e]);
            v.resize(v.size() + size_of(t));
            put(t, sh.v[e], &v[v.size() - size_of(t)]);
        }
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(c1, t, nrows, ncols, (int64_t)r.size(), r.data(), c.data(), pattern ? nullptr : v.data(),
                             PSV_FIRST, &A) == PSV_SUCCESS);
    return A;
}

// A's tuples sorted by (row, column), values as bytes.
std::vector<std::tuple<int64_t, int64_t, std::vector<uint8_t>>> tuples_of(const psv_matrix *A, psv_type t) {
    int64_t n = 0;
    REQUIRE(psv_matrix_nvals(A, &n) == PSV_SUCCESS);
    std::vector<int64_t> r((size_t)n), c((size_t)n);
    std::vector<uint8_t> v((size_t)n * size_of(t));
    REQUIRE(psv_matrix_extract_tuples(A, r.data(), c.data(), v.data(), &n) == PSV_SUCCESS);
    std::vector<std::tuple<int64_t, int64_t, std::vector<uint8_t>>> out;
    for (int64_t e = 0; e < n; ++e)
        out.emplace_back(r[e], c[e], std::vector<uint8_t>(v.begin() + e * size_of(t), v.begin() + (e + 1) * size_of(t)));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<float> pagerank_of(const psv_matrix *A) {
    psv_vector *pr = nullptr;
    REQUIRE(psv_pagerank(&pr, nullptr, A, 0.85, 1e-9, 200) >= 0);
    int64_t n = 0;
    psv_vector_size(pr, &n);
    std::vector<float> x((size_t)n);
    REQUIRE(psv_vector_get(pr, x.data(), n) == PSV_SUCCESS);
    psv_vector_free(&pr);
    return x;
}

psv_context *multi(int32_t P) {
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create_multi(test_backend(), P, nullptr, &ctx) == PSV_SUCCESS);  // CUDA: all on device 0
    return ctx;
}

// On CUDA, part 0 routes in chunks of `chunk` tuples (the others keep the policy's).
void small_chunks(psv_context *ctx, int64_t chunk) {
    if (test_backend() != PSV_BACKEND_CUDA) return;
    psv::cuda::Policy p = psv::cuda::policy_of(ctx);
    p.assemble_chunk = chunk;
    psv::cuda::set_policy(ctx, p);
}

void one_case(const char *name, const Graph &g, int32_t P, psv_type t, bool pattern, int64_t ncols, bool pr) {
    const std::vector<Share> s = split(g, P, ncols);
    psv_context *c1 = multi(1), *cP = multi(P);
    small_chunks(cP, 4096);
    psv_matrix *R = reference(c1, s, t, pattern, g.n, ncols), *A = nullptr;
    std::vector<ChunkSource> src;
    for (int32_t p = 0; p < P; ++p) src.push_back(source(cP, p, s[p], t, pattern));
    const psv_status st = psv::dist::matrix_from_chunks(cP, t, g.n, ncols, pattern, src, &A);
    CHECK(st == PSV_SUCCESS);
    if (st == PSV_SUCCESS) {
        const auto ta = tuples_of(A, t), tr = tuples_of(R, t);
        const bool same = ta == tr;
        if (!same) {
            std::printf("  sizes %zu %zu\n", ta.size(), tr.size());
            for (size_t i = 0; i < std::min(ta.size(), tr.size()); ++i)
                if (ta[i] != tr[i]) {
                    std::printf("  first diff at %zu: (%lld,%lld,%d) vs (%lld,%lld,%d)\n", i, (long long)std::get<0>(ta[i]), (long long)std::get<1>(ta[i]), (int)std::get<2>(ta[i])[0], (long long)std::get<0>(tr[i]), (long long)std::get<1>(tr[i]), (int)std::get<2>(tr[i])[0]);
                    break;
                }
        }
        CHECK(same);
        if (!same) std::printf("  %s, %d parts, type %d: tuples differ from the reference\n", name, (int)P, (int)t);
        if (pr) {
            const double d = rel_l1(pagerank_of(A), pagerank_of(R));
            CHECK(d <= kTol);
            if (d > kTol) std::printf("  %s, %d parts: PageRank rel L1 %.3g\n", name, (int)P, d);
        }
        psv_matrix_free(&A);
    }
    psv_matrix_free(&R);
    psv_context_free(&cP);
    psv_context_free(&c1);
}

void empty_and_bad() {
    psv_context *ctx = multi(3);
    Share none, some, bad;
    some.r = {0, 1, 2};
    some.c = {1, 2, 0};
    some.v = {1, 2, 3};
    bad.r = {0, 5};  // row 5 of a 3 x 3 matrix
    bad.c = {0, 0};
    bad.v = {1, 1};
    // a part with an empty share, then every share empty
    psv_matrix *A = nullptr;
    std::vector<ChunkSource> src = {source(ctx, 0, none, PSV_FP32, true), source(ctx, 1, some, PSV_FP32, true),
                                    source(ctx, 2, none, PSV_FP32, true)};
    CHECK(psv::dist::matrix_from_chunks(ctx, PSV_FP32, 3, 3, true, src, &A) == PSV_SUCCESS);
    int64_t n = -1;
    if (A) psv_matrix_nvals(A, &n);
    CHECK(n == 3);
    psv_matrix_free(&A);
    A = nullptr;
    src = {source(ctx, 0, none, PSV_FP32, true), source(ctx, 1, none, PSV_FP32, true), source(ctx, 2, none, PSV_FP32, true)};
    CHECK(psv::dist::matrix_from_chunks(ctx, PSV_FP32, 3, 3, true, src, &A) == PSV_SUCCESS);
    n = -1;
    if (A) psv_matrix_nvals(A, &n);
    CHECK(n == 0);
    psv_matrix_free(&A);
    // a bad index on one part: the build fails, nothing is made, the context works after
    A = nullptr;
    src = {source(ctx, 0, some, PSV_FP32, true), source(ctx, 1, bad, PSV_FP32, true), source(ctx, 2, none, PSV_FP32, true)};
    CHECK_STATUS(psv::dist::matrix_from_chunks(ctx, PSV_FP32, 3, 3, true, src, &A), PSV_ERROR_INVALID_INDEX);
    CHECK(A == nullptr);
    src = {source(ctx, 0, some, PSV_FP32, true), source(ctx, 1, none, PSV_FP32, true)};  // one source short
    CHECK_STATUS(psv::dist::matrix_from_chunks(ctx, PSV_FP32, 3, 3, true, src, &A), PSV_ERROR_INVALID_VALUE);
    src = {source(ctx, 0, some, PSV_FP32, true), source(ctx, 1, some, PSV_FP32, true), source(ctx, 2, some, PSV_FP32, true)};
    CHECK(psv::dist::matrix_from_chunks(ctx, PSV_FP32, 3, 3, true, src, &A) == PSV_SUCCESS);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    // 3 rows over 7 parts: parts without rows
    ctx = multi(7);
    src.assign(7, source(ctx, 0, none, PSV_FP32, true));
    for (int32_t p = 0; p < 7; ++p) src[(size_t)p] = source(ctx, p, p == 4 ? some : none, PSV_FP32, true);
    A = nullptr;
    CHECK(psv::dist::matrix_from_chunks(ctx, PSV_FP32, 3, 3, true, src, &A) == PSV_SUCCESS);
    n = -1;
    if (A) psv_matrix_nvals(A, &n);
    CHECK(n == 3);
    if (A) CHECK(rel_l1(pagerank_of(A), std::vector<float>(3, 1.0f / 3)) <= kTol);  // a cycle: uniform
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    // a one-part context: an ordinary matrix; two sources for its one part
    psv_context *plain = nullptr;
    REQUIRE(psv_context_create(test_backend(), 0, &plain) == PSV_SUCCESS);
    A = nullptr;
    CHECK(psv::dist::matrix_from_chunks(plain, PSV_FP32, 3, 3, true, {source(plain, 0, some, PSV_FP32, true)}, &A) ==
          PSV_SUCCESS);
    n = -1;
    if (A) psv_matrix_nvals(A, &n);
    CHECK(n == 3);
    psv_matrix_free(&A);
    CHECK_STATUS(psv::dist::matrix_from_chunks(plain, PSV_FP32, 3, 3, true, {ChunkSource(), ChunkSource()}, &A),
                 PSV_ERROR_INVALID_VALUE);
    psv_context_free(&plain);
}

// nranks rank contexts (threads), each building from its own share; id_backend: PSV_BACKEND_CPU
// (the host exchange) or the test backend (NCCL on CUDA where built).
void ranks(const Graph &g, int32_t nranks, psv_backend id_backend, bool bad_on_last) {
    const std::vector<Share> s = split(g, nranks, g.n);
    psv_context *c1 = multi(1);
    psv_matrix *R = reference(c1, s, PSV_FP64, false, g.n, g.n);
    const auto want = tuples_of(R, PSV_FP64);
    const std::vector<float> want_pr = pagerank_of(R);
    psv_id id;
    REQUIRE(psv_unique_id(id_backend, &id) == PSV_SUCCESS);
    std::vector<psv_status> st((size_t)nranks, PSV_SUCCESS);
    std::vector<int> same((size_t)nranks, 0);
    std::vector<double> d((size_t)nranks, 1);
    std::vector<std::thread> t;
    for (int32_t r = 0; r < nranks; ++r)
        t.emplace_back([&, r] {
            psv_context *ctx = nullptr;
            st[r] = psv_context_create_rank(test_backend(), &id, nranks, r, 0, &ctx);
            if (st[r] != PSV_SUCCESS) return;
            Share mine = s[r];
            if (bad_on_last && r == nranks - 1) mine.c.back() = (int32_t)g.n;  // a column outside
            std::vector<ChunkSource> src((size_t)nranks);
            src[r] = source(ctx, r, mine, PSV_FP64, false);
            psv_matrix *A = nullptr;
            st[r] = psv::dist::matrix_from_chunks(ctx, PSV_FP64, g.n, g.n, false, src, &A);
            if (st[r] == PSV_SUCCESS) {
                same[r] = tuples_of(A, PSV_FP64) == want;
                d[r] = rel_l1(pagerank_of(A), want_pr);
                psv_matrix_free(&A);
            }
            psv_context_free(&ctx);
        });
    for (auto &th : t) th.join();
    for (int32_t r = 0; r < nranks; ++r) {
        if (bad_on_last) {
            CHECK_STATUS(st[r], PSV_ERROR_INVALID_INDEX);  // every rank fails alike
            continue;
        }
        CHECK(st[r] == PSV_SUCCESS);
        CHECK(same[r]);
        CHECK(d[r] <= kTol);
        if (st[r] == PSV_SUCCESS && (!same[r] || d[r] > kTol))
            std::printf("  %d ranks, rank %d: tuples %s, PageRank rel L1 %.3g\n", (int)nranks, (int)r,
                        same[r] ? "equal" : "differ", d[r]);
    }
    psv_matrix_free(&R);
    psv_context_free(&c1);
}

}  // namespace

int main() {
    const Graph g = rmat(14, 8, 3), small = rmat(10, 8, 5);
    for (int32_t P : {1, 2, 3, 7}) {
        one_case("rmat14 pattern", g, P, PSV_FP32, true, g.n, true);
        one_case("rmat10 fp64", small, P, PSV_FP64, false, small.n, false);
        one_case("rmat10 rectangular fp32", small, P, PSV_FP32, false, 700, false);
    }
    one_case("rmat10 bool", small, 3, PSV_BOOL, false, small.n, false);
    one_case("rmat10 int32", small, 2, PSV_INT32, false, small.n, false);
    one_case("rmat10 int64", small, 2, PSV_INT64, false, small.n, false);
    empty_and_bad();
    ranks(small, 2, PSV_BACKEND_CPU, false);
    ranks(small, 3, PSV_BACKEND_CPU, false);
    ranks(small, 3, PSV_BACKEND_CPU, true);
    if (test_backend() == PSV_BACKEND_CUDA) ranks(small, 1, PSV_BACKEND_CUDA, false);  // NCCL where built
    CHECK(psv::test_hooks::live_buffers.load() == 0);
    return check_exit();
}
