// The CUDA backend: context (device, stream, memory pool), memory operations, vector kernels,
// assign, reductions and the algorithm primitives. SpMV lives in cuda_spmv*.cu, the device
// builder and transpose in cuda_build.cu.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "algo/steps.hpp"
#include "core/assign.hpp"
#include "cuda/cuda_backend.cuh"
#include "cuda/cuda_internal.hpp"
#include "cuda/cuda_reduce.cuh"
#include "cuda/cuda_rt.cuh"

namespace psv {
namespace cuda {

void throw_cuda(cudaError_t e, const char *what, const char *file, int line) {
    (void)cudaGetLastError();  // clear a non-sticky error so the context stays usable
    if (e == cudaErrorMemoryAllocation)
        fail(PSV_ERROR_OUT_OF_MEMORY, format("device out of memory (%s)", what));
    const char *base = std::strrchr(file, '/');
    fail(PSV_ERROR_DEVICE, format("CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(e),
                                  cudaGetErrorString(e), what, base ? base + 1 : file, line));
}

// ---- pool -----------------------------------------------------------------------------------

DevicePool::~DevicePool() {
    trim();
    for (auto &kv : used_) cudaFree(kv.first);  // objects outliving their context: best effort
}

void *DevicePool::allocate(size_t bytes) {
    bytes = (bytes + 511) / 512 * 512;
    if (bytes == 0) bytes = 512;
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first <= bytes + bytes / 4) {
        void *p = it->second;
        used_[p] = it->first;  // may throw bad_alloc: then the block stays cached
        cached_ -= it->first;
        free_.erase(it);
        return p;
    }
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        trim();
        e = cudaMalloc(&p, bytes);
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (e == cudaErrorMemoryAllocation)
            fail(PSV_ERROR_OUT_OF_MEMORY, format("device out of memory (%zu bytes)", bytes));
        throw_cuda(e, "cudaMalloc", __FILE__, __LINE__);
    }
    try {
        used_[p] = bytes;
    } catch (...) {
        cudaFree(p);
        throw;
    }
    return p;
}

void DevicePool::deallocate(void *p) noexcept {
    if (!p) return;
    auto it = used_.find(p);
    if (it == used_.end()) return;
    const size_t bytes = it->second;
    used_.erase(it);
    if (cached_ + bytes > cache_limit_ || test_hooks::device_pool_no_cache) {
        cudaFree(p);
        return;
    }
    try {
        free_.emplace(bytes, p);  // a map node: host memory may be exhausted
        cached_ += bytes;
    } catch (...) {
        cudaFree(p);  // cleanup must not need memory
    }
}

void DevicePool::trim() noexcept {
    for (auto &kv : free_) cudaFree(kv.second);
    free_.clear();
    cached_ = 0;
}

// ---- backend ----------------------------------------------------------------------------------

CudaBackend::CudaBackend(int32_t device) : device_(device) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        fail(PSV_ERROR_BACKEND_UNAVAILABLE, format("no CUDA device (%s)", e == cudaSuccess ? "none found" : cudaGetErrorString(e)));
    }
    if (device >= count)
        fail(PSV_ERROR_BACKEND_UNAVAILABLE, format("CUDA device %d does not exist (%d found)", device, count));
    PSV_CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    PSV_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    name_ = format("%s (CUDA device %d, sm_%d%d, %d SMs)", prop.name, device, prop.major, prop.minor,
                   prop.multiProcessorCount);
    sms_ = prop.multiProcessorCount;
    l2_bytes_ = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : l2_bytes_;
    int optin = 0;
    PSV_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    smem_optin_ = (size_t)optin;
    smem_per_sm_ = prop.sharedMemPerMultiprocessor;
    max_threads_per_sm_ = prop.maxThreadsPerMultiProcessor;
    // A blocking stream: it waits for work on the legacy default stream (a cudaMemcpy from
    // pageable memory may still be landing when that call returns), so device pointers a caller
    // filled there are safe to read.
    PSV_CUDA_CHECK(cudaStreamCreate(&stream_));
    try {
        pool_ = std::make_unique<DevicePool>(prop.totalGlobalMem / 4);
        red_partials_ = Buffer(this, (size_t)kReduceMaxBlocks * 8);
        red_counter_ = Buffer(this, sizeof(unsigned));
        set_bytes(red_counter_.get(), 0, sizeof(unsigned));
        sync();
    } catch (...) {
        red_partials_.reset();
        red_counter_.reset();
        pool_.reset();
        cudaStreamDestroy(stream_);
        stream_ = nullptr;
        throw;
    }
}

CudaBackend::~CudaBackend() {
    if (stream_) {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
    }
    red_partials_.reset();
    red_counter_.reset();
    pool_.reset();
}

void CudaBackend::activate() const { PSV_CUDA_CHECK(cudaSetDevice(device_)); }
void CudaBackend::sync() { PSV_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

void *CudaBackend::allocate(size_t bytes) {
    activate();
    return pool_->allocate(bytes);
}
void CudaBackend::deallocate(void *p) noexcept {
    if (pool_) pool_->deallocate(p);
}
void CudaBackend::upload(void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    PSV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
    sync();
}
void CudaBackend::download(void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    PSV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    sync();
}
void CudaBackend::copy(void *dst, const void *src, size_t bytes) {
    if (!bytes || dst == src) return;
    PSV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
}
void CudaBackend::set_bytes(void *dst, int value, size_t bytes) {
    if (!bytes) return;
    PSV_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream_));
}
void CudaBackend::copy_from_device_pointer(void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    PSV_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's pending writes to src, on any stream
    PSV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_));
    sync();
}
void CudaBackend::copy_to_device_pointer(void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    PSV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_));
    sync();
}

