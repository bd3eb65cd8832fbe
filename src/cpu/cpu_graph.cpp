// The CPU backend's k-vector pattern product (Backend::spmm_pattern).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_backend.hpp"

namespace psv {
namespace cpu {

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

// The push product (Backend::pattern_product_transposed): each row's u(i), in fixed point scaled
// to ||u||_1, added into its columns' 64-bit sums by integer atomics (exact: their order does
// not matter).
void CpuBackend::pattern_product_transposed(const MatrixStore &A, const float *u, float *t) {
    const CsrHost &csr = static_cast<const CpuMatrix &>(A).csr;
    std::vector<int64_t> acc((size_t)csr.ncols, 0);  // before any write to t: a bad_alloc leaves it untouched
    double l1 = 0.0;
    for (int64_t i = 0; i < csr.nrows; ++i) l1 += std::fabs((double)u[i]);
    int x = 0;
    std::frexp(l1, &x);
    const int e = 62 - x;  // every sum below 2^62 once scaled
    const int64_t *rp = csr.row_ptr.data();
    const int32_t *col = csr.col.data();
    int64_t *a = acc.data();
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < csr.nrows; ++i) {
        const int64_t v = std::llrint(std::scalbn((double)u[i], e));
        if (v == 0) continue;
        for (int64_t q = rp[i]; q < rp[i + 1]; ++q) {
#pragma omp atomic
            a[col[q]] += v;
        }
    }
    for (int64_t j = 0; j < csr.ncols; ++j) t[j] = (float)std::scalbn((double)a[j], -e);
}

}  // namespace cpu
}  // namespace psv
