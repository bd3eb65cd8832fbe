// The CSR (vector) kernel: G lanes per row (from the mean row length), a block per row longer
// than Policy::csr_long_per_lane x G; the path taken when u has absent entries.
#pragma once
#include "cuda/build/matrix.cuh"
#include "cuda/spmv/semiring.cuh"

namespace psv {
namespace cuda {

// CSR (vector) with G lanes per row (G = 2 ... 32, from the mean row length: csr_lanes), so a
// warp works on 32 / G rows at once; each lane loads four entries per step before using any
// (their loads are in flight together). Rows longer than long_min are left to
// csr_long_rows_kernel. The row loop's trip count is uniform across the warp: the shuffles
// see every lane.
template <class S, int G>
__global__ void __launch_bounds__(256)
    csr_vector_kernel(const S s, int64_t nrows, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
                      const typename S::value_type *__restrict__ vals, const typename S::value_type *__restrict__ u,
                      const uint8_t *__restrict__ up, typename S::value_type *__restrict__ t, uint8_t *__restrict__ tp,
                      int64_t long_min) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    constexpr int R = 32 / G;  // rows per warp step
    constexpr int U = 4;       // entries per lane per step
    const int lane = threadIdx.x & 31, sub = lane / G, l = lane % G;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t base = (blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5)) * R; base < nrows; base += warps * R) {
        const int64_t i = base + sub;
        int64_t b = 0, e = 0;
        bool ok = i < nrows;
        if (ok) {
            b = rp[i];
            e = rp[i + 1];
            if (e - b > long_min) ok = false, e = b;  // a long row: its own block writes it
        }
        Acc acc = (Acc)s.identity();
        bool any = false;
        for (int64_t p = b + l; p < e; p += U * G) {
            int32_t j[U];
            T a[U];
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const int64_t q = p + (int64_t)k * G;
                j[k] = q < e ? col[q] : -1;
                a[k] = (q < e && vals) ? vals[q] : T(1);
            }
#pragma unroll
            for (int k = 0; k < U; ++k)
                if (j[k] >= 0 && (!up || up[j[k]])) {
                    acc = s.acc_add(acc, (Acc)s.mul(a[k], u[j[k]]));
                    any = true;
                }
        }
#pragma unroll
        for (int m = G / 2; m >= 1; m >>= 1) acc = s.acc_add(acc, shfl_xor_any(acc, m));
        const unsigned ballot = __ballot_sync(0xffffffffu, any);
        if (ok && l == 0) {
            t[i] = (T)acc;
            if (tp) tp[i] = G == 32 ? ballot != 0 : ((ballot >> (sub * G)) & ((1u << (G & 31)) - 1u)) != 0;
        }
    }
}

// The rows longer than long_min (hubs of a power-law graph): a block of 256 threads per row,
// combined in a fixed order (warp butterflies, then warp 0 over the warps' sums), so the result
// does not depend on the order of the list.
template <class S>
__global__ void __launch_bounds__(256)
    csr_long_rows_kernel(const S s, const int32_t *__restrict__ rows, int64_t nlong, const int64_t *__restrict__ rp,
                         const int32_t *__restrict__ col, const typename S::value_type *__restrict__ vals,
                         const typename S::value_type *__restrict__ u, const uint8_t *__restrict__ up,
                         typename S::value_type *__restrict__ t, uint8_t *__restrict__ tp) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    __shared__ __align__(16) unsigned char part_raw[8 * sizeof(Acc)];
    __shared__ int part_any[8];
    Acc *part = reinterpret_cast<Acc *>(part_raw);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t k = blockIdx.x; k < nlong; k += gridDim.x) {
        const int32_t i = rows[k];
        const int64_t b = rp[i], e = rp[i + 1];
        Acc acc = (Acc)s.identity();
        bool any = false;
        int64_t p = b + threadIdx.x;
        for (; p + 256 < e; p += 512) {
            const int32_t j0 = col[p], j1 = col[p + 256];
            const T a0 = vals ? vals[p] : T(1), a1 = vals ? vals[p + 256] : T(1);
            if (!up || up[j0]) acc = s.acc_add(acc, (Acc)s.mul(a0, u[j0])), any = true;
            if (!up || up[j1]) acc = s.acc_add(acc, (Acc)s.mul(a1, u[j1])), any = true;
        }
        if (p < e) {
            const int32_t j = col[p];
            if (!up || up[j]) acc = s.acc_add(acc, (Acc)s.mul(vals ? vals[p] : T(1), u[j])), any = true;
        }
        acc = warp_allreduce_s(s, acc);
        any = __any_sync(0xffffffffu, any);
        if (lane == 0) part[warp] = acc, part_any[warp] = any;
        __syncthreads();
        if (threadIdx.x == 0) {
            Acc r = part[0];
            int a = part_any[0];
            for (int w = 1; w < 8; ++w) r = s.acc_add(r, part[w]), a |= part_any[w];
            t[i] = (T)r;
            if (tp) tp[i] = a != 0;
        }
        __syncthreads();
    }
}

template <class S>
void launch_csr_vector(CudaBackend &be, const CudaMatrix &M, const S s, const typename S::value_type *vals,
                       const typename S::value_type *u, const uint8_t *up, typename S::value_type *t, uint8_t *tp) {
    const int64_t n = M.nrows;
    const int G = M.csr_lanes;
    const int64_t rows_per_block = 8 * (32 / G);
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((n + rows_per_block - 1) / rows_per_block, (int64_t)be.sm_count() * 8));
    const int64_t *rp = M.row_ptr.as<int64_t>();
    const int32_t *c = M.col.as<int32_t>();
    const int64_t long_min = M.n_long_rows > 0 ? M.csr_long_min : INT64_MAX;
    cudaStream_t st = be.stream();
#define PSV_CSR_G(GG) \
    case GG: csr_vector_kernel<S, GG><<<(unsigned)blocks, 256, 0, st>>>(s, n, rp, c, vals, u, up, t, tp, long_min); break;
    switch (G) {
        PSV_CSR_G(2) PSV_CSR_G(4) PSV_CSR_G(8) PSV_CSR_G(16) default : csr_vector_kernel<S, 32><<<(unsigned)blocks, 256, 0, st>>>(s, n, rp, c, vals, u, up, t, tp, long_min);
    }
#undef PSV_CSR_G
    PSV_CUDA_LAUNCH_CHECK();
    if (M.n_long_rows > 0) {
        const int64_t lb = std::min<int64_t>(M.n_long_rows, (int64_t)be.sm_count() * 8);
        csr_long_rows_kernel<S><<<(unsigned)lb, 256, 0, st>>>(s, M.long_rows.as<int32_t>(), M.n_long_rows, rp, c, vals, u, up, t, tp);
        PSV_CUDA_LAUNCH_CHECK();
    }
}

}  // namespace cuda
}  // namespace psv
