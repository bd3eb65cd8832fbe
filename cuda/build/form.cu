// Device construction of the tile-composite form (format.hpp describes the layout; the result
// equals build_tile_composite's for the same parameters) and of the TILE-COO form.
//
// Stages (all on the device except the per-tile bookkeeping, which is O(tiles + distinct row
// lengths) on the host):
//  1. column lengths (integer atomics), ranked by a stable radix sort on the complemented length
//  2. Algorithm 1: the count of columns of length >= 2 gives the dense tiles
//  3. one stable radix sort of the entries by (tile, row, tile-local rank) -- two when the key
//     does not fit 64 bits
//  4. row segments per tile (flags + scan); rows ranked per tile by a stable radix sort on
//     (tile, complemented length)
//  5. run-length encoding of the ranked lengths; the host runs the autotuner (Algorithm 2/3, the
//     same arithmetic as the CPU's) and packs workloads as groups of equal workloads
//  6. workloads, row placement and the padded slots are written by kernels.
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "cuda/build/build.cuh"
#include "cuda/build/form_kernels.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

// One build: the matrix, the form being filled, and the temporaries the stages hand on.
class FormBuilder {
public:
    FormBuilder(CudaBackend &be, const CudaMatrix &M, TcForm &F)
        : be(be), M(M), F(F), st(be.stream()), nrows(M.nrows), ncols(M.ncols), nnz(M.nvals),
          vs(M.pattern ? 0 : type_size(M.type)), col(M.col.as<int32_t>()), rp(M.row_ptr.as<int64_t>()) {}
    void split_tiles(int64_t tw, int64_t max_tiles, int64_t long2);
    void sort_entries();
    void segment_rows();
    void rank_rows();
    void encode_lengths();
    void plan_workloads(int64_t workload_size);
    void place_workloads();
    void fill_slots();
    void build_coo();

    Buffer rank_of;

private:
    CudaBackend &be;
    const CudaMatrix &M;
    TcForm &F;
    cudaStream_t st;
    const int64_t nrows, ncols, nnz;
    const size_t vs;
    const int32_t *col;
    const int64_t *rp;
    int64_t tw = 0, dense_cols = 0;
    int32_t nd = 0, ntiles_all = 0;
    TileMap tm{};
    Buffer src, d_tile, d_row, d_lr;                  // entries in (tile, row, rank) order
    std::vector<int64_t> tile_start, row_start;       // first entry / ranked row of each tile
    int64_t S = 0;                                    // row segments (a row's entries in a tile)
    Buffer seg_id, seg_start, seg_row, seg_tile;
    Buffer order, skey, pos_of_seg, p_tile;
    std::vector<uint64_t> run_key;                    // ranked lengths, run-length encoded
    std::vector<int32_t> run_count;
    std::vector<Group> groups;                        // groups of equal workloads
    std::vector<int64_t> g_wl, g_row;
    Buffer base, step;                                // each ranked row's first slot and stride
};

// 2. Algorithm 1: ranked lengths descend, so tile k is dense iff k*tw < (columns of length >= 2)
void FormBuilder::split_tiles(int64_t tw_, int64_t max_tiles, int64_t long2) {
    tw = tw_;
    F.tile_width = tw;
    int64_t limit = ncols / tw;
    if (max_tiles >= 0) limit = std::min(limit, max_tiles);
    const int64_t c2 = long2;
    nd = ncols > 0 ? (int32_t)std::min(limit, (c2 + tw - 1) / tw) : 0;
    F.dense_tiles = nd;
    dense_cols = (int64_t)nd * tw;
    ntiles_all = nd + 1;
    tm = TileMap{tw, dense_cols, nd};
}

