// Device construction of the tile-composite form (format.hpp describes the layout; the result
// equals build_tile_composite's for the same parameters), the TILE-COO form, the device
// transpose and COO -> CSR.
//
// Steps (all on the device except the per-tile bookkeeping, which is O(tiles + distinct row
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
#include <cmath>
#include <cstring>
#include <vector>

#include "cuda/cuda_backend.cuh"
#include "cuda/cuda_internal.hpp"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

int bits_for(uint64_t v) {  // bits needed to hold 0..v
    int b = 0;
    while (b < 64 && (v >> b) != 0) ++b;
    return b;
}

#define PSV_GRID_LOOP(i, n) \
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

template <class K> __device__ __forceinline__ int64_t upper_bound_d(const K *a, int64_t n, K v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (a[mid] <= v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
template <class K> __device__ __forceinline__ int64_t lower_bound_d(const K *a, int64_t n, K v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

__global__ void count_kernel(int64_t n, const int32_t *idx, int32_t *count) {
    PSV_GRID_LOOP(e, n) atomicAdd(&count[idx[e]], 1);
}

__global__ void col_keys_kernel(int64_t n, const int32_t *len, uint32_t *key, int32_t *id) {
    PSV_GRID_LOOP(c, n) {
        key[c] = ~(uint32_t)len[c];
        id[c] = (int32_t)c;
    }
}

// rank_of, ranked lengths' count of columns of length >= 2, the longest column, and the count
// of columns of length >= hot_len
__global__ void rank_kernel(int64_t n, const uint32_t *skey, const int32_t *order, int32_t *rank_of, uint32_t hot_len,
                            int64_t *stats) {
    PSV_GRID_LOOP(k, n) {
        rank_of[order[k]] = (int32_t)k;
        const uint32_t len = ~skey[k];
        const uint32_t next = k + 1 < n ? ~skey[k + 1] : 0u;
        if (len >= 2 && next < 2) stats[0] = k + 1;
        if (k == 0) stats[1] = len;
        if (len >= hot_len && next < hot_len) stats[2] = k + 1;
    }
}

__global__ void row_of_kernel(int64_t nnz, const int64_t *rp, int64_t nrows, int32_t *row) {
    PSV_GRID_LOOP(e, nnz) row[e] = (int32_t)(upper_bound_d(rp, nrows + 1, e) - 1);
}

struct TileMap {
    int64_t tw, dense_cols;
    int32_t nd;
    __device__ __forceinline__ int32_t tile(int64_t r) const { return r < dense_cols ? (int32_t)(r / tw) : nd; }
    __device__ __forceinline__ int64_t col_begin(int32_t t) const { return t < nd ? (int64_t)t * tw : dense_cols; }
};

__global__ void entry_keys_kernel(int64_t nnz, const int32_t *row, const int32_t *col, const int32_t *rank_of,
                                  TileMap tm, int rb, int lb, uint64_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(e, nnz) {
        const int64_t r = rank_of[col[e]];
        const int32_t t = tm.tile(r);
        const uint64_t lr = (uint64_t)(r - tm.col_begin(t));
        key[e] = ((uint64_t)t << (rb + lb)) | ((uint64_t)row[e] << lb) | lr;
        idx[e] = (uint32_t)e;
    }
}
// two-pass fallback: first by rank, then (stable) by tile and row
__global__ void rank_keys_kernel(int64_t nnz, const int32_t *col, const int32_t *rank_of, uint64_t *key,
                                 uint32_t *idx) {
    PSV_GRID_LOOP(e, nnz) {
        key[e] = (uint64_t)rank_of[col[e]];
        idx[e] = (uint32_t)e;
    }
}
__global__ void tile_row_keys_kernel(int64_t nnz, const uint32_t *src, const int32_t *row, const int32_t *col,
                                     const int32_t *rank_of, TileMap tm, int rb, uint64_t *key) {
    PSV_GRID_LOOP(d, nnz) {
        const uint32_t e = src[d];
        const int32_t t = tm.tile(rank_of[col[e]]);
        key[d] = ((uint64_t)t << rb) | (uint64_t)row[e];
    }
}

__global__ void decode_kernel(int64_t nnz, const uint32_t *src, const int32_t *row, const int32_t *col,
                              const int32_t *rank_of, TileMap tm, int32_t *d_tile, int32_t *d_row, uint32_t *d_lr) {
    PSV_GRID_LOOP(d, nnz) {
        const uint32_t e = src[d];
        const int64_t r = rank_of[col[e]];
        const int32_t t = tm.tile(r);
        d_tile[d] = t;
        d_row[d] = row[e];
        d_lr[d] = (uint32_t)(r - tm.col_begin(t));
    }
}

// start[t] = first position of group t in a sorted array of group ids (empty groups: the next
// start); start must be prefilled with n.
__global__ void group_start_kernel(int64_t n, const int32_t *g, int64_t *start) {
    PSV_GRID_LOOP(d, n) {
        const int32_t t = g[d];
        const int32_t tp = d > 0 ? g[d - 1] : -1;
        for (int32_t u = tp + 1; u <= t; ++u) start[u] = d;
    }
}

__global__ void head_kernel(int64_t nnz, const int32_t *d_tile, const int32_t *d_row, int32_t *flag) {
    PSV_GRID_LOOP(d, nnz) flag[d] = d == 0 || d_tile[d] != d_tile[d - 1] || d_row[d] != d_row[d - 1];
}

__global__ void seg_kernel(int64_t nnz, const int32_t *flag, const int32_t *incl, const int32_t *d_tile,
                           const int32_t *d_row, int64_t *seg_start, int32_t *seg_row, int32_t *seg_tile,
                           int32_t *seg_id) {
    PSV_GRID_LOOP(d, nnz) {
        const int32_t s = incl[d] - 1;
        seg_id[d] = s;
        if (flag[d]) {
            seg_start[s] = d;
            seg_row[s] = d_row[d];
            seg_tile[s] = d_tile[d];
        }
    }
}

__global__ void seg_keys_kernel(int64_t S, int64_t nnz, const int64_t *seg_start, const int32_t *seg_tile,
                                uint64_t *key, int32_t *id) {
    PSV_GRID_LOOP(s, S) {
        const int64_t len = (s + 1 < S ? seg_start[s + 1] : nnz) - seg_start[s];
        key[s] = ((uint64_t)seg_tile[s] << 32) | (uint64_t)(0xFFFFFFFFu - (uint32_t)len);
        id[s] = (int32_t)s;
    }
}

__global__ void place_rows_kernel(int64_t S, const int32_t *order, const uint64_t *skey, const int32_t *seg_row,
                                  int32_t *pos_of_seg, int32_t *row_ids, int32_t *p_tile) {
    PSV_GRID_LOOP(p, S) {
        const int32_t s = order[p];
        pos_of_seg[s] = (int32_t)p;
        row_ids[p] = seg_row[s];
        p_tile[p] = (int32_t)(skey[p] >> 32);
    }
}

struct Group {
    int64_t row_begin;   // global ranked row position of its first workload
    int64_t slot_begin;  // global slot of its first workload
    int64_t wl_begin;    // global index of its first workload
    int64_t count;       // equal workloads in the group
    int64_t area;        // slots per workload
    int32_t w, h, stride, layout;
};

__global__ void workloads_kernel(int64_t nwl, const Group *g, const int64_t *g_wl, int64_t G, Workload *out) {
    PSV_GRID_LOOP(wi, nwl) {
        const int64_t k = upper_bound_d(g_wl, G, wi) - 1;
        const Group gr = g[k];
        const int64_t j = wi - gr.wl_begin;
        Workload W;
        W.entry_begin = gr.slot_begin + j * gr.area;
        W.row_begin = gr.row_begin + j * gr.h;
        W.height = gr.h;
        W.width = gr.w;
        W.stride = gr.stride;
        W.layout = gr.layout;
        out[wi] = W;
    }
}

__global__ void row_place_kernel(int64_t nrows, const Group *g, const int64_t *g_row, int64_t G, int64_t *base,
                                 int32_t *step) {
    PSV_GRID_LOOP(p, nrows) {
        const int64_t k = upper_bound_d(g_row, G, p) - 1;
        const Group gr = g[k];
        const int64_t off = p - gr.row_begin;
        const int64_t j = off / gr.h, q = off % gr.h;
        const int64_t eb = gr.slot_begin + j * gr.area;
        if (gr.layout == kRowMajor) {
            base[p] = eb + q * gr.stride;
            step[p] = 1;
        } else {
            base[p] = eb + q;
            step[p] = gr.stride;
        }
    }
}

template <int VS>
__global__ void fill_slots_kernel(int64_t nnz, const int32_t *seg_id, const int64_t *seg_start,
                                  const int32_t *pos_of_seg, const int64_t *base, const int32_t *step,
                                  const int32_t *d_tile, const uint32_t *d_lr, const uint32_t *src, const Tile *tiles,
                                  uint16_t *col16, uint32_t *col32, const uint8_t *val, uint8_t *out_val) {
    PSV_GRID_LOOP(d, nnz) {
        const int32_t s = seg_id[d];
        const int64_t k = d - seg_start[s];
        const int32_t p = pos_of_seg[s];
        const int64_t slot = base[p] + k * step[p];
        const Tile &T = tiles[d_tile[d]];
        const int64_t local = slot - T.entry_begin;
        if (T.index_bits == 16) col16[T.index_offset + local] = (uint16_t)d_lr[d];
        else col32[T.index_offset + local] = d_lr[d];
        if (VS) {
            const uint8_t *from = val + (size_t)src[d] * VS;
            uint8_t *to = out_val + slot * VS;
            if (VS == 1) *to = *from;
            else if (VS == 4) *reinterpret_cast<uint32_t *>(to) = *reinterpret_cast<const uint32_t *>(from);
            else *reinterpret_cast<uint64_t *>(to) = *reinterpret_cast<const uint64_t *>(from);
        }
    }
}

template <int VS> __global__ void gather_values_kernel(int64_t n, const uint32_t *src, const uint8_t *val, uint8_t *out) {
    PSV_GRID_LOOP(d, n) {
        const uint8_t *from = val + (size_t)src[d] * VS;
        uint8_t *to = out + (size_t)d * VS;
        if (VS == 1) *to = *from;
        else if (VS == 4) *reinterpret_cast<uint32_t *>(to) = *reinterpret_cast<const uint32_t *>(from);
        else *reinterpret_cast<uint64_t *>(to) = *reinterpret_cast<const uint64_t *>(from);
    }
}

void gather_values(CudaBackend &be, int64_t n, const uint32_t *src, const void *val, void *out, size_t vs) {
    if (n <= 0) return;
    const auto *v = static_cast<const uint8_t *>(val);
    auto *o = static_cast<uint8_t *>(out);
    if (vs == 1) gather_values_kernel<1><<<grid_for(n), 256, 0, be.stream()>>>(n, src, v, o);
    else if (vs == 4) gather_values_kernel<4><<<grid_for(n), 256, 0, be.stream()>>>(n, src, v, o);
    else gather_values_kernel<8><<<grid_for(n), 256, 0, be.stream()>>>(n, src, v, o);
    PSV_CUDA_LAUNCH_CHECK();
}

__global__ void coo_chunk_kernel(int64_t nchunks, int64_t chunk_off, int64_t tb, int64_t te, int64_t C,
                                 const int64_t *seg_start, int64_t S, int64_t *out) {
    PSV_GRID_LOOP(c, nchunks + 1) {
        const int64_t b = tb + c * C;
        int64_t r;
        if (b >= te) r = te;
        else {
            const int64_t k = lower_bound_d(seg_start, S, b);
            r = k < S ? seg_start[k] : te;
            if (r > te) r = te;
        }
        out[chunk_off + c] = r;
    }
}

// ---- run-length encoded row lengths for the shared autotuner (core/format.hpp) --------------

struct Runs {
    const int64_t *len;  // length of each run (descending)
    const int64_t *end;  // exclusive end row of each run
    int64_t n;
    mutable int64_t cur = 0;
    int64_t operator[](int64_t i) const {
        if (cur >= n || (cur > 0 && end[cur - 1] > i)) cur = 0;
        while (end[cur] <= i) ++cur;
        return len[cur];
    }
};

template <class F> void launch(CudaBackend &, int64_t n, F &&f) {
    if (n <= 0) return;
    f(grid_for(n), 256);
    PSV_CUDA_LAUNCH_CHECK();
}

}  // namespace

void build_form(CudaBackend &be, CudaMatrix &M, int64_t tw, int64_t max_tiles, int64_t workload_size, bool want_coo) {
    cudaStream_t st = be.stream();
    TcForm F;
    F.tile_width = tw;
    const int64_t nrows = M.nrows, ncols = M.ncols, nnz = M.nvals;
    const size_t vs = M.pattern ? 0 : type_size(M.type);
    if (nnz > (int64_t)UINT32_MAX)
        fail(PSV_ERROR_NOT_IMPLEMENTED, "the CUDA builder handles at most 2^32-1 entries per matrix");
    const int32_t *col = M.col.as<int32_t>();
    const int64_t *rp = M.row_ptr.as<int64_t>();

    // 1. rank the columns by length (stable: ties by lower column)
    F.col_order = Buffer(&be, (size_t)ncols * 4);
    Buffer rank_of(&be, (size_t)ncols * 4);
    int64_t stats[3] = {0, 0, 0};
    if (ncols > 0) {
        Buffer len(&be, (size_t)ncols * 4), key(&be, (size_t)ncols * 4), skey(&be, (size_t)ncols * 4),
            id(&be, (size_t)ncols * 4), st_d(&be, 24);
        be.set_bytes(len.get(), 0, (size_t)ncols * 4);
        be.set_bytes(st_d.get(), 0, 24);
        launch(be, nnz, [&](unsigned g, int b) { count_kernel<<<g, b, 0, st>>>(nnz, col, len.as<int32_t>()); });
        launch(be, ncols, [&](unsigned g, int b) {
            col_keys_kernel<<<g, b, 0, st>>>(ncols, len.as<int32_t>(), key.as<uint32_t>(), id.as<int32_t>());
        });
        const int hb = std::max(1, bits_for((uint64_t)nrows));
        be.cub_call([&](void *tmp, size_t &bytes) {
            // keys ~len: the high bits are all ones for len < 2^hb; sort all 32 bits
            (void)hb;
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint32_t>(), skey.as<uint32_t>(), id.as<int32_t>(),
                                                     F.col_order.as<int32_t>(), ncols, 0, 32, st);
        });
        launch(be, ncols, [&](unsigned g, int b) {
            rank_kernel<<<g, b, 0, st>>>(ncols, skey.as<uint32_t>(), F.col_order.as<int32_t>(), rank_of.as<int32_t>(),
                                         (uint32_t)hot_min_length(be.sm_count()), st_d.as<int64_t>());
        });
        be.download(stats, st_d.get(), 24);
    }
    F.max_col_length = stats[1];
    F.hot_columns = stats[2];

    // 2. Algorithm 1: ranked lengths descend, so tile k is dense iff k*tw < (columns of length >= 2)
    int64_t limit = ncols / tw;
    if (max_tiles >= 0) limit = std::min(limit, max_tiles);
    const int64_t c2 = stats[0];
    const int32_t nd = ncols > 0 ? (int32_t)std::min(limit, (c2 + tw - 1) / tw) : 0;
    F.dense_tiles = nd;
    const int64_t dense_cols = (int64_t)nd * tw;
    const int32_t ntiles_all = nd + 1;
    TileMap tm{tw, dense_cols, nd};

    if (nnz == 0) {
        M.form = std::move(F);
        return;
    }

    // 3. entries sorted by (tile, row, local rank)
    Buffer row_e(&be, (size_t)nnz * 4);
    launch(be, nnz, [&](unsigned g, int b) { row_of_kernel<<<g, b, 0, st>>>(nnz, rp, nrows, row_e.as<int32_t>()); });
    Buffer src(&be, (size_t)nnz * 4);
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
    Buffer d_tile(&be, (size_t)nnz * 4), d_row(&be, (size_t)nnz * 4), d_lr(&be, (size_t)nnz * 4);
    launch(be, nnz, [&](unsigned g, int b) {
        decode_kernel<<<g, b, 0, st>>>(nnz, src.as<uint32_t>(), row_e.as<int32_t>(), col, rank_of.as<int32_t>(), tm,
                                       d_tile.as<int32_t>(), d_row.as<int32_t>(), d_lr.as<uint32_t>());
    });
    row_e.reset();
    rank_of.reset();
    std::vector<int64_t> tile_start((size_t)ntiles_all + 1);
    {
        Buffer ts(&be, tile_start.size() * 8);
        std::vector<int64_t> init(tile_start.size(), nnz);
        be.upload(ts.get(), init.data(), init.size() * 8);
        launch(be, nnz, [&](unsigned g, int b) { group_start_kernel<<<g, b, 0, st>>>(nnz, d_tile.as<int32_t>(), ts.as<int64_t>()); });
        be.download(tile_start.data(), ts.get(), tile_start.size() * 8);
    }

    // 4. row segments and their ranking within each tile
    Buffer seg_id(&be, (size_t)nnz * 4);
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
    const int64_t S = S32;
    Buffer seg_start(&be, (size_t)S * 8), seg_row(&be, (size_t)S * 4), seg_tile(&be, (size_t)S * 4);
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
    Buffer order(&be, (size_t)S * 4), skey(&be, (size_t)S * 8), pos_of_seg(&be, (size_t)S * 4), p_tile(&be, (size_t)S * 4);
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
    std::vector<int64_t> row_start((size_t)ntiles_all + 1);
    {
        Buffer rs(&be, row_start.size() * 8);
        std::vector<int64_t> init(row_start.size(), S);
        be.upload(rs.get(), init.data(), init.size() * 8);
        launch(be, S, [&](unsigned g, int b) { group_start_kernel<<<g, b, 0, st>>>(S, p_tile.as<int32_t>(), rs.as<int64_t>()); });
        be.download(row_start.data(), rs.get(), row_start.size() * 8);
    }
    p_tile.reset();

    // 5. run-length encoding of the ranked lengths, per tile
    std::vector<uint64_t> run_key;
    std::vector<int32_t> run_count;
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

    // host: workload sizes, workload groups and the tiles' places
    const PerfModel model = be.perf_model();
    std::vector<Group> groups;
    std::vector<int64_t> g_wl, g_row;
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

    // 6. workloads, row placement, slots
    const int64_t G = (int64_t)groups.size();
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
    Buffer base(&be, (size_t)S * 8), step(&be, (size_t)S * 4);
    launch(be, S, [&](unsigned g, int b) {
        row_place_kernel<<<g, b, 0, st>>>(S, gbuf.as<Group>(), grow.as<int64_t>(), G, base.as<int64_t>(), step.as<int32_t>());
    });
    F.col16 = Buffer(&be, (size_t)n16 * 2);
    F.col32 = Buffer(&be, (size_t)n32 * 4);
    be.set_bytes(F.col16.get(), 0xFF, (size_t)n16 * 2);
    be.set_bytes(F.col32.get(), 0xFF, (size_t)n32 * 4);
    if (vs) {
        F.values = Buffer(&be, (size_t)slots * vs);
        be.set_bytes(F.values.get(), 0, (size_t)slots * vs);
    }
    {
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
    if (want_coo) {
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
    be.sync();  // temporaries are released on return; the pool reuses them in stream order
    M.form = std::move(F);
}

// ---- transpose -------------------------------------------------------------------------------

__global__ void iota_keys_kernel(int64_t n, const int32_t *col, uint32_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(e, n) {
        key[e] = (uint32_t)col[e];
        idx[e] = (uint32_t)e;
    }
}
__global__ void len_to_ptr_kernel(int64_t n, const int32_t *len, int64_t *out) {
    PSV_GRID_LOOP(i, n) out[i] = len[i];
}
__global__ void gather_rows_kernel(int64_t n, const uint32_t *perm, const int32_t *row, int32_t *out) {
    PSV_GRID_LOOP(d, n) out[d] = row[perm[d]];
}

// row_ptr of n rows from per-row counts (exclusive scan into n + 1 entries)
static void counts_to_row_ptr(CudaBackend &be, int64_t n, const int32_t *count, Buffer &row_ptr) {
    cudaStream_t st = be.stream();
    row_ptr = Buffer(&be, (size_t)(n + 1) * 8);
    be.set_bytes(row_ptr.get(), 0, (size_t)(n + 1) * 8);
    if (n == 0) return;
    Buffer c64(&be, (size_t)(n + 1) * 8);
    be.set_bytes(c64.get(), 0, (size_t)(n + 1) * 8);
    launch(be, n, [&](unsigned g, int b) { len_to_ptr_kernel<<<g, b, 0, st>>>(n, count, c64.as<int64_t>()); });
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceScan::ExclusiveSum(tmp, bytes, c64.as<int64_t>(), row_ptr.as<int64_t>(), n + 1, st);
    });
}

void transpose_csr(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T) {
    cudaStream_t st = be.stream();
    T.nrows = A.ncols;
    T.ncols = A.nrows;
    T.type = A.type;
    T.pattern = A.pattern;
    T.nvals = A.nvals;
    const int64_t nnz = A.nvals;
    const size_t vs = A.pattern ? 0 : type_size(A.type);
    if (nnz > (int64_t)UINT32_MAX) fail(PSV_ERROR_NOT_IMPLEMENTED, "the CUDA transpose handles at most 2^32-1 entries");
    Buffer cnt(&be, (size_t)std::max<int64_t>(1, T.nrows) * 4);
    be.set_bytes(cnt.get(), 0, (size_t)std::max<int64_t>(1, T.nrows) * 4);
    launch(be, nnz, [&](unsigned g, int b) { count_kernel<<<g, b, 0, st>>>(nnz, A.col.as<int32_t>(), cnt.as<int32_t>()); });
    counts_to_row_ptr(be, T.nrows, cnt.as<int32_t>(), T.row_ptr);
    T.col = Buffer(&be, (size_t)nnz * 4);
    if (vs) T.val = Buffer(&be, (size_t)nnz * vs);
    if (nnz == 0) return;
    Buffer key(&be, (size_t)nnz * 4), skey(&be, (size_t)nnz * 4), idx(&be, (size_t)nnz * 4), perm(&be, (size_t)nnz * 4),
        row(&be, (size_t)nnz * 4);
    launch(be, nnz, [&](unsigned g, int b) {
        iota_keys_kernel<<<g, b, 0, st>>>(nnz, A.col.as<int32_t>(), key.as<uint32_t>(), idx.as<uint32_t>());
    });
    const int kb = std::max(1, bits_for((uint64_t)std::max<int64_t>(0, A.ncols - 1)));
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint32_t>(), skey.as<uint32_t>(), idx.as<uint32_t>(),
                                                 perm.as<uint32_t>(), nnz, 0, kb, st);
    });
    launch(be, nnz, [&](unsigned g, int b) {
        row_of_kernel<<<g, b, 0, st>>>(nnz, A.row_ptr.as<int64_t>(), A.nrows, row.as<int32_t>());
    });
    launch(be, nnz, [&](unsigned g, int b) {
        gather_rows_kernel<<<g, b, 0, st>>>(nnz, perm.as<uint32_t>(), row.as<int32_t>(), T.col.as<int32_t>());
    });
    if (vs) gather_values(be, nnz, perm.as<uint32_t>(), A.val.get(), T.val.get(), vs);
    be.sync();
}

