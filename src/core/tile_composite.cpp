// Host construction of the tile-composite form (format.hpp describes the layout) and the
// workload-size autotuner of section 3.3 / appendix E.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <numeric>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/ops.hpp"

namespace psv {

int64_t TileComposite::bytes() const {
    return (int64_t)(col_order.size() * sizeof(int32_t) + tiles.size() * sizeof(Tile) +
                     workloads.size() * sizeof(Workload) + row_ids.size() * sizeof(int32_t) +
                     col16.size() * sizeof(uint16_t) + col32.size() * sizeof(uint32_t) +
                     values.size());
}

double default_workload_cost(int32_t w, int32_t h, int32_t layout) {
    // Warp-iteration units: each iteration moves 32 slots; a row-major row ends in a 5-step
    // shuffle reduction; every workload pays a fixed start/write-back cost.
    const double start = 4.0;
    if (layout == kRowMajor) {
        double iters = (double)((w + kWarpSize - 1) / kWarpSize);
        return start + h * (iters + 0.6);
    }
    double iters = (double)((h + kWarpSize - 1) / kWarpSize) * w;
    return start + iters;
}

int32_t count_dense_tiles(const int64_t *ranked_col_lengths, int64_t ncols, int64_t tile_width,
                          int64_t max_tiles) {
    int64_t limit = ncols / tile_width;
    if (max_tiles >= 0) limit = std::min(limit, max_tiles);
    int64_t nt = 0;
    while (nt < limit && ranked_col_lengths[nt * tile_width] >= 2) ++nt;
    return (int32_t)nt;
}

CsrHost transpose(const CsrHost &A) {
    CsrHost T;
    T.nrows = A.ncols;
    T.ncols = A.nrows;
    T.type = A.type;
    T.pattern = A.pattern;
    const int64_t nnz = A.nvals();
    const size_t vs = A.pattern ? 0 : type_size(A.type);
    T.row_ptr.assign((size_t)T.nrows + 1, 0);
    for (int64_t e = 0; e < nnz; ++e) T.row_ptr[(size_t)A.col[e] + 1]++;
    for (int64_t i = 0; i < T.nrows; ++i) T.row_ptr[i + 1] += T.row_ptr[i];
    T.col.resize((size_t)nnz);
    T.values.resize((size_t)nnz * vs);
    std::vector<int64_t> next(T.row_ptr.begin(), T.row_ptr.end() - 1);
    for (int64_t i = 0; i < A.nrows; ++i) {
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
            int64_t d = next[A.col[e]]++;
            T.col[d] = (int32_t)i;
            if (vs) std::memcpy(&T.values[d * vs], &A.values[e * vs], vs);
        }
    }
    return T;
}

namespace {

// Counting sort of ids by key, descending key, ties by ascending id (stable): the ranking used
// for both columns and tile rows.
std::vector<int32_t> rank_by_length(const std::vector<int64_t> &len) {
    const int64_t n = (int64_t)len.size();
    int64_t maxlen = 0;
    for (int64_t v : len) maxlen = std::max(maxlen, v);
    std::vector<int32_t> order((size_t)n);
    if ((double)maxlen > 4.0 * (double)n + 1024) {  // sparse key range: comparison sort
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int32_t a, int32_t b) { return len[a] > len[b]; });
        return order;
    }
    std::vector<int64_t> start((size_t)maxlen + 2, 0);
    for (int64_t v : len) start[(size_t)(maxlen - v) + 1]++;
    for (int64_t k = 0; k <= maxlen; ++k) start[k + 1] += start[k];
    for (int64_t i = 0; i < n; ++i) order[start[(size_t)(maxlen - len[i])]++] = (int32_t)i;
    return order;
}