// The dense tiles' x slice is staged in shared memory: two blocks of kSpmvThreads per SM share
// the SM's shared memory, so a slice takes half of it (less a block's reserve), capped so that
// tile-local indices stay 16-bit. H100/H200: 228 KB per SM -> 28 K fp32 or 14 K fp64 columns.
int64_t CudaBackend::default_tile_width(size_t value_bytes) const {
    if (value_bytes == 0) value_bytes = 4;
    size_t per_block = smem_per_sm_ / 2;
    per_block = per_block > 2048 ? per_block - 2048 : per_block;
    if (per_block > smem_optin_) per_block = smem_optin_;
    int64_t w = (int64_t)(per_block / value_bytes);
    w = w / 32 * 32;
    if (w > 65504) w = 65504;
    if (w < 32) w = 32;
    return w;
}

PerfModel CudaBackend::perf_model() const {
    PerfModel m;
    m.max_active_warps = (int64_t)sms_ * (max_threads_per_sm_ / 32);
    m.workload_cost = default_workload_cost;
    return m;
}

// ---- matrices ---------------------------------------------------------------------------------

__global__ void row_stats_kernel(int64_t n, const int64_t *rp, unsigned long long *empty,
                                 int *maxlen) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    unsigned long long e = 0;
    int m = 0;
    for (; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t l = rp[i + 1] - rp[i];
        e += l == 0;
        m = max(m, (int)l);
    }
    for (int o = 16; o; o >>= 1) {
        e += __shfl_xor_sync(0xffffffffu, e, o);
        m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(empty, e);
        atomicMax(maxlen, m);
    }
}

static void finish_matrix(CudaBackend &be, CudaMatrix &M, const FormatOptions &opt) {
    // empty rows and the longest row (integer atomics: exact)
    Buffer stats(&be, 16);
    be.set_bytes(stats.get(), 0, 16);
    if (M.nrows > 0) {
        row_stats_kernel<<<grid_for(M.nrows, 256, 4096), 256, 0, be.stream()>>>(
            M.nrows, M.row_ptr.as<int64_t>(), stats.as<unsigned long long>(),
            reinterpret_cast<int *>(stats.as<uint8_t>() + 8));
        PSV_CUDA_LAUNCH_CHECK();
    }
    uint64_t h[2];
    be.download(h, stats.get(), 16);
    M.empty_rows = (int64_t)h[0];
    M.max_row_length = (int32_t)(h[1] & 0xffffffffu);
    M.rebuild(opt);
}

std::unique_ptr<CudaMatrix> CudaBackend::build_from_device_csr(int64_t nrows, int64_t ncols,
                                                               psv_type type, bool pattern,
                                                               const int64_t *rp, const int32_t *col,
                                                               const void *val,
                                                               const FormatOptions &opt) {
    activate();
    auto M = std::make_unique<CudaMatrix>(this);
    M->nrows = nrows;
    M->ncols = ncols;
    M->type = type;
    M->pattern = pattern;
    int64_t nnz = 0;
    if (nrows > 0) download(&nnz, rp + nrows, sizeof nnz);
    M->nvals = nnz;
    M->row_ptr = Buffer(this, (size_t)(nrows + 1) * 8);
    copy(M->row_ptr.get(), rp, (size_t)(nrows + 1) * 8);
    if (nrows == 0) set_bytes(M->row_ptr.get(), 0, 8);
    M->col = Buffer(this, (size_t)nnz * 4);
    copy(M->col.get(), col, (size_t)nnz * 4);
    if (!pattern) {
        M->val = Buffer(this, (size_t)nnz * type_size(type));
        copy(M->val.get(), val, (size_t)nnz * type_size(type));
    }
    finish_matrix(*this, *M, opt);
    return M;
}

