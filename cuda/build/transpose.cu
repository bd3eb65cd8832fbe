// Device construction of a CSR from another: the transpose, COO -> CSR (sorted, duplicates
// dropped) and the pattern of A + A'.
#include <cub/cub.cuh>

#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

__global__ void iota_keys_kernel(int64_t n, const int32_t *col, uint32_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(e, n) {
        key[e] = (uint32_t)col[e];
        idx[e] = (uint32_t)e;
    }
}
__global__ void gather_rows_kernel(int64_t n, const uint32_t *perm, const int32_t *row, int32_t *out) {
    PSV_GRID_LOOP(d, n) out[d] = row[perm[d]];
}

__global__ void coo_keys_kernel(int64_t n, const int32_t *r, const int32_t *c, int cb, uint64_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(e, n) {
        key[e] = ((uint64_t)(uint32_t)r[e] << cb) | (uint64_t)(uint32_t)c[e];
        idx[e] = (uint32_t)e;
    }
}
__global__ void unique_flag_kernel(int64_t n, const uint64_t *key, int32_t *flag) {
    PSV_GRID_LOOP(d, n) flag[d] = d == 0 || key[d] != key[d - 1];
}
__global__ void compact_kernel(int64_t n, const uint64_t *key, const int32_t *flag, const int32_t *incl, const uint32_t *perm,
                               int cb, int32_t *col, int32_t *row, uint32_t *src) {
    PSV_GRID_LOOP(d, n) {
        if (!flag[d]) continue;
        const int32_t p = incl[d] - 1;
        col[p] = (int32_t)(key[d] & ((1ull << cb) - 1));
        row[p] = (int32_t)(key[d] >> cb);
        src[p] = perm[d];
    }
}

// r2[0 .. nnz) holds each entry's row (rows_of_entries); the entries and their mirrors follow.
__global__ void mirror_kernel(int64_t nnz, const int32_t *col, int32_t *r2, int32_t *c2) {
    PSV_GRID_LOOP(e, nnz) {
        const int32_t i = r2[e], j = col[e];
        c2[e] = j;
        r2[nnz + e] = j, c2[nnz + e] = i;
    }
}

}  // namespace

// ---- transpose -------------------------------------------------------------------------------

void transpose_csr(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T) {
    cudaStream_t st = be.stream();
    T.nrows = A.ncols;
    T.ncols = A.nrows;
    T.type = A.type;
    T.pattern = A.pattern;
    T.nvals = A.nvals;
    const int64_t nnz = A.nvals;
    const size_t vs = A.pattern ? 0 : type_size(A.type);
    if (nnz > (int64_t)UINT32_MAX) fail(PSV_ERROR_NOT_IMPLEMENTED, "the CUDA transpose handles at most 2^32-1 entries");
    Buffer cnt(&be, (size_t)std::max<int64_t>(1, T.nrows) * 4);
    be.set_bytes(cnt.get(), 0, (size_t)std::max<int64_t>(1, T.nrows) * 4);
    count_indices(be, nnz, A.col.as<int32_t>(), cnt.as<int32_t>());
    counts_to_row_ptr(be, T.nrows, cnt.as<int32_t>(), T.row_ptr);
    T.col = Buffer(&be, (size_t)nnz * 4);
    if (vs) T.val = Buffer(&be, (size_t)nnz * vs);
    if (nnz == 0) return;
    Buffer key(&be, (size_t)nnz * 4), skey(&be, (size_t)nnz * 4), idx(&be, (size_t)nnz * 4), perm(&be, (size_t)nnz * 4),
        row(&be, (size_t)nnz * 4);
    launch(be, nnz, [&](unsigned g, int b) {
        iota_keys_kernel<<<g, b, 0, st>>>(nnz, A.col.as<int32_t>(), key.as<uint32_t>(), idx.as<uint32_t>());
    });
    const int kb = std::max(1, bits_for((uint64_t)std::max<int64_t>(0, A.ncols - 1)));
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint32_t>(), skey.as<uint32_t>(), idx.as<uint32_t>(),
                                                 perm.as<uint32_t>(), nnz, 0, kb, st);
    });
    rows_of_entries(be, nnz, A.row_ptr.as<int64_t>(), A.nrows, row.as<int32_t>());
    launch(be, nnz, [&](unsigned g, int b) {
        gather_rows_kernel<<<g, b, 0, st>>>(nnz, perm.as<uint32_t>(), row.as<int32_t>(), T.col.as<int32_t>());
    });
    if (vs) gather_values(be, nnz, perm.as<uint32_t>(), A.val.get(), T.val.get(), vs);
    be.sync();
}

