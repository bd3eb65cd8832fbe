// The CUDA backend's classes: a context owns a device, a stream and a caching device-memory pool;
// matrices live in device memory as CSR plus the tile-composite form (and the TILE-COO form when
// that kernel is chosen).
//
// Determinism: every result is bit-for-bit reproducible run to run on the same device.
//  - SpMV: column tiles are launched one after another on the context's stream; tile t's launch
//    combines its partial into t(i) (t(i) = add(t(i), partial)), and a row appears once per tile,
//    so no two warps of a launch touch the same output and the order of tile sums is fixed.
//    Within a row the warp reduction is a fixed butterfly (row-major workloads) or a sequential
//    loop (column-major workloads, CSR-vector rows use a fixed butterfly too). The CSR chunk
//    kernel sums a chunk's row pieces in fixed orders and a long row's piece slots in slot order
//    (an integer counter picks which warp does it, not the order). No float atomics.
//  - Reductions (reduce, sum, PageRank's dangling sum and L1 difference, normalize, RWR) use a
//    fixed grid for a given n, fixed per-block trees, and a final in-order pass over the block
//    partials: the result does not depend on scheduling. Integer atomics are used only for
//    counts (exact).
// Results agree with the CPU backend exactly for integer and boolean semirings, and within
// floating-point rounding for float ones (the summation order differs).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/ops.hpp"

namespace psv {
namespace cuda {

// Check a CUDA runtime call: out of memory -> PSV_ERROR_OUT_OF_MEMORY (the error is cleared so
// the context stays usable); anything else -> PSV_ERROR_DEVICE with CUDA's message.
[[noreturn]] void throw_cuda(cudaError_t e, const char *what, const char *file, int line);
#define PSV_CUDA_CHECK(expr)                                                                  \
    do {                                                                                      \
        cudaError_t psv_e_ = (expr);                                                          \
        if (psv_e_ != cudaSuccess) ::psv::cuda::throw_cuda(psv_e_, #expr, __FILE__, __LINE__); \
    } while (0)
// After a kernel launch.
#define PSV_CUDA_LAUNCH_CHECK() PSV_CUDA_CHECK(cudaGetLastError())

// A caching pool over cudaMalloc (never managed memory). Freed blocks are kept for reuse (the
// stream orders their reuse); when cudaMalloc fails, every cached block is released and the
// allocation retried once before PSV_ERROR_OUT_OF_MEMORY.
class DevicePool {
public:
    // used_ gets its buckets up front: a rehash inside a call would allocate host memory that
    // outlives it
    explicit DevicePool(size_t cache_limit) : cache_limit_(cache_limit) { used_.reserve(1024); }
    ~DevicePool();
    void *allocate(size_t bytes);
    void deallocate(void *p) noexcept;
    void trim() noexcept;  // release every cached block
    size_t cached_bytes() const { return cached_; }

private:
    std::multimap<size_t, void *> free_;
    std::unordered_map<void *, size_t> used_;
    size_t cached_ = 0, cache_limit_;
};

class CudaBackend;

// Per-tile metadata kept on the host as well as on the device.
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
    int64_t max_col_length = 0;
    int64_t hot_columns = 0;  // columns of length >= hot_min_length (ranks 0 .. hot_columns - 1)
};

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
// csr_chunk_kernel runs 8 blocks per SM on a matrix of at least kChunkManyWaves waves of them
// (of kChunkEntries each), else 6.
constexpr int64_t kChunkManyWaves = 8;
inline bool chunk_many_waves(int64_t nnz, int sms) { return nnz >= kChunkManyWaves * 8 * sms * kChunkEntries; }
// The chunk plan cuts every kChunkEntries entries, each cut moved back to the start of its row.
// On a matrix of fewer waves than that without hot columns (csr_chunk_kernel at 6 blocks per
// SM) the cuts are kChunkEntries - 64 apart instead: a chunk of rows of at most 61 entries then
// fits the kernel's first pass over kChunkEntries (whose 16-byte groups start up to 3 entries
// before the chunk), and a block's chain of dependent loads is one pass, not two. H100: 7-9 %
// on cnr-2000, rajat01, wing, bayer10; on many waves (the stencil's pattern product, 5 %) and
// under the hot kernel (R-MAT 20, 4 %) the extra chunks cost more (bench/NOTES.md v5).
inline int64_t chunk_stride(int64_t nnz, int64_t hot, int sms) {
    return hot == 0 && !chunk_many_waves(nnz, sms) ? kChunkEntries - 64 : kChunkEntries;
}
// Columns at least this long are worth a place among the hot ones (csr_hot_kernel), where each
// of the sms blocks copies them to shared memory once per product: a copied value (a coalesced
// read) must serve about a quarter of a gather or more in every block.
inline int64_t hot_min_length(int sms) { return sms / 4 > 2 ? sms / 4 : 2; }
// The hot-column chunk kernel (csr_hot_kernel): groups of kChunkThreads threads per block,
// blocks per SM, and the most hot columns whose values each block gathers itself (through
// col_order) rather than from a gather launch of its own.
constexpr int kHotGroups = 3;
constexpr int kHotBlocksPerSm = 2;
constexpr int64_t kHotDirect = 2048;
constexpr int64_t kHotMax = 8192;  // PSV_KERNEL_AUTO's largest hot set (auto_hot)
// Hot columns csr_hot_kernel can hold for values of vb bytes, with smem_per_sm bytes of shared
// memory per SM: what kHotBlocksPerSm blocks' products, deferred-piece lists and reserved 1 KB
// leave, a multiple of 32.
inline int64_t hot_capacity(size_t smem_per_sm, size_t vb) {
    const size_t per_block = smem_per_sm / kHotBlocksPerSm;
    const size_t fixed = (size_t)kHotGroups * (kChunkCap * vb + kChunkDeferredMax * 4 + 4) + 1024;
    return per_block > fixed ? (int64_t)((per_block - fixed) / vb) / 32 * 32 : 0;
}

class CudaMatrix final : public MatrixStore {
public:
    explicit CudaMatrix(CudaBackend *be) : be_(be) {}
    void rebuild(const FormatOptions &opt) override;
    void info(psv_matrix_info &out) const override;
    int32_t tile_count() const override { return (int32_t)form.tiles.size(); }
    void tile_info(int32_t tile, psv_tile_info &out) const override;
    void extract_tuples(int64_t *rows_host, int64_t *cols_host, void *values_host) const override;
    void inverse_row_lengths(float *out) const override;
    std::unique_ptr<MatrixStore> transposed() const override;
    std::unique_ptr<MatrixStore> symmetric_pattern() const override;

