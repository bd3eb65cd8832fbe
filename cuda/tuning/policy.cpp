// select_policy: the only place the CUDA backend's tuning numbers are chosen. The numbers were
// chosen on Hopper (sm_90: H100, H200); other devices take the same rules, scaled by their own
// SM count, L2 and shared memory. docs/design.md gives the measured reason for each.
#include "cuda/tuning/policy.hpp"

namespace psv {
namespace cuda {

Policy select_policy(const DeviceTraits &d) {
    Policy p;
    p.sms = d.sms;
    p.l2_bytes = d.l2_bytes;
    p.global_bytes = d.global_bytes;
    p.smem_per_sm = d.smem_per_sm;
    p.smem_optin = d.smem_optin;
    // 8 blocks per SM pay from 8 waves of chunks on; below, each block's load chain counts more
    p.chunk_many_waves = 8;
    // cuts 64 entries short of kChunkEntries on few waves: one load pass per chunk of short rows
    p.chunk_stride_trim = 64;
    // a column copied to shared memory by every one of the sms blocks must serve about a quarter
    // of a gather or more in each
    p.hot_min_length = d.sms / 4 > 2 ? d.sms / 4 : 2;
    // a larger hot set takes L1 space that the next-warmest columns of x use
    p.hot_max = 8192;
    // up to this many hot columns each block gathers them itself (through col_order) rather than
    // from a gather launch of its own
    p.hot_direct = 2048;
    // the hot copy, once per block and product, must be spread over enough entries
    p.hot_chunks_per_block = 16;
    // shared memory per block left to the kernel's own variables
    p.hot_smem_reserve = 1024;
    // wider values (fp64, int64) keep the plain chunk kernel
    p.hot_max_value_bytes = 4;
    // the model prices hot sets of 2048, 4096 and 8192 columns: a fuller shared memory leaves too
    // little L1 to the other gathers (docs/design.md, section 3: 15 840 against 8192)
    p.hot_candidate_min = 2048;
    p.hot_candidate_steps = 3;
    // a few columns carry most entries
    p.power_law_ratio = 16.0;
    // rank order pays once x no longer stays in L2 while the entries stream past; under the hot
    // kernel, once it exceeds half of L2
    p.rank_order_l2_share = 1.0;
    p.rank_order_l2_share_hot = 0.5;
    // the tail of short columns gets no reuse from rank order: ranks for what fits half of L2
    p.ranked_prefix_l2_parts = 2;
    // about four entries per lane for a row of mean length
    p.csr_entries_per_lane = 4;
    // rows of more than 128 entries per lane are summed by a block each
    p.csr_long_per_lane = 128;
    // two blocks of kSpmvThreads per SM share its shared memory for their x slices
    p.tile_blocks_per_sm = 2;
    // shared memory per block left to the kernel's own variables
    p.tile_block_reserve = 2048;
    // tile-local indices stay 16-bit
    p.tile_width_max = 65504;
    // every extra dense tile's pass over its rows costs more than staging its x slice saves, on
    // every power-law matrix of the benchmark set
    p.default_max_tiles = 0;
    // one accumulate block per SM: the most rows per partition (fewest pairs) and slots per piece
    p.stream_blocks_per_sm = 1;
    p.stream_block_reserve = 2048;
    // 16 K rows: their fp64 accumulators take 128 KB, leaving 24 K fp32 slots a piece
    p.stream_rows = 16384;
    // fewer rows where a matrix would give fewer than 2 partitions per SM: at R-MAT 20-22 (1-4 M
    // rows) 2 partitions per SM moved fewer pairs than 4 and balanced as well (docs/benchmarks.md)
    p.stream_parts_per_sm = 2;
    p.stream_min_slots = 8192;
    p.stream_slots_max = 65535;
    // a piece's entries sorted by row in shared memory (a block a piece) where the largest piece
    // is at most an SM's part of the work, so that its block ends no later than the SMs' fair
    // share: 1.0 once measured. Off (0) until the warp-ranked kernel has run on a device; its
    // first version (a block radix sort a tile) was measured mixed (docs/design.md, section 11)
    p.stream_piece_sort_share = 0.0;
    p.stream_window_max = 65536;
    // the scatter's column blocks vary in pairs, and two run per SM: a dozen waves of SMs even
    // out the SMs' shares (R-MAT 24: 585 column blocks, 1 block each -> 3), but not below a run
    // a warp for each vector a block stages: each block stages its whole window, and a warp
    // without a run only waits (R-MAT 20: 37 windows of 256 runs, 32 blocks each -> 8 for a
    // product, 4 for PageRank's, which stages two; docs/benchmarks.md)
    p.stream_scatter_waves = 12;
    p.stream_scatter_block_runs = kStreamScatterThreads / 32;
    // the accumulate pass launched while the scatter ends: its blocks take the SMs the scatter
    // leaves, set their rows and load their first entries before they wait (docs/benchmarks.md)
    p.stream_overlap_launch = true;
    // AUTO streams power-law matrices of at least 2^23 entries, whatever the size of x: on the
    // H200 the streamed product is ahead of the chunk kernels from R-MAT 20 (16 M entries, x
    // 4 MB, in L2) up, level at R-MAT 19 (8 M) and behind on smaller graphs and on the stencil
    // (docs/benchmarks.md)
    p.stream_auto = true;
    p.stream_min_entries = 1ll << 23;
    p.stream_l2_share = 0.0;
    // the model's coefficients for the rewritten streamed product chose it at R-MAT 20 and 22,
    // where it is behind or level: the rule alone chooses it
    p.stream_in_model = false;
    // wider values halve the slots per piece
    p.stream_max_value_bytes = 4;
    // ---- SELL-32 ----
    // a regular matrix's slices (the 27-point stencil: 1.003 slots an entry) are read with every
    // load coalesced; below 2^22 entries a product is launch latency either way, and rows of
    // fewer than 8 entries on average pad more and suit the chunk kernel's packing
    p.sell_auto = true;
    p.sell_min_entries = 1ll << 22;
    p.sell_min_row_mean = 8.0;
    p.sell_max_padding = 1.1;
    // a quarter of device memory may stay cached for reuse
    p.pool_cache_bytes = d.global_bytes / 4;
    // builds of more entries take long enough to report
    p.progress_min_entries = 20000000;
    // ---- algorithms ----
    // a small matrix's PageRank iteration is launch latency and a host round trip
    p.loop_graph_max_entries = 4000000;
    p.loop_graph_iterations = 8;
    // a larger loop's host round trip left the device idle between iterations; a group ahead
    // keeps it busy, and a few skipped iterations at the end cost less than a read-back each
    p.loop_ahead_iterations = 4;
    // the most entries a group of the k-vector product takes; enough groups for several waves
    // where a warp holds one (fewer, longer segments measured slower), and segments long enough
    // that few rows are cut (a long row's pieces are added by one group, in segment order)
    p.spmm_segment_entries = 1024;
    p.spmm_groups_per_sm = 256;
    p.spmm_segment_min = 64;
    return p;
}

}  // namespace cuda
}  // namespace psv
