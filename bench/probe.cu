// The gather probe (bench-side, not an SpMV): the ceiling of CSR-order kernels.
// What every product that reads x entry by entry in storage order must do, and nothing more: stream
// the entries (index, and value where weighted) and row_ptr, gather x at every entry (columns < H
// from a copy in shared memory), write y once. No row sums: each thread keeps one running sum,
// written to a scratch slot, so that no load is dead. A warp takes 8 x 32 consecutive entries at a
// time (lane-consecutive: the x reads of neighbouring entries coalesce), all loads in flight
// together; 2 blocks of 1024 threads per SM, alive for the whole pass. Its time bounds from below
// what psv's design family (CSR-order chunks, hot columns in shared memory, the rest of x through
// L1/L2, x in rank order) can reach on a matrix.
#include "bench/probe.hpp"
#include "bench/device.cuh"

namespace {

constexpr int kProbeThreads = 1024, kProbeUnroll = 8;
template <bool W>
__global__ void __launch_bounds__(kProbeThreads, 2)
    probe_kernel(int64_t nnz, int64_t n, const int32_t *__restrict__ rp, const int32_t *__restrict__ col,
                 const float *__restrict__ val, const float *__restrict__ x, int32_t H, float *__restrict__ y,
                 float *__restrict__ scratch) {
    extern __shared__ float xs[];
    for (int32_t i = threadIdx.x; i < H; i += blockDim.x) xs[i] = __ldg(x + i);
    __syncthreads();
    float acc = 0;
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    constexpr int U = kProbeUnroll;
    for (int64_t base = ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5) * 32 * U; base < nnz; base += warps * 32 * U) {
        int32_t c[U];
        float a[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const int64_t q = base + j * 32 + lane;
            const bool in = q < nnz;
            c[j] = in ? __ldcs(col + q) : 0;
            a[j] = !in ? 0.f : W ? __ldcs(val + q) : 1.f;
        }
#pragma unroll
        for (int j = 0; j < U; ++j) acc += a[j] * (c[j] < H ? xs[c[j]] : __ldg(x + c[j]));
    }
    GLOOP(i, n) y[i] = (float)__ldcs(rp + i + 1);
    scratch[blockIdx.x * (int64_t)blockDim.x + threadIdx.x] = acc;
}

}  // namespace

Probe::Probe(int dev) {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    scratch.alloc((size_t)2 * sms * kProbeThreads);
}

void Probe::run(const Csr &M, const char *layout, std::initializer_list<int32_t> hot, const float *X, int nx, float *Y,
                Result &res) {
    const int64_t n = M.nrows, nc = M.ncols, nnz = M.nnz;
    for (int32_t H : hot) {
        const size_t smem = (size_t)H * sizeof(float);
        if (H > nc || 2 * (smem + 1024) > (size_t)smem_sm) continue;  // two blocks per SM (1 KB reserved each)
        Stat st[2];
        for (int pat = 0; pat < 2; ++pat) {
            auto kern = pat ? probe_kernel<false> : probe_kernel<true>;
            CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            st[pat] = g_timer.run([&](int i) {
                kern<<<2 * sms, kProbeThreads, smem, g_st>>>(nnz, n, M.rp, M.col, M.val, X + (size_t)(i % nx) * nc, H, Y, scratch.p);
                CKL();
            });
            Stat &best_st = pat ? res.probe_p : res.probe_w;
            if (!(st[pat].med >= best_st.med)) {
                best_st = st[pat];
                (pat ? res.probe_layout_p : res.probe_layout_w) = std::string(layout) + ", " + std::to_string(H) + " hot";
            }
        }
        std::printf("gather probe (bench, not an SpMV) %s, %d hot columns: weighted %.4f ms (best cuSPARSE / probe %.2fx, %.0f%% of copy)"
                    "  pattern %.4f ms\n",
                    layout, (int)H, st[0].med, res.best_cs() / st[0].med, 100 * eff_share_of(res.bytes(), st[0].med), st[1].med);
        std::fflush(stdout);
    }
}