std::unique_ptr<MatrixStore> CudaBackend::build_matrix(CsrHost &&csr, const FormatOptions &opt) {
    activate();
    auto M = std::make_unique<CudaMatrix>(this);
    M->nrows = csr.nrows;
    M->ncols = csr.ncols;
    M->type = csr.type;
    M->pattern = csr.pattern;
    M->nvals = csr.nvals();
    const int64_t nnz = M->nvals;
    M->row_ptr = Buffer(this, (size_t)(csr.nrows + 1) * 8);
    if (csr.row_ptr.empty()) set_bytes(M->row_ptr.get(), 0, 8);
    else upload(M->row_ptr.get(), csr.row_ptr.data(), (size_t)(csr.nrows + 1) * 8);
    M->col = Buffer(this, (size_t)nnz * 4);
    upload(M->col.get(), csr.col.data(), (size_t)nnz * 4);
    if (!csr.pattern) {
        M->val = Buffer(this, (size_t)nnz * type_size(csr.type));
        upload(M->val.get(), csr.values.data(), (size_t)nnz * type_size(csr.type));
    }
    CsrHost().row_ptr.swap(csr.row_ptr);  // the host copy is no longer needed
    std::vector<int32_t>().swap(csr.col);
    std::vector<uint8_t>().swap(csr.values);
    finish_matrix(*this, *M, opt);
    return M;
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The columns follow a power law: the longest at least 16 times the mean (a few columns carry
// most entries).
static bool power_law(const CudaMatrix &M) {
    if (M.nvals == 0 || M.ncols == 0) return false;
    const double mean = (double)M.nvals / (double)M.ncols;
    return (double)M.form.max_col_length >= 16.0 * mean;
}
// Column rank order pays where the columns follow a power law and x is too large for the L2
// cache to hold it while the entries stream past (more than `share` of L2): gathered in rank
// order, the hot part of x shares cache lines. The rule, for an input of x_bytes (ncols values,
// or ncols x k for the k-vector product, whose tile-composite variant it selects with share 1/2).
static bool prefers_rank_order(const CudaMatrix &M, double x_bytes, size_t l2_bytes, double share) {
    return power_law(M) && x_bytes > share * (double)l2_bytes;
}

// PSV_KERNEL_AUTO: the CSR chunk kernel everywhere, over rank-ordered columns where x exceeds
// L2, or half of L2 under the hot-column kernel (hot > 0). Measured on an H100 (50 MB L2;
// bench/NOTES.md): the chunk kernel is ahead of the tile-composite one on every matrix of the
// benchmark set; for the plain chunk kernel (v2) rank order costs 2.5 % at R-MAT 23 (x of 33.6
// MB: 1.418 against 1.384 ms) and pays from 24 on (67 MB: 2.98 against 3.42 ms; 25: 6.03 against
// 9.48 ms); for the hot kernel (v4) it pays at R-MAT 23 (1.227 against 1.338 ms) and costs 8 % at
// R-MAT 22 (16.8 MB: 0.555 against 0.512 ms) and 5 % at 21.
static bool auto_ranked(const CudaMatrix &M, size_t l2_bytes, int64_t hot) {
    if (test_hooks::chunk_rank_order_always) return M.nvals > 0 && M.ncols > 0;
    const double x_bytes = (double)M.ncols * (double)(M.pattern ? 4 : type_size(M.type));
    return prefers_rank_order(M, x_bytes, l2_bytes, hot > 0 ? 0.5 : 1.0);
}

// How many of a ranked plan's columns keep their rank (ChunkPlan::ranked_prefix): all of them for
// the plain chunk kernel; under the hot kernel those whose x, in rank order, fits in half of L2
// (at least the hot ones). The tail of a power-law matrix's columns (length 1-2, most of R-MAT's)
// gets no reuse from rank order, while gathering it costs each product a random read per column:
// those entries read x from u itself.
static int64_t auto_ranked_prefix(const CudaMatrix &M, size_t l2_bytes, int64_t hot, size_t vb) {
    if (hot == 0) return M.ncols;
    if (test_hooks::chunk_ranked_prefix >= 0) return std::max<int64_t>(hot, test_hooks::chunk_ranked_prefix);
    return std::max<int64_t>(hot, (int64_t)(l2_bytes / (2 * vb)));
}

// PSV_KERNEL_AUTO's hot columns (csr_hot_kernel: x at those columns read from shared memory): on
// a power-law matrix of values of at most 4 bytes with at least 16 chunks per hot-kernel block
// (its copy of the hot values, once per block and product, must be spread over enough entries),
// the columns of length >= hot_min_length, at most kHotMax. Measured on an H100 (bench/NOTES.md,
// v3): 8192 hot columns beat 4096 and 15840 (what shared memory holds) at R-MAT 20-25, by 4-50 %:
// a larger set takes L1 space the next-warmest columns of x use; 3.2 M entries (cnr-2000, 6
// chunks per block) ran 30 % slower than the chunk kernel, 16 M (R-MAT 20, 31 per block) 10 %
// faster. Products of wider values (fp64, int64) keep the chunk kernel.
static int64_t auto_hot(const CudaMatrix &M, const CudaBackend &be, size_t vb) {
    const int64_t cap = std::min<int64_t>(M.ncols, hot_capacity(be.smem_per_sm(), vb));
    if (M.nvals == 0) return 0;
    if (test_hooks::chunk_hot_columns >= 0) return std::min<int64_t>(cap, test_hooks::chunk_hot_columns);
    const int64_t chunks = (M.nvals + kChunkEntries - 1) / kChunkEntries;
    if (!power_law(M) || vb > 4 || chunks < 16 * (int64_t)kHotBlocksPerSm * be.sm_count()) return 0;
    const int64_t h = std::min<int64_t>({cap, kHotMax, M.form.hot_columns});
    return h >= 32 ? h : 0;
}

// Lanes per row for the CSR (vector) kernel: about four entries per lane for a row of mean
// length, a power of two from 2 to 32.
static int32_t csr_lanes_for(int64_t nvals, int64_t nrows) {
    const double mean = nrows > 0 ? (double)nvals / (double)nrows : 0.0;
    int32_t g = 2;
    while (g < 32 && 4.0 * g < mean) g *= 2;
    return g;
}

void CudaMatrix::rebuild(const FormatOptions &opt) {
    be_->activate();
    auto t0 = std::chrono::steady_clock::now();
    const size_t vb = pattern ? 4 : type_size(type);
    const int64_t tw = opt.tile_width > 0 ? opt.tile_width : be_->default_tile_width(vb);
    if (tw <= 0) fail(PSV_ERROR_INVALID_VALUE, "tile width must be positive");
    psv_kernel k = opt.kernel;
    if (opt.progress && nvals > 20000000)
        std::fprintf(stderr, "psv: building tile-composite form of %lld entries on the GPU...\n", (long long)nvals);
    TcForm old = std::move(form);
    try {
        const int64_t mt = (opt.max_tiles < 0 && opt.tile_width <= 0) ? be_->default_max_tiles() : opt.max_tiles;
        build_form(*be_, *this, tw, mt, opt.workload_size, k == PSV_KERNEL_TILE_COO);
        be_->sync();
    } catch (...) {
        form = std::move(old);  // keep the old form on failure
        throw;
    }
    bool ranked = false;
    int64_t hot = 0, prefix = ncols;
    if (k == PSV_KERNEL_AUTO) {
        hot = auto_hot(*this, *be_, vb);
        ranked = auto_ranked(*this, be_->l2_bytes(), hot);
        prefix = auto_ranked_prefix(*this, be_->l2_bytes(), hot, vb);
        k = PSV_KERNEL_CSR;
    }
    // the CSR kernel's plan (it also serves products whose input vector has absent entries)
    const int32_t lanes = csr_lanes_for(nvals, nrows);
    const int64_t long_min = 128 * (int64_t)lanes;
    Buffer list;
    const int64_t nlong = list_long_rows(*be_, *this, long_min, list);
    if (k == PSV_KERNEL_CSR) build_chunk_plan(*be_, *this, ranked, prefix, hot, vb);
    else chunks = ChunkPlan();  // only the CSR kernel runs chunks (run_spmv)
    kernel = k;
    csr_lanes = lanes;
    csr_long_min = long_min;
    long_rows = std::move(list);
    n_long_rows = nlong;
    options = opt;
    build_seconds = seconds_since(t0);
    if (opt.progress && build_seconds > 1.0)
        std::fprintf(stderr, "psv: built in %.2f s (%d dense tiles, %lld workloads)\n", build_seconds,
                     form.dense_tiles, (long long)form.n_workloads);
}

void CudaMatrix::info(psv_matrix_info &o) const {
    std::memset(&o, 0, sizeof o);
    o.nrows = nrows;
    o.ncols = ncols;
    o.nvals = nvals;
    o.tile_width = form.tile_width;
    o.dense_tiles = form.dense_tiles;
    o.sparse_tile = (int32_t)form.tiles.size() > form.dense_tiles;
    o.dense_columns = (int64_t)form.dense_tiles * form.tile_width;
    std::vector<Workload> wl((size_t)form.n_workloads);
    if (!wl.empty()) be_->download(wl.data(), form.workloads.get(), wl.size() * sizeof(Workload));
    for (const Tile &t : form.tiles) {
        if (!t.is_sparse) o.dense_nvals += t.nvals;
        for (int64_t w = t.wl_begin; w < t.wl_end; ++w) o.row_major_workloads += wl[w].layout == kRowMajor;
    }
    o.workloads = form.n_workloads;
    o.stored_entries = form.slots;
    o.padding_ratio = nvals ? (double)o.stored_entries / (double)nvals : 1.0;
    o.bytes = (int64_t)(ncols * 4 + form.tiles.size() * sizeof(Tile) + form.n_workloads * sizeof(Workload) +
                        form.n_rows * 4 + form.n16 * 2 + form.n32 * 4 +
                        (pattern ? 0 : form.slots * (int64_t)type_size(type)));
    o.workload_size = form.tiles.empty() ? 0 : form.tiles[0].workload_size;
    o.kernel = kernel;
    o.backend = PSV_BACKEND_CUDA;
    o.max_row_length = max_row_length;
    o.max_col_length = (int32_t)form.max_col_length;
    o.build_seconds = build_seconds;
}

void CudaMatrix::tile_info(int32_t tile, psv_tile_info &o) const {
    const Tile &t = form.tiles[tile];
    fill_tile_info(t, o);
    std::vector<Workload> wl((size_t)o.workloads);
    if (!wl.empty())
        be_->download(wl.data(), form.workloads.as<Workload>() + t.wl_begin, wl.size() * sizeof(Workload));
    for (const Workload &w : wl) o.row_major_workloads += w.layout == kRowMajor;
}

void CudaMatrix::extract_tuples(int64_t *rows, int64_t *cols, void *values) const {
    std::vector<int64_t> rp((size_t)nrows + 1);
    be_->download(rp.data(), row_ptr.get(), rp.size() * 8);
    if (rows)
        for (int64_t i = 0; i < nrows; ++i)
            for (int64_t e = rp[i]; e < rp[i + 1]; ++e) rows[e] = i;
    if (cols) {
        std::vector<int32_t> c((size_t)nvals);
        be_->download(c.data(), col.get(), c.size() * 4);
        for (int64_t e = 0; e < nvals; ++e) cols[e] = c[e];
    }
    if (values) {
        const size_t vs = type_size(type);
        if (pattern) {
            dispatch_type(type, [&](auto tag) {
                using T = typename decltype(tag)::type;
                T one = 1;
                for (int64_t e = 0; e < nvals; ++e) std::memcpy(static_cast<uint8_t *>(values) + e * vs, &one, vs);
            });
        } else {
            be_->download(values, val.get(), (size_t)nvals * vs);
        }
    }
}

__global__ void inverse_row_lengths_kernel(int64_t n, const int64_t *__restrict__ rp, float *__restrict__ out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t l = rp[i + 1] - rp[i];
        out[i] = l ? 1.0f / (float)l : 0.0f;
    }
}

void CudaMatrix::inverse_row_lengths(float *out) const {
    if (nrows == 0) return;
    be_->activate();
    inverse_row_lengths_kernel<<<grid_for(nrows), 256, 0, be_->stream()>>>(nrows, row_ptr.as<int64_t>(), out);
    PSV_CUDA_LAUNCH_CHECK();
}

std::unique_ptr<MatrixStore> CudaMatrix::transposed() const {
    be_->activate();
    auto T = std::make_unique<CudaMatrix>(be_);
    transpose_csr(*be_, *this, *T);
    finish_matrix(*be_, *T, options);
    return T;
}

std::unique_ptr<MatrixStore> CudaMatrix::symmetric_pattern() const {
    be_->activate();
    return cuda::symmetric_pattern(*be_, *this);
}

static TileComposite copy_form_to_host(const CudaMatrix &M) {
    TileComposite F;
    F.nrows = M.nrows;
    F.ncols = M.ncols;
    F.nvals = M.nvals;
    F.type = M.type;
    F.pattern = M.pattern;
    F.tile_width = M.form.tile_width;
    F.dense_tiles = M.form.dense_tiles;
    F.tiles = M.form.tiles;
    F.col_order.resize((size_t)M.ncols);
    M.be_->download(F.col_order.data(), M.form.col_order.get(), F.col_order.size() * 4);
    F.workloads.resize((size_t)M.form.n_workloads);
    M.be_->download(F.workloads.data(), M.form.workloads.get(), F.workloads.size() * sizeof(Workload));
    F.row_ids.resize((size_t)M.form.n_rows);
    M.be_->download(F.row_ids.data(), M.form.row_ids.get(), F.row_ids.size() * 4);
    F.col16.resize((size_t)M.form.n16);
    M.be_->download(F.col16.data(), M.form.col16.get(), F.col16.size() * 2);
    F.col32.resize((size_t)M.form.n32);
    M.be_->download(F.col32.data(), M.form.col32.get(), F.col32.size() * 4);
    if (!M.pattern) {
        F.values.resize((size_t)M.form.slots * type_size(M.type));
        M.be_->download(F.values.data(), M.form.values.get(), F.values.size());
    }
    return F;
}

// ---- SpMV dispatch ----------------------------------------------------------------------------

void CudaBackend::spmv(const SpmvArgs &a) {
    activate();
    switch (a.type) {
    case PSV_BOOL: spmv_typed<bool_t>(*this, a); break;
    case PSV_INT32: spmv_typed<int32_t>(*this, a); break;
    case PSV_INT64: spmv_typed<int64_t>(*this, a); break;
    case PSV_FP32: spmv_typed<float>(*this, a); break;
    default: spmv_typed<double>(*this, a); break;
    }
}

// ---- vectors ----------------------------------------------------------------------------------

template <class T> __global__ void fill_kernel(int64_t n, T *x, T v) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = v;
}

