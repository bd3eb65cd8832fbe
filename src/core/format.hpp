// The storage forms of a matrix: host CSR, and the paper's tile-composite form (section 3.1).
//
// Tile-composite form of an nrows x ncols matrix M (y = M x):
//  - columns are ranked by length, longest first (ties: lower column first); col_order[k] is
//    the original column at rank k. x is gathered into rank order (x_ranked[k] = x[col_order[k]])
//    once per product, so each tile reads one contiguous slice of it.
//  - Algorithm 1 (appendix E): while fewer than ncols / tile_width dense tiles exist (and fewer
//    than max_tiles), a new dense tile of tile_width ranked columns starts if its first column has
//    length >= 2. The remaining columns form one sparse tile (omitted when it holds no entry).
//  - inside a tile, the rows holding entries are ranked by their length in the tile, longest
//    first (ties: lower row first). Entries of a row are in increasing ranked-column order.
//  - rows are packed into warp workloads in rank order: a workload starting at a row of length w
//    takes h = max(1, workload_size / w) rows (fewer at the end) -- Algorithm 3's partition.
//    If w >= h it is stored row-major (CSR-vector style): each row padded to a multiple of 32
//    (`stride`), entry (r,k) at r*stride + k. Otherwise column-major (ELL style): the height
//    padded to a multiple of 32 (`stride`), entry (r,k) at k*stride + r.
//  - padding slots hold the column index PAD (all ones) and value 0; kernels skip them, so any
//    semiring is served.
//  - tile-local column indices are 16 bits when the tile spans fewer than 65535 columns, else 32.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "psv/psv.h"

