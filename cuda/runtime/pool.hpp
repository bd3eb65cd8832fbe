// The CUDA backend's device-memory pool.
#pragma once
#include <cstddef>
#include <map>
#include <unordered_map>

namespace psv {
namespace cuda {

// A caching pool over cudaMalloc (never managed memory). Freed blocks are kept for reuse (the
// stream orders their reuse), up to cache_limit bytes, none when no_cache; when cudaMalloc fails,
// every cached block is released and the allocation retried once before PSV_ERROR_OUT_OF_MEMORY.
class DevicePool {
public:
    // used_ gets its buckets up front: a rehash inside a call would allocate host memory that
    // outlives it
    DevicePool(size_t cache_limit, bool no_cache) : cache_limit_(cache_limit), no_cache_(no_cache) {
        used_.reserve(1024);
    }
    ~DevicePool();
    void *allocate(size_t bytes);
    void deallocate(void *p) noexcept;
    void trim() noexcept;  // release every cached block
    // While held, freed blocks are set aside for the allocations made while held (reused in the
    // order of the stream, the order a captured CUDA graph replays them in) and for nothing else:
    // a graph captured meanwhile keeps its blocks until hold(false), called once its last launch
    // has finished, returns them to the pool.
    void hold(bool on) noexcept;
    size_t cached_bytes() const { return cached_; }
    // Bytes of the live allocations (their rounded sizes), and the most of them at once since
    // reset_peak: a build resets it at its start and reads peak_bytes() - its start at its end.
    size_t in_use_bytes() const { return in_use_; }
    size_t peak_bytes() const { return peak_; }
    void reset_peak() noexcept { peak_ = in_use_; }
    // A new cache limit; with no_cache the cached blocks are released (the caller has
    // synchronized the device's work on them) and none is kept from now on.
    void configure(size_t cache_limit, bool no_cache) noexcept {
        cache_limit_ = cache_limit;
        no_cache_ = no_cache;
        if (no_cache_) trim();
    }

private:
    std::multimap<size_t, void *> free_;
    std::unordered_map<void *, size_t> used_;
    std::multimap<size_t, void *> held_;
    bool holding_ = false;
    void release(void *p, size_t bytes) noexcept;  // cache or free a block no longer used
    size_t cached_ = 0, cache_limit_;
    size_t in_use_ = 0, peak_ = 0;
    void count_in(size_t bytes) noexcept {
        in_use_ += bytes;
        if (in_use_ > peak_) peak_ = in_use_;
    }
    bool no_cache_;
};

}  // namespace cuda
}  // namespace psv
