// A matrix of the CUDA backend: its CSR in device memory, and what its kernel reads: the CSR
// chunk plan (PSV_KERNEL_AUTO, PSV_KERNEL_CSR), or the tile-composite form (PSV_KERNEL_TILE_COMPOSITE,
// PSV_KERNEL_TILE_COO). The padded form is built for the other kernels only where a reader needs
// it: the k-vector product's tile-composite variant (built on first use and kept until the next
// rebuild) and psv_matrix_info_get / psv_matrix_tile_info (built, described and released).
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda/runtime/backend.cuh"
#include "tuning/model.hpp"

namespace psv {
namespace cuda {

// The tile-composite form in device memory, with its per-tile metadata kept on the host as well.
struct TcForm {
    int64_t tile_width = 0;
    int32_t dense_tiles = 0;
    std::vector<Tile> tiles;  // host copy (small)
    int64_t n_workloads = 0, n_rows = 0, n16 = 0, n32 = 0, slots = 0;
    Buffer col_order;  // int32 [ncols]
    Buffer tiles_d;    // Tile [tiles]
    Buffer workloads;  // Workload [n_workloads]
    Buffer row_ids;    // int32 [n_rows]
    Buffer col16, col32;  // uint16 [n16], uint32 [n32]
    Buffer values;     // slots * value size (empty for a pattern)
    // TILE-COO form (built only when that kernel is chosen): entries in tile, row, rank order.
    Buffer coo_row;    // int32 [nnz]
    Buffer coo_col;    // uint32 [nnz] tile-local ranked column
    Buffer coo_val;    // nnz values (empty for a pattern)
    Buffer coo_chunk;  // int64 [chunks + 1]: warp ranges of whole rows, per tile
    std::vector<int64_t> coo_tile_begin;   // entry range of each tile (host), tiles + 1
    std::vector<int64_t> coo_chunk_begin;  // first chunk of each tile (host), tiles + 1
    int64_t device_bytes() const;
};

// The columns ranked by length (descending, ties by lower column): what the rules read of them.
struct ColumnStats {
    int64_t max_col_length = 0;
    int64_t hot_columns = 0;  // columns of length >= hot_min_length (ranks 0 .. hot_columns - 1)
    int64_t long2 = 0;        // columns of length >= 2 (Algorithm 1's dense tiles)
    // what the performance model reads (rank_columns): the column-length profile, (length,
    // columns) by descending length, and the entries near their row's diagonal position
    // (tuning::MatrixStats)
    std::vector<std::pair<int64_t, int64_t>> profile;
    int64_t near_entries = 0;
    double profile_seconds = 0;  // the profile's making (the model's share of the ranking)
};

// What psv_matrix_info and psv_tile_info report of a tile-composite form, on the host.
struct FormSummary {
    int64_t tile_width = 0;
    int32_t dense_tiles = 0;
    std::vector<Tile> tiles;
    std::vector<int64_t> row_major;  // row-major workloads of each tile
    int64_t n_workloads = 0, n_rows = 0, n16 = 0, n32 = 0, slots = 0;
    ColumnStats columns;
};

// CSR chunk plan (csr_chunk_kernel, the CSR kernel whenever u has every entry): the entries cut
// into chunks of at most 2 x C (C = Policy::chunk_stride: kChunkEntries, or a little less), each a
// block of kChunkThreads. A cut that would fall inside a row of at most C entries moves back to
// that row's start, so only rows longer than C ("long") are split; a long row's pieces are summed
// into slots, and the block that finishes its last piece (a per-row counter) adds them in order.
struct ChunkPlan {
    bool ranked = false;  // columns by rank (col_enc), x gathered into rank order per product
    // ranked: the ranks below it are stored as ranks (x gathered into rank order for those
    // alone); an entry of a higher rank stores ranked_prefix + its column (x read from u
    // itself). ncols: every column ranked. Below ncols only with hot columns (auto_ranked_prefix).
    int64_t ranked_prefix = 0;
    // hot columns (ranks 0 .. hot-1) held in shared memory by csr_hot_kernel, for values of at
    // most hot_vb bytes (a product of wider values reads M.col in plain order); 0: none
    int64_t hot = 0;
    size_t hot_vb = 0;
    int64_t nchunks = 0, nlong = 0;
    Buffer begin;      // int64 [nchunks + 1]: first entry of each chunk (last: nvals)
    Buffer first_row;  // int32 [nchunks + 1]: first row starting at or after begin (last: nrows)
    Buffer head_long;  // int32 [nchunks]: the long row this chunk continues (its first piece), or -1
    Buffer tail_long;  // int32 [nchunks]: the long row starting in this chunk (its last piece), or -1
    Buffer long_row;   // int32 [nlong]
    Buffer long_first; // int64 [nlong]: the chunk holding the row's first entry
    Buffer long_slot;  // int64 [nlong + 1]: slots of row j: long_slot[j] .. long_slot[j + 1]
    Buffer counters;   // uint32 [nlong], zero between products
    Buffer slots;      // 8 bytes per slot (the accumulator type)
    // int32 [nvals], when ranked or hot: each entry's column as the kernels read it: rank | 2^31
    // for a hot column (rank < hot), else the rank (ranked, rank < ranked_prefix),
    // ranked_prefix + the column (ranked, higher ranks), or the column itself (not ranked)
    Buffer col_enc;
    Buffer col_order;  // int32 [ncols], when ranked or hot: the column of each rank
    int64_t device_bytes() const;
};

// A piece's entries are cut into kStreamThreads consecutive ranges of whole groups of 4 (the
// first `a` ranges one group longer than the rest), and stored group-interleaved: group k of
// thread t at group k * kStreamThreads + t of the piece, so a block's loads of its k-th groups
// are one coalesced sweep. The plan writes this layout (stream_plan.cu, place_kernel) and the
// accumulate pass reads it (spmv/stream.cuh).
struct StreamPieceShape {
    int64_t groups_long;  // groups of threads [0, a); those after have one fewer
    int64_t a;
    __host__ __device__ static StreamPieceShape of(int64_t groups) {
        const int64_t l = (groups + kStreamThreads - 1) / kStreamThreads;
        return {l, groups - kStreamThreads * (l - 1 < 0 ? 0 : l - 1)};
    }
    __host__ __device__ int64_t groups_of(int64_t t) const { return t < a ? groups_long : groups_long - 1; }
};

// The streamed product's plan (PSV_KERNEL_STREAM; stream_plan.cu builds it, spmv/stream.cuh runs
// it): partition-centric propagation blocking with the binning precomputed. The rows are cut into
// partitions of `rows` rows; a partition's (column, partition) pairs -- one per distinct column
// with an entry in it, in column order -- are cut into pieces of at most `slots` pairs. A product:
// (1) scatter: a block per column block of x stages its window in shared memory and writes x(j)
// once per pair, in runs (one per column block and partition) contiguous in pv; (2) accumulate: a
// block per partition keeps its rows' sums in shared memory, stages each piece's pair values
// there and streams the piece's entries -- (row in partition, slot in piece), sorted by row, a
// range of them per thread (StreamPieceShape) -- each thread summing its range's runs, the runs
// that cross ranges by a segmented scan over the threads in order. No random read of x, no float
// atomics: every row's sum is formed in an order fixed by the plan.
struct StreamPlan {
    int64_t parts = 0, rows = 0, slots = 0, pieces = 0, pairs = 0, runs = 0;
    int64_t entries = 0;                                      // ent's length: nvals and each piece's padding
    int64_t column_block = 0, column_blocks = 0, splits = 0;  // scatter: x window, blocks per window
    int64_t max_part_entries = 0;                             // the most entries of one partition
    size_t vb = 0;                                            // the value size the slots were counted for
    bool piece_sorted = false;  // its entries sorted by row piece by piece in shared memory (else by one radix sort)
    Buffer part_piece;   // int32 [parts + 1]: first piece of each partition
    Buffer piece_pair;   // uint32 [pieces + 1]: first pair (position in pv) of each piece
    Buffer piece_entry;  // int64 [pieces + 1]: first entry (position in ent) of each piece, a multiple of 4
    Buffer order;        // int32 [parts]: the partitions by entries, most first (the launch order)
    Buffer ent;          // uint32 [entries]: row in partition << 16 | slot in piece, each piece laid out by
                         // StreamPieceShape; 0xffffffff pads a piece's last group
    Buffer val;          // [entries] values in ent's order (empty for a pattern, and for a plan built
                         // without them: CudaMatrix::stream_values_pending)
    Buffer nonempty;     // uint32 [(nrows + 31) / 32]: bit i set where row i has an entry
    // the scatter's items: the pairs in (column block, partition, column) order; a run is the
    // items of one column block and partition (consecutive in pv)
    Buffer window_run;  // uint32 [column_blocks + 1]: first run of each column block
    Buffer run_item;    // uint32 [runs + 1]: first item of each run
    Buffer run_dest;    // uint32 [runs]: pv position of each run's first item
    Buffer item_col;    // uint16 [pairs, rounded up to 4]: each pair's column less its block's first, in pv order
    // workspace of one product (the context's stream orders products)
    Buffer pv;  // pairs x vb
    // The plan's arrays, every one above but the workspace (device_bytes adds pv; tests copy them).
    std::vector<const Buffer *> arrays() const {
        return {&part_piece, &piece_pair, &piece_entry, &order, &ent, &val, &nonempty, &window_run, &run_item, &run_dest,
                &item_col};
    }
    // The scatter's blocks per window where its source stages `vectors` vectors a window (a
    // product's x: 1; PageRank's rank and out-degrees: 2): splits, fewer where a block would keep
    // fewer than block_runs runs (Policy::stream_scatter_block_runs, on average) for each vector.
    int64_t splits_for(int vectors, int64_t block_runs) const {
        const int64_t by_runs = runs / std::max<int64_t>(1, column_blocks * std::max<int64_t>(1, block_runs) * vectors);
        return std::max<int64_t>(1, std::min<int64_t>(splits, by_runs));
    }
    int64_t device_bytes() const;
    std::string describe() const;
    // The bytes one product moves by the byte model (tuning::stream_model_bytes).
    int64_t model_bytes(int64_t nrows, int64_t ncols, bool weighted) const {
        return (int64_t)tuning::stream_model_bytes((double)nrows, (double)ncols, (double)pairs, (double)runs,
                                                   (double)entries, (double)vb, weighted);
    }
};

// The SELL-32 plan (PSV_KERNEL_SELL, and AUTO on regular matrices; sell_plan.cu builds it,
// spmv/sell.cuh runs it): the rows in slices of kSellRows, each slice padded to its longest row
// and stored column-major: slot k of row 32 s + l at 32 (group[s] + k) + l. Padding slots hold
// column -1 (and value bits zero). The CSR stays beside it (the products of u with absent
// entries, the k-vector product, the transpose and the push product read it).
struct SellPlan {
    int64_t slices = 0, slots = 0;  // slots: 32 x the slices' widths, padding included
    Buffer group;  // int64 [slices + 1]: the first group of 32 slots of each slice
    Buffer col;    // int32 [slots]
    Buffer val;    // slots x the matrix's value size (empty for a pattern)
    int64_t device_bytes() const;
    // The bytes a plan of `slots` slots over nrows rows holds: each slot's column and value (vb
    // bytes, 0 for a pattern), each slice's group offset. AUTO's memory rule asks it before any
    // plan exists.
    static int64_t held_bytes(int64_t nrows, int64_t slots, size_t vb) {
        return slots * (int64_t)(4 + vb) + 8 * ((nrows + kSellRows - 1) / kSellRows + 1);
    }
    // The bytes one product moves by SELL's byte model: what the plan holds (the values where
    // weighted), x once and y written (vb-byte values).
    int64_t model_bytes(int64_t nrows, int64_t ncols, size_t vb, bool weighted) const {
        return held_bytes(nrows, slots, weighted ? vb : 0) + (int64_t)vb * (nrows + ncols);
    }
    std::string describe(int64_t entries) const;  // entries: the matrix's
};

class CudaMatrix final : public MatrixStore {
public:
    // The pool's high-water mark restarts here; finish_matrix reads what the build held at most.
    explicit CudaMatrix(CudaBackend *be) : be_(be), policy(be->policy()), build_start_bytes(be->pool().in_use_bytes()) {
        be->pool().reset_peak();
    }
    // A matrix that only receives arrays (need_csr's transpose), leaving the pool's mark alone.
    struct Scratch {};
    CudaMatrix(CudaBackend *be, Scratch) : be_(be), policy(be->policy()) {}
    void rebuild(const FormatOptions &opt) override { rebuild_from(opt, nullptr); }
    // rebuild, where this matrix is the transpose of *transposed_from (transposed(): its column
    // lengths and streamed plan are read from that matrix's row pointer and entries), else null.
    void rebuild_from(const FormatOptions &opt, const CudaMatrix *transposed_from);
    void info(psv_matrix_info &out) const override;
    int32_t tile_count() const override { return (int32_t)summary().tiles.size(); }
    void tile_info(int32_t tile, psv_tile_info &out) const override;
    void extract_tuples(int64_t *rows_host, int64_t *cols_host, void *values_host) const override;
    void inverse_row_lengths(float *out) const override;
    std::unique_ptr<MatrixStore> transposed() const override;
    std::unique_ptr<MatrixStore> symmetric_pattern() const override;

