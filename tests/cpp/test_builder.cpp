// The host tile-composite builder against a hand-worked example (the paper's figure 1, made
// concrete: 8 x 8, four columns of length >= 2 cut into two tiles of width 2, workload size 4),
// Algorithm 1 / 2 / 3 pieces, and structural properties on random matrices: every entry stored
// exactly once, rows ranked, padding where it belongs, 16- and 32-bit tile indices.
#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "core/csr_build.hpp"
#include "core/format.hpp"
#include "psv/psv.h"
#include "check.h"

using namespace psv;

static CsrHost csr_of(int64_t nrows, int64_t ncols, const std::vector<std::pair<int64_t, int64_t>> &e,
                      const std::vector<float> *vals = nullptr) {
    std::vector<int64_t> r, c;
    for (auto &p : e) {
        r.push_back(p.first);
        c.push_back(p.second);
    }
    return build_csr(nrows, ncols, (int64_t)e.size(), r.data(), c.data(), vals ? vals->data() : nullptr,
                     PSV_FP32, PSV_NOOP);
}

static void figure1() {
    // ranked column R -> original column: R0=5 R1=2 R2=7 R3=0 R4=1 R5=3 R6=4 R7=6
    const int64_t orig[8] = {5, 2, 7, 0, 1, 3, 4, 6};
    // (row, ranked column) entries; column lengths 7,5,3,2,1,1,1,1
    const std::vector<std::pair<int64_t, int64_t>> ranked = {
        {1, 0}, {1, 1}, {3, 0}, {3, 1}, {4, 0}, {4, 1}, {6, 0}, {6, 1},  // tile 0, rows of length 2
        {0, 0}, {2, 0}, {7, 0}, {5, 1},                                  // tile 0, rows of length 1
        {0, 2}, {3, 2}, {5, 2}, {3, 3}, {7, 3},                          // tile 1
        {2, 4}, {6, 5}, {1, 6}, {4, 7}};                                 // the sparse tile
    std::vector<std::pair<int64_t, int64_t>> e;
    std::vector<float> vals;
    for (auto &p : ranked) {
        e.emplace_back(p.first, orig[p.second]);
        vals.push_back((float)(10 * p.first + p.second));  // value encodes (row, rank)
    }
    CsrHost A = csr_of(8, 8, e, &vals);
    TileComposite F = build_tile_composite(A, 2, -1, 4, PerfModel{});

    CHECK(F.dense_tiles == 2);
    CHECK(F.tiles.size() == 3);
    CHECK(std::equal(F.col_order.begin(), F.col_order.end(), std::begin(orig)));
    // tile ranges and sizes
    const int64_t cb[3] = {0, 2, 4}, ce[3] = {2, 4, 8}, nv[3] = {12, 5, 4}, rows[3] = {8, 4, 4},
                  slots[3] = {160, 96, 32};
    for (int t = 0; t < 3; ++t) {
        const Tile &T = F.tiles[t];
        CHECK(T.col_begin == cb[t] && T.col_end == ce[t] && T.nvals == nv[t] && T.row_count == rows[t]);
        CHECK(T.entry_end - T.entry_begin == slots[t]);
        CHECK(T.index_bits == 16 && T.workload_size == 4 && T.is_sparse == (t == 2));
    }
    // row ranking per tile
    const std::vector<int32_t> expect_rows = {1, 3, 4, 6, 0, 2, 5, 7, 3, 0, 5, 7, 1, 2, 4, 6};
    CHECK(F.row_ids == expect_rows);
    // workloads: (entry_begin, row_begin, h, w, stride, layout)
    struct W {
        int64_t eb, rb;
        int32_t h, w, stride, layout;
    };
    const W ew[] = {{0, 0, 2, 2, 32, kRowMajor},   {64, 2, 2, 2, 32, kRowMajor},  {128, 4, 4, 1, 32, kColMajor},
                    {160, 8, 2, 2, 32, kRowMajor}, {224, 10, 2, 1, 32, kColMajor}, {256, 12, 4, 1, 32, kColMajor}};
    CHECK(F.workloads.size() == 6);
    for (size_t i = 0; i < 6 && i < F.workloads.size(); ++i) {
        const Workload &w = F.workloads[i];
        CHECK_MSG(w.entry_begin == ew[i].eb && w.row_begin == ew[i].rb && w.height == ew[i].h && w.width == ew[i].w &&
                      w.stride == ew[i].stride && w.layout == ew[i].layout,
                  "workload %zu", i);
    }
    // slot contents: (slot, local column, row, rank) for every non-padding slot
    std::vector<uint16_t> cols(288, kPad16);
    std::vector<float> expect_vals(288, 0.0f);
    auto put = [&](int64_t slot, uint16_t c, int row, int rank) {
        cols[slot] = c;
        expect_vals[slot] = (float)(10 * row + rank);
    };
    put(0, 0, 1, 0), put(1, 1, 1, 1), put(32, 0, 3, 0), put(33, 1, 3, 1);          // workload 0
    put(64, 0, 4, 0), put(65, 1, 4, 1), put(96, 0, 6, 0), put(97, 1, 6, 1);        // workload 1
    put(128, 0, 0, 0), put(129, 0, 2, 0), put(130, 1, 5, 1), put(131, 0, 7, 0);    // workload 2 (ELL)
    put(160, 0, 3, 2), put(161, 1, 3, 3), put(192, 0, 0, 2);                        // tile 1, workload 3
    put(224, 0, 5, 2), put(225, 1, 7, 3);                                           // workload 4 (ELL)
    put(256, 2, 1, 6), put(257, 0, 2, 4), put(258, 3, 4, 7), put(259, 1, 6, 5);    // sparse tile
    CHECK(F.col16 == cols);
    CHECK(F.col32.empty());
    std::vector<float> got(288);
    REQUIRE(F.values.size() == 288 * sizeof(float));
    std::memcpy(got.data(), F.values.data(), F.values.size());
    CHECK(got == expect_vals);

    // the same through the C API
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_TILE_WIDTH, 2) == PSV_SUCCESS);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_WORKLOAD_SIZE, 4) == PSV_SUCCESS);
    std::vector<int64_t> r, c;
    for (auto &p : e) r.push_back(p.first), c.push_back(p.second);
    psv_matrix *M = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, 8, 8, (int64_t)e.size(), r.data(), c.data(), vals.data(), PSV_NOOP, &M) == PSV_SUCCESS);
    psv_matrix_info in;
    REQUIRE(psv_matrix_info_get(M, &in) == PSV_SUCCESS);
    CHECK(in.dense_tiles == 2 && in.sparse_tile == 1 && in.workloads == 6 && in.row_major_workloads == 3);
    CHECK(in.stored_entries == 288 && in.dense_columns == 4 && in.dense_nvals == 17);
    CHECK(in.max_row_length == 4 && in.max_col_length == 7);
    psv_tile_info ti;
    REQUIRE(psv_matrix_tile_info(M, 1, &ti) == PSV_SUCCESS);
    CHECK(ti.col_begin == 2 && ti.col_end == 4 && ti.rows == 4 && ti.nvals == 5 && ti.workloads == 2 && ti.stored_entries == 96);
    psv_matrix_free(&M);
    psv_context_free(&ctx);
}

