// The cuSPARSE reference (see cusparse_ref.hpp).
#include "bench/cusparse_ref.hpp"
#include "bench/device.cuh"

namespace {

// PageRank / HITS / RWR vector steps for the cuSPARSE-based versions (same definitions as psv),
// written as a user would write them well: restrict-qualified pointers and a constant loop stride
// (each element's loads may move above the stores before them: STEP_LOOP), one double atomic per
// block (per-warp atomics on one address serialize), a grid of one wave (kStepThreads threads,
// kStepBlocksPerSm blocks per SM).
constexpr int kStepThreads = 256, kStepBlocksPerSm = 8;
unsigned step_grid(int64_t n) {
    static const int sms = [] {
        int dev = 0, v = 0;
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
        return v;
    }();
    const int64_t b = (n + kStepThreads - 1) / kStepThreads;
    return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, (int64_t)sms * kStepBlocksPerSm));
}
// The steps' loop: each block takes a contiguous share of [0, n), its threads kStepThreads apart.
// The stride is a constant, so the compiler may move an element's loads above the stores of the
// elements before it; with a grid-sized stride (not known to be nonzero) an in-place step waits a
// whole load latency per element.
#define STEP_LOOP(i, n)                                                                                           \
    for (int64_t i##_per = ((n) + gridDim.x - 1) / gridDim.x,                                                     \
                 i##_end = min((int64_t)(n), (int64_t)(blockIdx.x + 1) * i##_per), i = blockIdx.x * i##_per + threadIdx.x; \
         i < i##_end; i += kStepThreads)
// *out += the block's sum of v (every thread of the block calls it; one atomic, none for 0).
__device__ void block_sum_add(double v, double *out) {
    __shared__ double part[kStepThreads / 32];
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0;
        for (int w = 0; w < kStepThreads / 32; ++w) s += part[w];
        if (s != 0) atomicAdd(out, s);
    }
}
__global__ void __launch_bounds__(kStepThreads) pr_scale_kernel(int64_t n, const float *__restrict__ r,
                                                                 const float *__restrict__ inv, float *__restrict__ w,
                                                                 double *dangling) {
    double s = 0;
    STEP_LOOP(i, n) {
        const float ri = r[i], iv = inv[i];
        w[i] = ri * iv;
        if (iv == 0.0f) s += ri;
    }
    if (dangling) block_sum_add(s, dangling);
}
__global__ void __launch_bounds__(kStepThreads) pr_update_kernel(int64_t n, const float *__restrict__ t,
                                                                  float *__restrict__ r, double damping,
                                                                  const double *dangling, double *diff) {
    const double base = ((1.0 - damping) + damping * *dangling) / (double)n;
    double s = 0;
    STEP_LOOP(i, n) {
        const float v = (float)(base + damping * (double)t[i]);
        s += fabs((double)v - (double)r[i]);
        r[i] = v;
    }
    block_sum_add(s, diff);
}
__global__ void __launch_bounds__(kStepThreads) sum_kernel(int64_t n, const float *__restrict__ x, double *out) {
    double s = 0;
    STEP_LOOP(i, n) s += x[i];
    block_sum_add(s, out);
}
__global__ void __launch_bounds__(kStepThreads) normalize_diff_kernel(int64_t n, float *__restrict__ x,
                                                                       const double *total,
                                                                       const float *__restrict__ prev, double *diff) {
    const double t = *total;
    double s = 0;
    STEP_LOOP(i, n) {
        const float v = t != 0 ? (float)((double)x[i] / t) : x[i];
        x[i] = v;
        s += fabs((double)v - (double)prev[i]);
    }
    block_sum_add(s, diff);
}
__global__ void __launch_bounds__(kStepThreads) rwr_update_kernel(int64_t n, const float *__restrict__ T,
                                                                   float *__restrict__ R, double c, int64_t q,
                                                                   double *diff) {
    double s = 0;
    STEP_LOOP(i, n) {
        const float v = (float)(c * (double)T[i] + (i == q ? 1.0 - c : 0.0));
        s += fabs((double)v - (double)R[i]);
        R[i] = v;
    }
    block_sum_add(s, diff);
}

}  // namespace

