// Capacity (psv_bench --capacity rmat:SCALE[:EF]): how large a graph psv holds and ranks on one
// GPU. The R-MAT edges are generated on the device a chunk at a time -- twice, one pass to count,
// one to place (psv's streamed construction) -- so no full tuple list ever exists. Reported: the
// device bytes per edge that psv holds at the peak of construction, after it, and at the peak of
// PageRank to convergence; construction in seconds and in SpMV times; the SpMV's median time next
// to the bytes its byte model moves; PageRank's iterations and time per iteration; and cuSPARSE's
// SpMV on psv's own arrays where its extra memory fits (else a line says why it is skipped).
#include <memory>
#include <string>

#include "bench/cusparse_ref.hpp"
#include "bench/device.cuh"
#include "cuda/internal.hpp"

void rmat_relabelling(int scale, Dev<int32_t> &perm);
void rmat_chunk(int scale, const int32_t *perm, int64_t first, int64_t m, int32_t *row, int32_t *col, float *val);

namespace {

double gb(double bytes) { return bytes / 1e9; }

size_t device_free() {
    size_t f = 0, t = 0;
    CK(cudaMemGetInfo(&f, &t));
    return f;
}

__global__ void narrow_kernel(int64_t n, const int64_t *a, int32_t *b) { GLOOP(i, n) b[i] = (int32_t)a[i]; }

// cuSPARSE's y = A x beside psv's, on psv's arrays where its index types allow: cuSPARSE takes
// one index type for offsets and columns, so it gets a 32-bit copy of the row offsets (4 bytes
// a row) below 2^31 entries, else a 64-bit copy of the columns (8 bytes an entry); a pattern
// also gets a values array of ones (4 bytes an entry). Where those copies do not fit beside
// psv's matrix, it is skipped. Returns the median time, or a negative value with the reason in
// why; extra receives the bytes its copies took.
double time_cusparse_on(psv_matrix *A, int64_t n, int64_t nnz, bool weighted, float *x, float *y, std::string &why, double &extra) {
    const int64_t *rp = nullptr;
    const int32_t *col = nullptr;
    const void *val = nullptr;
    psv::cuda::csr_arrays(A, &rp, &col, &val);
    const bool narrow = nnz < ((int64_t)1 << 31);
    extra = (narrow ? 4.0 * (double)(n + 1) : 8.0 * (double)nnz) + (weighted ? 0.0 : 4.0 * (double)nnz);
    if (extra + (double)((size_t)2 << 30) > (double)device_free()) {
        char b[200];
        std::snprintf(b, sizeof b, "its copies (%s%s, %.1f GB) do not fit beside psv's matrix (%.1f GB free)",
                      narrow ? "32-bit row offsets" : "64-bit columns", weighted ? "" : " and values of ones", gb(extra),
                      gb((double)device_free()));
        why = b;
        return -1;
    }
    Dev<float> ones;
    Dev<int32_t> rp32;
    Dev<int64_t> col64;
    if (!weighted) {
        ones.alloc((size_t)nnz);
        fill_vec(nnz, 1.0f, ones.p);
        val = ones.p;
    }
    if (narrow) {
        rp32.alloc((size_t)n + 1);
        narrow_kernel<<<grid(n + 1), 256, 0, g_st>>>(n + 1, rp, rp32.p);
        CKL();
    } else {
        col64.alloc((size_t)nnz);
        i32_to_i64(nnz, col, col64.p);
    }
    // cuSPARSE's own failures (64-bit indices past 2^32 entries end in an internal error in
    // cusparseSpMV_preprocess on CUDA 13.0) are a skip, not the end of the run
    SpMat M;
    DnVec xv(n, x), yv(n, y);
    const float one = 1.0f, zero = 0.0f;
    size_t bytes = 0;
    Dev<char> buf;
    auto failed = [&](const char *what, cusparseStatus_t s) {
        if (s == CUSPARSE_STATUS_SUCCESS) return false;
        why = std::string(what) + ": " + cusparseGetErrorString(s) + (narrow ? "" : " (64-bit indices)");
        (void)cudaGetLastError();
        return true;
    };
    if (failed("cusparseCreateCsr", narrow ? cusparseCreateCsr(&M.d, n, n, nnz, rp32.p, (void *)col, (void *)val, CUSPARSE_INDEX_32I,
                                                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F)
                                           : cusparseCreateCsr(&M.d, n, n, nnz, (void *)rp, col64.p, (void *)val, CUSPARSE_INDEX_64I,
                                                                CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F)) ||
        failed("cusparseSpMV_bufferSize", cusparseSpMV_bufferSize(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M.d, xv.d, &zero, yv.d,
                                                                  CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &bytes)))
        return -1;
    buf.alloc(std::max<size_t>(bytes, 16));
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12400
    if (failed("cusparseSpMV_preprocess", cusparseSpMV_preprocess(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M.d, xv.d, &zero, yv.d,
                                                                  CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, buf.p)))
        return -1;
#endif
    if (failed("cusparseSpMV", cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M.d, xv.d, &zero, yv.d, CUDA_R_32F,
                                            CUSPARSE_SPMV_CSR_ALG1, buf.p)))
        return -1;
    return g_timer
        .run([&](int) {
            CS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M.d, xv.d, &zero, yv.d, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1,
                            buf.p));
        })
        .med;
}

}  // namespace