    // The tile-composite form: the kept one, else built now with the options and policy of the
    // last rebuild and kept until the next (the k-vector product's tile-composite variant).
    const TcForm &form() const;
    // The k-vector CSR product's state (filled by csr_spmm, cuda/spmv/products.cu): each entry's
    // row (int32 [nvals], from the first product) and, for segments of `seg` entries, a table entry
    // (SpmmSegment, cuda/spmv/spmm.cuh) and a long-row piece counter (int32, zero between
    // products) per segment (from the first product with that length). Kept until the next rebuild.
    struct SpmmLayout {
        Buffer rows, table, counts;
        int64_t seg = 0;
    };
    SpmmLayout &spmm_layout() const { return spmm_layout_; }
    // The form copied to the host (tests compare builders); built transiently where not kept.
    TileComposite form_to_host() const;
    // Bytes of device memory the matrix holds (CSR, plan, kept form).
    int64_t device_bytes() const;
    // The bound of what building its tile-composite form holds beside it: 32 bytes per entry and
    // two values (measured: R-MAT 28, a pattern, held 25 bytes per entry of temporaries when it
    // asked for 4 more), and 24 per column.
    double form_construction_bytes() const {
        const double vb = pattern ? 0.0 : (double)type_size(type);
        return (32.0 + 2.0 * vb) * (double)nvals + 24.0 * (double)ncols;
    }
    // The SpMV plan in words.
    std::string plan_description() const;