// 3. entries sorted by (tile, row, local rank)
void FormBuilder::sort_entries() {
    Buffer row_e(&be, (size_t)nnz * 4);
    rows_of_entries(be, nnz, rp, nrows, row_e.as<int32_t>());
    src = Buffer(&be, (size_t)nnz * 4);
    {
        Buffer key(&be, (size_t)nnz * 8), skey(&be, (size_t)nnz * 8), idx(&be, (size_t)nnz * 4);
        const int rb = bits_for((uint64_t)std::max<int64_t>(0, nrows - 1));
        const int64_t span = std::max<int64_t>(nd > 0 ? tw : 0, ncols - dense_cols);
        const int lb = bits_for((uint64_t)std::max<int64_t>(0, span - 1));
        const int tb = bits_for((uint64_t)nd);
        if (tb + rb + lb <= 64) {
            launch(be, nnz, [&](unsigned g, int b) {
                entry_keys_kernel<<<g, b, 0, st>>>(nnz, row_e.as<int32_t>(), col, rank_of.as<int32_t>(), tm, rb, lb,
                                                   key.as<uint64_t>(), idx.as<uint32_t>());
            });
            const int end_bit = std::max(1, tb + rb + lb);
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(),
                                                         idx.as<uint32_t>(), src.as<uint32_t>(), nnz, 0, end_bit, st);
            });
        } else {
            Buffer tmp_idx(&be, (size_t)nnz * 4);
            launch(be, nnz, [&](unsigned g, int b) {
                rank_keys_kernel<<<g, b, 0, st>>>(nnz, col, rank_of.as<int32_t>(), key.as<uint64_t>(), idx.as<uint32_t>());
            });
            const int kb = std::max(1, bits_for((uint64_t)ncols));
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(),
                                                         idx.as<uint32_t>(), tmp_idx.as<uint32_t>(), nnz, 0, kb, st);
            });
            launch(be, nnz, [&](unsigned g, int b) {
                tile_row_keys_kernel<<<g, b, 0, st>>>(nnz, tmp_idx.as<uint32_t>(), row_e.as<int32_t>(), col,
                                                      rank_of.as<int32_t>(), tm, rb, key.as<uint64_t>());
            });
            const int end_bit = std::max(1, tb + rb);
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(),
                                                         tmp_idx.as<uint32_t>(), src.as<uint32_t>(), nnz, 0, end_bit, st);
            });
        }
    }
    d_tile = Buffer(&be, (size_t)nnz * 4);
    d_row = Buffer(&be, (size_t)nnz * 4);
    d_lr = Buffer(&be, (size_t)nnz * 4);
    launch(be, nnz, [&](unsigned g, int b) {
        decode_kernel<<<g, b, 0, st>>>(nnz, src.as<uint32_t>(), row_e.as<int32_t>(), col, rank_of.as<int32_t>(), tm,
                                       d_tile.as<int32_t>(), d_row.as<int32_t>(), d_lr.as<uint32_t>());
    });
    row_e.reset();
    rank_of.reset();
    tile_start.assign((size_t)ntiles_all + 1, 0);
    {
        Buffer ts(&be, tile_start.size() * 8);
        std::vector<int64_t> init(tile_start.size(), nnz);
        be.upload(ts.get(), init.data(), init.size() * 8);
        launch(be, nnz, [&](unsigned g, int b) { group_start_kernel<<<g, b, 0, st>>>(nnz, d_tile.as<int32_t>(), ts.as<int64_t>()); });
        be.download(tile_start.data(), ts.get(), tile_start.size() * 8);
    }
}

// 4. row segments (a row's entries within one tile)
void FormBuilder::segment_rows() {
    seg_id = Buffer(&be, (size_t)nnz * 4);
    int32_t S32 = 0;
    {
        Buffer flag(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            head_kernel<<<g, b, 0, st>>>(nnz, d_tile.as<int32_t>(), d_row.as<int32_t>(), flag.as<int32_t>());
        });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::InclusiveSum(tmp, bytes, flag.as<int32_t>(), seg_id.as<int32_t>(), nnz, st);
        });
        be.download(&S32, seg_id.as<int32_t>() + nnz - 1, 4);
        // seg_id holds the inclusive count; seg_kernel turns it into ids (in place is safe: each
        // thread reads and writes its own entry)
        F.n_rows = S32;
    }
    S = S32;
    seg_start = Buffer(&be, (size_t)S * 8);
    seg_row = Buffer(&be, (size_t)S * 4);
    seg_tile = Buffer(&be, (size_t)S * 4);
    {
        Buffer flag(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            head_kernel<<<g, b, 0, st>>>(nnz, d_tile.as<int32_t>(), d_row.as<int32_t>(), flag.as<int32_t>());
        });
        launch(be, nnz, [&](unsigned g, int b) {
            seg_kernel<<<g, b, 0, st>>>(nnz, flag.as<int32_t>(), seg_id.as<int32_t>(), d_tile.as<int32_t>(),
                                        d_row.as<int32_t>(), seg_start.as<int64_t>(), seg_row.as<int32_t>(),
                                        seg_tile.as<int32_t>(), seg_id.as<int32_t>());
        });
    }
}

