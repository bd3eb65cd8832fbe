// The device-memory pool (pool.hpp).
#include "cuda/runtime/check.cuh"
#include "cuda/runtime/pool.hpp"

namespace psv {
namespace cuda {

DevicePool::~DevicePool() {
    trim();
    for (auto &kv : held_) cudaFree(kv.second);
    for (auto &kv : used_) cudaFree(kv.first);  // objects outliving their context: best effort
}

void *DevicePool::allocate(size_t bytes) {
    bytes = (bytes + 511) / 512 * 512;
    if (bytes == 0) bytes = 512;
    if (holding_) {
        auto h = held_.lower_bound(bytes);
        if (h != held_.end() && h->first <= bytes + bytes / 4) {
            void *p = h->second;
            used_[p] = h->first;  // may throw bad_alloc: then the block stays held
            count_in(h->first);
            held_.erase(h);
            return p;
        }
    }
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first <= bytes + bytes / 4) {
        void *p = it->second;
        used_[p] = it->first;  // may throw bad_alloc: then the block stays cached
        count_in(it->first);
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
        if (e == cudaErrorMemoryAllocation) {
            size_t free_b = 0, total_b = 0;
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
            fail(PSV_ERROR_OUT_OF_MEMORY, format("device out of memory: %zu bytes asked, %zu free of %zu (psv holds %zu)",
                                                 bytes, free_b, total_b, in_use_));
        }
        throw_cuda(e, "cudaMalloc", __FILE__, __LINE__);
    }
    try {
        used_[p] = bytes;
    } catch (...) {
        cudaFree(p);
        throw;
    }
    count_in(bytes);
    return p;
}

void DevicePool::deallocate(void *p) noexcept {
    if (!p) return;
    auto it = used_.find(p);
    if (it == used_.end()) return;
    const size_t bytes = it->second;
    used_.erase(it);
    in_use_ -= bytes;
    if (holding_) {
        try {
            held_.emplace(bytes, p);
            return;
        } catch (...) {
            // no host memory for the node: the block is leaked rather than freed under a capture
            return;
        }
    }
    release(p, bytes);
}

void DevicePool::release(void *p, size_t bytes) noexcept {
    if (cached_ + bytes > cache_limit_ || no_cache_) {
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

void DevicePool::hold(bool on) noexcept {
    holding_ = on;
    if (on) return;
    for (auto &kv : held_) release(kv.second, kv.first);
    held_.clear();
}

void DevicePool::trim() noexcept {
    for (auto &kv : free_) cudaFree(kv.second);
    free_.clear();
    cached_ = 0;
}

}  // namespace cuda
}  // namespace psv