namespace psv {

constexpr int kWarpSize = 32;
constexpr int64_t kMaxDimension = 2147483647;  // 2^31-1: rows, columns and vector sizes
constexpr uint16_t kPad16 = 0xFFFF;
constexpr uint32_t kPad32 = 0xFFFFFFFFu;

struct FormatOptions {
    int64_t tile_width = 0;     // 0: the backend's default
    int64_t max_tiles = -1;     // -1: Algorithm 1's stopping rule alone
    int64_t workload_size = 0;  // 0: autotune per tile (Algorithm 2)
    psv_kernel kernel = PSV_KERNEL_AUTO;
    bool progress = false;
    int32_t transpose = PSV_TRANSPOSE_AUTO;  // PSV_OPT_TRANSPOSE: how A' products run
    int64_t hot_columns = -1;   // PSV_OPT_HOT_COLUMNS (CUDA AUTO): -1 chosen, 0 none, n at most n
    int32_t rank_order = -1;    // PSV_OPT_RANK_ORDER (CUDA AUTO): -1 chosen, 0 plain, 1 ranked
    int32_t plan_choice = PSV_CHOICE_MODEL;  // PSV_OPT_PLAN_CHOICE
    // Bytes the CPU backend may add to a matrix's CSR for forms it may skip (AUTO's padded form,
    // a transient one that describes it); 0: the host memory available (host_memory_left).
    // Internal: tests set it to take the memory-budget path on a small machine-independent scale.
    int64_t memory_budget = 0;
};

// Bytes a construction holds at once: now, and the most so far (psv_matrix_info.peak_bytes).
struct MemoryMeter {
    int64_t now = 0, peak = 0;
    void hold(int64_t bytes) {
        now += bytes;
        peak = std::max(peak, now);
    }
    void release(int64_t bytes) { now -= bytes; }
};

// Compressed sparse rows on the host.
struct CsrHost {
    int64_t nrows = 0, ncols = 0;
    psv_type type = PSV_FP32;
    bool pattern = true;               // no values stored: every entry is 1
    std::vector<int64_t> row_ptr;      // nrows + 1
    std::vector<int32_t> col;          // nvals, sorted within each row, no duplicates
    std::vector<uint8_t> values;       // nvals * type_size, empty for a pattern
    // The most bytes build_csr held at once making it (its arrays included); 0 where it was made
    // otherwise (a reader, a transpose): then its own bytes are its construction's peak.
    int64_t build_peak = 0;
    int64_t nvals() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
    int64_t bytes() const {
        return (int64_t)(row_ptr.size() * sizeof(int64_t) + col.size() * sizeof(int32_t) + values.size());
    }
};

enum WorkloadLayout : int32_t { kRowMajor = 0, kColMajor = 1 };

struct Workload {
    int64_t entry_begin;  // first stored slot (global over all tiles)
    int64_t row_begin;    // first of its rows in row_ids (global)
    int32_t height;       // h: rows
    int32_t width;        // w: length of its first (longest) row
    int32_t stride;       // row-major: padded width; column-major: padded height
    int32_t layout;       // kRowMajor or kColMajor
};
static_assert(sizeof(Workload) == 32, "Workload is a 32-byte record on host and device");

struct Tile {
    int64_t col_begin = 0, col_end = 0;      // ranked column range
    int64_t entry_begin = 0, entry_end = 0;  // stored slots (padding included), global
    int64_t index_offset = 0;                // first slot's position in col16 or col32
    int64_t row_begin = 0, row_count = 0;    // its ranked rows in row_ids
    int64_t wl_begin = 0, wl_end = 0;        // its workloads
    int64_t nvals = 0;
    int64_t workload_size = 0;
    int32_t index_bits = 16;                 // 16 or 32
    int32_t is_sparse = 0;
};

// psv_matrix_tile_info's fields that the tile itself holds (every backend adds the count of its
// row-major workloads, which live in its own memory).
inline void fill_tile_info(const Tile &t, psv_tile_info &o) {
    o = psv_tile_info{};
    o.col_begin = t.col_begin;
    o.col_end = t.col_end;
    o.rows = t.row_count;
    o.nvals = t.nvals;
    o.workloads = t.wl_end - t.wl_begin;
    o.workload_size = t.workload_size;
    o.stored_entries = t.entry_end - t.entry_begin;
    o.index_bits = t.index_bits;
    o.is_sparse = t.is_sparse;
}

// Tile-composite form held on the host (the CPU backend's executable form; the CUDA builder's
// output is compared against it).
struct TileComposite {
    int64_t nrows = 0, ncols = 0, nvals = 0;
    psv_type type = PSV_FP32;
    bool pattern = true;
    int64_t tile_width = 0;
    int32_t dense_tiles = 0;
    std::vector<int32_t> col_order;      // rank -> original column
    std::vector<Tile> tiles;             // dense tiles, then the sparse one (if any)
    std::vector<Workload> workloads;
    std::vector<int32_t> row_ids;        // original row of each tile row
    std::vector<uint16_t> col16;         // tile-local column indices of 16-bit tiles
    std::vector<uint32_t> col32;         // ... of 32-bit tiles
    std::vector<uint8_t> values;         // stored slots * type_size (empty for a pattern)
    int64_t build_peak = 0;              // the most bytes build_tile_composite held at once
    int64_t stored_entries() const { return tiles.empty() ? 0 : tiles.back().entry_end; }
    int64_t bytes() const;
};

// Performance model used by the workload-size autotuner (section 3.3): the offline per-GPU table
// of Performance(w, h) (non-zeros per unit time for one warp on a w x h workload) and the count of
// warps resident at once. The default is an analytic stand-in for the measured table.
struct PerfModel {
    int64_t max_active_warps = 132 * 64;  // H100/H200: 132 SMs x 64 warps
    // Cost of one workload of width w and height h, in warp-iteration units.
    double (*workload_cost)(int32_t w, int32_t h, int32_t layout) = nullptr;
};
double default_workload_cost(int32_t w, int32_t h, int32_t layout);

// The number of rows h of the workload that starts with a row of length w: workload_size / w,
// at least 1; from 32 rows on, a multiple of 32 (an ELL workload's height is padded to a warp's
// width, so this keeps the padding out of tall column-major workloads).
inline int64_t workload_height(int64_t w, int64_t wl) {
    if (w <= 0) w = 1;
    int64_t h = wl / w;
    if (h >= 32) h = h / 32 * 32;
    return h < 1 ? 1 : h;
}
inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// The storage of a workload of h rows whose first (longest) row has length w: row-major
// (CSR-vector) when w >= h, each row padded to `stride` slots; else column-major (ELL), the
// height padded to `stride`. `slots` is its padded size. Both builders take shapes from here.
struct WorkloadShape {
    int32_t layout, stride;
    int64_t slots;
};
inline WorkloadShape workload_shape(int64_t w, int64_t h) {
    WorkloadShape s;
    s.layout = w >= h ? kRowMajor : kColMajor;
    s.stride = (int32_t)round_up(s.layout == kRowMajor ? w : h, kWarpSize);
    s.slots = (int64_t)s.stride * (s.layout == kRowMajor ? h : w);
    return s;
}

// Algorithm 3: predicted time of a tile whose ranked row lengths (descending) are
// lengths[0 .. nrows), partitioned with workload size wl. Lengths is anything indexable: a
// pointer, or the CUDA builder's run-length encoded lengths, so both builders share this code.
template <class Lengths>
inline double model_tile_time(const Lengths &lengths, int64_t nrows, int64_t wl, const PerfModel &m) {
    auto cost = m.workload_cost ? m.workload_cost : default_workload_cost;
    const int64_t maw = std::max<int64_t>(1, m.max_active_warps);
    double total = 0, perf_sum = 0, size_sum = 0;
    int64_t count = 0, j = 0;
    auto flush = [&] {
        if (count) total += size_sum / (perf_sum / (double)count);
        perf_sum = size_sum = 0;
        count = 0;
    };
    for (int64_t i = 0; i < nrows; ++j) {
        int64_t w = std::max<int64_t>(1, lengths[i]);
        int64_t h = std::min(workload_height(w, wl), nrows - i);
        int32_t layout = w >= h ? kRowMajor : kColMajor;
        double area = (double)w * (double)h;
        perf_sum += area / cost((int32_t)std::min<int64_t>(w, INT32_MAX),
                                (int32_t)std::min<int64_t>(h, INT32_MAX), layout);
        size_sum += area;
        ++count;
        if (count == maw) flush();
        i += h;
    }
    flush();
    return total;
}

// Algorithm 2: the workload size the model predicts fastest for a tile. The paper's candidates
// are the multiples of the first (longest) row's length up to tile_nnz / max_active_warps. On a
// power-law tile the first row (a hub) can be longer than that bound, and Algorithm 2 would then
// return the hub's length: every short row would pile into a few huge workloads and leave most of
// the GPU idle (measured: 680 workloads for 65 M entries at R-MAT scale 22). There the candidates
// run from one warp's width (32) up to tile_nnz / (4 max_active_warps), at least four waves of
// workloads, and each hub row longer than the chosen size is a workload of its own.
template <class Lengths>
inline int64_t choose_workload_size(const Lengths &lengths, int64_t nrows, int64_t tile_nnz, const PerfModel &m) {
    if (nrows == 0) return 1;
    const int64_t maw = std::max<int64_t>(1, m.max_active_warps);
    const int64_t first = std::max<int64_t>(1, lengths[0]);
    const int64_t up = tile_nnz / maw;
    auto search = [&](int64_t low, int64_t high, bool multiples) {
        std::vector<int64_t> cands;
        int64_t k = 1;
        for (int evaluated = 0; k * low <= high; ++evaluated) {
            cands.push_back(k * low);
            // The paper steps by one multiple; past 64 candidates (and always on the hub path)
            // the steps grow geometrically to bound the search.
            k = (multiples && evaluated < 64) ? k + 1 : std::max(k + 1, (k * 5) / 4);
        }
        // The candidates are independent: on large tiles they are modelled in parallel (each
        // thread with its own copy of the accessor, whose cursor is state); the first fastest
        // wins, as in a serial scan, so the choice does not depend on the thread count.
        std::vector<double> times(cands.size());
#pragma omp parallel for schedule(dynamic, 1) if (nrows >= 100000)
        for (int64_t c = 0; c < (int64_t)cands.size(); ++c) {
            const Lengths local = lengths;
            times[(size_t)c] = model_tile_time(local, nrows, cands[(size_t)c], m);
        }
        int64_t best = low;
        double best_time = INFINITY;
        for (size_t c = 0; c < cands.size(); ++c)
            if (times[c] < best_time) {
                best_time = times[c];
                best = cands[c];
            }
        return best;
    };
    if (first <= up) return search(first, up, true);
    if (up <= first && first <= 32) return first;
    const int64_t hub_up = tile_nnz / (4 * maw);
    if (hub_up <= 32) return 32;
    return search(32, hub_up, false);
}

// Algorithm 1 on ranked column lengths: the number of dense tiles.
int32_t count_dense_tiles(const int64_t *ranked_col_lengths, int64_t ncols, int64_t tile_width,
                          int64_t max_tiles);

// Build the tile-composite form of A on the host (OpenMP where it pays). tile_width must be > 0.
TileComposite build_tile_composite(const CsrHost &A, int64_t tile_width, int64_t max_tiles,
                                   int64_t workload_size, const PerfModel &model);

// A transposed copy of A (values carried along).
CsrHost transpose(const CsrHost &A);

}  // namespace psv