struct TileParts {
    Tile tile;
    std::vector<Workload> workloads;  // entry_begin / row_begin local to the tile
    std::vector<int32_t> row_ids;
    std::vector<uint16_t> cols16;     // local columns of a 16-bit tile (PAD = kPad16)
    std::vector<uint32_t> cols32;     // ... of a 32-bit tile (PAD = kPad32)
    std::vector<uint8_t> values;
};

// The rows of one tile as runs of its bucket: row, first bucket position, length.
struct Segments {
    std::vector<int32_t> row;
    std::vector<int64_t> start, len;
};

// Stage 1: the columns ranked by length (longest first).
struct Ranking {
    std::vector<int32_t> col_order;  // rank -> column
    std::vector<int32_t> rank_of;    // column -> rank
    std::vector<int64_t> ranked_len; // rank -> column length
};

Ranking rank_columns(const CsrHost &A) {
    Ranking R;
    std::vector<int64_t> col_len((size_t)A.ncols, 0);
    for (int64_t e = 0; e < A.nvals(); ++e) col_len[(size_t)A.col[e]]++;
    R.col_order = rank_by_length(col_len);
    R.rank_of.resize((size_t)A.ncols);
    R.ranked_len.resize((size_t)A.ncols);
    for (int64_t k = 0; k < A.ncols; ++k) {
        R.rank_of[R.col_order[k]] = (int32_t)k;
        R.ranked_len[k] = col_len[R.col_order[k]];
    }
    return R;
}

// Stage 2 (Algorithm 1): dense tiles of tile_width ranked columns, then the sparse remainder.
struct TileSelection {
    int64_t ncols = 0, tile_width = 0;
    int32_t dense_tiles = 0;
    int64_t dense_cols = 0;
    int32_t ntiles_all = 1;  // the dense tiles and the sparse one

    int32_t tile_of_rank(int64_t r) const {
        return r < dense_cols ? (int32_t)(r / tile_width) : dense_tiles;
    }
    // The ranks [cb, ce) of tile t.
    void tile_cols(int32_t t, int64_t &cb, int64_t &ce) const {
        cb = t < dense_tiles ? (int64_t)t * tile_width : dense_cols;
        ce = t < dense_tiles ? cb + tile_width : ncols;
    }
};

TileSelection select_tiles(const Ranking &R, int64_t ncols, int64_t tile_width, int64_t max_tiles) {
    TileSelection S;
    S.ncols = ncols;
    S.tile_width = tile_width;
    S.dense_tiles = ncols > 0 ? count_dense_tiles(R.ranked_len.data(), ncols, tile_width, max_tiles) : 0;
    S.dense_cols = (int64_t)S.dense_tiles * tile_width;
    S.ntiles_all = S.dense_tiles + 1;
    return S;
}

// Stage 3: entries bucketed by tile (rows ascending, ranks ascending within a row), each holding
// its tile-local column at the tile's index width, plus each tile's row segments. The buckets of
// 16-bit tiles take 2 bytes an entry: a pattern costs 2-4 bytes an entry here.
struct Buckets {
    std::vector<int64_t> tile_count;  // prefix sums of the entries per tile
    std::vector<int32_t> bits;        // index width per tile
    std::vector<int64_t> bucket;      // each tile's first position in b16 or b32
    std::vector<int64_t> col_begin;   // each tile's first rank
    std::vector<uint16_t> b16;
    std::vector<uint32_t> b32;
    std::vector<int64_t> b_src;       // value positions: not needed for a pattern
    std::vector<Segments> segs;
};

