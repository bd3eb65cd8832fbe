// The SpMV dispatch (CUB's layering: dispatch -> kernel -> agent): run_spmv picks the kernel the
// matrix was planned for and launches it, spmv_typed picks the semiring's instantiation. One
// .cu file per value type instantiates it (spmv_<type>.cu), so the instantiations build in
// parallel.
// Every launch writes each output row from one warp (a block for the CSR kernel's long rows, a
// chunk's warp for a long row's last piece), and tiles add into t(i) in tile order: no float
// atomics (integer counters only), results reproducible bit for bit.
#pragma once
#include "cuda/spmv/csr_chunk.cuh"
#include "cuda/spmv/csr_hot.cuh"
#include "cuda/spmv/csr_vector.cuh"
#include "cuda/spmv/sell.cuh"
#include "cuda/spmv/stream.cuh"
#include "cuda/spmv/tile_coo.cuh"
#include "cuda/spmv/tile_composite.cuh"

namespace psv {
namespace cuda {

// The chunk kernels' product. With hot columns (P.hot > 0, for values no larger than the plan
// was sized for): csr_hot_kernel over col_enc, x read from u, or where the plan is ranked from x
// gathered into rank order for its first ranked_prefix ranks and from u beyond; the hot values
// come from the rank-order x, from a gather of the hot part alone (H > Policy::hot_direct), or
// straight from u through col_order. Without: csr_chunk_kernel over col_enc and the rank-order x (ranked:
// every column), or over M.col and u.
template <class S>
void launch_csr_chunk(CudaBackend &be, const CudaMatrix &M, const S s, const typename S::value_type *vals,
                      const typename S::value_type *u, typename S::value_type *t, uint8_t *tp) {
    using T = typename S::value_type;
    const ChunkPlan &P = M.chunks;
    cudaStream_t st = be.stream();
    const int64_t H = (P.hot > 0 && sizeof(T) <= P.hot_vb) ? P.hot : 0;
    const bool ranked = P.ranked && (H > 0 || P.hot == 0);  // a plan with hot columns is read ranked only by the hot kernel
    const bool enc = H > 0 || ranked;
    ChunkArgs<T> A{P.begin.as<int64_t>(),      P.first_row.as<int32_t>(), P.head_long.as<int32_t>(),
                   P.tail_long.as<int32_t>(),  P.long_row.as<int32_t>(),  P.long_first.as<int64_t>(),
                   P.long_slot.as<int64_t>(),  P.counters.as<unsigned>(), P.slots.get(),
                   M.row_ptr.as<int64_t>(),    enc ? P.col_enc.as<int32_t>() : M.col.as<int32_t>(),
                   vals,                       t,                         tp};
    // chunk_fill_v's 16-byte loads need 16-byte aligned arrays (cudaMalloc gives 256)
    if (sizeof(T) == 4 && ((reinterpret_cast<uintptr_t>(A.col) | reinterpret_cast<uintptr_t>(vals)) & 15))
        fail(PSV_ERROR_PANIC, "the chunk kernel's index or value array is not 16-byte aligned");
    const int32_t *order = P.col_order.as<int32_t>();
    // the only allocation comes first: a failure leaves t untouched
    const int64_t gathered = ranked ? P.ranked_prefix : (H > M.policy.hot_direct ? H : 0);
    Buffer xr(&be, (size_t)gathered * sizeof(T));
    if (gathered > 0) {
        // the product prologue with no rows: only the gather of x into rank order
        spmv_prologue_kernel<S><<<grid_for(gathered), 256, 0, st>>>(s, 0, A.rp, nullptr, nullptr, gathered, order, u, xr.as<T>());
        PSV_CUDA_LAUNCH_CHECK();
    }
    const T *xg = ranked ? xr.as<T>() : u;
    if (H == 0) {
        if constexpr (sizeof(T) == 4) {
            if (M.policy.many_waves(M.nvals))
                csr_chunk_kernel<S, kChunkPerThread, true, kChunkBlocksManyWaves><<<(unsigned)P.nchunks, kChunkThreads, 0, st>>>(s, A, xg);
            else
                csr_chunk_kernel<S, kChunkPerThread, true, kChunkBlocksFewWaves><<<(unsigned)P.nchunks, kChunkThreads, 0, st>>>(s, A, xg);
        } else {
            csr_chunk_kernel<S, kChunkPerThread, false, kChunkBlocksFewWaves><<<(unsigned)P.nchunks, kChunkThreads, 0, st>>>(s, A, xg);
        }
        PSV_CUDA_LAUNCH_CHECK();
        return;
    }
    const size_t bytes = ((size_t)kHotGroups * kChunkCap + (size_t)H) * sizeof(T);
    const int64_t grid = std::min<int64_t>((int64_t)kHotBlocksPerSm * be.sm_count(), (P.nchunks + kHotGroups - 1) / kHotGroups);
    const bool split = ranked && P.ranked_prefix < M.ncols;
    auto kernel = split ? csr_hot_kernel<S, kChunkPerThread, true> : csr_hot_kernel<S, kChunkPerThread, false>;
    allow_smem(kernel, bytes);
    kernel<<<(unsigned)grid, kHotGroups * kChunkThreads, bytes, st>>>(s, P.nchunks, A, xg, u, (int32_t)P.ranked_prefix,
                                                                      gathered > 0 ? xr.as<T>() : u,
                                                                      gathered > 0 ? nullptr : order, (int32_t)H);
    PSV_CUDA_LAUNCH_CHECK();
}

template <class S> void run_spmv(CudaBackend &be, const CudaMatrix &M, const SpmvArgs &a, const S s) {
    using T = typename S::value_type;
    cudaStream_t st = be.stream();
    const int64_t n = M.nrows;
    T *t = static_cast<T *>(a.t);
    const T *u = static_cast<const T *>(a.u);
    if (n == 0) return;
    const bool use_vals = !M.pattern && a.mul != PSV_SECOND && a.mul != PSV_PAIR;
    if (M.kernel == PSV_KERNEL_STREAM && !a.u_present && sizeof(T) <= M.stream.vb) {
        launch_stream(be, M, s, use_vals, u, t, a.t_present);
        return;
    }
    if (M.kernel == PSV_KERNEL_SELL && !a.u_present && M.sell.slices > 0) {
        launch_sell(be, M, s, use_vals, u, t, a.t_present);
        return;
    }
    M.need_csr();  // every other path reads the CSR
    // the CSR kernels: every plan but the tile kernels' (under STREAM also for u with absent
    // entries and values wider than its plan's, under SELL for u with absent entries), and u with
    // absent entries under any plan
    const bool tiles = M.kernel == PSV_KERNEL_TILE_COMPOSITE || M.kernel == PSV_KERNEL_TILE_COO;
    if (a.u_present || !tiles) {
        if (!a.u_present && M.chunks.nchunks > 0) {
            launch_csr_chunk(be, M, s, use_vals ? M.val.as<T>() : nullptr, u, t, a.t_present);
            return;
        }
        launch_csr_vector(be, M, s, use_vals ? M.val.as<T>() : nullptr, u, a.u_present, t, a.t_present);
        return;
    }
    const TcForm &F = M.form();  // kept by the tile kernels' plan
    // the only allocation comes first: a failure leaves t untouched
    Buffer xr(&be, M.nvals > 0 ? (size_t)M.ncols * sizeof(T) : 0);
    spmv_prologue_kernel<S><<<grid_for(std::max<int64_t>(n, M.ncols)), 256, 0, st>>>(
        s, n, M.row_ptr.as<int64_t>(), t, a.t_present, M.ncols, F.col_order.as<int32_t>(), u, M.nvals > 0 ? xr.as<T>() : nullptr);
    PSV_CUDA_LAUNCH_CHECK();
    if (M.nvals == 0) return;
    if (M.kernel == PSV_KERNEL_TILE_COO) launch_tile_coo(be, F, s, use_vals, xr.as<T>(), t);
    else launch_tile_composite(be, F, s, use_vals, xr.as<T>(), t);
}

// Compile-time specializations for the semirings the algorithms and benchmarks use; every other
// (add, multiply) pair of the type runs the RtSemiring instantiation.
template <class T> void spmv_typed(CudaBackend &be, const SpmvArgs &a0) {
    const CudaMatrix &M = static_cast<const CudaMatrix &>(*a0.A);
    const psv_type ty = TypeCode<T>::value;
    SpmvArgs a = a0;
    a.add = canonical_op(a0.add, ty);
    a.mul = canonical_op(a0.mul, ty);
#define PSV_CT(ADD, MUL)                                                    \
    if (a.add == ADD && a.mul == MUL) {                                     \
        run_spmv(be, M, a, CtSemiring<T, ADD, MUL>{});                      \
        return;                                                             \
    }
    if constexpr (std::is_same<T, bool_t>::value) {
        PSV_CT(PSV_LOR, PSV_LAND)
        PSV_CT(PSV_LOR, PSV_SECOND)
        PSV_CT(PSV_LOR, PSV_PAIR)
    } else {
        PSV_CT(PSV_PLUS, PSV_TIMES)
        PSV_CT(PSV_PLUS, PSV_SECOND)
        PSV_CT(PSV_PLUS, PSV_PAIR)
        PSV_CT(PSV_MIN, PSV_PLUS)
        PSV_CT(PSV_MAX, PSV_PLUS)
        PSV_CT(PSV_MIN, PSV_SECOND)
    }
#undef PSV_CT
    RtSemiring<T> rs;
    rs.add_op = a.add;
    rs.mul_op = a.mul;
    rs.id = rt_identity<T>(a.add);
    run_spmv(be, M, a, rs);
}

#define PSV_INSTANTIATE_SPMV(T) template void spmv_typed<T>(CudaBackend &, const SpmvArgs &);

}  // namespace cuda
}  // namespace psv
