// Streamed construction (cuda/build/assemble.cu): device COO with duplicates (valued: the first
// delivered kept), dropped tuples (row < 0), empty rows at piece boundaries, rectangular shapes,
// the transpose (sorted at once, or assembled in chunks) and the pattern of A + A', each built in
// chunks and pieces far smaller than the input (the policy's assemble_chunk / assemble_piece) and
// with the defaults: every result equals a host reference, whatever the chunk and piece sizes. An index outside the matrix is
// PSV_ERROR_INVALID_INDEX with nothing kept.
#include <cuda_runtime.h>

#include <map>
#include <set>
#include <utility>

#include "core/test_hooks.hpp"
#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"

using namespace psv;

namespace {

struct Tuples {
    std::vector<int64_t> r, c;
    std::vector<float> v;
};

// The host reference: per (row, column) the first tuple in input order, rows with row < 0
// dropped; sorted by row, then column.
Tuples reference(const std::vector<int32_t> &r, const std::vector<int32_t> &c, const std::vector<float> &v) {
    std::map<std::pair<int64_t, int64_t>, float> first;
    for (size_t k = 0; k < r.size(); ++k)
        if (r[k] >= 0) first.emplace(std::make_pair((int64_t)r[k], (int64_t)c[k]), v.empty() ? 1.0f : v[k]);
    Tuples t;
    for (const auto &e : first) {
        t.r.push_back(e.first.first);
        t.c.push_back(e.first.second);
        t.v.push_back(e.second);
    }
    return t;
}

Tuples tuples_of(const MatrixStore &M) {
    Tuples t;
    t.r.resize((size_t)M.nvals);
    t.c.resize((size_t)M.nvals);
    t.v.resize((size_t)M.nvals);
    M.extract_tuples(t.r.data(), t.c.data(), t.v.data());
    return t;
}

template <class T> T *to_device(const std::vector<T> &h) {
    T *d = nullptr;
    REQUIRE(cudaMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(T)) == cudaSuccess);
    if (!h.empty()) REQUIRE(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    return d;
}

struct Input {
    const char *name;
    int64_t nrows, ncols;
    std::vector<int32_t> r, c;
    std::vector<float> v;  // empty: a pattern
};

Input make_input(const char *name, const gputest::Edges &E, bool valued, bool drop_some, uint64_t seed) {
    Input in{name, E.nrows, E.ncols, {}, {}, {}};
    uint64_t s = seed;
    for (size_t k = 0; k < E.rows.size(); ++k) {
        const uint64_t z = gputest::splitmix(s);
        in.r.push_back(drop_some && z % 11 == 0 ? -1 : (int32_t)E.rows[k]);
        in.c.push_back((int32_t)E.cols[k]);
        if (valued) in.v.push_back((float)(z >> 40) / 16777216.0f);
    }
    return in;
}

// One input built through the device COO entry point under policy p: compared with the host
// reference; its transpose and (square) the pattern of A + A' with theirs.
void check_input(psv_context *ctx, const cuda::Policy &p, const Input &in, const char *setting) {
    cuda::set_policy(ctx, p);
    Backend &be = cuda::backend_of(ctx);
    int32_t *dr = to_device(in.r), *dc = to_device(in.c);
    float *dv = in.v.empty() ? nullptr : to_device(in.v);
    try {
        auto M = cuda::build_from_device_coo(be, in.nrows, in.ncols, PSV_FP32, (int64_t)in.r.size(), dr, dc, dv, FormatOptions{});
        const Tuples want = reference(in.r, in.c, in.v);
        const Tuples got = tuples_of(*M);
        CHECK_MSG(got.r == want.r && got.c == want.c && got.v == want.v, "%s (%s): %lld entries, want %lld", in.name, setting,
                  (long long)M->nvals, (long long)want.r.size());
        CHECK(M->nrows == in.nrows && M->ncols == in.ncols && M->pattern == in.v.empty());
        // the transpose: the reference's tuples swapped, in (column, row) order
        auto T = M->transposed();
        std::map<std::pair<int64_t, int64_t>, float> tw;
        for (size_t k = 0; k < want.r.size(); ++k) tw[{want.c[k], want.r[k]}] = want.v[k];
        const Tuples tg = tuples_of(*T);
        bool ok = (size_t)T->nvals == tw.size() && T->nrows == in.ncols && T->ncols == in.nrows;
        size_t k = 0;
        for (const auto &e : tw) {
            if (!ok) break;
            ok = tg.r[k] == e.first.first && tg.c[k] == e.first.second && tg.v[k] == e.second;
            ++k;
        }
        CHECK_MSG(ok, "%s (%s): the transpose differs", in.name, setting);
        if (in.nrows == in.ncols) {
            auto S = M->symmetric_pattern();
            std::set<std::pair<int64_t, int64_t>> sw;
            for (size_t q = 0; q < want.r.size(); ++q) {
                sw.insert({want.r[q], want.c[q]});
                sw.insert({want.c[q], want.r[q]});
            }
            const Tuples sg = tuples_of(*S);
            bool sok = (size_t)S->nvals == sw.size() && S->pattern;
            size_t q = 0;
            for (const auto &e : sw) {
                if (!sok) break;
                sok = sg.r[q] == e.first && sg.c[q] == e.second;
                ++q;
            }
            CHECK_MSG(sok, "%s (%s): the pattern of A + A' differs", in.name, setting);
        }
    } catch (const Error &e) {
        CHECK_MSG(false, "%s (%s): %s", in.name, setting, e.what());
    }
    cudaFree(dr);
    cudaFree(dc);
    if (dv) cudaFree(dv);
}

}  // namespace

