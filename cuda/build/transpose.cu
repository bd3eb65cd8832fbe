// Device construction of a CSR from tuples (assemble.cu): the transpose, COO -> CSR (sorted,
// duplicates dropped) and the pattern of A + A'.
#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace psv {
namespace cuda {

namespace {

// Tuples first .. first + n - 1 of A's entries read transposed: (col[e], row of e), values
// carried; mirrored (2 nnz tuples): entry e, then (from nnz on) its mirror.
__global__ void csr_tuples_kernel(int64_t first, int64_t n, int64_t nnz, const int64_t *rp, int64_t nrows,
                                  const int32_t *col, bool transpose, int32_t *rows, int32_t *cols) {
    PSV_GRID_LOOP(q, n) {
        const int64_t t = first + q, e = t < nnz ? t : t - nnz;
        const int32_t i = (int32_t)(upper_bound_d(rp, nrows + 1, e) - 1), j = col[e];
        const bool swap = transpose || t >= nnz;
        rows[q] = swap ? j : i;
        cols[q] = swap ? i : j;
    }
}

// A's entries as tuples: transposed (values carried), or mirrored (the pattern of A + A').
TupleChunks csr_tuples(CudaBackend &be, const CudaMatrix &A, bool transpose) {
    TupleChunks src;
    src.count = transpose ? A.nvals : 2 * A.nvals;
    src.rows_in_order = transpose;  // entry order is row order: each column's rows arrive increasing
    const size_t vs = A.pattern ? 0 : type_size(A.type);
    src.deliver = [&be, &A, transpose, vs](int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *vals) {
        launch(be, n, [&](unsigned g, int b) {
            csr_tuples_kernel<<<g, b, 0, be.stream()>>>(first, n, A.nvals, A.row_ptr.as<int64_t>(), A.nrows,
                                                        A.col.as<int32_t>(), transpose, rows, cols);
        });
        if (vals && vs) be.copy(vals, A.val.as<uint8_t>() + (size_t)first * vs, (size_t)n * vs);
    };
    return src;
}

}  // namespace

// ---- transpose -------------------------------------------------------------------------------

void transpose_csr(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T) {
    T.type = A.type;
    T.pattern = A.pattern;
    assemble_csr(be, A.ncols, A.nrows, A.pattern ? 0 : type_size(A.type), csr_tuples(be, A, true), T);
}

// ---- COO -> CSR on the device ------------------------------------------------------------------

std::unique_ptr<MatrixStore> coo_to_matrix(CudaBackend &be, int64_t nrows, int64_t ncols, psv_type type, int64_t nnz,
                                           const int32_t *rows, const int32_t *cols, const void *values,
                                           const FormatOptions &opt) {
    be.activate();
    const size_t vs = values ? type_size(type) : 0;
    TupleChunks src;
    src.count = nnz;
    src.deliver = [&](int64_t first, int64_t n, int32_t *r, int32_t *c, void *v) {
        be.copy(r, rows + first, (size_t)n * 4);
        be.copy(c, cols + first, (size_t)n * 4);
        if (v) be.copy(v, static_cast<const uint8_t *>(values) + (size_t)first * vs, (size_t)n * vs);
    };
    auto M = std::make_unique<CudaMatrix>(&be);
    M->type = type;
    M->pattern = vs == 0;
    assemble_csr(be, nrows, ncols, vs, src, *M);
    finish_matrix(be, *M, opt);
    return M;
}

// ---- the pattern of A + A' (RWR's graph) ----------------------------------------------------------

std::unique_ptr<MatrixStore> symmetric_pattern(CudaBackend &be, const CudaMatrix &A) {
    if (A.nrows != A.ncols) fail(PSV_ERROR_DIMENSION_MISMATCH, "the pattern of A + A' needs a square matrix");
    auto M = std::make_unique<CudaMatrix>(&be);
    M->type = PSV_FP32;
    M->pattern = true;
    assemble_csr(be, A.nrows, A.ncols, 0, csr_tuples(be, A, false), *M);
    finish_matrix(be, *M, A.options);
    return M;
}

}  // namespace cuda
}  // namespace psv
