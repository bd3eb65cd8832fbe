// The CUDA backend's tuning policy: every run-time number and rule input of its plans and
// launches, chosen from the device in one function (select_policy, the way CUB's policy
// selectors pick per compute capability) and passed explicitly: the context holds one, each
// matrix keeps a copy of the one it was planned with. Tests and the bench inject their own
// (psv::cuda::set_policy). Plain C++: no CUDA header needed to include it. The kernels'
// compile-time shapes are in shapes.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/tuning/shapes.hpp"
#include "tuning/model.hpp"

namespace psv {
namespace cuda {

// What select_policy reads of a device.
struct DeviceTraits {
    std::string name;
    int cc_major = 9, cc_minor = 0;
    int sms = 132;
    size_t l2_bytes = 50u << 20;
    size_t smem_per_sm = 228 * 1024;  // shared memory per SM
    size_t smem_optin = 227 * 1024;   // the most one block may opt in to
    int max_threads_per_sm = 2048;
    size_t global_bytes = 0;          // device memory
};

// The defaults are an H100's; select_policy sets every field.
struct Policy {
    // ---- the device the numbers are for (rule inputs) ----
    int sms = 132;
    size_t l2_bytes = 50u << 20;
    size_t smem_per_sm = 228 * 1024;
    size_t smem_optin = 227 * 1024;
    size_t global_bytes = 80ull << 30;  // device memory

    // ---- CSR chunk plan and kernel (PSV_KERNEL_CSR, and AUTO) ----
    // csr_chunk_kernel runs kChunkBlocksManyWaves blocks per SM on a matrix of at least this many
    // waves of them (of kChunkEntries each), else kChunkBlocksFewWaves.
    int64_t chunk_many_waves = 8;
    // On a matrix of fewer waves without hot columns the cuts are kChunkEntries less this apart.
    int64_t chunk_stride_trim = 64;
    // ---- hot columns (csr_hot_kernel) ----
    int64_t hot_min_length = 33;       // columns at least this long may be hot
    int64_t hot_max = 8192;            // AUTO's largest hot set
    int64_t hot_direct = 2048;         // up to this many, each block gathers the hot values itself
    int64_t hot_chunks_per_block = 16; // AUTO's hot kernel needs this many chunks per block
    size_t hot_smem_reserve = 1024;    // shared memory per block kept free of hot values
    int64_t hot_max_value_bytes = 4;   // AUTO's hot kernel serves values of at most this size
    // ---- the performance model's candidates (plan.cu) ----
    // hot-column plans of hot_candidate_min x 2^i columns (i < hot_candidate_steps, at most what
    // shared memory holds), each with x in plain and in rank order
    int64_t hot_candidate_min = 2048;
    int hot_candidate_steps = 3;
    // ---- AUTO's rules ----
    double power_law_ratio = 16.0;     // power law: the longest column at least this x the mean
    double rank_order_l2_share = 1.0;  // rank order pays where x exceeds this share of L2 ...
    double rank_order_l2_share_hot = 0.5;  // ... or this share under the hot kernel
    int64_t ranked_prefix_l2_parts = 2;    // under the hot kernel ranks cover 1/this of L2
    // ---- CSR (vector) kernel (u with absent entries) ----
    int32_t csr_entries_per_lane = 4;  // lanes per row: about this many entries each, mean row
    int64_t csr_long_per_lane = 128;   // rows longer than this x lanes get a block each
    // ---- tile-composite form defaults ----
    int tile_blocks_per_sm = 2;        // blocks whose staged x slices share an SM
    size_t tile_block_reserve = 2048;  // shared memory per block kept out of the slice
    int64_t tile_width_max = 65504;    // tile-local indices stay 16-bit
    int64_t default_max_tiles = 0;     // no dense tiles unless asked for
    // ---- streamed product (PSV_KERNEL_STREAM, and AUTO) ----
    int stream_blocks_per_sm = 1;        // accumulate blocks sharing an SM's shared memory
    bool stream_overlap_launch = true;   // the accumulate pass launched while the scatter ends (programmatic dependent launch)
    size_t stream_block_reserve = 2048;  // shared memory per accumulate block kept out of its rows and slots
    int64_t stream_rows = 16384;         // rows per partition, at most (its accumulators in shared memory)
    int64_t stream_parts_per_sm = 2;     // fewer rows per partition where there would be fewer partitions per SM
    int64_t stream_min_slots = 8192;     // a piece holds at least this many pairs (else fewer rows)
    int64_t stream_slots_max = 65535;    // ... and at most this many
    // The plan sorts each piece's entries by row in shared memory, a block a piece, where its
    // largest piece holds at most this share of an SM's part of the entries (nvals / sms); else
    // (and at 0) by one radix sort of all the entries. The plan is the same either way.
    double stream_piece_sort_share = 0.0;
    int64_t stream_window_max = 65536;   // the scatter's x window: at most this many columns
    int stream_scatter_waves = 12;       // scatter blocks: at least this many waves of SMs,
    int64_t stream_scatter_block_runs = 32;  // ... where each keeps this many runs a vector it stages
    bool stream_auto = true;             // AUTO may choose the streamed product (the rule below)
    bool stream_in_model = false;        // ... and the performance model may, among its candidates
    int64_t stream_min_entries = 1ll << 23;  // AUTO streams power-law matrices of this many entries
    double stream_l2_share = 0.0;        // ... whose x exceeds this share of L2
    int64_t stream_max_value_bytes = 4;  // AUTO streams values of at most this size
    // ---- SELL-32 (PSV_KERNEL_SELL, and AUTO) ----
    // AUTO takes SELL-32, ahead of the model, on a matrix whose columns follow no power law, of
    // at least sell_min_entries entries and sell_min_row_mean a row on average, whose slices'
    // slots (padding included) are at most sell_max_padding x the entries and fit beside the CSR
    // within plan_memory_share of device memory: every load of such a matrix's product is
    // coalesced, where the chunk kernel's rows are cut across lanes.
    bool sell_auto = true;
    int64_t sell_min_entries = 1ll << 22;
    double sell_min_row_mean = 8.0;
    double sell_max_padding = 1.1;
    // ---- device memory (docs/design.md, "Device memory") ----
    // Streamed construction (assemble.cu): tuples per chunk of a pass, entries per piece of the
    // in-row sort; at most a sixteenth of the input (at least 2^22), fewer where free memory is
    // short. The result does not depend on either.
    int64_t assemble_chunk = 1 << 27;
    int64_t assemble_piece = 1 << 28;
    // AUTO's ranked and hot plans add a 4-byte column code per entry (ChunkPlan::col_enc): kept
    // where the matrix with it takes at most this share of device memory, else the plain plan.
    double plan_memory_share = 0.5;
    // A' products (PageRank, HITS) cache the transpose where A and it take at most this share of
    // device memory (PSV_TRANSPOSE_AUTO), else run on A alone (the push product).
    double transpose_memory_share = 0.5;
    // The transpose sorts A's entries by column at once where the sort's scratch (about 16 bytes
    // an entry for a pattern) takes at most this share of free device memory, else it is
    // assembled in chunks (0: always in chunks).
    double transpose_sort_share = 0.5;
    // ---- context ----
    size_t pool_cache_bytes = 0;          // the device pool keeps at most this much cached
    int64_t progress_min_entries = 20000000;  // PSV_OPT_PROGRESS reports builds above this