// 4. the segments (rows) ranked within each tile by length
void FormBuilder::rank_rows() {
    order = Buffer(&be, (size_t)S * 4);
    skey = Buffer(&be, (size_t)S * 8);
    pos_of_seg = Buffer(&be, (size_t)S * 4);
    p_tile = Buffer(&be, (size_t)S * 4);
    F.row_ids = Buffer(&be, (size_t)S * 4);
    {
        Buffer key(&be, (size_t)S * 8), id(&be, (size_t)S * 4);
        launch(be, S, [&](unsigned g, int b) {
            seg_keys_kernel<<<g, b, 0, st>>>(S, nnz, seg_start.as<int64_t>(), seg_tile.as<int32_t>(), key.as<uint64_t>(),
                                             id.as<int32_t>());
        });
        const int end_bit = 32 + std::max(1, bits_for((uint64_t)nd));
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(), id.as<int32_t>(),
                                                     order.as<int32_t>(), S, 0, end_bit, st);
        });
        launch(be, S, [&](unsigned g, int b) {
            place_rows_kernel<<<g, b, 0, st>>>(S, order.as<int32_t>(), skey.as<uint64_t>(), seg_row.as<int32_t>(),
                                               pos_of_seg.as<int32_t>(), F.row_ids.as<int32_t>(), p_tile.as<int32_t>());
        });
    }
    seg_row.reset();
    seg_tile.reset();
    row_start.assign((size_t)ntiles_all + 1, 0);
    {
        Buffer rs(&be, row_start.size() * 8);
        std::vector<int64_t> init(row_start.size(), S);
        be.upload(rs.get(), init.data(), init.size() * 8);
        launch(be, S, [&](unsigned g, int b) { group_start_kernel<<<g, b, 0, st>>>(S, p_tile.as<int32_t>(), rs.as<int64_t>()); });
        be.download(row_start.data(), rs.get(), row_start.size() * 8);
    }
    p_tile.reset();
}

// 5. run-length encoding of the ranked lengths, per tile
void FormBuilder::encode_lengths() {
    {
        Buffer ukey(&be, (size_t)S * 8), cnt(&be, (size_t)S * 4), nruns(&be, 8);
        be.set_bytes(nruns.get(), 0, 8);
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRunLengthEncode::Encode(tmp, bytes, skey.as<uint64_t>(), ukey.as<uint64_t>(),
                                                        cnt.as<int32_t>(), nruns.as<int64_t>(), S, st);
        });
        int64_t R = 0;
        be.download(&R, nruns.get(), 8);
        run_key.resize((size_t)R);
        run_count.resize((size_t)R);
        be.download(run_key.data(), ukey.get(), (size_t)R * 8);
        be.download(run_count.data(), cnt.get(), (size_t)R * 4);
    }
    skey.reset();
}

