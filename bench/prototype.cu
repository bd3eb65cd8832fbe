// The bench-side prototype (not psv): L2-sized column tiles of the rank-ordered matrix.
// The columns are ranked as psv ranks them; tile k holds ranks [k tw, (k+1) tw), so its slice of
// the rank-ordered x (tw x 4 bytes) stays in L2 while the tile's entries stream past. Inside a
// tile only the rows with entries are kept (segments: first entry + row), in row order; G lanes
// per segment, G = the tile's mean segment length rounded up to a power of two. One launch per
// tile; y is zeroed once and every tile adds into it (rows are disjoint within a launch).
// Bytes per product: 8 nnz + 16 per segment (start, row, y read + write) + x gather + 4 n.
#include "bench/device.cuh"

namespace {

__global__ void order_of_kernel(int64_t n, const uint64_t *skey, int32_t *order) { GLOOP(k, n) order[k] = (int32_t)(uint32_t)skey[k]; }
__global__ void stack_rows_kernel(int64_t m, int64_t n, int64_t tw, const int32_t *rank, const int32_t *row, const int32_t *col,
                                  int32_t *srow, int32_t *scol) {
    GLOOP(e, m) {
        const int32_t r = rank[col[e]];
        srow[e] = (int32_t)((int64_t)(r / tw) * n + row[e]);
        scol[e] = r;
    }
}
__global__ void seg_flag_kernel(int64_t m, const int32_t *srow, uint32_t *flag) { GLOOP(e, m) flag[e] = e == 0 || srow[e] != srow[e - 1]; }
__global__ void seg_write_kernel(int64_t m, int64_t n, const int32_t *srow, const uint32_t *flag, const uint32_t *pos, int32_t *seg_start,
                                 int32_t *seg_row, int32_t *seg_srow) {
    GLOOP(e, m) {
        if (!flag[e]) continue;
        const uint32_t s = pos[e];
        seg_start[s] = (int32_t)e;
        seg_row[s] = (int32_t)(srow[e] % n);
        seg_srow[s] = srow[e];
    }
}
__global__ void tile_bounds_kernel(int T, int64_t n, int64_t segs, const int32_t *seg_srow, int64_t *tseg) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > T) return;
    const int64_t v = (int64_t)k * n;  // first segment with stacked row >= k n
    int64_t lo = 0, hi = segs;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if ((int64_t)seg_srow[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    tseg[k] = lo;
}
__global__ void gather_kernel(int64_t n, const int32_t *order, const float *x, float *xr) { GLOOP(k, n) xr[k] = x[order[k]]; }
template <int G>
__global__ void __launch_bounds__(256) proto_tile_kernel(int64_t s0, int64_t s1, const int32_t *__restrict__ seg_start,
                                                         const int32_t *__restrict__ seg_row, const int32_t *__restrict__ col,
                                                         const float *__restrict__ val, const float *__restrict__ xr, float *__restrict__ y) {
    const int64_t s = s0 + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    float acc = 0.0f;
    const bool ok = s < s1;
    if (ok) {
        const int32_t b = seg_start[s], e = seg_start[s + 1];
        if (val)
            for (int32_t p = b + lane; p < e; p += G) acc += val[p] * xr[col[p]];
        else
            for (int32_t p = b + lane; p < e; p += G) acc += xr[col[p]];
    }
#pragma unroll
    for (int o = G / 2; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (ok && lane == 0) y[seg_row[s]] += acc;
}

struct Proto {
    int64_t n = 0, ncols = 0, tw = 0, segs = 0;
    int T = 0;
    Dev<int32_t> order, seg_start, seg_row, col;
    Dev<float> val, xr;
    std::vector<int64_t> tseg;
    std::vector<int> G;
    void run(const float *x, float *y, bool weighted) const {
        CK(cudaMemsetAsync(y, 0, (size_t)n * 4, g_st));
        gather_kernel<<<grid(ncols), 256, 0, g_st>>>(ncols, order, x, xr.p);
        const float *v = weighted ? val.p : nullptr;
        for (int k = 0; k < T; ++k) {
            const int64_t s0 = tseg[k], s1 = tseg[k + 1];
            if (s1 <= s0) continue;
            const int g = G[k];
            const unsigned blocks = (unsigned)(((s1 - s0) * g + 255) / 256);
#define PSV_BENCH_PROTO(GG) \
    case GG: proto_tile_kernel<GG><<<blocks, 256, 0, g_st>>>(s0, s1, seg_start, seg_row, col, v, xr.p, y); break;
            switch (g) {
                PSV_BENCH_PROTO(1) PSV_BENCH_PROTO(2) PSV_BENCH_PROTO(4) PSV_BENCH_PROTO(8) PSV_BENCH_PROTO(16) default :
                    proto_tile_kernel<32><<<blocks, 256, 0, g_st>>>(s0, s1, seg_start, seg_row, col, v, xr.p, y);
            }
#undef PSV_BENCH_PROTO
        }
    }
};

// Build the prototype's form from the CSR A (its COO rows too) and psv's column ranking.
bool build_proto(Proto &P, const Csr &A, const int32_t *rank, const uint64_t *skey_sorted, int64_t tw) {
    const int64_t n = A.nrows, nc = A.ncols, nnz = A.nnz;
    P.n = n, P.ncols = nc, P.tw = tw;
    P.T = (int)((nc + tw - 1) / tw);
    if ((int64_t)P.T * n >= INT32_MAX) return false;
    P.order.alloc(nc);
    order_of_kernel<<<grid(nc), 256, 0, g_st>>>(nc, skey_sorted, P.order);
    Csr B;
    {
        Dev<int32_t> srow(nnz), scol(nnz);
        stack_rows_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, n, tw, rank, A.row, A.col, srow, scol);
        CKL();
        B = coo_to_csr((int64_t)P.T * n, nc, nnz, srow, scol, A.val);
    }
    B.rp.reset();
    Dev<uint32_t> flag(nnz + 1), pos(nnz + 1);
    seg_flag_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, B.row, flag);
    CKL();
    const uint32_t segs = exclusive_count(flag, pos, nnz);
    P.segs = segs;
    P.seg_start.alloc(segs + 1), P.seg_row.alloc(segs);
    Dev<int32_t> seg_srow(segs);
    seg_write_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, n, B.row, flag, pos, P.seg_start, P.seg_row, seg_srow);
    const int32_t nnz32 = (int32_t)nnz;
    CK(cudaMemcpyAsync(P.seg_start.p + segs, &nnz32, 4, cudaMemcpyHostToDevice, g_st));
    Dev<int64_t> tseg(P.T + 1);
    tile_bounds_kernel<<<(P.T + 1 + 127) / 128, 128, 0, g_st>>>(P.T, n, segs, seg_srow, tseg);
    CKL();
    P.tseg.resize(P.T + 1);
    CK(cudaMemcpyAsync(P.tseg.data(), tseg.p, (size_t)(P.T + 1) * 8, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    std::vector<int32_t> starts(P.T + 1);
    for (int k = 0; k <= P.T; ++k) {
        if (P.tseg[k] < (int64_t)segs) CK(cudaMemcpy(&starts[k], P.seg_start.p + P.tseg[k], 4, cudaMemcpyDeviceToHost));
        else starts[k] = nnz32;
    }
    P.G.resize(P.T);
    for (int k = 0; k < P.T; ++k) {
        const int64_t ns = P.tseg[k + 1] - P.tseg[k], ne = (int64_t)starts[k + 1] - starts[k];
        const double avg = ns ? (double)ne / (double)ns : 1.0;
        int g = 1;
        while (g < 32 && g < avg) g *= 2;
        P.G[k] = g;
    }
    P.col = std::move(B.col);
    P.val = std::move(B.val);
    P.xr.alloc(nc);
    return true;
}

}  // namespace