    CudaBackend *be_;
    // CSR in device memory
    Buffer row_ptr;  // int64 [nrows + 1]
    Buffer col;      // int32 [nvals]
    Buffer val;      // nvals * type size (empty for a pattern)
    TcForm form;
    psv_kernel kernel = PSV_KERNEL_TILE_COMPOSITE;
    double build_seconds = 0;
    int32_t max_row_length = 0;
    // CSR (vector) kernel: lanes per row (from the mean row length), and the rows longer than
    // csr_long_min, each summed by a block of its own (device int32 list, n_long_rows of them)
    int32_t csr_lanes = 32;
    int64_t csr_long_min = 0;
    Buffer long_rows;
    int64_t n_long_rows = 0;
    // CSR chunk plan (csr_chunk_kernel, the CSR kernel whenever u has every entry): the entries
    // cut into chunks of at most 2 x C (C = chunk_stride: kChunkEntries, or 64 less), each a block
    // of kChunkThreads. A cut that would fall inside a row of at most C entries moves back to that
    // row's start, so only rows longer than C ("long") are split; a long row's pieces are summed
    // into slots, and the block that finishes its last piece (a per-row counter) adds them in
    // order.
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
    } chunks;
};

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int32_t device);
    ~CudaBackend() override;
    psv_backend kind() const override { return PSV_BACKEND_CUDA; }
    std::string device_name() const override { return name_; }

    void *allocate(size_t bytes) override;
    void deallocate(void *p) noexcept override;
    void upload(void *dst, const void *src_host, size_t bytes) override;
    void download(void *dst_host, const void *src, size_t bytes) override;
    void copy(void *dst, const void *src, size_t bytes) override;
    void set_bytes(void *dst, int value, size_t bytes) override;
    void copy_from_device_pointer(void *dst, const void *src_device, size_t bytes) override;
    void copy_to_device_pointer(void *dst_device, const void *src, size_t bytes) override;

    int64_t default_tile_width(size_t value_bytes) const override;
    // 0: no dense (shared-memory staged) tiles unless asked for. Measured on an H100
    // (bench/NOTES.md, v1): every extra tile's pass over its rows costs more than staging its x
    // slice saves, on every power-law matrix of the benchmark set (R-MAT 20-24, cnr-2000).
    int64_t default_max_tiles() const override { return 0; }
    PerfModel perf_model() const override;

    std::unique_ptr<MatrixStore> build_matrix(CsrHost &&csr, const FormatOptions &opt) override;

    void fill(psv_type type, int64_t n, void *x, const void *value_host) override;
    void ewise(psv_op op, psv_type type, int64_t n, void *w, uint8_t *w_present, const void *u,
               const uint8_t *u_present, const void *v, const uint8_t *v_present) override;
    void apply(psv_op op, psv_type type, int64_t n, void *w, const void *u,
               const void *scalar_host) override;
    void reduce(psv_op monoid, psv_type type, int64_t n, const void *x, const uint8_t *x_present,
                void *result_host) override;
    int64_t count_present(int64_t n, const uint8_t *present) override;
    void spmv(const SpmvArgs &a) override;
    void assign(const AssignArgs &a) override;
    void spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) override;

    // ---- internal ----
    void activate() const;  // cudaSetDevice
    void sync();
    cudaStream_t stream() const { return stream_; }
    int sm_count() const { return sms_; }
    size_t l2_bytes() const { return l2_bytes_; }
    size_t smem_optin() const { return smem_optin_; }
    size_t smem_per_sm() const { return smem_per_sm_; }
    DevicePool &pool() { return *pool_; }
    // Scratch of the one-lane deterministic reductions (allocated with the context, so a
    // reduction allocates nothing): kReduceMaxBlocks partials of 8 bytes, one zeroed counter.
    void *reduce_partials() const { return red_partials_.get(); }
    unsigned *reduce_counter() const { return red_counter_.as<unsigned>(); }
    // Build a matrix whose CSR already lies in device memory (the arrays are copied).
    std::unique_ptr<CudaMatrix> build_from_device_csr(int64_t nrows, int64_t ncols, psv_type type,
                                                      bool pattern, const int64_t *row_ptr,
                                                      const int32_t *col, const void *values,
                                                      const FormatOptions &opt);
    // CUB's two-phase temp storage: f(nullptr, bytes) sizes it, f(ptr, bytes) runs.
    template <class F> void cub_call(F &&f) {
        size_t bytes = 0;
        PSV_CUDA_CHECK(f((void *)nullptr, bytes));
        Buffer tmp(this, bytes ? bytes : 1);
        PSV_CUDA_CHECK(f(tmp.get(), bytes));
    }