// Tile sizes, index widths and bucket offsets (the first pass of stage 3).
void size_buckets(const CsrHost &A, const Ranking &R, const TileSelection &S, Buckets &B) {
    const int32_t ntiles_all = S.ntiles_all;
    B.tile_count.assign((size_t)ntiles_all + 1, 0);
    for (int64_t e = 0; e < A.nvals(); ++e)
        B.tile_count[(size_t)S.tile_of_rank(R.rank_of[A.col[e]]) + 1]++;
    for (int32_t t = 0; t < ntiles_all; ++t) B.tile_count[t + 1] += B.tile_count[t];
    B.bits.resize((size_t)ntiles_all);
    B.bucket.resize((size_t)ntiles_all);
    B.col_begin.resize((size_t)ntiles_all);
    int64_t n16 = 0, n32 = 0;
    for (int32_t t = 0; t < ntiles_all; ++t) {
        int64_t cb, ce;
        S.tile_cols(t, cb, ce);
        B.col_begin[t] = cb;
        B.bits[t] = (ce - cb) < 65535 ? 16 : 32;
        int64_t &n = B.bits[t] == 16 ? n16 : n32;
        B.bucket[t] = n;
        n += B.tile_count[t + 1] - B.tile_count[t];
    }
    B.b16.resize((size_t)n16);
    B.b32.resize((size_t)n32);
}

Buckets bucket_entries(const CsrHost &A, const Ranking &R, const TileSelection &S, size_t vs) {
    Buckets B;
    size_buckets(A, R, S, B);
    B.b_src.resize(vs ? (size_t)A.nvals() : 0);
    B.segs.resize((size_t)S.ntiles_all);
    std::vector<int64_t> next((size_t)S.ntiles_all, 0);
    std::vector<std::pair<int32_t, int64_t>> row_entries;  // (rank, source entry)
    for (int64_t i = 0; i < A.nrows; ++i) {
        row_entries.clear();
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e)
            row_entries.emplace_back(R.rank_of[A.col[e]], e);
        std::sort(row_entries.begin(), row_entries.end());
        int32_t prev = -1;
        for (auto &re : row_entries) {
            const int32_t t = S.tile_of_rank(re.first);
            const int64_t k = next[t]++;
            Segments &G = B.segs[t];
            if (t != prev) {  // a row's entries of one tile are consecutive: one segment
                G.row.push_back((int32_t)i);
                G.start.push_back(k);
                G.len.push_back(0);
                prev = t;
            }
            G.len.back()++;
            const int64_t local = re.first - B.col_begin[t];
            if (B.bits[t] == 16) B.b16[B.bucket[t] + k] = (uint16_t)local;
            else B.b32[B.bucket[t] + k] = (uint32_t)local;
            if (vs) B.b_src[B.tile_count[t] + k] = re.second;
        }
    }
    return B;
}

// Stage 4a: the workloads of a tile whose rows, ranked by length, have these lengths (shapes
// first, so the padded storage is allocated once). Returns the tile's padded slots.
int64_t pack_workloads(const std::vector<int64_t> &lengths, TileParts &P) {
    const int64_t nr = (int64_t)lengths.size();
    int64_t slots = 0;
    for (int64_t r = 0; r < nr;) {
        Workload W;
        const int64_t w = std::max<int64_t>(1, lengths[r]);
        const int64_t h = std::min(workload_height(w, P.tile.workload_size), nr - r);
        W.entry_begin = slots;
        W.row_begin = r;
        W.height = (int32_t)h;
        W.width = (int32_t)w;
        const WorkloadShape sh = workload_shape(w, h);
        W.layout = sh.layout;
        W.stride = sh.stride;
        slots += sh.slots;
        P.workloads.push_back(W);
        r += h;
    }
    return slots;
}

// Stage 4b: copy the tile's bucketed entries into its padded workload storage.
void fill_workloads(const CsrHost &A, const Buckets &B, int32_t t, const std::vector<int32_t> &order,
                    size_t vs, TileParts &P) {
    const Segments &S = B.segs[t];
    const int64_t bb = B.bucket[t], vb = B.tile_count[t];
    const bool narrow = B.bits[t] == 16;
    for (const Workload &W : P.workloads) {
        for (int64_t q = 0; q < W.height; ++q) {
            const int32_t sg = order[W.row_begin + q];
            for (int64_t k = 0; k < S.len[sg]; ++k) {
                const int64_t pos = W.entry_begin + (W.layout == kRowMajor ? q * W.stride + k : k * W.stride + q);
                const int64_t src = S.start[sg] + k;
                if (narrow) P.cols16[pos] = B.b16[bb + src];
                else P.cols32[pos] = B.b32[bb + src];
                if (vs) std::memcpy(&P.values[pos * vs], &A.values[B.b_src[vb + src] * vs], vs);
            }
        }
    }
}

