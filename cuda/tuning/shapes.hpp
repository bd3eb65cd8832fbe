// The CUDA kernels' compile-time shapes: numbers the kernels are templated on or that size their
// shared memory at compile time. Plain C++ (no CUDA header): the policy (policy.hpp), the tests
// and the bench read them too. The run-time numbers and rule inputs are Policy fields.
#pragma once
#include <cstddef>
#include <cstdint>

namespace psv {
namespace cuda {

// Threads per block of the tile-composite, TILE-COO and k-vector kernels.
constexpr int kSpmvThreads = 512;
constexpr int kSpmvWarps = kSpmvThreads / 32;

// The CSR chunk kernel: threads per block, target entries per chunk (a chunk holds at most twice
// as many).
constexpr int kChunkThreads = 256;
constexpr int kChunkPerThread = 8;
constexpr int64_t kChunkEntries = (int64_t)kChunkThreads * kChunkPerThread;
// A chunk's shared memory in the chunk kernels: products of at most kChunkCap entries (a chunk
// holds at most 2 x its cut spacing), and the list of pieces deferred to whole warps (pieces of
// more than 16 entries, at most kChunkCap / 16, and the two ends of long rows).
constexpr int kChunkCap = 2 * (int)kChunkEntries;
constexpr int kChunkDeferredMax = kChunkCap / 16 + 2;
// csr_chunk_kernel's blocks per SM (its register cap): on matrices of many waves of chunks, and
// on the others (where each block's chain of dependent loads counts more than occupancy).
constexpr int kChunkBlocksManyWaves = 8;
constexpr int kChunkBlocksFewWaves = 6;
// chunk_reduce: lanes per row piece grow until a lane sums at most kChunkMeanPerLane entries of
// the chunk's mean piece; pieces longer than kChunkMaxPerLane x lanes go to a whole warp.
constexpr int kChunkMeanPerLane = 16;
constexpr int kChunkMaxPerLane = 64;
static_assert(kChunkMaxPerLane >= 16, "a chunk's deferred list (kChunkDeferredMax) holds pieces of more than 16 entries");

// The deterministic reductions (vector/reduce.cuh): threads per block, and the most blocks (the
// context keeps that many 8-byte partials).
constexpr int kReduceThreads = 256;
constexpr int kReduceMaxBlocks = 1024;

// The hot-column chunk kernel (csr_hot_kernel): groups of kChunkThreads threads per block, and
// blocks per SM.
constexpr int kHotGroups = 3;
constexpr int kHotBlocksPerSm = 2;

// The streamed product (PSV_KERNEL_STREAM): threads per block of its accumulate pass (one block
// per SM by default, up to 64 registers a thread; each thread walks a range of a piece's entries,
// StreamPieceShape in cuda/build/matrix.cuh), the static shared memory of its scan over the
// ranges (each warp's first row, last row and an 8-byte sum), the bytes a piece's staged pair
// values may take beyond its slots (they are copied in aligned 16-byte pieces), the loads of entry
// groups each thread keeps in flight while it sums one (fewer for 8-byte values, whose groups take
// twice the registers), and threads per block of its scatter pass (two blocks per SM).
constexpr int kStreamThreads = 1024;
constexpr size_t kStreamStaticSmem = (kStreamThreads / 32) * (4 + 4 + 8) + 64;
constexpr size_t kStreamStageSlack = 32;
constexpr int stream_groups_in_flight(size_t value_bytes) { return value_bytes <= 4 ? 2 : 1; }
constexpr int kStreamScatterThreads = 1024;

// The SELL-32 kernel (spmv/sell.cuh): rows per slice (a warp's lanes) and the slots each lane
// loads before it uses any.
constexpr int kSellRows = 32;
constexpr int kSellUnroll = 4;

}  // namespace cuda
}  // namespace psv
