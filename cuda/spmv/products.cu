// The products' entry points of the CUDA backend: SpMV (to the instantiation of its value type)
// and the k-vector product.
#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"
#include "cuda/spmv/spmm.cuh"

namespace psv {
namespace cuda {

// SpMV entry points, one per value type (spmv_<type>.cu).
template <class T> void spmv_typed(CudaBackend &be, const SpmvArgs &a);

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

namespace {

void tc_spmm(CudaBackend &be, const CudaMatrix &M, const TcForm &F, int32_t k, const float *U, float *T) {
    cudaStream_t st = be.stream();
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

// The k-vector product's layout for segments of seg entries (CudaMatrix::SpmmLayout): the
// entries' rows on the first product, the segment table and zeroed piece counters on the first
// with this length. Each part is allocated before it replaces the old: a failure changes nothing.
const CudaMatrix::SpmmLayout &spmm_layout(CudaBackend &be, const CudaMatrix &M, int64_t seg, int64_t ngroups) {
    CudaMatrix::SpmmLayout &lay = M.spmm_layout();
    if (!lay.rows.get()) {
        Buffer rows(&be, (size_t)M.nvals * sizeof(int32_t));
        rows_of_entries(be, M.nvals, M.row_ptr.as<int64_t>(), M.nrows, rows.as<int32_t>());
        lay.rows = std::move(rows);
    }
    if (lay.seg != seg) {
        Buffer table(&be, (size_t)ngroups * sizeof(SpmmSegment)), counts(&be, (size_t)ngroups * sizeof(int32_t));
        be.set_bytes(counts.get(), 0, counts.size());
        spmm_segments_kernel<<<grid_for(ngroups), 256, 0, be.stream()>>>(M.nvals, M.row_ptr.as<int64_t>(),
                                                                         M.col.as<int32_t>(), lay.rows.as<int32_t>(),
                                                                         seg, ngroups, table.as<SpmmSegment>());
        PSV_CUDA_LAUNCH_CHECK();
        lay.table = std::move(table);
        lay.counts = std::move(counts);
        lay.seg = seg;
    }
    return lay;
}

// The CSR k-vector product (spmm.cuh): one launch, groups of L lanes over segments of entries,
// the long rows cut by segment ends added by the group that finishes their last piece. A segment
// holds at most Policy::spmm_segment_entries entries, fewer where that would leave too few groups
// to keep the device busy. Its allocations (the layout, the pieces) come first: a failure leaves
// T untouched.
void csr_spmm(CudaBackend &be, const CudaMatrix &M, int32_t k, const float *U, float *T) {
    cudaStream_t st = be.stream();
    if (M.nvals == 0) {
        be.set_bytes(T, 0, (size_t)M.nrows * (size_t)k * sizeof(float));
        return;
    }
    // at least 4 lanes: groups of 2 (k = 2) cut the entries into twice the segments of 4, and ran
    // slower than 4 lanes with two idle
    int L = 4;
    while (L < k && L < 32) L <<= 1;
    const int64_t groups_per_warp = 32 / L;
    const Policy &p = M.policy;
    // groups wanted: several waves of 32 resident warps where a warp holds one group, about one
    // where it holds many
    const int64_t slots = (int64_t)be.sm_count() * std::max<int64_t>(p.spmm_groups_per_sm, 32 * groups_per_warp);
    const auto round8 = [](int64_t v) { return (v + kSpmmChunk - 1) / kSpmmChunk * kSpmmChunk; };
    const int64_t balanced = std::max(round8(p.spmm_segment_min), round8((M.nvals + slots - 1) / slots));
    const int64_t seg = std::min(round8(std::max<int64_t>(kSpmmChunk, p.spmm_segment_entries)), balanced);
    const int64_t ngroups = (M.nvals + seg - 1) / seg;
    const CudaMatrix::SpmmLayout &lay = spmm_layout(be, M, seg, ngroups);
    // the long rows' pieces (2 slots per segment), sized for at least 32 columns, so a batch whose
    // k falls keeps reusing one block of the pool
    Buffer carry(&be, (size_t)ngroups * 2 * (size_t)std::max(k, 32) * sizeof(double));
    const int64_t warps = (ngroups + groups_per_warp - 1) / groups_per_warp;
    const int64_t blocks = (warps + kSpmmThreads / 32 - 1) / (kSpmmThreads / 32);
    spmm_segment_kernel<<<(unsigned)blocks, kSpmmThreads, 0, st>>>(M.nrows, M.nvals, M.row_ptr.as<int64_t>(),
                                                                   M.col.as<int32_t>(), lay.rows.as<int32_t>(),
                                                                   lay.table.as<SpmmSegment>(), seg, ngroups, k, L, U,
                                                                   T, carry.as<double>(), lay.counts.as<int32_t>());
    PSV_CUDA_LAUNCH_CHECK();
}

}  // namespace

// k = 1: the tuned SpMV (plus.second, fp32 with double row sums) on the matrix's own kernel.
// k > 1: the tile-composite k-vector variant where the matrix runs tile-composite, the CSR
// k-vector kernel otherwise (AUTO included: the variant's gather and tile passes lost to it on
// every graph of the RWR bench set, docs/benchmarks.md).
void CudaBackend::spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) {
    const CudaMatrix &M = static_cast<const CudaMatrix &>(A);
    if (M.nrows <= 0 || k <= 0) return;
    activate();
    if (k == 1) {
        pattern_product(*this, M, U, T);
        return;
    }
    M.need_csr();
    if (M.nvals > 0 && M.kernel == PSV_KERNEL_TILE_COMPOSITE) tc_spmm(*this, M, M.form(), k, U, T);
    else csr_spmm(*this, M, k, U, T);
}

}  // namespace cuda
}  // namespace psv
