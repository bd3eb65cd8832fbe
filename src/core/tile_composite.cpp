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
    const int64_t nnz = F.nvals;
    const size_t vs = A.pattern ? 0 : type_size(A.type);

    // 1. rank the columns by length
    std::vector<int64_t> col_len((size_t)A.ncols, 0);
    for (int64_t e = 0; e < nnz; ++e) col_len[(size_t)A.col[e]]++;
    F.col_order = rank_by_length(col_len);
    std::vector<int32_t> rank_of((size_t)A.ncols);
    std::vector<int64_t> ranked_len((size_t)A.ncols);
    for (int64_t k = 0; k < A.ncols; ++k) {
        rank_of[F.col_order[k]] = (int32_t)k;
        ranked_len[k] = col_len[F.col_order[k]];
    }

    // 2. Algorithm 1: dense tiles, then the sparse remainder
    F.dense_tiles = A.ncols > 0 ? count_dense_tiles(ranked_len.data(), A.ncols, tile_width, max_tiles) : 0;
    const int64_t dense_cols = (int64_t)F.dense_tiles * tile_width;
    const int32_t ntiles_all = F.dense_tiles + 1;
    auto tile_of_rank = [&](int64_t r) -> int32_t {
        return r < dense_cols ? (int32_t)(r / tile_width) : F.dense_tiles;
    };

    // 3. entries bucketed by tile (rows ascending, ranks ascending within a row), each holding its
    //    tile-local column at the tile's index width, plus each tile's row segments. The buckets
    //    of 16-bit tiles take 2 bytes an entry: a pattern costs 2-4 bytes an entry here.
    std::vector<int64_t> tile_count((size_t)ntiles_all + 1, 0);
    for (int64_t e = 0; e < nnz; ++e) tile_count[(size_t)tile_of_rank(rank_of[A.col[e]]) + 1]++;
    for (int32_t t = 0; t < ntiles_all; ++t) tile_count[t + 1] += tile_count[t];
    auto tile_cols = [&](int32_t t, int64_t &cb, int64_t &ce) {
        cb = t < F.dense_tiles ? (int64_t)t * tile_width : dense_cols;
        ce = t < F.dense_tiles ? cb + tile_width : A.ncols;
    };
    std::vector<int32_t> bits((size_t)ntiles_all);
    std::vector<int64_t> bucket((size_t)ntiles_all), col_begin((size_t)ntiles_all);
    int64_t n16 = 0, n32 = 0;
    for (int32_t t = 0; t < ntiles_all; ++t) {
        int64_t cb, ce;
        tile_cols(t, cb, ce);
        col_begin[t] = cb;
        bits[t] = (ce - cb) < 65535 ? 16 : 32;
        int64_t &n = bits[t] == 16 ? n16 : n32;
        bucket[t] = n;
        n += tile_count[t + 1] - tile_count[t];
    }
    std::vector<uint16_t> b16((size_t)n16);
    std::vector<uint32_t> b32((size_t)n32);
    std::vector<int64_t> b_src(vs ? (size_t)nnz : 0);  // value positions: not needed for a pattern
    std::vector<Segments> segs((size_t)ntiles_all);
    {
        std::vector<int64_t> next((size_t)ntiles_all, 0);
        std::vector<std::pair<int32_t, int64_t>> row_entries;  // (rank, source entry)
        for (int64_t i = 0; i < A.nrows; ++i) {
            row_entries.clear();
            for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e)
                row_entries.emplace_back(rank_of[A.col[e]], e);
            std::sort(row_entries.begin(), row_entries.end());
            int32_t prev = -1;
            for (auto &re : row_entries) {
                const int32_t t = tile_of_rank(re.first);
                const int64_t k = next[t]++;
                Segments &S = segs[t];
                if (t != prev) {  // a row's entries of one tile are consecutive: one segment
                    S.row.push_back((int32_t)i);
                    S.start.push_back(k);
                    S.len.push_back(0);
                    prev = t;
                }
                S.len.back()++;
                const int64_t local = re.first - col_begin[t];
                if (bits[t] == 16) b16[bucket[t] + k] = (uint16_t)local;
                else b32[bucket[t] + k] = (uint32_t)local;
                if (vs) b_src[tile_count[t] + k] = re.second;
            }
        }
    }

    // 4. per tile: rank rows, pack workloads, lay out padded storage
    std::vector<TileParts> parts((size_t)ntiles_all);
    // An exception must not leave an OpenMP region (std::terminate): the first one (bad_alloc)
    // is kept and rethrown after it.
    std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
    for (int32_t t = 0; t < ntiles_all; ++t) {
      try {
        TileParts &P = parts[t];
        Segments &S = segs[t];
        int64_t cb, ce;
        tile_cols(t, cb, ce);
        P.tile.col_begin = cb;
        P.tile.col_end = ce;
        P.tile.nvals = tile_count[t + 1] - tile_count[t];
        P.tile.is_sparse = t == F.dense_tiles;
        P.tile.index_bits = bits[t];
        std::vector<int32_t> order = rank_by_length(S.len);
        const int64_t nr = (int64_t)order.size();
        std::vector<int64_t> lengths((size_t)nr);
        for (int64_t r = 0; r < nr; ++r) lengths[r] = S.len[order[r]];
        P.tile.row_count = nr;
        P.tile.workload_size = workload_size > 0 ? workload_size
                                                 : choose_workload_size(lengths.data(), nr, P.tile.nvals, model);
        P.row_ids.resize((size_t)nr);
        for (int64_t r = 0; r < nr; ++r) P.row_ids[r] = S.row[order[r]];
        // workload shapes first, so the padded storage is allocated once
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
        if (bits[t] == 16) P.cols16.assign((size_t)slots, kPad16);
        else P.cols32.assign((size_t)slots, kPad32);
        if (vs) P.values.assign((size_t)slots * vs, 0);
        const int64_t bb = bucket[t], vb = tile_count[t];
        for (const Workload &W : P.workloads) {
            for (int64_t q = 0; q < W.height; ++q) {
                const int32_t sg = order[W.row_begin + q];
                for (int64_t k = 0; k < S.len[sg]; ++k) {
                    const int64_t pos = W.entry_begin + (W.layout == kRowMajor ? q * W.stride + k : k * W.stride + q);
                    const int64_t src = S.start[sg] + k;
                    if (bits[t] == 16) P.cols16[pos] = b16[bb + src];
                    else P.cols32[pos] = b32[bb + src];
                    if (vs) std::memcpy(&P.values[pos * vs], &A.values[b_src[vb + src] * vs], vs);
                }
            }
        }
        S = Segments();
      } catch (...) {
#pragma omp critical(psv_tile_parts_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
    std::vector<uint16_t>().swap(b16);
    std::vector<uint32_t>().swap(b32);
    std::vector<int64_t>().swap(b_src);

    // 5. concatenate (the sparse tile only if it holds entries)
    int64_t slots = 0, rows = 0, wls = 0;
    n16 = n32 = 0;
    for (int32_t t = 0; t < ntiles_all; ++t) {
        TileParts &P = parts[t];
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
    F.workloads.reserve((size_t)wls);
    F.row_ids.reserve((size_t)rows);
    F.col16.reserve((size_t)n16);
    F.col32.reserve((size_t)n32);
    F.values.reserve((size_t)slots * vs);
    size_t ti = 0;
    for (int32_t t = 0; t < ntiles_all; ++t) {
        TileParts &P = parts[t];
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
    return F;
}

}  // namespace psv