// ---- COO -> CSR on the device ------------------------------------------------------------------

__global__ void coo_keys_kernel(int64_t n, const int32_t *r, const int32_t *c, int cb, uint64_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(e, n) {
        key[e] = ((uint64_t)(uint32_t)r[e] << cb) | (uint64_t)(uint32_t)c[e];
        idx[e] = (uint32_t)e;
    }
}
__global__ void unique_flag_kernel(int64_t n, const uint64_t *key, int32_t *flag) {
    PSV_GRID_LOOP(d, n) flag[d] = d == 0 || key[d] != key[d - 1];
}
__global__ void compact_kernel(int64_t n, const uint64_t *key, const int32_t *flag, const int32_t *incl, const uint32_t *perm,
                               int cb, int32_t *col, int32_t *row, uint32_t *src) {
    PSV_GRID_LOOP(d, n) {
        if (!flag[d]) continue;
        const int32_t p = incl[d] - 1;
        col[p] = (int32_t)(key[d] & ((1ull << cb) - 1));
        row[p] = (int32_t)(key[d] >> cb);
        src[p] = perm[d];
    }
}

std::unique_ptr<MatrixStore> build_from_device_coo(Backend &be_, int64_t nrows, int64_t ncols, psv_type type, int64_t nnz,
                                                   const int32_t *rows, const int32_t *cols, const void *values,
                                                   const FormatOptions &opt) {
    if (!is_cuda(be_)) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA context");
    CudaBackend &be = static_cast<CudaBackend &>(be_);
    be.activate();
    cudaStream_t st = be.stream();
    if (nnz > (int64_t)UINT32_MAX) fail(PSV_ERROR_NOT_IMPLEMENTED, "at most 2^32-1 tuples");
    const size_t vs = values ? type_size(type) : 0;
    const int cb = std::max(1, bits_for((uint64_t)std::max<int64_t>(0, ncols - 1)));
    const int rb = std::max(1, bits_for((uint64_t)std::max<int64_t>(0, nrows - 1)));
    Buffer key(&be, (size_t)std::max<int64_t>(1, nnz) * 8), skey(&be, (size_t)std::max<int64_t>(1, nnz) * 8),
        idx(&be, (size_t)std::max<int64_t>(1, nnz) * 4), perm(&be, (size_t)std::max<int64_t>(1, nnz) * 4);
    int32_t m = 0;
    Buffer col, row, src;
    if (nnz > 0) {
        launch(be, nnz, [&](unsigned g, int b) { coo_keys_kernel<<<g, b, 0, st>>>(nnz, rows, cols, cb, key.as<uint64_t>(), idx.as<uint32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(), idx.as<uint32_t>(),
                                                     perm.as<uint32_t>(), nnz, 0, cb + rb, st);
        });
        key.reset();
        idx.reset();
        Buffer flag(&be, (size_t)nnz * 4), incl(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) { unique_flag_kernel<<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), flag.as<int32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::InclusiveSum(tmp, bytes, flag.as<int32_t>(), incl.as<int32_t>(), nnz, st);
        });
        be.download(&m, incl.as<int32_t>() + nnz - 1, 4);
        col = Buffer(&be, (size_t)m * 4);
        row = Buffer(&be, (size_t)m * 4);
        src = Buffer(&be, (size_t)m * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            compact_kernel<<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), flag.as<int32_t>(), incl.as<int32_t>(), perm.as<uint32_t>(), cb,
                                            col.as<int32_t>(), row.as<int32_t>(), src.as<uint32_t>());
        });
    }
    skey.reset();
    perm.reset();
    Buffer cnt(&be, (size_t)std::max<int64_t>(1, nrows) * 4);
    be.set_bytes(cnt.get(), 0, (size_t)std::max<int64_t>(1, nrows) * 4);
    launch(be, m, [&](unsigned g, int b) { count_kernel<<<g, b, 0, st>>>(m, row.as<int32_t>(), cnt.as<int32_t>()); });
    Buffer rp;
    counts_to_row_ptr(be, nrows, cnt.as<int32_t>(), rp);
    Buffer val;
    if (vs) {
        val = Buffer(&be, (size_t)std::max(1, m) * vs);
        gather_values(be, m, src.as<uint32_t>(), values, val.get(), vs);
    }
    return be.build_from_device_csr(nrows, ncols, type, vs == 0, rp.as<int64_t>(), col.as<int32_t>(), val.get(), opt);
}

