// Device construction of a CSR from tuples (assemble.cu): the transpose, COO -> CSR (sorted,
// duplicates dropped) and the pattern of A + A'. The transpose sorts A's entries by column at
// once where its scratch fits, else it is assembled in chunks like any tuples.
#include <cub/cub.cuh>

#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

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

// An entry's row and value, carried together through the transpose's sort.
template <class V> struct RowValue {
    int32_t row;
    V v;
};

template <class V> __global__ void row_values_kernel(int64_t n, const int32_t *row, const V *val, RowValue<V> *out) {
    PSV_GRID_LOOP(e, n) out[e] = RowValue<V>{row[e], val[e]};
}
template <class V> __global__ void split_row_values_kernel(int64_t n, const RowValue<V> *rv, int32_t *col, V *val) {
    PSV_GRID_LOOP(q, n) {
        const RowValue<V> x = rv[q];
        col[q] = x.row;
        val[q] = x.v;
    }
}

// end[c] = one past the last position of column c in the sorted keys (0 where c has none; the
// row pointer is then their running maximum)
__global__ void key_ends_kernel(int64_t n, const uint32_t *key, int64_t *end) {
    PSV_GRID_LOOP(q, n) {
        if (q + 1 == n || key[q + 1] != key[q]) end[key[q]] = q + 1;
    }
}

// T = A' by one stable radix sort of A's entries (in row order) by column, their rows (and
// values) carried: each column's rows arrive increasing. False, with nothing allocated, where the
// sort's scratch would take more than Policy::transpose_sort_share of free device memory.
template <class V> bool transpose_by_sort(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T) {
    cudaStream_t st = be.stream();
    const int64_t n = A.nvals, ncols = A.ncols;
    constexpr bool valued = !std::is_void<V>::value;
    using Carried = typename std::conditional<std::is_void<V>::value, int32_t, RowValue<V>>::type;
    using Val = typename std::conditional<std::is_void<V>::value, uint8_t, V>::type;
    const int cbits = std::max(1, bits_for((uint64_t)std::max<int64_t>(ncols - 1, 0)));
    size_t tmp_bytes = 0;
    {
        cubns::DoubleBuffer<uint32_t> k(nullptr, nullptr);
        cubns::DoubleBuffer<Carried> v(nullptr, nullptr);
        PSV_CUDA_CHECK(cubns::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, k, v, n, 0, cbits, st));
    }
    // keys and carried values twice, the rows (valued), T's values, the column ends, the scratch
    const double need = (double)n * (8 + 2 * sizeof(Carried) + (valued ? 4 + sizeof(Val) : 0)) + 16.0 * (ncols + 1) + tmp_bytes;
    if (n > (int64_t)INT32_MAX || need > be.policy().transpose_sort_share * (double)device_free_bytes(be)) return false;
    Buffer rp(&be, (size_t)(ncols + 1) * 8);
    be.set_bytes(rp.get(), 0, (size_t)(ncols + 1) * 8);  // row 0 starts at 0; every row at 0 without entries
    Buffer col, val;
    if (n > 0) {
        Buffer k0(&be, (size_t)n * 4), k1(&be, (size_t)n * 4), v0(&be, (size_t)n * sizeof(Carried)),
            v1(&be, (size_t)n * sizeof(Carried));
        be.copy(k0.get(), A.col.get(), (size_t)n * 4);
        if constexpr (valued) {
            Buffer row(&be, (size_t)n * 4);
            rows_of_entries(be, n, A.row_ptr.as<int64_t>(), A.nrows, row.as<int32_t>());
            launch(be, n, [&](unsigned g, int b) {
                row_values_kernel<Val><<<g, b, 0, st>>>(n, row.as<int32_t>(), A.val.as<Val>(), v0.as<RowValue<Val>>());
            });
        } else {
            rows_of_entries(be, n, A.row_ptr.as<int64_t>(), A.nrows, v0.as<int32_t>());
        }
        cubns::DoubleBuffer<uint32_t> k(k0.as<uint32_t>(), k1.as<uint32_t>());
        cubns::DoubleBuffer<Carried> v(v0.as<Carried>(), v1.as<Carried>());
        {
            Buffer tmp(&be, tmp_bytes ? tmp_bytes : 1);
            PSV_CUDA_CHECK(cubns::DeviceRadixSort::SortPairs(tmp.get(), tmp_bytes, k, v, n, 0, cbits, st));
        }
        Buffer &skey = k.selector ? k1 : k0, &sval = v.selector ? v1 : v0;
        {
            Buffer end(&be, (size_t)ncols * 8);
            be.set_bytes(end.get(), 0, (size_t)ncols * 8);
            launch(be, n, [&](unsigned g, int b) { key_ends_kernel<<<g, b, 0, st>>>(n, skey.as<uint32_t>(), end.as<int64_t>()); });
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceScan::InclusiveScan(tmp, bytes, end.as<int64_t>(), rp.as<int64_t>() + 1, MaxOf<int64_t>(), ncols, st);
            });
        }
        if constexpr (valued) {
            Buffer &free_key = k.selector ? k0 : k1;  // T's columns: the keys' other half
            val = Buffer(&be, (size_t)n * sizeof(Val));
            launch(be, n, [&](unsigned g, int b) {
                split_row_values_kernel<Val><<<g, b, 0, st>>>(n, sval.as<RowValue<Val>>(), free_key.as<int32_t>(), val.as<Val>());
            });
            col = std::move(free_key);
        } else {
            col = std::move(sval);
        }
    }
    be.sync();
    T.nrows = ncols;
    T.ncols = A.nrows;
    T.nvals = n;
    T.row_ptr = std::move(rp);
    T.col = std::move(col);
    T.val = std::move(val);
    return true;
}

}  // namespace

// ---- transpose -------------------------------------------------------------------------------

void transpose_csr(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T) {
    T.type = A.type;
    T.pattern = A.pattern;
    const size_t vs = A.pattern ? 0 : type_size(A.type);
    const bool sorted = vs == 0   ? transpose_by_sort<void>(be, A, T)
                        : vs == 1 ? transpose_by_sort<uint8_t>(be, A, T)
                        : vs == 4 ? transpose_by_sort<uint32_t>(be, A, T)
                                  : transpose_by_sort<uint64_t>(be, A, T);
    if (!sorted) assemble_csr(be, A.ncols, A.nrows, vs, csr_tuples(be, A, true), T);
}

Buffer transpose_row_ptr(CudaBackend &be, const CudaMatrix &A) {
    const int64_t n = A.ncols;
    Buffer counted;  // where A's ranking kept none: its columns' entries counted (int32, as the ranking does)
    if (!A.has_column_lengths() && n > 0) {
        counted = Buffer(&be, (size_t)n * 4);
        be.set_bytes(counted.get(), 0, (size_t)n * 4);
        count_indices(be, A.nvals, A.col.as<int32_t>(), counted.as<int32_t>());
    }
    Buffer rp;
    counts_to_row_ptr(be, n, (counted.get() ? counted : A.column_lengths).as<int32_t>(), rp);
    return rp;
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