template <class T>
__global__ void ewise_kernel(psv_op op, int64_t n, T *w, uint8_t *wp, const T *u, const uint8_t *up, const T *v,
                             const uint8_t *vp) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const bool p = (!up || up[i]) && (!vp || vp[i]);
        if (p) w[i] = rt_apply<T>(op, u[i], v[i]);
        if (up || vp) wp[i] = p;
    }
}

template <class T> __global__ void apply_kernel(psv_op op, int64_t n, T *w, const T *u, T s) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        w[i] = rt_apply<T>(op, u[i], s);
}

void CudaBackend::fill(psv_type type, int64_t n, void *x, const void *value) {
    if (n <= 0) return;
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v;
        std::memcpy(&v, value, sizeof(T));
        fill_kernel<T><<<grid_for(n), 256, 0, stream_>>>(n, static_cast<T *>(x), v);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

void CudaBackend::ewise(psv_op op, psv_type type, int64_t n, void *w, uint8_t *wp, const void *u,
                        const uint8_t *up, const void *v, const uint8_t *vp) {
    if (n <= 0) return;
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        ewise_kernel<T><<<grid_for(n), 256, 0, stream_>>>(canonical_op(op, type), n, static_cast<T *>(w), wp,
                                                          static_cast<const T *>(u), up, static_cast<const T *>(v), vp);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

void CudaBackend::apply(psv_op op, psv_type type, int64_t n, void *w, const void *u, const void *scalar) {
    if (n <= 0) return;
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T s;
        std::memcpy(&s, scalar, sizeof(T));
        apply_kernel<T><<<grid_for(n), 256, 0, stream_>>>(canonical_op(op, type), n, static_cast<T *>(w),
                                                          static_cast<const T *>(u), s);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

template <class T> struct RtMonoid {
    psv_op op;
    __device__ __forceinline__ T apply(T a, T b) const { return rt_apply<T>(op, a, b); }
};

template <class T> struct MaskedValue {
    const T *x;
    const uint8_t *xp;
    T id;
    __device__ T operator()(int64_t i, int) const { return (!xp || xp[i]) ? x[i] : id; }
};

void CudaBackend::reduce(psv_op monoid, psv_type type, int64_t n, const void *x, const uint8_t *xp,
                         void *result) {
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const psv_op op = canonical_op(monoid, type);
        const T id = rt_identity<T>(op);
        if (n <= 0) {
            std::memcpy(result, &id, sizeof(T));
            return;
        }
        Buffer out(this, sizeof(T));
        launch_mapreduce<T, RtMonoid<T>>(*this, n, MaskedValue<T>{static_cast<const T *>(x), xp, id}, id, out.as<T>(), 1,
                                         RtMonoid<T>{op});
        download(result, out.get(), sizeof(T));
    });
}

struct PresentCount {
    const uint8_t *p;
    __device__ unsigned long long operator()(int64_t i, int) const { return p[i] != 0; }
};
struct PlusU64 {
    __device__ __forceinline__ static unsigned long long apply(unsigned long long a, unsigned long long b) { return a + b; }
};

int64_t CudaBackend::count_present(int64_t n, const uint8_t *p) {
    if (!p || n <= 0) return n > 0 ? n : 0;
    activate();
    Buffer out(this, 8);
    launch_mapreduce<unsigned long long, PlusU64>(*this, n, PresentCount{p}, 0ull, out.as<unsigned long long>());
    unsigned long long c = 0;
    download(&c, out.get(), 8);
    return (int64_t)c;
}

template <class T> struct RuntimeAccum {
    psv_op op;
    __host__ __device__ T operator()(T x, T y) const { return rt_apply<T>(op, x, y); }
};

template <class T> __global__ void assign_kernel(AssignArgs a) {
    T *w = static_cast<T *>(a.w);
    const T *t = static_cast<const T *>(a.t);
    const RuntimeAccum<T> accum{a.accum};
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < a.n; i += (int64_t)gridDim.x * blockDim.x)
        assign_entry(a, i, w, t, accum);
}