// host: workload sizes (the autotuner where none is set), groups of equal workloads and the
// tiles' places
void FormBuilder::plan_workloads(int64_t workload_size) {
    const PerfModel model = be.perf_model();
    int64_t slots = 0, rows = 0, wls = 0, n16 = 0, n32 = 0;
    size_t ri = 0;
    std::vector<int64_t> rl, re;
    for (int32_t t = 0; t < ntiles_all; ++t) {
        Tile T;
        const int64_t cb = t < nd ? (int64_t)t * tw : dense_cols;
        const int64_t ce = t < nd ? cb + tw : ncols;
        T.col_begin = cb;
        T.col_end = ce;
        T.nvals = tile_start[t + 1] - tile_start[t];
        T.is_sparse = t == nd;
        T.index_bits = (ce - cb) < 65535 ? 16 : 32;
        const int64_t nr = row_start[t + 1] - row_start[t];
        T.row_count = nr;
        rl.clear();
        re.clear();
        int64_t acc = 0;
        while (ri < run_key.size() && (int64_t)(run_key[ri] >> 32) == t) {
            rl.push_back((int64_t)(0xFFFFFFFFu - (uint32_t)(run_key[ri] & 0xFFFFFFFFu)));
            acc += run_count[ri];
            re.push_back(acc);
            ++ri;
        }
        Runs runs{rl.data(), re.data(), (int64_t)rl.size()};
        T.workload_size = workload_size > 0 ? workload_size : choose_workload_size(runs, nr, T.nvals, model);
        if (T.is_sparse && T.nvals == 0) continue;
        T.entry_begin = slots;
        T.row_begin = rows;
        T.wl_begin = wls;
        // groups of equal workloads
        int64_t i = 0;
        size_t cur = 0;
        while (i < nr) {
            while (re[cur] <= i) ++cur;
            const int64_t w = std::max<int64_t>(1, rl[cur]);
            const int64_t H = workload_height(w, T.workload_size);
            const int64_t h = std::min(H, nr - i);
            int64_t cnt;
            if (h < H) cnt = 1;
            else cnt = std::min((re[cur] - i + H - 1) / H, (nr - i) / H);
            Group g;
            g.row_begin = rows + i;
            g.slot_begin = slots;
            g.wl_begin = wls;
            g.count = cnt;
            g.w = (int32_t)w;
            g.h = (int32_t)h;
            const WorkloadShape sh = workload_shape(w, h);
            g.layout = sh.layout;
            g.stride = sh.stride;
            g.area = sh.slots;
            groups.push_back(g);
            g_wl.push_back(wls);
            g_row.push_back(rows + i);
            slots += cnt * g.area;
            wls += cnt;
            i += cnt * h;
        }
        T.entry_end = slots;
        T.wl_end = wls;
        rows += nr;
        T.index_offset = T.index_bits == 16 ? n16 : n32;
        (T.index_bits == 16 ? n16 : n32) += T.entry_end - T.entry_begin;
        F.tiles.push_back(T);
    }
    F.n_workloads = wls;
    F.n16 = n16;
    F.n32 = n32;
    F.slots = slots;
}

// 6. workloads and row placement (each ranked row's first slot and slot step)
void FormBuilder::place_workloads() {
    const int64_t G = (int64_t)groups.size(), wls = F.n_workloads;
    Buffer gbuf(&be, groups.size() * sizeof(Group)), gwl(&be, (size_t)G * 8), grow(&be, (size_t)G * 8);
    be.upload(gbuf.get(), groups.data(), groups.size() * sizeof(Group));
    be.upload(gwl.get(), g_wl.data(), (size_t)G * 8);
    be.upload(grow.get(), g_row.data(), (size_t)G * 8);
    F.tiles_d = Buffer(&be, F.tiles.size() * sizeof(Tile));
    be.upload(F.tiles_d.get(), F.tiles.data(), F.tiles.size() * sizeof(Tile));
    F.workloads = Buffer(&be, (size_t)wls * sizeof(Workload));
    launch(be, wls, [&](unsigned g, int b) {
        workloads_kernel<<<g, b, 0, st>>>(wls, gbuf.as<Group>(), gwl.as<int64_t>(), G, F.workloads.as<Workload>());
    });
    base = Buffer(&be, (size_t)S * 8);
    step = Buffer(&be, (size_t)S * 4);
    launch(be, S, [&](unsigned g, int b) {
        row_place_kernel<<<g, b, 0, st>>>(S, gbuf.as<Group>(), grow.as<int64_t>(), G, base.as<int64_t>(), step.as<int32_t>());
    });
    // the group buffers are released on return: the pool reuses them in stream order
}