// Stage 4: one tile: rank its rows, pack workloads, lay out padded storage.
void build_tile(const CsrHost &A, const TileSelection &Sel, Buckets &B, int32_t t, size_t vs,
                int64_t workload_size, const PerfModel &model, TileParts &P) {
    Segments &S = B.segs[t];
    int64_t cb, ce;
    Sel.tile_cols(t, cb, ce);
    P.tile.col_begin = cb;
    P.tile.col_end = ce;
    P.tile.nvals = B.tile_count[t + 1] - B.tile_count[t];
    P.tile.is_sparse = t == Sel.dense_tiles;
    P.tile.index_bits = B.bits[t];
    std::vector<int32_t> order = rank_by_length(S.len);
    const int64_t nr = (int64_t)order.size();
    std::vector<int64_t> lengths((size_t)nr);
    for (int64_t r = 0; r < nr; ++r) lengths[r] = S.len[order[r]];
    P.tile.row_count = nr;
    P.tile.workload_size = workload_size > 0 ? workload_size
                                             : choose_workload_size(lengths.data(), nr, P.tile.nvals, model);
    P.row_ids.resize((size_t)nr);
    for (int64_t r = 0; r < nr; ++r) P.row_ids[r] = S.row[order[r]];
    const int64_t slots = pack_workloads(lengths, P);
    if (B.bits[t] == 16) P.cols16.assign((size_t)slots, kPad16);
    else P.cols32.assign((size_t)slots, kPad32);
    if (vs) P.values.assign((size_t)slots * vs, 0);
    fill_workloads(A, B, t, order, vs, P);
    S = Segments();
}