    // ---- overrides that the tests and the bench inject ----
    int64_t hot_columns = -1;        // >= 0: AUTO holds this many hot columns (0: hot kernel off)
    bool rank_order_always = false;  // AUTO reads x in rank order on every matrix with entries
    int64_t ranked_prefix = -1;      // >= 0: a ranked hot plan keeps ranks for max(hot, this)
    bool pool_no_cache = false;      // the device pool keeps no freed block

    // A matrix of nnz entries runs csr_chunk_kernel at kChunkBlocksManyWaves blocks per SM.
    bool many_waves(int64_t nnz) const {
        return nnz >= chunk_many_waves * kChunkBlocksManyWaves * sms * kChunkEntries;
    }
    // The chunk plan's cut spacing: kChunkEntries, or chunk_stride_trim less on a matrix of few
    // waves without hot columns: a chunk of rows of at most 61 entries then fits the kernel's first
    // pass over kChunkEntries (whose 16-byte groups start up to 3 entries before the chunk), and a
    // block's chain of dependent loads is one pass, not two. On many waves and under the hot
    // kernel the extra chunks cost more than that saves.
    int64_t chunk_stride(int64_t nnz, int64_t hot) const {
        return hot == 0 && !many_waves(nnz) ? kChunkEntries - chunk_stride_trim : kChunkEntries;
    }
    // The default tile width for values of value_bytes bytes: the dense tiles' x slice is staged
    // in shared memory, where tile_blocks_per_sm blocks of kSpmvThreads per SM share the SM's, so
    // a slice takes that share (less a block's reserve), capped so that tile-local indices stay
    // 16-bit. Hopper's 228 KB per SM give 28 K fp32 or 14 K fp64 columns.
    int64_t tile_width_for(size_t value_bytes) const {
        if (value_bytes == 0) value_bytes = 4;
        size_t per_block = smem_per_sm / tile_blocks_per_sm;
        per_block = per_block > tile_block_reserve ? per_block - tile_block_reserve : per_block;
        if (per_block > smem_optin) per_block = smem_optin;
        int64_t w = (int64_t)(per_block / value_bytes);
        w = w / 32 * 32;
        if (w > tile_width_max) w = tile_width_max;
        if (w < 32) w = 32;
        return w;
    }
    // The streamed plan's shape for values of vb bytes: rows per partition and pair slots per piece.
    // An accumulate block holds its partition's rows (8 bytes each, the widest accumulator) and a
    // piece's pair values in what stream_blocks_per_sm blocks leave of an SM's shared memory (less
    // the kernel's static part, the staging slack and a block's reserve). Rows:
    // tuning::stream_partition_rows, halved until stream_min_slots slots fit; slots: the rest, at most 65535 (16-bit slots), a
    // multiple of 32, at most stream_slots_max. Rows stay below 65535 (16-bit rows; 0xffff marks
    // padding).
    struct StreamShape {
        int64_t rows = 0, slots = 0;
    };
    StreamShape stream_shape(int64_t nrows, size_t vb) const {
        if (vb == 0) vb = 4;
        size_t per_block = smem_per_sm / (size_t)(stream_blocks_per_sm > 0 ? stream_blocks_per_sm : 1);
        if (per_block > smem_optin) per_block = smem_optin;
        const size_t fixed = kStreamStaticSmem + kStreamStageSlack + stream_block_reserve;
        per_block = per_block > fixed ? per_block - fixed : 0;
        StreamShape z;
        int64_t r = tuning::stream_partition_rows(nrows, sms, stream_rows, stream_parts_per_sm);
        while (r > 256 && (size_t)r * 8 + (size_t)stream_min_slots * vb > per_block) r /= 2;
        if ((size_t)r * 8 >= per_block) return z;  // no room: rows 0, the plan refuses
        int64_t s = (int64_t)((per_block - (size_t)r * 8) / vb);
        if (s > 65535) s = 65535;
        if (s > stream_slots_max) s = stream_slots_max;
        z.rows = r;
        z.slots = s / 32 * 32;
        return z;
    }
    // The scatter pass's column block (its x window, staged in shared memory): the columns of vb
    // bytes that each of two blocks per SM may hold, at most stream_window_max and 65536 (16-bit
    // offsets), a multiple of 32 (0: no room).
    int64_t stream_column_block(size_t vb) const {
        size_t per_block = smem_per_sm / 2;
        if (per_block > smem_optin) per_block = smem_optin;
        per_block = per_block > stream_block_reserve ? per_block - stream_block_reserve : 0;
        int64_t c = (int64_t)(per_block / (vb ? vb : 4));
        if (c > 65536) c = 65536;
        if (c > stream_window_max) c = stream_window_max;
        return c / 32 * 32;
    }
    // Hot columns csr_hot_kernel can hold for values of vb bytes: what kHotBlocksPerSm blocks'
    // products, deferred-piece lists and reserve leave of an SM's shared memory, a multiple of 32.
    int64_t hot_capacity(size_t vb) const {
        const size_t per_block = smem_per_sm / kHotBlocksPerSm;
        const size_t fixed = (size_t)kHotGroups * (kChunkCap * vb + kChunkDeferredMax * 4 + 4) + hot_smem_reserve;
        return per_block > fixed ? (int64_t)((per_block - fixed) / vb) / 32 * 32 : 0;
    }

    // ---- algorithms ----
    // An iteration loop (PageRank) whose product reads at most this many entries runs as a CUDA
    // graph of loop_graph_iterations iterations per host round trip (0: never captured).
    int64_t loop_graph_max_entries = 4000000;
    int32_t loop_graph_iterations = 8;
    // A larger loop whose iterations do nothing at all past its end (PageRank fused into the
    // streamed product) is launched in groups of loop_ahead_iterations, the next group before the
    // host reads back the state after the one before (0: one iteration per read-back).
    int32_t loop_ahead_iterations = 4;
    // The k-vector CSR product (spmm_segment_kernel): the most entries a group of lanes takes
    // (rounded up to a multiple of 8); fewer where that leaves under spmm_groups_per_sm groups an
    // SM (or under one a resident group slot, 32 warps an SM), but never under spmm_segment_min.
    int64_t spmm_segment_entries = 1024;
    int64_t spmm_groups_per_sm = 256;
    int64_t spmm_segment_min = 64;
};

// The one function that chooses the numbers for a device.
Policy select_policy(const DeviceTraits &d);

}  // namespace cuda
}  // namespace psv