// 6. the padded slots: tile-local ranked columns (PAD elsewhere) and values
void FormBuilder::fill_slots() {
    const int64_t n16 = F.n16, n32 = F.n32, slots = F.slots;
    F.col16 = Buffer(&be, (size_t)n16 * 2);
    F.col32 = Buffer(&be, (size_t)n32 * 4);
    be.set_bytes(F.col16.get(), 0xFF, (size_t)n16 * 2);
    be.set_bytes(F.col32.get(), 0xFF, (size_t)n32 * 4);
    if (vs) {
        F.values = Buffer(&be, (size_t)slots * vs);
        be.set_bytes(F.values.get(), 0, (size_t)slots * vs);
    }
    auto args = [&](auto kern, unsigned g, int b) {
        kern<<<g, b, 0, st>>>(nnz, seg_id.as<int32_t>(), seg_start.as<int64_t>(), pos_of_seg.as<int32_t>(),
                              base.as<int64_t>(), step.as<int32_t>(), d_tile.as<int32_t>(), d_lr.as<uint32_t>(),
                              src.as<uint32_t>(), F.tiles_d.as<Tile>(), F.col16.as<uint16_t>(), F.col32.as<uint32_t>(),
                              M.val.as<uint8_t>(), F.values.as<uint8_t>());
    };
    launch(be, nnz, [&](unsigned g, int b) {
        if (vs == 0) args(fill_slots_kernel<0>, g, b);
        else if (vs == 1) args(fill_slots_kernel<1>, g, b);
        else if (vs == 4) args(fill_slots_kernel<4>, g, b);
        else args(fill_slots_kernel<8>, g, b);
    });
}

// TILE-COO: the sorted entries themselves, and warp ranges of whole rows
void FormBuilder::build_coo() {
    constexpr int64_t C = 256;  // entries per warp (nominal)
    F.coo_row = std::move(d_row);
    F.coo_col = std::move(d_lr);
    if (vs) {
        F.coo_val = Buffer(&be, (size_t)nnz * vs);
        gather_values(be, nnz, src.as<uint32_t>(), M.val.get(), F.coo_val.get(), vs);
    }
    F.coo_tile_begin.clear();
    F.coo_chunk_begin.clear();
    int64_t off = 0;
    for (const Tile &T : F.tiles) {
        const int32_t t = (int32_t)(&T - F.tiles.data());
        F.coo_tile_begin.push_back(tile_start[t]);
        F.coo_chunk_begin.push_back(off);
        off += (T.nvals + C - 1) / C + 1;
    }
    F.coo_tile_begin.push_back(nnz);
    F.coo_chunk_begin.push_back(off);
    F.coo_chunk = Buffer(&be, (size_t)off * 8);
    for (size_t t = 0; t < F.tiles.size(); ++t) {
        const int64_t nch = (F.tiles[t].nvals + C - 1) / C;
        const int64_t tb = tile_start[t], te = tile_start[t + 1];
        const int64_t co = F.coo_chunk_begin[t];
        coo_chunk_kernel<<<grid_for(nch + 1), 256, 0, st>>>(nch, co, tb, te, C, seg_start.as<int64_t>(), S,
                                                             F.coo_chunk.as<int64_t>());
        PSV_CUDA_LAUNCH_CHECK();
    }
}

}  // namespace

void build_form(CudaBackend &be, const CudaMatrix &M, const FormParams &p, int64_t hot_min_length, TcForm &F,
                ColumnStats &stats) {
    if (M.nvals > (int64_t)UINT32_MAX)
        fail(PSV_ERROR_NOT_IMPLEMENTED, "the CUDA builder handles at most 2^32-1 entries per matrix");
    FormBuilder b(be, M, F);
    // 1. rank the columns by length (stable: ties by lower column)
    stats = rank_columns(be, M, hot_min_length, F.col_order, &b.rank_of);
    b.split_tiles(p.tile_width, p.max_tiles, stats.long2);
    if (M.nvals == 0) return;
    b.sort_entries();
    b.segment_rows();
    b.rank_rows();
    b.encode_lengths();
    b.plan_workloads(p.workload_size);
    b.place_workloads();
    b.fill_slots();
    if (p.want_coo) b.build_coo();
    be.sync();  // temporaries are released on return; the pool reuses them in stream order
}

}  // namespace cuda
}  // namespace psv