// ---- the pattern of A + A' (RWR's graph) ----------------------------------------------------------

// r2[0 .. nnz) holds each entry's row (row_of_kernel); the entries and their mirrors follow.
__global__ void mirror_kernel(int64_t nnz, const int32_t *col, int32_t *r2, int32_t *c2) {
    PSV_GRID_LOOP(e, nnz) {
        const int32_t i = r2[e], j = col[e];
        c2[e] = j;
        r2[nnz + e] = j, c2[nnz + e] = i;
    }
}

std::unique_ptr<MatrixStore> symmetric_pattern(CudaBackend &be, const CudaMatrix &A) {
    if (A.nrows != A.ncols) fail(PSV_ERROR_DIMENSION_MISMATCH, "the pattern of A + A' needs a square matrix");
    const int64_t nnz = A.nvals, m = 2 * nnz;
    if (m > (int64_t)UINT32_MAX) fail(PSV_ERROR_NOT_IMPLEMENTED, "the CUDA pattern of A + A' handles A of at most 2^31-1 entries");
    cudaStream_t st = be.stream();
    Buffer r2(&be, (size_t)std::max<int64_t>(1, m) * 4), c2(&be, (size_t)std::max<int64_t>(1, m) * 4);
    launch(be, nnz, [&](unsigned g, int b) {
        row_of_kernel<<<g, b, 0, st>>>(nnz, A.row_ptr.as<int64_t>(), A.nrows, r2.as<int32_t>());
    });
    launch(be, nnz, [&](unsigned g, int b) {
        mirror_kernel<<<g, b, 0, st>>>(nnz, A.col.as<int32_t>(), r2.as<int32_t>(), c2.as<int32_t>());
    });
    return build_from_device_coo(be, A.nrows, A.ncols, PSV_FP32, m, r2.as<int32_t>(), c2.as<int32_t>(), nullptr, A.options);
}

