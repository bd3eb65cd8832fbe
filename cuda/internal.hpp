// Internal C++ entry points of the CUDA backend for the benchmark and the tests (not API): build
// a matrix straight from device-resident COO or CSR arrays, with no host round trip; read and
// inject the tuning policy; describe a matrix's plan. Plain C++: no CUDA header needed to include
// it. Where CUDA is not built every function throws PSV_ERROR_BACKEND_UNAVAILABLE
// (cuda/unavailable.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "cuda/tuning/policy.hpp"
#include "tuning/model.hpp"
#include "psv/psv.h"

namespace psv {
class AlgoSteps;
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

// Tuples produced on the device in chunks (a generator), built in two passes over them with the
// peak near the final size (streamed construction, cuda/build/assemble.cu): deliver(first, n,
// rows, cols, values) writes tuples first .. first + n - 1 into the int32 device arrays rows and
// cols and, for a valued matrix (pattern false), n values of `type` into values (nullptr for a
// pattern), on the context's stream (stream_of); the same range must give the same tuples each
// time. A negative row drops the tuple; of tuples with one (row, column) the first is kept.
using DeliverTuples = std::function<void(int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *values)>;
std::unique_ptr<MatrixStore> build_from_device_chunks(Backend &be, int64_t nrows, int64_t ncols, psv_type type,
                                                      bool pattern, int64_t count, const DeliverTuples &deliver,
                                                      const FormatOptions &opt);

// A CUDA matrix's CSR in device memory (values nullptr for a pattern), for the bench's cuSPARSE
// side by side on the same arrays; valid while the handle lives.
void csr_arrays(const psv_matrix *A, const int64_t **row_ptr, const int32_t **col, const void **values);

// The device pool's live bytes, and their most since the last reset_pool_peak.
size_t pool_in_use_bytes(Backend &be);
size_t pool_peak_bytes(Backend &be);
void reset_pool_peak(Backend &be);

// The context's stream (cudaStream_t) and a synchronisation of it.
void *stream_of(Backend &be);
void synchronize(Backend &be);

// Bytes of device memory the pool holds cached (not in use).
size_t pool_cached_bytes(Backend &be);
// Release the pool's cached blocks back to the driver.
void pool_trim(Backend &be);

// The tile-composite form of a CUDA matrix copied to the host (tests compare the device builder
// with the host one); built for the copy where the matrix's kernel does not keep it.
TileComposite download_form(const MatrixStore &A);

// The context's current tuning policy (a CUDA context).
Policy policy_of(psv_context *ctx);
// Matrices built or re-planned afterwards follow p; the device pool follows it at once (its cache
// limit; with pool_no_cache the cached blocks are released).
void set_policy(psv_context *ctx, const Policy &p);
// Rebuild A's plan (and form) with its options and the context's policy.
void replan(psv_matrix *A);
// A's SpMV plan in words (the chunk plan's column order and hot columns, or the tile form).
std::string plan_description(const psv_matrix *A);
// What a streamed plan (PSV_KERNEL_STREAM) holds, and the bytes one product must move by its byte
// model (StreamPlan::model_bytes: x read, items and runs read, pairs written and read, each
// entry's row and slot read, t written; values too where weighted). All zero where A's product
// does not stream.
struct StreamCounts {
    int64_t parts = 0, rows = 0, pieces = 0, slots = 0, pairs = 0, runs = 0, entries = 0, max_part_entries = 0;
    int64_t windows = 0, splits = 0;  // the scatter's x windows, blocks per window
    int64_t bytes_pattern = 0, bytes_weighted = 0;
};
StreamCounts stream_counts(const psv_matrix *A);
// What a SELL-32 plan (PSV_KERNEL_SELL, or AUTO's rule) holds: its slices, slots (padding
// included) and device bytes (SellPlan::device_bytes), and the bytes a product moves by its byte
// model (SellPlan::model_bytes, fp32 values). All zero where A's product is not SELL's.
struct SellCounts {
    int64_t slices = 0, slots = 0, bytes = 0;
    int64_t bytes_pattern = 0, bytes_weighted = 0;
};
SellCounts sell_counts(const psv_matrix *A);
// A store's streamed plan copied to the host: its counts, then each of its arrays (tests compare
// plans built two ways); empty where the store's product does not stream.
struct StreamPlanCopy {
    std::vector<int64_t> counts;
    std::vector<std::vector<uint8_t>> arrays;
    bool piece_sorted = false;  // StreamPlan::piece_sorted: how its entries were sorted
};
StreamPlanCopy download_stream_plan(const MatrixStore &M);
// Whether a store's streamed plan was built without its values (CudaMatrix::stream_values_pending); the
// plan built again with them (CudaMatrix::need_stream_values); a transpose's entries built now
// (CudaMatrix::need_csr).
bool stream_values_pending(const MatrixStore &M);
void need_stream_values(const MatrixStore &M);
void need_csr(const MatrixStore &M);
// Whether A's cached transpose (A' products) holds its row pointer alone, its entries not yet
// built (CudaMatrix::csr_pending); false where none is cached.
bool transpose_csr_pending(const psv_matrix *A);
// The device bytes A's cached transpose holds (0 where none is cached).
int64_t transpose_device_bytes(const psv_matrix *A);
// Whether A holds its column lengths as its ranking counted them (CudaMatrix::column_lengths: its
// transpose's row pointer is then their sum, not counted again).
bool column_lengths_kept(const psv_matrix *A);
// The performance model's candidates of A's last rebuild, best predicted first, each with the
// format options that build exactly it (psv_bench --exhaustive times them all); empty where the
// context has no table.
struct Candidate {
    tuning::Plan plan;
    double predicted_ms = 0;
    FormatOptions options;
};
std::vector<Candidate> plan_candidates(const psv_matrix *A);
// The plan A's last rebuild built (tuning::Plan), and its predicted ms (0: no table).
tuning::Plan built_plan(const psv_matrix *A, double *predicted_ms);
// A's statistics as the model reads them (tuning::stats_line under `name`; the bench prints
// them so that a model can be checked offline against what it measured).
std::string model_stats_line(const psv_matrix *A, const std::string &name);
// Seconds the performance model added to A's last rebuild (the length profile, the predictions).
double model_seconds(const psv_matrix *A);
// Rebuild A with options o (any FormatOptions; psv_matrix_set_option sets one at a time).
void rebuild_with(psv_matrix *A, const FormatOptions &o);
// Replace ctx's tuning table (tests): matrices built afterwards are planned with it.
void set_tuning_table(psv_context *ctx, const tuning::Table &t, tuning::Source source);
// A handle for a store built by build_from_device_* on ctx's backend (psv_matrix_free frees it).
psv_matrix *wrap_matrix(psv_context *ctx, std::unique_ptr<MatrixStore> store);
// The context's backend (for build_from_device_* and the algorithm layer), and its algorithm
// steps.
Backend &backend_of(psv_context *ctx);
AlgoSteps &steps_of(psv_context *ctx);
// The store behind a matrix handle (for the algorithm layer; valid while the handle lives).
const MatrixStore &store_of(const psv_matrix *A);

}  // namespace cuda
}  // namespace psv