private:
    int32_t device_ = 0;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<DevicePool> pool_;
    std::string name_;
    int sms_ = 132;
    size_t smem_optin_ = 227 * 1024, smem_per_sm_ = 228 * 1024;
    size_t l2_bytes_ = 50u << 20;
    int max_threads_per_sm_ = 2048;
    Buffer red_partials_, red_counter_;  // after pool_: released before it
};

// Build the device tile-composite form of M (CSR already in M) with the given parameters.
void build_form(CudaBackend &be, CudaMatrix &M, int64_t tile_width, int64_t max_tiles,
                int64_t workload_size, bool want_coo);
// Device transpose of a CSR (values carried).
void transpose_csr(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T);
// The pattern of A + A' (square A) built on the device with A's options.
std::unique_ptr<MatrixStore> symmetric_pattern(CudaBackend &be, const CudaMatrix &A);

// SpMV entry points, one per value type (cuda_spmv_<type>.cu).
template <class T> void spmv_typed(CudaBackend &be, const SpmvArgs &a);

// Threads per block of the SpMV kernels.
constexpr int kSpmvThreads = 512;
// The rows of M longer than min_len, in no particular order (a device int32 list); their count.
int64_t list_long_rows(CudaBackend &be, const CudaMatrix &M, int64_t min_len, Buffer &out);
// Build M.chunks from M's CSR (and, when ranked, its column ranking form.col_order; ranks below
// prefix only, the rest stored as prefix + column: ChunkPlan::ranked_prefix).
void build_chunk_plan(CudaBackend &be, CudaMatrix &M, bool ranked, int64_t prefix, int64_t hot, size_t hot_vb);

// Grid size for an elementwise kernel over n items.
inline unsigned grid_for(int64_t n, int threads = 256, int64_t cap = 65535LL * 32) {
    int64_t b = (n + threads - 1) / threads;
    if (b < 1) b = 1;
    if (b > cap) b = cap;
    return (unsigned)b;
}

}  // namespace cuda
}  // namespace psv