void CudaBackend::assign(const AssignArgs &a) {
    if (a.n <= 0) return;
    activate();
    dispatch_type(a.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        assign_kernel<T><<<grid_for(a.n), 256, 0, stream_>>>(a);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

// ---- algorithm primitives (one launch each, the reductions deterministic) ----------------------

class CudaAlgoSteps final : public AlgoSteps {
public:
    explicit CudaAlgoSteps(CudaBackend &be) : be_(be) {}
    void pagerank_scale(int64_t n, const float *r, const float *inv_outdeg, float *w,
                        double *dangling) override;
    void pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                         const float *personal, double *diff) override;
    void sum(int64_t n, const float *x, double *out) override;
    void normalize_diff(int64_t n, float *x, const double *total, const float *prev,
                        double *diff) override;
    void rwr_update(int64_t n, int32_t k, const float *T, float *R, double c,
                    const int64_t *queries_host, double *diffs) override;

private:
    CudaBackend &be_;
};

struct PrScale {
    const float *r, *inv;
    float *w;
    __device__ double operator()(int64_t i, int) const {
        const float iv = inv[i], ri = r[i];
        w[i] = ri * iv;
        return iv == 0.0f ? (double)ri : 0.0;
    }
};

void CudaAlgoSteps::pagerank_scale(int64_t n, const float *r, const float *inv, float *w, double *dangling) {
    if (n <= 0) {
        if (dangling) be_.set_bytes(dangling, 0, 8);
        return;
    }
    be_.activate();
    Buffer tmp;
    double *out = dangling;
    if (!out) {
        tmp = Buffer(&be_, 8);
        out = tmp.as<double>();
    }
    launch_mapreduce<double, PlusD>(be_, n, PrScale{r, inv, w}, 0.0, out);
}

struct PrUpdate {
    const float *t;
    float *r;
    const float *personal;
    const double *dangling;
    double damping, inv_n;
    __device__ double operator()(int64_t i, int) const {
        const float d = (float)damping;
        const float scale = (float)((1.0 - damping) + damping * (*dangling));
        const float base = personal ? scale * personal[i] : scale * (float)inv_n;
        const float rn = base + d * t[i];
        const double dd = fabs((double)rn - (double)r[i]);
        r[i] = rn;
        return dd;
    }
};

void CudaAlgoSteps::pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                                  const float *personal, double *diff) {
    if (n <= 0) {
        be_.set_bytes(diff, 0, 8);
        return;
    }
    be_.activate();
    launch_mapreduce<double, PlusD>(be_, n, PrUpdate{t, r, personal, dangling, damping, 1.0 / (double)n}, 0.0, diff);
}

