// The kernels and records of the device tile-composite builder (form.cu only).
#pragma once
#include "cuda/build/common.cuh"

namespace psv {
namespace cuda {
namespace {

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

}  // namespace
}  // namespace cuda
}  // namespace psv
