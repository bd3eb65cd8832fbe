// The CUDA backend's context: the device, its stream and memory pool, memory operations, the
// tuning policy, and the hooks that create it.
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "cuda/runtime/backend.cuh"
#include "cuda/build/build.cuh"

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

void allow_smem_raw(const void *kernel, size_t bytes) {
    static std::mutex lock;
    static std::map<std::pair<int, const void *>, size_t> granted;
    int device = 0;
    PSV_CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> g(lock);
    size_t &have = granted[{device, kernel}];
    if (bytes <= have && have > 0) return;
    PSV_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    have = bytes;
}

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
    traits_.name = prop.name;
    traits_.cc_major = prop.major;
    traits_.cc_minor = prop.minor;
    traits_.sms = prop.multiProcessorCount;
    traits_.l2_bytes = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : traits_.l2_bytes;
    int optin = 0;
    PSV_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    traits_.smem_optin = (size_t)optin;
    traits_.smem_per_sm = prop.sharedMemPerMultiprocessor;
    traits_.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    traits_.global_bytes = prop.totalGlobalMem;
    policy_ = select_policy(traits_);
    tuning_ = tuning::load_table(device_shape(*this));
    // A blocking stream: it waits for work on the legacy default stream (a cudaMemcpy from
    // pageable memory may still be landing when that call returns), so device pointers a caller
    // filled there are safe to read.
    PSV_CUDA_CHECK(cudaStreamCreate(&stream_));
    try {
        pool_ = std::make_unique<DevicePool>(policy_.pool_cache_bytes, policy_.pool_no_cache);
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

int64_t CudaBackend::default_tile_width(size_t value_bytes) const { return policy_.tile_width_for(value_bytes); }

// A and a transpose of its size within transpose_memory_share of the device's memory (the
// matrix's policy: a constant of the device).
bool CudaBackend::transpose_fits(const MatrixStore &A) const {
    const auto &M = static_cast<const CudaMatrix &>(A);
    return 2.0 * (double)M.device_bytes() <= M.policy.transpose_memory_share * (double)M.policy.global_bytes;
}

PerfModel CudaBackend::perf_model() const {
    PerfModel m;
    m.max_active_warps = (int64_t)traits_.sms * (traits_.max_threads_per_sm / 32);
    m.workload_cost = default_workload_cost;
    return m;
}

void CudaBackend::set_policy(const Policy &p) {
    activate();
    if (p.pool_no_cache) sync();  // the cached blocks are released: the stream's work on them ends first
    policy_ = p;
    pool_->configure(p.pool_cache_bytes, p.pool_no_cache);
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

}  // namespace psv