struct SumF {
    const float *x;
    __device__ double operator()(int64_t i, int) const { return (double)x[i]; }
};

void CudaAlgoSteps::sum(int64_t n, const float *x, double *out) {
    if (n <= 0) {
        be_.set_bytes(out, 0, 8);
        return;
    }
    be_.activate();
    launch_mapreduce<double, PlusD>(be_, n, SumF{x}, 0.0, out);
}

struct NormDiff {
    float *x;
    const double *total;
    const float *prev;
    __device__ double operator()(int64_t i, int) const {
        const double tot = *total;
        const float inv = tot != 0 ? (float)(1.0 / tot) : 1.0f;
        const float v = x[i] * inv;
        x[i] = v;
        return prev ? fabs((double)v - (double)prev[i]) : 0.0;
    }
};

void CudaAlgoSteps::normalize_diff(int64_t n, float *x, const double *total, const float *prev, double *diff) {
    if (n <= 0) {
        if (prev && diff) be_.set_bytes(diff, 0, 8);
        return;
    }
    be_.activate();
    Buffer tmp;
    double *out = diff;
    if (!prev || !out) {
        tmp = Buffer(&be_, 8);
        out = tmp.as<double>();
    }
    launch_mapreduce<double, PlusD>(be_, n, NormDiff{x, total, prev}, 0.0, out);
}

