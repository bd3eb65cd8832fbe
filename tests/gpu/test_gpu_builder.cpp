// The device builder gives exactly the layout of the host builder (build_tile_composite) for the
// same parameters, over several matrices and option sets; the device transpose and the device
// COO entry point agree with the host ones.
#include <cuda_runtime.h>

#include "core/error.hpp"
#include "cuda/internal.hpp"
#include "gpu_common.hpp"

using namespace psv;

static bool same_tile(const Tile &a, const Tile &b) {
    return a.col_begin == b.col_begin && a.col_end == b.col_end && a.entry_begin == b.entry_begin &&
           a.entry_end == b.entry_end && a.index_offset == b.index_offset && a.row_begin == b.row_begin &&
           a.row_count == b.row_count && a.wl_begin == b.wl_begin && a.wl_end == b.wl_end && a.nvals == b.nvals &&
           a.workload_size == b.workload_size && a.index_bits == b.index_bits && a.is_sparse == b.is_sparse;
}

static void compare_forms(const TileComposite &g, const TileComposite &h, const char *what) {
    CHECK_MSG(g.tile_width == h.tile_width, "%s: tile width %lld vs %lld", what, (long long)g.tile_width, (long long)h.tile_width);
    CHECK_MSG(g.dense_tiles == h.dense_tiles, "%s: dense tiles %d vs %d", what, g.dense_tiles, h.dense_tiles);
    CHECK_MSG(g.col_order == h.col_order, "%s: col_order differs", what);
    CHECK_MSG(g.tiles.size() == h.tiles.size(), "%s: %zu tiles vs %zu", what, g.tiles.size(), h.tiles.size());
    for (size_t t = 0; t < std::min(g.tiles.size(), h.tiles.size()); ++t)
        CHECK_MSG(same_tile(g.tiles[t], h.tiles[t]), "%s: tile %zu differs (wl %lld vs %lld, slots %lld vs %lld)", what, t,
                  (long long)g.tiles[t].workload_size, (long long)h.tiles[t].workload_size,
                  (long long)g.tiles[t].entry_end, (long long)h.tiles[t].entry_end);
    bool wl_same = g.workloads.size() == h.workloads.size() &&
                   (g.workloads.empty() || std::memcmp(g.workloads.data(), h.workloads.data(), g.workloads.size() * sizeof(Workload)) == 0);
    CHECK_MSG(wl_same, "%s: workloads differ (%zu vs %zu)", what, g.workloads.size(), h.workloads.size());
    CHECK_MSG(g.row_ids == h.row_ids, "%s: row_ids differ", what);
    CHECK_MSG(g.col16 == h.col16, "%s: col16 differ (%zu vs %zu)", what, g.col16.size(), h.col16.size());
    CHECK_MSG(g.col32 == h.col32, "%s: col32 differ (%zu vs %zu)", what, g.col32.size(), h.col32.size());
    CHECK_MSG(g.values == h.values, "%s: values differ (%zu vs %zu bytes)", what, g.values.size(), h.values.size());
}

struct Case {
    const char *name;
    gputest::Edges E;
};