// ---- COO -> CSR on the device ------------------------------------------------------------------

std::unique_ptr<MatrixStore> coo_to_matrix(CudaBackend &be, int64_t nrows, int64_t ncols, psv_type type, int64_t nnz,
                                           const int32_t *rows, const int32_t *cols, const void *values,
                                           const FormatOptions &opt) {
    be.activate();
    cudaStream_t st = be.stream();
    if (nnz > (int64_t)UINT32_MAX) fail(PSV_ERROR_NOT_IMPLEMENTED, "at most 2^32-1 tuples");
    const size_t vs = values ? type_size(type) : 0;
    const int cb = std::max(1, bits_for((uint64_t)std::max<int64_t>(0, ncols - 1)));
    const int rb = std::max(1, bits_for((uint64_t)std::max<int64_t>(0, nrows - 1)));
    Buffer key(&be, (size_t)std::max<int64_t>(1, nnz) * 8), skey(&be, (size_t)std::max<int64_t>(1, nnz) * 8),
        idx(&be, (size_t)std::max<int64_t>(1, nnz) * 4), perm(&be, (size_t)std::max<int64_t>(1, nnz) * 4);
    int32_t m = 0;
    Buffer col, row, src;
    if (nnz > 0) {
        launch(be, nnz, [&](unsigned g, int b) { coo_keys_kernel<<<g, b, 0, st>>>(nnz, rows, cols, cb, key.as<uint64_t>(), idx.as<uint32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(), idx.as<uint32_t>(),
                                                     perm.as<uint32_t>(), nnz, 0, cb + rb, st);
        });
        key.reset();
        idx.reset();
        Buffer flag(&be, (size_t)nnz * 4), incl(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) { unique_flag_kernel<<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), flag.as<int32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::InclusiveSum(tmp, bytes, flag.as<int32_t>(), incl.as<int32_t>(), nnz, st);
        });
        be.download(&m, incl.as<int32_t>() + nnz - 1, 4);
        col = Buffer(&be, (size_t)m * 4);
        row = Buffer(&be, (size_t)m * 4);
        src = Buffer(&be, (size_t)m * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            compact_kernel<<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), flag.as<int32_t>(), incl.as<int32_t>(), perm.as<uint32_t>(), cb,
                                            col.as<int32_t>(), row.as<int32_t>(), src.as<uint32_t>());
        });
    }
    skey.reset();
    perm.reset();
    Buffer cnt(&be, (size_t)std::max<int64_t>(1, nrows) * 4);
    be.set_bytes(cnt.get(), 0, (size_t)std::max<int64_t>(1, nrows) * 4);
    count_indices(be, m, row.as<int32_t>(), cnt.as<int32_t>());
    Buffer rp;
    counts_to_row_ptr(be, nrows, cnt.as<int32_t>(), rp);
    Buffer val;
    if (vs) {
        val = Buffer(&be, (size_t)std::max(1, m) * vs);
        gather_values(be, m, src.as<uint32_t>(), values, val.get(), vs);
    }
    return be.build_from_device_csr(nrows, ncols, type, vs == 0, rp.as<int64_t>(), col.as<int32_t>(), val.get(), opt);
}

// ---- the pattern of A + A' (RWR's graph) ----------------------------------------------------------

std::unique_ptr<MatrixStore> symmetric_pattern(CudaBackend &be, const CudaMatrix &A) {
    if (A.nrows != A.ncols) fail(PSV_ERROR_DIMENSION_MISMATCH, "the pattern of A + A' needs a square matrix");
    const int64_t nnz = A.nvals, m = 2 * nnz;
    if (m > (int64_t)UINT32_MAX) fail(PSV_ERROR_NOT_IMPLEMENTED, "the CUDA pattern of A + A' handles A of at most 2^31-1 entries");
    cudaStream_t st = be.stream();
    Buffer r2(&be, (size_t)std::max<int64_t>(1, m) * 4), c2(&be, (size_t)std::max<int64_t>(1, m) * 4);
    rows_of_entries(be, nnz, A.row_ptr.as<int64_t>(), A.nrows, r2.as<int32_t>());
    launch(be, nnz, [&](unsigned g, int b) {
        mirror_kernel<<<g, b, 0, st>>>(nnz, A.col.as<int32_t>(), r2.as<int32_t>(), c2.as<int32_t>());
    });
    return coo_to_matrix(be, A.nrows, A.ncols, PSV_FP32, m, r2.as<int32_t>(), c2.as<int32_t>(), nullptr, A.options);
}

}  // namespace cuda
}  // namespace psv