struct RwrUpdate {
    const float *T;
    float *R;
    const int64_t *queries;  // device, k
    int32_t k;
    double c;
    __device__ double operator()(int64_t i, int j) const {
        const float cf = (float)c, restart = (float)(1.0 - c);
        const int64_t p = i * k + j;
        const float rn = cf * T[p] + (i == queries[j] ? restart : 0.0f);
        const double dd = fabs((double)rn - (double)R[p]);
        R[p] = rn;
        return dd;
    }
};

void CudaAlgoSteps::rwr_update(int64_t n, int32_t k, const float *T, float *R, double c, const int64_t *queries,
                             double *diffs) {
    if (k <= 0) return;
    be_.activate();
    if (n <= 0) {
        be_.set_bytes(diffs, 0, (size_t)k * 8);
        return;
    }
    Buffer q(&be_, (size_t)k * 8);
    be_.upload(q.get(), queries, (size_t)k * 8);
    if (k > 65535) fail(PSV_ERROR_INVALID_VALUE, "at most 65535 queries at once on the CUDA backend");
    // Lanes of one launch write disjoint entries (column j of R): no conflict.
    launch_mapreduce<double, PlusD>(be_, n, RwrUpdate{T, R, q.as<int64_t>(), k, c}, 0.0, diffs, k);
    be_.sync();  // q is freed on return
}

// T = A (+).(second) U for k columns at once: a warp per row, lanes over the k columns, entries in
// order and summed in double as the CPU backend does (a hub row's fp32 sum can stall a power
// iteration), so results agree with it bit for bit.
__global__ void spmm_pattern_kernel(int64_t nrows, const int64_t *rp, const int32_t *col, int32_t k,
                                    const float *U, float *T) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t i = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5); i < nrows; i += warps) {
        const int64_t b = rp[i], e = rp[i + 1];
        for (int32_t j0 = 0; j0 < k; j0 += 32) {
            const int32_t j = j0 + lane;
            double acc = 0.0;
            for (int64_t p = b; p < e; ++p) {
                const int64_t c = col[p];
                if (j < k) acc += (double)U[c * k + j];
            }
            if (j < k) T[i * k + j] = (float)acc;
        }
    }
}

// The tile-composite form's k-vector variant: T (n x k, row-major) = S (+).(second) U. U is
// gathered into rank order once (Ur row r = U row col_order[r]); per workload a warp takes its
// rows one at a time, lanes over the k columns (32 at a time), and reads each entry's row of Ur
// as one coalesced segment (four entries' reads in flight together). Sums in double, in the
// row's ranked-column order; tiles add into T in tile order (T starts at zero).
__global__ void spmm_gather_kernel(int64_t ncols, int32_t k, const int32_t *__restrict__ order, const float *__restrict__ U,
                                   float *__restrict__ Ur) {
    const int64_t m = ncols * (int64_t)k;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < m; idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = idx / k, j = idx - r * k;
        Ur[idx] = U[(int64_t)order[r] * k + j];
    }
}

template <class Index>
__global__ void __launch_bounds__(kSpmvThreads)
    tc_spmm_kernel(const Workload *__restrict__ wls, int64_t nwl, const Index *__restrict__ cols, int64_t tile_entry_begin,
                   int32_t k, const float *__restrict__ Ur, const int32_t *__restrict__ row_ids, float *__restrict__ T) {
    const Index pad = (Index)~Index(0);
    const int lane = threadIdx.x & 31;
    constexpr int U = 4;
    for (int64_t wi = (int64_t)blockIdx.x * (kSpmvThreads / 32) + (threadIdx.x >> 5); wi < nwl;
         wi += (int64_t)gridDim.x * (kSpmvThreads / 32)) {
        const Workload W = wls[wi];
        const int64_t local = W.entry_begin - tile_entry_begin;
        for (int32_t q = 0; q < W.height; ++q) {
            const int32_t row = row_ids[W.row_begin + q];
            for (int32_t j0 = 0; j0 < k; j0 += 32) {
                const int32_t j = j0 + lane;
                double acc = 0.0;
                for (int32_t e = 0; e < W.width; e += U) {
                    Index c[U];
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        const int32_t kk = e + u;
                        const int64_t pos = W.layout == kRowMajor ? (int64_t)q * W.stride + kk : (int64_t)kk * W.stride + q;
                        c[u] = kk < W.width ? cols[local + pos] : pad;
                    }
#pragma unroll
                    for (int u = 0; u < U; ++u)
                        if (c[u] != pad && j < k) acc += (double)Ur[(int64_t)c[u] * k + j];
                }
                if (j < k) T[(int64_t)row * k + j] += (float)acc;
            }
        }
    }
}

