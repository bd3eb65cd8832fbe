// The CPU backend's algorithm primitives (see Backend in core/backend.hpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_backend.hpp"

namespace psv {
namespace cpu {

void CpuBackend::pagerank_scale(int64_t n, const float *r, const float *inv, float *w, double *dangling) {
    const double d = chunked_sum(n, [&](int64_t i) {
        w[i] = r[i] * inv[i];
        return inv[i] == 0.0f ? (double)r[i] : 0.0;
    });
    if (dangling) *dangling = d;
}

void CpuBackend::pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                                 const float *personal, double *diff) {
    const float d = (float)damping;
    const float scale = (float)((1.0 - damping) + damping * (*dangling));
    const float uniform = scale * (float)(1.0 / (double)n);
    *diff = chunked_sum(n, [&](int64_t i) {
        const float base = personal ? scale * personal[i] : uniform;
        const float rn = base + d * t[i];
        const double dd = std::fabs((double)rn - (double)r[i]);
        r[i] = rn;
        return dd;
    });
}

void CpuBackend::sum(int64_t n, const float *x, double *out) {
    *out = chunked_sum(n, [&](int64_t i) { return (double)x[i]; });
}

void CpuBackend::normalize_diff(int64_t n, float *x, const double *total, const float *prev, double *diff) {
    const double tot = *total;
    const float inv = tot != 0 ? (float)(1.0 / tot) : 1.0f;
    const double d = chunked_sum(n, [&](int64_t i) {
        x[i] *= inv;
        return prev ? std::fabs((double)x[i] - (double)prev[i]) : 0.0;
    });
    if (prev) *diff = d;
}

void CpuBackend::rwr_update(int64_t n, int32_t k, const float *T, float *R, double c, const int64_t *queries,
                            double *diffs) {
    // One pass over the n x k block (one parallel region, not k): per fixed chunk of rows a
    // partial difference per query, combined in chunk order -- the same sums, bit for bit, as a
    // chunked_sum per query.
    const float cf = (float)c, restart = (float)(1.0 - c);
    const int64_t nchunks = (n + kChunk - 1) / kChunk;
    std::vector<double> part((size_t)nchunks * k, 0.0);
#pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < nchunks; ++ch) {
        double *p = part.data() + (size_t)ch * k;
        const int64_t end = std::min(n, (ch + 1) * kChunk);
        for (int64_t i = ch * kChunk; i < end; ++i) {
            for (int32_t j = 0; j < k; ++j) {
                const int64_t e = i * k + j;
                const float rn = cf * T[e] + (i == queries[j] ? restart : 0.0f);
                p[j] += std::fabs((double)rn - (double)R[e]);
                R[e] = rn;
            }
        }
    }
    for (int32_t j = 0; j < k; ++j) {
        double s = 0;
        for (int64_t ch = 0; ch < nchunks; ++ch) s += part[(size_t)ch * k + j];
        diffs[j] = s;
    }
}

void CpuBackend::spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) {
    const CsrHost &csr = static_cast<const CpuMatrix &>(A).csr;
    if (k == 1) {  // one vector: a scalar accumulator per row (same sums as the general loop)
        const int64_t *rp = csr.row_ptr.data();
        const int32_t *col = csr.col.data();
#pragma omp parallel for schedule(dynamic, 1024)
        for (int64_t i = 0; i < csr.nrows; ++i) {
            double acc = 0.0;
            for (int64_t e = rp[i]; e < rp[i + 1]; ++e) acc += U[col[e]];
            T[i] = (float)acc;
        }
        return;
    }
    // One accumulator row per thread, allocated before the parallel region: a bad_alloc must not
    // leave an OpenMP region (std::terminate).
#ifdef _OPENMP
    const int nthreads = omp_get_max_threads();
#else
    const int nthreads = 1;
#endif
    // Rows are summed in double: a hub row of thousands of fp32 terms summed in fp32 carries a
    // rounding error that can stall a power iteration in a limit cycle (RWR on cnr-2000: the L1
    // change stuck at 1.6e-4 in fp32 sums; with double sums it converges as in float64).
    std::vector<double> accs((size_t)nthreads * (size_t)k);
#pragma omp parallel
    {
#ifdef _OPENMP
        double *acc = accs.data() + (size_t)omp_get_thread_num() * (size_t)k;
#else
        double *acc = accs.data();
#endif
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < csr.nrows; ++i) {
            std::fill(acc, acc + k, 0.0);
            for (int64_t e = csr.row_ptr[i]; e < csr.row_ptr[i + 1]; ++e) {
                const float *u = U + (int64_t)csr.col[e] * k;
                for (int32_t j = 0; j < k; ++j) acc[j] += u[j];
            }
            for (int32_t j = 0; j < k; ++j) T[i * k + j] = (float)acc[j];
        }
    }
}

}  // namespace cpu
}  // namespace psv