void make_csr_descr(SpMat &M, const Csr &A, float *val) {
    CS(cusparseCreateCsr(&M.d, A.nrows, A.ncols, A.nnz, A.rp.p, A.col.p, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
}
void make_coo_descr(SpMat &M, const Csr &A, float *val) {
    CS(cusparseCreateCoo(&M.d, A.nrows, A.ncols, A.nnz, A.row.p, A.col.p, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F));
}
cusparseSpMVAlg_t alg_of(int a) {
    return a == 0 ? CUSPARSE_SPMV_CSR_ALG1 : a == 1 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_COO_ALG1;
}

void SpMV::prepare(cusparseSpMatDescr_t M, cusparseSpMVAlg_t al, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) {
    A = M, alg = al;
    const float one = 1.0f, zero = 0.0f;
    size_t bytes = 0;
    CS(cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, CUDA_R_32F, alg, &bytes));
    buf.alloc(std::max<size_t>(bytes, 16));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12400
    CS(cusparseSpMV_preprocess(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, CUDA_R_32F, alg, buf.p));
#endif
}

void time_cusparse(const Csr &M, const std::vector<DnVec> &xs, const DnVec &y, float *y_dev, const double *ref, Stat *out,
                   double *err) {
    const int nx = (int)xs.size();
    SpMat csr, coo;
    make_csr_descr(csr, M, M.val.p);
    make_coo_descr(coo, M, M.val.p);
    for (int a = 0; a < 3; ++a) {
        SpMV mv;
        mv.prepare(a == 2 ? coo.d : csr.d, alg_of(a), xs[0].d, y.d);
        if (err) {
            mv(xs[0].d, y.d);
            err[a] = rel_err(M.nrows, y_dev, ref);
        }
        out[a] = g_timer.run([&](int i) { mv(xs[i % nx].d, y.d); });
    }
}

void make_ones(OnesMat &M, const Csr &A, float *ones, int alg, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) {
    if (alg == 2) make_coo_descr(M.d, A, ones);
    else make_csr_descr(M.d, A, ones);
    M.mv.prepare(M.d.d, alg_of(alg), x, y);
}

int cs_pagerank(const OnesMat &AT, int64_t n, const float *inv, float *r, float *w, float *t, cusparseDnVecDescr_t wv,
                cusparseDnVecDescr_t tv, double *scal, double damping, double tol, int maxit) {
    fill_vec(n, (float)(1.0 / (double)n), r);
    int it = 0;
    while (it < maxit) {
        CK(cudaMemsetAsync(scal, 0, 16, g_st));
        pr_scale_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, r, inv, w, scal);
        CKL();
        AT.mv(wv, tv);
        pr_update_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, t, r, damping, scal, scal + 1);
        CKL();
        ++it;
        if (read_scalar(scal + 1) <= tol) break;
    }
    return it;
}

int cs_hits(const OnesMat &A1, const OnesMat &AT1, int64_t n, Dev<float> *a, Dev<float> *h, double *scal, double tol,
            int maxit, int &final_idx) {
    // a[0]/h[0]: current, a[1]/h[1]: previous (swapped by index)
    int cur = 0;
    fill_vec(n, (float)(1.0 / (double)n), a[1]);
    fill_vec(n, (float)(1.0 / (double)n), h[1]);
    int it = 0;
    while (it < maxit) {
        const int prev = 1 - cur;
        DnVec hp(n, h[prev]), ac(n, a[cur]), hc(n, h[cur]);
        CK(cudaMemsetAsync(scal, 0, 32, g_st));
        AT1.mv(hp.d, ac.d);
        sum_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, a[cur], scal);
        normalize_diff_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, a[cur], scal, a[prev], scal + 2);
        A1.mv(ac.d, hc.d);
        sum_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, h[cur], scal + 1);
        normalize_diff_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, h[cur], scal + 1, h[prev], scal + 3);
        CKL();
        ++it;
        double d[2];
        CK(cudaMemcpyAsync(d, scal + 2, 16, cudaMemcpyDeviceToHost, g_st));
        CK(cudaStreamSynchronize(g_st));
        cur = prev;
        if (d[0] + d[1] <= tol) break;
    }
    final_idx = 1 - cur;  // the last written
    return it;
}

int cs_rwr(const OnesMat &S, int64_t n, const float *inv, int64_t q, float *R, float *U, float *T, cusparseDnVecDescr_t uv,
           cusparseDnVecDescr_t tv, double *scal, double c, double tol, int maxit) {
    CK(cudaMemsetAsync(R, 0, (size_t)n * 4, g_st));
    const float one = 1.0f;
    CK(cudaMemcpyAsync(R + q, &one, 4, cudaMemcpyHostToDevice, g_st));
    int it = 0;
    while (it < maxit) {
        CK(cudaMemsetAsync(scal, 0, 8, g_st));
        pr_scale_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, R, inv, U, nullptr);
        S.mv(uv, tv);
        rwr_update_kernel<<<step_grid(n), kStepThreads, 0, g_st>>>(n, T, R, c, q, scal);
        CKL();
        ++it;
        if (read_scalar(scal) <= tol) break;
    }
    return it;
}