static void tc_spmm(CudaBackend &be, const CudaMatrix &M, int32_t k, const float *U, float *T) {
    cudaStream_t st = be.stream();
    const TcForm &F = M.form;
    Buffer ur(&be, (size_t)M.ncols * (size_t)k * sizeof(float));  // the only allocation, first
    be.set_bytes(T, 0, (size_t)M.nrows * (size_t)k * sizeof(float));
    spmm_gather_kernel<<<grid_for(M.ncols * (int64_t)k), 256, 0, st>>>(M.ncols, k, F.col_order.as<int32_t>(), U, ur.as<float>());
    PSV_CUDA_LAUNCH_CHECK();
    const int64_t sms = be.sm_count();
    for (const Tile &tile : F.tiles) {
        const int64_t nwl = tile.wl_end - tile.wl_begin;
        if (nwl <= 0) continue;
        const unsigned grid = (unsigned)std::min<int64_t>((nwl + kSpmvThreads / 32 - 1) / (kSpmvThreads / 32), 4 * sms);
        const Workload *wls = F.workloads.as<Workload>() + tile.wl_begin;
        const float *ut = ur.as<float>() + tile.col_begin * (int64_t)k;
        if (tile.index_bits == 16)
            tc_spmm_kernel<uint16_t><<<grid, kSpmvThreads, 0, st>>>(wls, nwl, F.col16.as<uint16_t>() + tile.index_offset,
                                                                     tile.entry_begin, k, ut, F.row_ids.as<int32_t>(), T);
        else
            tc_spmm_kernel<uint32_t><<<grid, kSpmvThreads, 0, st>>>(wls, nwl, F.col32.as<uint32_t>() + tile.index_offset,
                                                                     tile.entry_begin, k, ut, F.row_ids.as<int32_t>(), T);
        PSV_CUDA_LAUNCH_CHECK();
    }
    // ur goes back to the pool on return: its reuse is ordered after these launches on the stream
}

// k = 1: the tuned SpMV (plus.second, fp32 with double row sums) on the matrix's own kernel.
// k > 1: the tile-composite k-vector variant where the matrix runs tile-composite, or, under
// AUTO, where it follows a power law and the k-vector x (ncols x k x 4 bytes) exceeds half of
// L2 (prefers_rank_order with share 1/2); the CSR k-vector kernel otherwise.
void CudaBackend::spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) {
    const CudaMatrix &M = static_cast<const CudaMatrix &>(A);
    if (M.nrows <= 0 || k <= 0) return;
    activate();
    if (k == 1) {
        pattern_product(*this, M, U, T);
        return;
    }
    const bool tc = M.nvals > 0 && (M.kernel == PSV_KERNEL_TILE_COMPOSITE ||
                                    (M.options.kernel == PSV_KERNEL_AUTO &&
                                     prefers_rank_order(M, (double)M.ncols * (double)k * 4.0, l2_bytes_, 0.5)));
    if (tc) {
        tc_spmm(*this, M, k, U, T);
        return;
    }
    spmm_pattern_kernel<<<grid_for(M.nrows * 32, 256, (int64_t)sms_ * 64), 256, 0, stream_>>>(
        M.nrows, M.row_ptr.as<int64_t>(), M.col.as<int32_t>(), k, U, T);
    PSV_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda

// ---- hooks -------------------------------------------------------------------------------------

bool cuda_backend_available() {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return count > 0;
}

std::unique_ptr<Backend> create_cuda_backend(int32_t device) {
    if (!cuda_backend_available())
        fail(PSV_ERROR_BACKEND_UNAVAILABLE, "no CUDA device is available (no driver or no GPU)");
    return std::make_unique<cuda::CudaBackend>(device);
}

namespace cuda {

bool is_cuda(const Backend &be) { return be.kind() == PSV_BACKEND_CUDA; }

static CudaBackend &as_cuda(Backend &be) {
    if (!is_cuda(be)) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA context");
    return static_cast<CudaBackend &>(be);
}

std::unique_ptr<MatrixStore> build_from_device_csr(Backend &be, int64_t nrows, int64_t ncols, psv_type type,
                                                   const int64_t *rp, const int32_t *col, const void *values,
                                                   const FormatOptions &opt) {
    return as_cuda(be).build_from_device_csr(nrows, ncols, type, values == nullptr, rp, col, values, opt);
}

void *stream_of(Backend &be) { return as_cuda(be).stream(); }
std::unique_ptr<AlgoSteps> create_algo_steps(Backend &be) { return std::make_unique<CudaAlgoSteps>(as_cuda(be)); }
TileComposite download_form(const MatrixStore &A) {
    if (!dynamic_cast<const CudaMatrix *>(&A)) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA matrix");
    return copy_form_to_host(static_cast<const CudaMatrix &>(A));
}
void synchronize(Backend &be) { as_cuda(be).sync(); }
size_t pool_cached_bytes(Backend &be) { return as_cuda(be).pool().cached_bytes(); }
void pool_trim(Backend &be) {
    as_cuda(be).sync();
    as_cuda(be).pool().trim();
}

}  // namespace cuda
}  // namespace psv