void run_prototypes(const Csr &A, const int32_t *rank, const uint64_t *skey, int dev, const float *X, int nx, float *Y,
                    const double *ref_w, const double *ref_p, Result &res) {
    const int64_t n = A.nrows, nc = A.ncols;
    for (int64_t tw0 : O.proto_tw) {
        int l2b = 0;
        CK(cudaDeviceGetAttribute(&l2b, cudaDevAttrL2CacheSize, dev));
        const int64_t tw = tw0 == 0 ? std::max<int64_t>(1024, l2b / 16) : tw0 < 0 ? nc : tw0;
        if (tw0 == 0 && tw >= nc) continue;  // one tile: the tw = -1 case
        Result::ProtoRes pr;
        Proto P;
        const double t0 = now_s();
        if (!build_proto(P, A, rank, skey, tw)) continue;
        pr.build_s = now_s() - t0;
        pr.tw = tw, pr.T = P.T, pr.segs = P.segs;
        P.run(X, Y, true);
        pr.err_w = rel_err(n, Y, ref_w);
        P.run(X, Y, false);
        pr.err_p = rel_err(n, Y, ref_p);
        pr.w = g_timer.run([&](int i) { P.run(X + (size_t)(i % nx) * nc, Y, true); });
        pr.p = g_timer.run([&](int i) { P.run(X + (size_t)(i % nx) * nc, Y, false); });
        std::printf("prototype (bench, not psv) tw %lld: %d tiles, %lld segments (%.2f per row)  weighted %.4f ms (err %.1e, %.2fx, %.0f%% of copy)"
                    "  pattern %.4f ms (err %.1e, %.2fx)\n",
                    (long long)tw, P.T, (long long)P.segs, (double)P.segs / std::max<int64_t>(1, n), pr.w.med, pr.err_w,
                    res.best_cs() / pr.w.med, 100 * eff_share_of(res.bytes(), pr.w.med), pr.p.med, pr.err_p, res.best_cs() / pr.p.med);
        std::fflush(stdout);
        res.proto.push_back(pr);
    }
}
