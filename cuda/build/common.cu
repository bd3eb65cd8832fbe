// The builders' shared steps (common.cuh).
#include <cub/cub.cuh>

#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

__global__ void count_kernel(int64_t n, const int32_t *idx, int32_t *count) {
    PSV_GRID_LOOP(e, n) atomicAdd(&count[idx[e]], 1);
}

// row[rp[i]] = i for every row with entries (the rest 0): rows ascend, so each entry's row is
// then the running maximum
__global__ void row_heads_kernel(int64_t nrows, const int64_t *rp, int32_t *row) {
    PSV_GRID_LOOP(i, nrows) if (rp[i + 1] > rp[i]) row[rp[i]] = (int32_t)i;
}

template <int VS> __global__ void gather_values_kernel(int64_t n, const uint32_t *src, const uint8_t *val, uint8_t *out) {
    PSV_GRID_LOOP(d, n) {
        const uint32_t e = src[d];
        const uint8_t *from = val + (size_t)e * VS;
        uint8_t *to = out + (size_t)d * VS;
        if (VS == 1) *to = e == kNoValue ? 0 : *from;
        else if (VS == 4) *reinterpret_cast<uint32_t *>(to) = e == kNoValue ? 0u : *reinterpret_cast<const uint32_t *>(from);
        else *reinterpret_cast<uint64_t *>(to) = e == kNoValue ? 0ull : *reinterpret_cast<const uint64_t *>(from);
    }
}

__global__ void len_to_ptr_kernel(int64_t n, const int32_t *len, int64_t *out) {
    PSV_GRID_LOOP(i, n) out[i] = len[i];
}
__global__ void invert_kernel(int64_t n, const int32_t *order, int32_t *rank_of) {
    PSV_GRID_LOOP(k, n) rank_of[order[k]] = (int32_t)k;
}

}  // namespace

void count_indices(CudaBackend &be, int64_t n, const int32_t *idx, int32_t *count) {
    launch(be, n, [&](unsigned g, int b) { count_kernel<<<g, b, 0, be.stream()>>>(n, idx, count); });
}

void rows_of_entries(CudaBackend &be, int64_t nnz, const int64_t *rp, int64_t nrows, int32_t *row) {
    if (nnz <= 0) return;
    be.set_bytes(row, 0, (size_t)nnz * 4);
    launch(be, nrows, [&](unsigned g, int b) { row_heads_kernel<<<g, b, 0, be.stream()>>>(nrows, rp, row); });
    be.cub_call([&](void *tmp, size_t &bytes) {  // in place
        return cubns::DeviceScan::InclusiveScan(tmp, bytes, row, row, MaxOf<int32_t>(), nnz, be.stream());
    });
}

void invert_order(CudaBackend &be, int64_t n, const int32_t *order, int32_t *rank_of) {
    launch(be, n, [&](unsigned g, int b) { invert_kernel<<<g, b, 0, be.stream()>>>(n, order, rank_of); });
}

void gather_values(CudaBackend &be, int64_t n, const uint32_t *src, const void *val, void *out, size_t vs) {
    if (n <= 0) return;
    const auto *v = static_cast<const uint8_t *>(val);
    auto *o = static_cast<uint8_t *>(out);
    if (vs == 1) gather_values_kernel<1><<<grid_for(n), 256, 0, be.stream()>>>(n, src, v, o);
    else if (vs == 4) gather_values_kernel<4><<<grid_for(n), 256, 0, be.stream()>>>(n, src, v, o);
    else gather_values_kernel<8><<<grid_for(n), 256, 0, be.stream()>>>(n, src, v, o);
    PSV_CUDA_LAUNCH_CHECK();
}

// row_ptr of n rows from per-row counts (exclusive scan into n + 1 entries)
void counts_to_row_ptr(CudaBackend &be, int64_t n, const int32_t *count, Buffer &row_ptr) {
    cudaStream_t st = be.stream();
    row_ptr = Buffer(&be, (size_t)(n + 1) * 8);
    be.set_bytes(row_ptr.get(), 0, (size_t)(n + 1) * 8);
    if (n == 0) return;
    Buffer c64(&be, (size_t)(n + 1) * 8);
    be.set_bytes(c64.get(), 0, (size_t)(n + 1) * 8);
    launch(be, n, [&](unsigned g, int b) { len_to_ptr_kernel<<<g, b, 0, st>>>(n, count, c64.as<int64_t>()); });
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceScan::ExclusiveSum(tmp, bytes, c64.as<int64_t>(), row_ptr.as<int64_t>(), n + 1, st);
    });
}

}  // namespace cuda
}  // namespace psv
