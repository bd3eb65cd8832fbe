// The bench-side SELL-32 prototype (not psv; --sell): rows in slices of 32 in their given order,
// each slice padded to its longest row and stored column-major (entry k of the slice's rows
// together), so a warp's lane i takes row 32 s + i and every load -- column, value, and on a
// banded matrix the gather of x too -- is 32 consecutive words. No row sums across lanes, no
// shared memory: what a regular matrix (the stencil) could reach against the CSR chunk kernel.
// Bytes per product: 8 per stored slot (padding included) + 8 per slice + 4 nrows (y) + x.
#include "bench/device.cuh"

namespace {

constexpr int kSellC = 32;

__global__ void slice_width_kernel(int64_t n, const int32_t *rp, int64_t *width) {
    const int64_t s = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (s * kSellC >= n) return;
    const int64_t i = s * kSellC + lane;
    int len = i < n ? rp[i + 1] - rp[i] : 0;
    for (int m = 16; m >= 1; m >>= 1) len = max(len, __shfl_xor_sync(0xffffffffu, len, m));
    if (lane == 0) width[s] = (int64_t)len * kSellC;
}

__global__ void sell_fill_kernel(int64_t n, const int32_t *rp, const int32_t *col, const float *val, const int64_t *sp,
                                 int32_t *scol, float *sval) {
    GLOOP(i, n) {
        const int64_t base = sp[i / kSellC] + (i % kSellC);
        for (int32_t e = rp[i], k = 0; e < rp[i + 1]; ++e, ++k) {
            scol[base + (int64_t)k * kSellC] = col[e];
            sval[base + (int64_t)k * kSellC] = val[e];
        }
    }
}

// a warp per slice; pads have column -1 (skipped); U slots' loads in flight per lane
template <bool W, int U>
__global__ void __launch_bounds__(256) sell_kernel(int64_t n, int64_t slices, const int64_t *__restrict__ sp,
                                                   const int32_t *__restrict__ scol, const float *__restrict__ sval,
                                                   const float *__restrict__ x, float *__restrict__ y) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
    for (int64_t s = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32; s < slices; s += warps) {
        const int64_t b = sp[s], e = sp[s + 1];
        const int32_t *cp = scol + b + lane;
        const float *vp = sval + b + lane;
        const int32_t w = (int32_t)((e - b) / kSellC);
        float acc = 0.f;
        int32_t k = 0;
        for (; k + U <= w; k += U) {
            int32_t c[U];
            float a[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                c[u] = __ldcs(cp + (k + u) * kSellC);
                a[u] = W ? __ldcs(vp + (k + u) * kSellC) : 1.f;
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (c[u] >= 0) acc += a[u] * __ldg(x + c[u]);
        }
        for (; k < w; ++k) {
            const int32_t c = __ldcs(cp + k * kSellC);
            if (c >= 0) acc += (W ? __ldcs(vp + k * kSellC) : 1.f) * __ldg(x + c);
        }
        const int64_t i = s * kSellC + lane;
        if (i < n) y[i] = acc;
    }
}

}  // namespace

void run_sell(const Csr &A, int dev, const float *X, int nx, float *Y, const double *ref_w, const double *ref_p, Result &res) {
    const int64_t n = A.nrows, nc = A.ncols;
    const int64_t slices = (n + kSellC - 1) / kSellC;
    Dev<int64_t> sp(slices + 1);
    CK(cudaMemsetAsync(sp.p, 0, 8, g_st));
    slice_width_kernel<<<(unsigned)((slices + 7) / 8), 256, 0, g_st>>>(n, A.rp.p, sp.p + 1);
    CK(cudaGetLastError());
    cub_run([&](void *t, size_t &b) { return cubns::DeviceScan::InclusiveSum(t, b, sp.p + 1, sp.p + 1, slices, g_st); });
    int64_t slots = 0;
    CK(cudaMemcpy(&slots, sp.p + slices, 8, cudaMemcpyDeviceToHost));
    if ((double)slots > 1.5 * (double)A.nnz + 1024) {
        std::printf("SELL-32 prototype (bench, not psv): %lld slots for %lld entries, skipped\n", (long long)slots, (long long)A.nnz);
        return;
    }
    Dev<int32_t> scol(slots);
    Dev<float> sval(slots);
    CK(cudaMemsetAsync(scol.p, 0xff, (size_t)slots * 4, g_st));
    CK(cudaMemsetAsync(sval.p, 0, (size_t)slots * 4, g_st));
    sell_fill_kernel<<<(unsigned)std::min<int64_t>((n + 255) / 256, 65535), 256, 0, g_st>>>(n, A.rp.p, A.col.p, A.val.p, sp.p,
                                                                                         scol.p, sval.p);
    CK(cudaGetLastError());
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const unsigned grid = (unsigned)std::min<int64_t>((slices + 7) / 8, (int64_t)sms * 8);
    const double bytes = 8.0 * (double)slots + 8.0 * (double)slices + 8.0 * (double)n;
    using Kernel = void (*)(int64_t, int64_t, const int64_t *, const int32_t *, const float *, const float *, float *);
    const struct {
        int U;
        Kernel weighted, pattern;
    } variants[] = {{4, sell_kernel<true, 4>, sell_kernel<false, 4>}, {8, sell_kernel<true, 8>, sell_kernel<false, 8>}};
    for (const auto &v : variants) {
        const int U = v.U;
        auto go = [&](const float *x, bool w) {
            (w ? v.weighted : v.pattern)<<<grid, 256, 0, g_st>>>(n, slices, sp.p, scol.p, sval.p, x, Y);
            CK(cudaGetLastError());
        };
        go(X, true);
        const double ew = rel_err(n, Y, ref_w);
        go(X, false);
        const double ep = rel_err(n, Y, ref_p);
        const Stat w = g_timer.run([&](int i) { go(X + (size_t)(i % nx) * nc, true); });
        const Stat p = g_timer.run([&](int i) { go(X + (size_t)(i % nx) * nc, false); });
        std::printf("SELL-32 prototype (bench, not psv) U=%d: %.3f slots per entry  weighted %.4f ms (err %.1e, %.2fx, %.0f%% of "
                    "copy on %.0f MB)  pattern %.4f ms (err %.1e, %.2fx)\n",
                    U, (double)slots / (double)std::max<int64_t>(1, A.nnz), w.med, ew, res.best_cs() / w.med,
                    100 * eff_share_of(bytes, w.med), bytes / 1e6, p.med, ep, res.best_cs() / p.med);
    }
    std::fflush(stdout);
}