static void algorithm1() {
    const int64_t len[] = {9, 5, 3, 3, 2, 2, 1, 1, 1, 0};
    CHECK(count_dense_tiles(len, 10, 2, -1) == 3);  // tiles start at 9, 3, 2; the 4th at 1 stops
    CHECK(count_dense_tiles(len, 10, 2, 1) == 1);
    CHECK(count_dense_tiles(len, 10, 2, 0) == 0);
    CHECK(count_dense_tiles(len, 10, 4, -1) == 2);  // 10/4 = 2 tiles at most
    CHECK(count_dense_tiles(len, 10, 11, -1) == 0);
}

static void autotuner() {
    PerfModel m;
    m.max_active_warps = 4;
    std::vector<int64_t> lengths;
    for (int i = 0; i < 40; ++i) lengths.push_back(i < 4 ? 64 : 3);
    int64_t nnz = 0;
    for (int64_t l : lengths) nnz += l;
    int64_t wl = choose_workload_size(lengths.data(), (int64_t)lengths.size(), nnz, m);
    CHECK(wl >= 64 && wl % 64 == 0);  // a multiple of the first row (Algorithm 2)
    CHECK(wl <= std::max<int64_t>(64, nnz / 4));
    CHECK(model_tile_time(lengths.data(), (int64_t)lengths.size(), wl, m) > 0);
    // one workload per row costs more than packing short rows together
    std::vector<int64_t> ones(1000, 1);
    CHECK(model_tile_time(ones.data(), 1000, 1, m) > model_tile_time(ones.data(), 1000, 32, m));
}