// ---- the CSR chunk plan ----------------------------------------------------------------------

namespace {

// Chunk k starts at entry k*C, moved back to the start of the row holding it unless that row is
// longer than C (chunk 0 starts at 0, the end is nnz). The starts increase strictly: a row of at
// most C entries cannot hold two multiples of C.
__global__ void chunk_begin_kernel(int64_t K, int64_t C, int64_t n, int64_t nnz, const int64_t *rp, int64_t *begin) {
    PSV_GRID_LOOP(k, K + 1) {
        int64_t b;
        if (k == 0) b = 0;
        else if (k == K) b = nnz;
        else {
            const int64_t pos = k * C;
            const int64_t r = upper_bound_d<int64_t>(rp, n + 1, pos) - 1;  // rp[r] <= pos < rp[r + 1]
            b = rp[r + 1] - rp[r] > C ? pos : rp[r];
        }
        begin[k] = b;
    }
}

// The first row starting at or after each chunk's start (empty rows at the start included).
__global__ void chunk_rows_kernel(int64_t K, int64_t n, const int64_t *rp, const int64_t *begin, int32_t *first_row) {
    PSV_GRID_LOOP(k, K + 1) first_row[k] = (int32_t)(k == K ? n : lower_bound_d<int64_t>(rp, n, begin[k]));
}

// Each long row's first chunk and its count of chunks (pieces).
__global__ void long_span_kernel(int64_t nlong, int64_t K, const int32_t *rows, const int64_t *rp, const int64_t *begin,
                                 int64_t *first, int32_t *pieces) {
    PSV_GRID_LOOP(j, nlong) {
        const int32_t r = rows[j];
        const int64_t bs = upper_bound_d<int64_t>(begin, K + 1, rp[r]) - 1;
        const int64_t be = upper_bound_d<int64_t>(begin, K + 1, rp[r + 1] - 1) - 1;
        first[j] = bs;
        pieces[j] = (int32_t)(be - bs + 1);
    }
}

__global__ void long_map_kernel(int64_t nlong, const int64_t *first, const int64_t *slot, int32_t *head, int32_t *tail) {
    PSV_GRID_LOOP(j, nlong) {
        const int64_t bs = first[j], np = slot[j + 1] - slot[j];
        tail[bs] = (int32_t)j;
        for (int64_t p = 1; p < np; ++p) head[bs + p] = (int32_t)j;
    }
}

__global__ void long_rows_kernel(int64_t n, const int64_t *rp, int64_t min_len, int32_t *list, unsigned long long *count) {
    PSV_GRID_LOOP(i, n)
    if (rp[i + 1] - rp[i] > min_len) list[atomicAdd(count, 1ull)] = (int32_t)i;
}

// col_enc (CudaMatrix::ChunkPlan): rank | 2^31 for a hot column, else the rank (ranked, below
// prefix), prefix + the column (ranked, from prefix on) or the column
__global__ void encode_cols_kernel(int64_t nnz, const int32_t *col, const int32_t *rank_of, int64_t hot, bool ranked,
                                   int64_t prefix, int32_t *out) {
    PSV_GRID_LOOP(q, nnz) {
        const int32_t c = col[q], r = rank_of[c];
        out[q] = r < hot ? (int32_t)((uint32_t)r | 0x80000000u) : !ranked ? c : r < prefix ? r : (int32_t)(prefix + c);
    }
}
__global__ void invert_kernel(int64_t n, const int32_t *order, int32_t *rank_of) {
    PSV_GRID_LOOP(k, n) rank_of[order[k]] = (int32_t)k;
}

}  // namespace