std::vector<TileParts> build_tiles(const CsrHost &A, const TileSelection &Sel, Buckets &B, size_t vs,
                                   int64_t workload_size, const PerfModel &model) {
    std::vector<TileParts> parts((size_t)Sel.ntiles_all);
    // An exception must not leave an OpenMP region (std::terminate): the first one (bad_alloc)
    // is kept and rethrown after it.
    std::exception_ptr failure;
    const int32_t ntiles_all = Sel.ntiles_all;
#pragma omp parallel for schedule(dynamic, 1)
    for (int32_t t = 0; t < ntiles_all; ++t) {
        try {
            build_tile(A, Sel, B, t, vs, workload_size, model, parts[t]);
        } catch (...) {
#pragma omp critical(psv_tile_parts_failure)
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
    return parts;
}

// Stage 5a: each kept tile's offsets into the concatenated arrays (the sparse tile only if it
// holds entries); returns the totals through the references.
void place_tiles(const std::vector<TileParts> &parts, TileComposite &F, int64_t &slots, int64_t &rows,
                 int64_t &wls, int64_t &n16, int64_t &n32) {
    slots = rows = wls = n16 = n32 = 0;
    for (const TileParts &P : parts) {
        if (P.tile.is_sparse && P.tile.nvals == 0) continue;
        Tile T = P.tile;
        T.entry_begin = slots;
        const int64_t tile_slots = (int64_t)(T.index_bits == 16 ? P.cols16.size() : P.cols32.size());
        T.entry_end = slots + tile_slots;
        T.row_begin = rows;
        T.wl_begin = wls;
        T.wl_end = wls + (int64_t)P.workloads.size();
        T.index_offset = T.index_bits == 16 ? n16 : n32;
        (T.index_bits == 16 ? n16 : n32) += tile_slots;
        slots = T.entry_end;
        rows += T.row_count;
        wls = T.wl_end;
        F.tiles.push_back(T);
    }
}

// Stage 5: concatenate the tiles' parts into F, releasing each part as it is copied.
void concatenate(std::vector<TileParts> &parts, size_t vs, TileComposite &F) {
    int64_t slots, rows, wls, n16, n32;
    place_tiles(parts, F, slots, rows, wls, n16, n32);
    F.workloads.reserve((size_t)wls);
    F.row_ids.reserve((size_t)rows);
    F.col16.reserve((size_t)n16);
    F.col32.reserve((size_t)n32);
    F.values.reserve((size_t)slots * vs);
    size_t ti = 0;
    for (TileParts &P : parts) {
        if (P.tile.is_sparse && P.tile.nvals == 0) continue;
        const Tile &T = F.tiles[ti++];
        for (Workload W : P.workloads) {
            W.entry_begin += T.entry_begin;
            W.row_begin += T.row_begin;
            F.workloads.push_back(W);
        }
        F.row_ids.insert(F.row_ids.end(), P.row_ids.begin(), P.row_ids.end());
        F.col16.insert(F.col16.end(), P.cols16.begin(), P.cols16.end());
        F.col32.insert(F.col32.end(), P.cols32.begin(), P.cols32.end());
        F.values.insert(F.values.end(), P.values.begin(), P.values.end());
        P = TileParts();  // release as we go: the copy never holds two whole forms
    }
}

}  // namespace

TileComposite build_tile_composite(const CsrHost &A, int64_t tile_width, int64_t max_tiles,
                                   int64_t workload_size, const PerfModel &model) {
    if (tile_width <= 0) fail(PSV_ERROR_INVALID_VALUE, "tile width must be positive");
    TileComposite F;
    F.nrows = A.nrows;
    F.ncols = A.ncols;
    F.nvals = A.nvals();
    F.type = A.type;
    F.pattern = A.pattern;
    F.tile_width = tile_width;
    const size_t vs = A.pattern ? 0 : type_size(A.type);

    // The meter counts each stage's arrays at their sizes: the ranking (with its column lengths
    // while it is made), the buckets and row segments, the padded tiles, then the whole form
    // while the tiles are copied into it.
    MemoryMeter meter;
    const int64_t col_len_bytes = 8 * A.ncols;
    meter.hold(col_len_bytes + 16 * A.ncols);
    Ranking R = rank_columns(A);
    meter.release(col_len_bytes);
    const TileSelection sel = select_tiles(R, A.ncols, tile_width, max_tiles);
    F.col_order = std::move(R.col_order);
    F.dense_tiles = sel.dense_tiles;
    std::vector<TileParts> parts;
    {
        Buckets B = bucket_entries(A, R, sel, vs);
        int64_t bucket_bytes = (int64_t)(B.b16.size() * 2 + B.b32.size() * 4 + B.b_src.size() * 8);
        for (const Segments &G : B.segs)
            bucket_bytes += (int64_t)(G.row.capacity() * 4 + G.start.capacity() * 8 + G.len.capacity() * 8);
        meter.hold(bucket_bytes);
        parts = build_tiles(A, sel, B, vs, workload_size, model);
        int64_t part_bytes = 0;
        for (const TileParts &P : parts)
            part_bytes += (int64_t)(P.cols16.size() * 2 + P.cols32.size() * 4 + P.values.size() +
                                    P.workloads.capacity() * sizeof(Workload) + P.row_ids.size() * 4);
        meter.hold(part_bytes);
        meter.release(bucket_bytes);
    }  // the buckets are released before the concatenation
    concatenate(parts, vs, F);
    meter.hold(F.bytes() - (int64_t)(F.col_order.size() * sizeof(int32_t)));  // with the tiles, at its start
    F.build_peak = meter.peak;
    return F;
}

}  // namespace psv