// Every entry of the CSR appears once in the form, at a position consistent with the layout.
static void properties(int64_t nrows, int64_t ncols, int64_t tile_width, int64_t wl, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::pair<int64_t, int64_t>> e;
    for (int64_t i = 0; i < nrows; ++i) {
        int len = (int)(rng() % 30);
        for (int k = 0; k < len; ++k) {
            double u = (double)(rng() >> 11) / 9007199254740992.0;
            e.emplace_back(i, (int64_t)(ncols * u * u));
        }
    }
    std::vector<float> v(e.size());
    for (size_t k = 0; k < e.size(); ++k) v[k] = (float)(k % 97);
    std::vector<int64_t> r, c;
    for (auto &p : e) r.push_back(p.first), c.push_back(p.second);
    CsrHost A = build_csr(nrows, ncols, (int64_t)e.size(), r.data(), c.data(), v.data(), PSV_FP32, PSV_PLUS);
    TileComposite F = build_tile_composite(A, tile_width, -1, wl, PerfModel{});
    std::map<std::pair<int64_t, int64_t>, float> seen;
    bool ok = true;
    std::vector<int32_t> sorted_order(F.col_order.begin(), F.col_order.end());
    std::sort(sorted_order.begin(), sorted_order.end());
    for (int64_t k = 0; k < ncols; ++k) ok &= sorted_order[k] == k;  // a permutation
    for (const Tile &T : F.tiles) {
        int64_t prev_len = INT64_MAX;
        for (int64_t wi = T.wl_begin; wi < T.wl_end; ++wi) {
            const Workload &W = F.workloads[wi];
            ok &= W.stride % kWarpSize == 0;
            ok &= (W.layout == kRowMajor) == (W.width >= W.height);
            for (int32_t q = 0; q < W.height; ++q) {
                int64_t len = 0;
                const int64_t rows_in_layout = W.layout == kRowMajor ? W.height : W.stride;
                (void)rows_in_layout;
                for (int32_t k = 0; k < (W.layout == kRowMajor ? W.stride : W.width); ++k) {
                    const int64_t pos = W.layout == kRowMajor ? (int64_t)q * W.stride + k : (int64_t)k * W.stride + q;
                    const int64_t slot = W.entry_begin + pos, local = slot - T.entry_begin;
                    const uint32_t col = T.index_bits == 16 ? (F.col16[T.index_offset + local] == kPad16 ? kPad32 : F.col16[T.index_offset + local])
                                                            : F.col32[T.index_offset + local];
                    if (col == kPad32) continue;
                    ok &= k < W.width;
                    ++len;
                    const int64_t orig = F.col_order[T.col_begin + col];
                    const int64_t row = F.row_ids[W.row_begin + q];
                    float val;
                    std::memcpy(&val, &F.values[slot * 4], 4);
                    ok &= seen.emplace(std::make_pair(row, orig), val).second;
                }
                ok &= len <= prev_len;  // rows ranked by length within the tile
                prev_len = len;
            }
        }
        ok &= T.index_bits == ((T.col_end - T.col_begin) < 65535 ? 16 : 32);
    }
    ok &= (int64_t)seen.size() == A.nvals();
    for (int64_t i = 0; i < nrows; ++i)
        for (int64_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
            float val;
            std::memcpy(&val, &A.values[p * 4], 4);
            auto it = seen.find({i, A.col[p]});
            ok &= it != seen.end() && it->second == val;
        }
    CHECK_MSG(ok, "structure of %lld x %lld, tile width %lld, workload %lld", (long long)nrows, (long long)ncols,
              (long long)tile_width, (long long)wl);
}

int main() {
    figure1();
    algorithm1();
    autotuner();
    properties(300, 200, 8, 0, 1);
    properties(300, 200, 8, 5, 2);
    properties(500, 1000, 64, 0, 3);
    properties(50, 3000, 1, 2, 4);
    properties(2000, 140000, 70000, 0, 5);  // 32-bit tile indices
    return check_exit();
}