int64_t list_long_rows(CudaBackend &be, const CudaMatrix &M, int64_t min_len, Buffer &out) {
    if (M.max_row_length <= min_len || M.nrows == 0) {
        out = Buffer();
        return 0;
    }
    const int64_t cap = std::min<int64_t>(M.nrows, M.nvals / (min_len + 1) + 1);
    Buffer list(&be, (size_t)cap * 4), cnt(&be, 8);
    be.set_bytes(cnt.get(), 0, 8);
    launch(be, M.nrows, [&](unsigned g, int b) {
        long_rows_kernel<<<g, b, 0, be.stream()>>>(M.nrows, M.row_ptr.as<int64_t>(), min_len, list.as<int32_t>(),
                                                   cnt.as<unsigned long long>());
    });
    uint64_t h = 0;
    be.download(&h, cnt.get(), 8);
    out = std::move(list);
    return (int64_t)h;
}

void build_chunk_plan(CudaBackend &be, CudaMatrix &M, bool ranked, int64_t prefix, int64_t hot, size_t hot_vb) {
    // every column ranked unless the prefix is below ncols, at least the hot ones, and prefix +
    // column stays an int32 below 2^31 (bit 31 tags hot columns)
    if (!ranked || prefix < hot || prefix > M.ncols || prefix + M.ncols > (int64_t)INT32_MAX) prefix = M.ncols;
    cudaStream_t st = be.stream();
    CudaMatrix::ChunkPlan P;
    const int64_t n = M.nrows, nnz = M.nvals;
    const int64_t C = chunk_stride(nnz, hot, be.sm_count());
    if (n == 0 || nnz == 0) {
        M.chunks = std::move(P);
        return;
    }
    const int64_t K = (nnz + C - 1) / C;
    P.nchunks = K;
    P.begin = Buffer(&be, (size_t)(K + 1) * 8);
    P.first_row = Buffer(&be, (size_t)(K + 1) * 4);
    P.head_long = Buffer(&be, (size_t)K * 4);
    P.tail_long = Buffer(&be, (size_t)K * 4);
    const int64_t *rp = M.row_ptr.as<int64_t>();
    launch(be, K + 1, [&](unsigned g, int b) { chunk_begin_kernel<<<g, b, 0, st>>>(K, C, n, nnz, rp, P.begin.as<int64_t>()); });
    launch(be, K + 1, [&](unsigned g, int b) {
        chunk_rows_kernel<<<g, b, 0, st>>>(K, n, rp, P.begin.as<int64_t>(), P.first_row.as<int32_t>());
    });
    be.set_bytes(P.head_long.get(), 0xff, (size_t)K * 4);
    be.set_bytes(P.tail_long.get(), 0xff, (size_t)K * 4);
    if (M.max_row_length > C) {
        Buffer list;
        const int64_t L = list_long_rows(be, M, C, list);
        Buffer first(&be, (size_t)L * 8), pieces(&be, (size_t)L * 4);
        launch(be, L, [&](unsigned g, int b) {
            long_span_kernel<<<g, b, 0, st>>>(L, K, list.as<int32_t>(), rp, P.begin.as<int64_t>(), first.as<int64_t>(),
                                              pieces.as<int32_t>());
        });
        counts_to_row_ptr(be, L, pieces.as<int32_t>(), P.long_slot);  // the slots of row j: long_slot[j] .. [j + 1]
        int64_t nslots = 0;
        be.download(&nslots, P.long_slot.as<int64_t>() + L, 8);
        launch(be, L, [&](unsigned g, int b) {
            long_map_kernel<<<g, b, 0, st>>>(L, first.as<int64_t>(), P.long_slot.as<int64_t>(), P.head_long.as<int32_t>(),
                                             P.tail_long.as<int32_t>());
        });
        P.nlong = L;
        P.long_row = std::move(list);
        P.long_first = std::move(first);
        P.counters = Buffer(&be, (size_t)L * 4);
        be.set_bytes(P.counters.get(), 0, (size_t)L * 4);
        P.slots = Buffer(&be, (size_t)nslots * 8);
    }
    if ((ranked || hot > 0) && M.form.col_order.get()) {
        Buffer rank_of(&be, (size_t)M.ncols * 4);
        launch(be, M.ncols, [&](unsigned g, int b) {
            invert_kernel<<<g, b, 0, st>>>(M.ncols, M.form.col_order.as<int32_t>(), rank_of.as<int32_t>());
        });
        P.col_enc = Buffer(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            encode_cols_kernel<<<g, b, 0, st>>>(nnz, M.col.as<int32_t>(), rank_of.as<int32_t>(), hot, ranked,
                                                prefix, P.col_enc.as<int32_t>());
        });
        P.ranked = ranked;
        P.ranked_prefix = ranked ? prefix : 0;
        P.hot = hot;
        P.hot_vb = hot > 0 ? hot_vb : 0;
    }
    be.sync();
    M.chunks = std::move(P);
}

}  // namespace cuda
}  // namespace psv
