// The SELL-32 plan (SellPlan, cuda/build/matrix.cuh): the rows in slices of 32, each slice padded
// to its longest row and stored column-major (slot k of the slice's 32 rows together), built on
// the device from the CSR. One pass over the row pointer counts the slots (sell_slot_count, which
// PSV_KERNEL_AUTO's rule reads before it builds anything; the build takes its slice offsets), one
// fills the slots.
#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace psv {
namespace cuda {

namespace {

// width[s] = the longest row of slice s (a warp a slice, a lane a row).
__global__ void slice_width_kernel(int64_t n, int64_t slices, const int64_t *__restrict__ rp, int32_t *__restrict__ width) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t s = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5); s < slices; s += warps) {
        const int64_t i = s * kSellRows + lane;
        int32_t len = i < n ? (int32_t)(rp[i + 1] - rp[i]) : 0;
#pragma unroll
        for (int m = 16; m >= 1; m >>= 1) len = max(len, __shfl_xor_sync(0xffffffffu, len, m));
        if (lane == 0) width[s] = len;
    }
}

// The slots of row i: its entries in order at 32 (group[s] + k) + i % 32 (s = i / 32), columns
// and values; the rest of the slice's slots keep the padding (column -1, value bits zero).
template <class V>
__global__ void sell_fill_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                                 const V *__restrict__ val, const int64_t *__restrict__ group, int32_t *__restrict__ scol,
                                 V *__restrict__ sval) {
    PSV_GRID_LOOP(i, n) {
        const int64_t base = group[i / kSellRows] * kSellRows + (i % kSellRows);
        const int64_t b = rp[i], e = rp[i + 1];
        for (int64_t q = b; q < e; ++q) {
            const int64_t slot = base + (q - b) * kSellRows;
            scol[slot] = col[q];
            if (sval) sval[slot] = val[q];
        }
    }
}

int64_t slices_of(int64_t nrows) { return (nrows + kSellRows - 1) / kSellRows; }

}  // namespace

// The slices' widths (int32 [slices]) and their running sum, the first group of each slice
// (int64 [slices + 1]); the slots (32 x the groups).
SellSlots sell_slot_count(CudaBackend &be, const CudaMatrix &M) {
    SellSlots r;
    if (M.nrows == 0 || M.nvals == 0) return r;
    const int64_t slices = slices_of(M.nrows);
    Buffer width(&be, (size_t)slices * 4);
    const unsigned grid = (unsigned)std::max<int64_t>(1, std::min<int64_t>((slices + 7) / 8, (int64_t)be.sm_count() * 16));
    slice_width_kernel<<<grid, 256, 0, be.stream()>>>(M.nrows, slices, M.row_ptr.as<int64_t>(), width.as<int32_t>());
    PSV_CUDA_LAUNCH_CHECK();
    counts_to_row_ptr(be, slices, width.as<int32_t>(), r.group);
    int64_t groups = 0;
    be.download(&groups, r.group.as<int64_t>() + slices, 8);
    r.slots = groups * kSellRows;
    return r;
}

int64_t SellPlan::device_bytes() const {
    return (int64_t)(group.size() + col.size() + val.size());
}

std::string SellPlan::describe(int64_t entries) const {
    return format("SELL-32: %lld slices, %lld slots (%.3f an entry)", (long long)slices, (long long)slots,
                  entries > 0 ? (double)slots / (double)entries : 1.0);
}

SellPlan build_sell_plan(CudaBackend &be, const CudaMatrix &M, SellSlots counted) {
    SellPlan P;
    if (M.nrows == 0 || M.nvals == 0) return P;
    const int64_t slices = slices_of(M.nrows);
    if (!counted.group.get()) counted = sell_slot_count(be, M);
    Buffer group = std::move(counted.group);
    const int64_t slots = counted.slots;
    const size_t vb = M.pattern ? 0 : type_size(M.type);
    Buffer scol(&be, (size_t)slots * 4), sval(&be, (size_t)slots * vb);
    be.set_bytes(scol.get(), 0xff, scol.size());  // column -1: padding
    if (vb) be.set_bytes(sval.get(), 0, sval.size());
    const int64_t *rp = M.row_ptr.as<int64_t>(), *g = group.as<int64_t>();
    const int32_t *c = M.col.as<int32_t>();
    int32_t *sc = scol.as<int32_t>();
    launch(be, M.nrows, [&](unsigned gr, int b) {
        switch (vb) {
        case 0: sell_fill_kernel<uint32_t><<<gr, b, 0, be.stream()>>>(M.nrows, rp, c, nullptr, g, sc, nullptr); break;
        case 1: sell_fill_kernel<uint8_t><<<gr, b, 0, be.stream()>>>(M.nrows, rp, c, M.val.as<uint8_t>(), g, sc, sval.as<uint8_t>()); break;
        case 4: sell_fill_kernel<uint32_t><<<gr, b, 0, be.stream()>>>(M.nrows, rp, c, M.val.as<uint32_t>(), g, sc, sval.as<uint32_t>()); break;
        case 8: sell_fill_kernel<uint64_t><<<gr, b, 0, be.stream()>>>(M.nrows, rp, c, M.val.as<uint64_t>(), g, sc, sval.as<uint64_t>()); break;
        default: fail(PSV_ERROR_PANIC, format("SELL-32 plan: no fill for %zu-byte values", vb));
        }
    });
    be.sync();
    P.slices = slices;
    P.slots = slots;
    P.group = std::move(group);
    P.col = std::move(scol);
    P.val = std::move(sval);
    return P;
}

}  // namespace cuda
}  // namespace psv