    CudaBackend *be_;
    Policy policy;  // the policy of the last rebuild
    // CSR in device memory. A transpose whose plan is streamed (transposed(): PageRank's and HITS's
    // A') holds its row pointer alone until a reader needs the rest: every reader of col and val
    // calls need_csr() first, which builds them from the matrix it transposes (csr_pending()).
    Buffer row_ptr;      // int64 [nrows + 1]
    mutable Buffer col;  // int32 [nvals]
    mutable Buffer val;  // nvals * type size (empty for a pattern)
    void need_csr() const;
    bool csr_pending() const { return csr_source_ != nullptr; }
    psv_kernel kernel = PSV_KERNEL_TILE_COMPOSITE;
    double build_seconds = 0;
    size_t build_start_bytes = 0;  // the pool's live bytes when the build began
    int64_t peak_bytes = 0;        // psv_matrix_info.peak_bytes
    int32_t max_row_length = 0;
    ColumnStats columns;
    // int32 [ncols]: each column's entries, as the column ranking counted them (empty where no
    // rebuild counted them). A transpose's row pointer is their running sum (transpose_row_ptr):
    // PageRank's first call then counts no entries with atomics (docs/design.md, section 5).
    Buffer column_lengths;
    bool has_column_lengths() const { return ncols > 0 && column_lengths.size() == (size_t)ncols * 4; }
    // CSR (vector) kernel: lanes per row (from the mean row length), and the rows longer than
    // csr_long_min, each summed by a block of its own (device int32 list, n_long_rows of them)
    int32_t csr_lanes = 32;
    int64_t csr_long_min = 0;
    Buffer long_rows;
    int64_t n_long_rows = 0;
    ChunkPlan chunks;
    mutable StreamPlan stream;  // need_stream_values may build it again, with values
    // Whether this valued matrix's streamed plan was built without its values (a transpose without
    // its entries: PageRank's and HITS's A', whose products read none): its value copy is empty.
    bool stream_values_pending() const {
        return kernel == PSV_KERNEL_STREAM && !pattern && stream.parts > 0 && stream.val.size() == 0;
    }
    // Such a plan built again with its values: from the matrix this one transposes while its
    // entries are not built, else from its own entries. The streamed product calls it before it
    // reads values (launch_stream_with). On failure the plan is left as it was.
    void need_stream_values() const;
    SellPlan sell;
    // the performance model's view of the last rebuild (plan.cu): the plan built, its predicted
    // ms (0: no table), the best other candidate, how many candidates, all of them ranked
    tuning::Plan plan;
    double predicted_ms = 0;
    tuning::Plan runner_up;
    double runner_up_ms = 0;
    int32_t plan_candidates = 0;
    double model_seconds = 0;  // what the choice added to the rebuild: the profile, the predictions
    const std::vector<tuning::Ranked> &ranking() const { return ranking_; }
    std::string plan_text(int32_t which) const override;

private:
    // the matrix this one is the transpose of while col and val are not built (its CSR outlives
    // this matrix: the transpose is released first wherever its source is rebuilt or freed)
    mutable const CudaMatrix *csr_source_ = nullptr;
    std::vector<tuning::Ranked> ranking_;
    std::unique_ptr<TcForm> build_padded_form(ColumnStats &cs) const;
    const TcForm &kept_or_transient_form(std::unique_ptr<TcForm> &transient, ColumnStats &cs) const;
    const FormSummary &summary() const;
    mutable std::unique_ptr<TcForm> form_;          // kept form (tile kernels, or built on use)
    mutable std::unique_ptr<FormSummary> summary_;  // of the form, until the next rebuild
    mutable SpmmLayout spmm_layout_;                // spmm_layout(), until the next rebuild
};

}  // namespace cuda
}  // namespace psv
