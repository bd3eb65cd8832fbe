// The products' entry points of the CUDA backend: SpMV (to the instantiation of its value type)
// and the k-vector product.
#include <algorithm>

#include "cuda/build/build.cuh"
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

// The CSR k-vector product: segments of Policy::spmm_segment_entries entries, then the rows cut by
// segment ends (spmm.cuh). Its one allocation, the cut rows' partials, comes first: a failure
// leaves T untouched.
void csr_spmm(CudaBackend &be, const CudaMatrix &M, int32_t k, const float *U, float *T) {
    cudaStream_t st = be.stream();
    if (M.nvals == 0) {
        be.set_bytes(T, 0, (size_t)M.nrows * (size_t)k * sizeof(float));
        return;
    }
    const int64_t seg = std::max<int64_t>(32, M.policy.spmm_segment_entries);
    const int64_t nseg = (M.nvals + seg - 1) / seg;
    Buffer carry(&be, (size_t)nseg * 2 * ((size_t)k * sizeof(double) + sizeof(int32_t)));
    double *cv = carry.as<double>();
    int32_t *cr = reinterpret_cast<int32_t *>(cv + (size_t)nseg * 2 * k);
    int L = 1;
    while (L < k && L < 32) L <<= 1;
    const int64_t blocks = (nseg + kSpmmThreads / 32 - 1) / (kSpmmThreads / 32);
    spmm_segment_kernel<<<(unsigned)blocks, kSpmmThreads, 0, st>>>(M.nrows, M.row_ptr.as<int64_t>(), M.col.as<int32_t>(),
                                                                   M.nvals, seg, nseg, k, L, U, T, cv, cr);
    PSV_CUDA_LAUNCH_CHECK();
    spmm_carry_kernel<<<(unsigned)blocks, kSpmmThreads, 0, st>>>(nseg, k, cv, cr, T);
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
    if (M.nvals > 0 && M.kernel == PSV_KERNEL_TILE_COMPOSITE) tc_spmm(*this, M, M.form(), k, U, T);
    else csr_spmm(*this, M, k, U, T);
}

}  // namespace cuda
}  // namespace psv
