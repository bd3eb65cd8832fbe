// Internal C++ entry points of the CUDA backend for the benchmark and the GPU tests (not API):
// build a matrix straight from device-resident COO or CSR arrays, with no host round trip.
// Plain C++: no CUDA header needed to include it. Available only where PSV_HAVE_CUDA is defined;
// where CUDA is not built every function throws PSV_ERROR_BACKEND_UNAVAILABLE.
#pragma once
#include <cstdint>
#include <memory>

#include "core/backend.hpp"

namespace psv {
namespace cuda {

// True when `be` is a CUDA backend.
bool is_cuda(const Backend &be);

// CSR in device memory: row_ptr (nrows + 1), col (row_ptr[nrows] entries, sorted within rows, no
// duplicates), values (nvals of `type`, or nullptr for a pattern). The arrays are copied; the
// caller keeps ownership.
std::unique_ptr<MatrixStore> build_from_device_csr(Backend &be, int64_t nrows, int64_t ncols,
                                                   psv_type type, const int64_t *row_ptr_d,
                                                   const int32_t *col_d, const void *values_d,
                                                   const FormatOptions &opt);

// COO in device memory, any order, duplicates allowed (a pattern keeps one; valued: the first in
// input order is kept). rows_d/cols_d are int32; values_d may be nullptr (pattern).
std::unique_ptr<MatrixStore> build_from_device_coo(Backend &be, int64_t nrows, int64_t ncols,
                                                   psv_type type, int64_t nnz, const int32_t *rows_d,
                                                   const int32_t *cols_d, const void *values_d,
                                                   const FormatOptions &opt);

// The context's stream (cudaStream_t) and a synchronisation of it.
void *stream_of(Backend &be);
void synchronize(Backend &be);

// Bytes of device memory the pool holds cached (not in use).
size_t pool_cached_bytes(Backend &be);
// Release the pool's cached blocks back to the driver.
void pool_trim(Backend &be);

// The tile-composite form of a CUDA matrix copied to the host (tests compare the device builder
// with the host one).
TileComposite download_form(const MatrixStore &A);

}  // namespace cuda
}  // namespace psv