void bench_capacity(const std::string &spec, bool weighted, int32_t transpose_mode) {
    int scale = 0, ef = 16;
    if (spec.rfind("rmat:", 0) != 0 || std::sscanf(spec.c_str() + 5, "%d:%d", &scale, &ef) < 1 || scale < 1 || scale > 30 || ef < 1)
        die("--capacity takes rmat:SCALE[:EF] (scale 1 .. 30), not %s", spec.c_str());
    psv::Backend &be = psv::cuda::backend_of(g_ctx);
    const int64_t n = 1LL << scale, m = (int64_t)ef << scale;
    std::printf("\n== capacity: R-MAT scale %d, edge factor %d (%lld vertices, %lld edges generated), %s ==\n", scale, ef, (long long)n,
                (long long)m, weighted ? "fp32 weights" : "pattern");
    Dev<int32_t> perm;
    rmat_relabelling(scale, perm);
    CK(cudaStreamSynchronize(g_st));
    // the library's construction: its pool's high-water mark above what it held before
    psv::cuda::pool_trim(be);
    const size_t held0 = psv::cuda::pool_in_use_bytes(be);
    psv::cuda::reset_pool_peak(be);
    psv::FormatOptions fo;
    fo.transpose = transpose_mode;
    const double t0 = now_s();
    auto store = psv::cuda::build_from_device_chunks(
        be, n, n, PSV_FP32, !weighted, m,
        [&](int64_t first, int64_t cnt, int32_t *r, int32_t *c, void *v) {
            rmat_chunk(scale, perm.p, first, cnt, r, c, static_cast<float *>(v));
        },
        fo);
    psv::cuda::synchronize(be);
    const double build_s = now_s() - t0;
    const double build_peak = (double)(psv::cuda::pool_peak_bytes(be) - held0);
    perm.reset();
    MatrixHandle A(psv::cuda::wrap_matrix(g_ctx, std::move(store)), free_matrix);
    psv::cuda::pool_trim(be);
    psv_matrix_info info;
    PK(psv_matrix_info_get(A.get(), &info));
    const int64_t nnz = info.nvals;
    const double held = (double)info.device_bytes;
    std::printf("built in %.2f s: %lld entries (%.1f%% of the edges were repeats); plan: %s\n", build_s, (long long)nnz,
                100.0 * (1.0 - (double)nnz / (double)m), psv::cuda::plan_description(A.get()).c_str());
    std::printf("device bytes: construction peak %.2f GB = %.2f per edge (%.2f per entry); held after %.2f GB = %.2f per edge "
                "(generator's relabelling: %.2f per edge more, not psv's)\n",
                gb(build_peak), build_peak / (double)m, build_peak / (double)nnz, gb(held), held / (double)m, 4.0 * (double)n / (double)m);

    // SpMV: psv and cuSPARSE on the same arrays, x rotating between two vectors (each > L2)
    Dev<float> X(2 * (size_t)n), Y(n);
    random_values(2 * n, O.seed ^ 0x99, X.p);
    psv_vector *U[2] = {nullptr, nullptr}, *W = nullptr;
    psv_semiring *s = nullptr;
    for (auto &u : U) PK(psv_vector_create(g_ctx, PSV_FP32, n, &u));
    PK(psv_vector_set_device(U[0], X.p, n));
    PK(psv_vector_set_device(U[1], X.p + n, n));
    PK(psv_vector_create(g_ctx, PSV_FP32, n, &W));
    PK(psv_semiring_create(g_ctx, PSV_PLUS, weighted ? PSV_TIMES : PSV_SECOND, PSV_FP32, &s));
    const Stat spmv = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, s, A.get(), U[i & 1], 0)); });
    // the byte model of a CSR product: columns (and values) and the row pointer streamed, x read
    // once per entry (a 32-byte sector where the reads scatter), y written
    const double stream_bytes = (4.0 + (weighted ? 4.0 : 0.0)) * (double)nnz + 8.0 * (double)(n + 1) + 4.0 * (double)n;
    const double gather_bytes = 32.0 * (double)nnz;
    std::printf("psv SpMV: %.3f ms; model: %.2f GB streamed + up to %.1f GB of x sectors gathered (%.0f GB/s streamed)\n", spmv.med,
                gb(stream_bytes), gb(gather_bytes), stream_bytes / (spmv.med * 1e-3) / 1e9);
    std::string why;
    double extra = 0;
    const double cs = time_cusparse_on(A.get(), n, nnz, weighted, X.p, Y.p, why, extra);
    if (cs > 0) {
        // the same product from both: their outputs side by side (x = the first input)
        Dev<float> P(n);
        PK(psv_mxv(W, nullptr, PSV_NOOP, s, A.get(), U[0], 0));
        PK(psv_vector_get_device(W, P.p, n));
        double l1 = 0, maxrel = 0;
        rank_diff(n, P.p, Y.p, l1, maxrel);
        std::printf("cuSPARSE SpMV (CSR_ALG1; its copies %.2f GB): %.3f ms; psv speed-up %.2fx; outputs differ by at most %.2g "
                    "(relative)\n",
                    gb(extra), cs, cs / spmv.med, maxrel);
    } else {
        std::printf("cuSPARSE skipped: %s\n", why.c_str());
    }
    for (auto &u : U) psv_vector_free(&u);
    psv_vector_free(&W);
    psv_semiring_free(&s);
    X.reset();
    Y.reset();
    psv::cuda::pool_trim(be);

    // PageRank to convergence (tolerance 1e-6, at most 100 iterations), after a first call of one
    // iteration that builds the transpose where the A' products use one (timed apart)
    psv::cuda::reset_pool_peak(be);
    psv_vector *r = nullptr;
    int32_t it = 0;
    CK(cudaStreamSynchronize(g_st));
    const double f0 = now_s();
    const psv_status st1 = psv_pagerank(&r, &it, A.get(), 0.85, 1e-6, 1);
    psv::cuda::synchronize(be);
    const double first_s = now_s() - f0;
    if (st1 < 0) PK(st1);
    psv_vector_free(&r);
    const double p0 = now_s();
    const psv_status st = psv_pagerank(&r, &it, A.get(), 0.85, 1e-6, 100);
    psv::cuda::synchronize(be);
    const double pr_s = now_s() - p0;
    const double pr_peak = (double)psv::cuda::pool_peak_bytes(be);
    PK(psv_matrix_info_get(A.get(), &info));
    float fsum = 0;  // an fp32 vector's sum
    if (r) PK(psv_vector_reduce(&fsum, PSV_PLUS, r));
    psv_vector_free(&r);
    std::printf("PageRank: %s after %d iterations in %.2f s (%.1f ms per iteration = %.1f SpMV), ranks sum to %.6f; "
                "A' products: %s (the first call, one iteration: %.2f s)\n",
                psv_status_string(st), it, pr_s, 1e3 * pr_s / std::max(1, it), 1e3 * pr_s / std::max(1, it) / spmv.med, (double)fsum,
                info.device_bytes > (int64_t)held ? "on the cached transpose" : "pushed from A (no transpose)", first_s);
    std::printf("device bytes: PageRank peak %.2f GB = %.2f per edge (%.2f per entry)\n", gb(pr_peak), pr_peak / (double)m,
                pr_peak / (double)nnz);
    std::printf("| R-MAT %d%s | %lld edges | %lld entries | build %.2f s = %.1f SpMV | build peak %.2f B/edge | held %.2f B/edge | "
                "SpMV %.2f ms (cuSPARSE %s) | PageRank %d it, %.1f ms/it | PageRank peak %.2f B/edge |\n",
                scale, weighted ? " weighted" : "", (long long)m, (long long)nnz, build_s, 1e3 * build_s / spmv.med,
                build_peak / (double)m, held / (double)m, spmv.med, cs > 0 ? (std::to_string(cs).substr(0, 6) + " ms").c_str() : "skipped", it,
                1e3 * pr_s / std::max(1, it), pr_peak / (double)m);
    std::fflush(stdout);
}