int main() {
    gputest::require_device();
    const bool small = gputest::small_mode();
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_SUCCESS);
    const cuda::Policy base = cuda::policy_of(ctx);
    std::vector<Input> inputs;
    inputs.push_back(make_input("rmat-10 valued, dropped tuples", gputest::rmat(10, 8, 3), true, true, 1));
    inputs.push_back(make_input("rmat-10 pattern", gputest::rmat(10, 8, 4), false, false, 2));
    inputs.push_back(make_input("sparse rows 1000", gputest::random_edges(1000, 1000, 300, 5), true, false, 3));
    inputs.push_back(make_input("rectangular 50x4000", gputest::random_edges(50, 4000, 6000, 6), true, true, 4));
    inputs.push_back(make_input("rectangular 3000x40", gputest::random_edges(3000, 40, 9000, 7), false, true, 5));
    inputs.push_back(make_input("empty", gputest::Edges{10, 7, {}, {}}, true, false, 6));
    // many duplicates: 20 tuples per distinct entry on average
    inputs.push_back(make_input("duplicates", gputest::random_edges(64, 64, 40000, 8), true, false, 7));
    if (!small) inputs.push_back(make_input("rmat-16 valued", gputest::rmat(16, 16, 9), true, true, 8));
    // the transpose sorts at once under the defaults, and is assembled in chunks under the others
    struct Setting {
        const char *name;
        int64_t chunk, piece;
        double transpose_sort_share;
    };
    const Setting settings[] = {{"defaults", base.assemble_chunk, base.assemble_piece, base.transpose_sort_share},
                                {"defaults, transpose in chunks", base.assemble_chunk, base.assemble_piece, 0.0},
                                {"chunk 777, piece 1500", 777, 1500, 0.0},
                                {"chunk 1, piece 1", 1, 1, 0.0},
                                {"chunk 4096, piece 33", 4096, 33, 0.0}};
    for (const Setting &s : settings) {
        if (s.chunk == 1 && small) continue;  // one tuple a chunk: thousands of launches
        cuda::Policy p = base;
        p.assemble_chunk = s.chunk;
        p.assemble_piece = s.piece;
        p.transpose_sort_share = s.transpose_sort_share;
        for (const Input &in : inputs)
            if (!(s.chunk == 1 && in.r.size() > 20000)) check_input(ctx, p, in, s.name);
    }
    // an index outside the matrix: refused, nothing kept
    {
        cuda::set_policy(ctx, base);
        Backend &be = cuda::backend_of(ctx);
        const std::vector<int32_t> r = {0, 1, 2}, c = {0, 5, 1}, r2 = {0, 3, 1}, c2 = {0, 1, 2};
        int32_t *dr = to_device(r), *dc = to_device(c), *dr2 = to_device(r2), *dc2 = to_device(c2);
        const int64_t live = test_hooks::live_buffers.load();
        for (int k = 0; k < 2; ++k) {
            psv_status st = PSV_SUCCESS;
            try {
                // a column of 5 in a 3 x 3 matrix; then a row of 3
                cuda::build_from_device_coo(be, 3, 3, PSV_FP32, 3, k == 0 ? dr : dr2, k == 0 ? dc : dc2, nullptr, FormatOptions{});
            } catch (const Error &e) {
                st = e.status();
            }
            CHECK_MSG(st == PSV_ERROR_INVALID_INDEX, "bad index %d: status %d", k, (int)st);
            CHECK(test_hooks::live_buffers.load() == live);
        }
        cudaFree(dr);
        cudaFree(dc);
        cudaFree(dr2);
        cudaFree(dc2);
    }
    psv_context_free(&ctx);
    return check_exit();
}