int main() {
    gputest::require_device();
    auto be = create_cuda_backend(0);
    const bool small = gputest::small_mode();
    std::vector<Case> cases;
    cases.push_back({"rmat-10", gputest::rmat(10, 8, 1)});
    cases.push_back({"random-300x200", gputest::random_edges(300, 200, 3000, 2)});
    cases.push_back({"random-rect-50x4000", gputest::random_edges(50, 4000, 6000, 3)});
    cases.push_back({"empty-rows-cols", gputest::random_edges(1000, 1000, 300, 4)});
    cases.push_back({"empty", gputest::Edges{10, 7, {}, {}}});
    cases.push_back({"one", gputest::Edges{1, 1, {0}, {0}}});
    if (!small) {
        cases.push_back({"rmat-16", gputest::rmat(16, 16, 5)});
        cases.push_back({"random-100k", gputest::random_edges(100000, 100000, 1200000, 6)});
        cases.push_back({"rmat-18", gputest::rmat(18, 16, 7)});
    }
    struct Opt {
        int64_t tw, mt, wl;
    };
    std::vector<Opt> opts = {{0, -1, 0}, {0, 2, 0}, {8, -1, 0}, {32, -1, 0}, {7, 3, 0}, {16, 0, 0}, {64, -1, 1},
                             {16, -1, 5}, {1, -1, 0}, {100000, -1, 64}};
    if (small) opts.resize(6);  // the sanitizer runs: default and explicit widths and tile limits
    const psv_type types[] = {PSV_FP32, PSV_FP64, PSV_INT32, PSV_BOOL, PSV_INT64};
    int ti = 0;
    for (auto &c : cases) {
        for (const Opt &o : opts) {
            const int64_t nnz = (int64_t)c.E.rows.size();
            if (o.tw == 1 && nnz > 200000) continue;  // the host builder is slow with 1-column tiles
            const psv_type t = types[ti++ % 5];
            const bool pattern = (ti % 3) == 0;
            CsrHost A = gputest::to_csr(c.E, t, pattern, 11 + ti);
            FormatOptions fo;
            fo.tile_width = o.tw;
            fo.max_tiles = o.mt;
            fo.workload_size = o.wl;
            const int64_t tw = o.tw > 0 ? o.tw : be->default_tile_width(pattern ? 4 : type_size(t));
            // neither a width nor a limit given: the backend's default limit applies
            const int64_t mt = (o.tw <= 0 && o.mt < 0) ? be->default_max_tiles() : o.mt;
            TileComposite h = build_tile_composite(A, tw, mt, o.wl, be->perf_model());
            CsrHost copy = A;
            char what[256];
            std::snprintf(what, sizeof what, "%s tw=%lld mt=%lld wl=%lld type=%s%s", c.name, (long long)o.tw,
                          (long long)o.mt, (long long)o.wl, type_name(t), pattern ? " pattern" : "");
            try {
                auto M = be->build_matrix(std::move(copy), fo);
                compare_forms(psv::cuda::download_form(*M), h, what);
                // transpose: tuples equal to the host transpose's
                auto T = M->transposed();
                CsrHost ht = transpose(A);
                std::vector<int64_t> r((size_t)T->nvals), cc((size_t)T->nvals);
                std::vector<uint8_t> v((size_t)T->nvals * type_size(t));
                T->extract_tuples(r.data(), cc.data(), v.data());
                bool ok = T->nvals == ht.nvals() && T->nrows == ht.nrows && T->ncols == ht.ncols;
                for (int64_t i = 0; ok && i < ht.nrows; ++i)
                    for (int64_t e = ht.row_ptr[i]; e < ht.row_ptr[i + 1]; ++e)
                        ok = ok && r[e] == i && cc[e] == ht.col[e] &&
                             (pattern || std::memcmp(&v[e * type_size(t)], &ht.values[e * type_size(t)], type_size(t)) == 0);
                CHECK_MSG(ok, "%s: device transpose differs", what);
                // the transpose's form too
                const int64_t twt = o.tw > 0 ? o.tw : be->default_tile_width(pattern ? 4 : type_size(t));
                compare_forms(psv::cuda::download_form(*T), build_tile_composite(ht, twt, mt, o.wl, be->perf_model()), what);
            } catch (const Error &e) {
                CHECK_MSG(false, "%s: %s", what, e.what());
            }
        }
    }
    // the device COO entry point (duplicates, any order) equals the host CSR path
    {
        gputest::Edges E = gputest::rmat(small ? 9 : 14, 16, 21);
        CsrHost A = gputest::to_csr(E, PSV_FP32, true, 1);
        std::vector<int32_t> r(E.rows.begin(), E.rows.end()), c(E.cols.begin(), E.cols.end());
        int32_t *dr = nullptr, *dc = nullptr;
        REQUIRE(cudaMalloc(&dr, r.size() * 4) == cudaSuccess && cudaMalloc(&dc, c.size() * 4) == cudaSuccess);
        cudaMemcpy(dr, r.data(), r.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
        FormatOptions fo;
        fo.tile_width = 64;
        auto M = cuda::build_from_device_coo(*be, E.nrows, E.ncols, PSV_FP32, (int64_t)r.size(), dr, dc, nullptr, fo);
        compare_forms(psv::cuda::download_form(*M), build_tile_composite(A, 64, -1, 0, be->perf_model()), "device COO");
        CHECK(M->nvals == A.nvals());
        cudaFree(dr);
        cudaFree(dc);
    }
    return check_exit();
}
