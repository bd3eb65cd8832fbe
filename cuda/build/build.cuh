// The device builders of the CUDA backend: column ranking, the tile-composite (and TILE-COO)
// form, the CSR chunk plan, transpose, COO -> CSR and the pattern of A + A'.
#pragma once
#include <functional>
#include <memory>

#include "cuda/build/matrix.cuh"

namespace psv {
namespace cuda {

// Rank M's columns by length (ranking.cu): col_order[k] = the column of rank k, *rank_of (where
// given) its inverse; hot_min_length sets ColumnStats::hot_columns. ranked_keys, where given, receives the
// sort keys: uint32 ~length of each rank (ascending). transposed_from, where M is its transpose:
// the column lengths are read from its row pointer, and near = false skips the one pass over M's
// entries (ColumnStats::near_entries, the model's statistic, is then 0). lengths, where given and
// the lengths were counted (no transposed_from), receives them: int32 [ncols].
ColumnStats rank_columns(CudaBackend &be, const CudaMatrix &M, int64_t hot_min_length, Buffer &col_order,
                         Buffer *rank_of, Buffer *ranked_keys = nullptr, const CudaMatrix *transposed_from = nullptr,
                         bool near = true, Buffer *lengths = nullptr);

// The performance model's inputs (plan.cu): the device, the kernels' shapes under policy p, a
// matrix's statistics (from its column ranking) for values of vb bytes, and the candidate plans
// PSV_KERNEL_AUTO chooses among under options opt (PSV_OPT_HOT_COLUMNS and PSV_OPT_RANK_ORDER
// narrow them).
tuning::DeviceShape device_shape(const CudaBackend &be);
tuning::KernelShape kernel_shape(const Policy &p);
tuning::MatrixStats model_stats(const CudaMatrix &M, const ColumnStats &cs, size_t vb);
// sell_slots: the SELL-32 plan's slots where counted (sell_slot_count), else -1 (no SELL candidate).
std::vector<tuning::Plan> auto_candidates(const CudaMatrix &M, const Policy &p, size_t vb, const FormatOptions &opt,
                                          int64_t sell_slots = -1);
// The options that make a matrix build exactly `plan` (PSV_OPT_HOT_COLUMNS and PSV_OPT_RANK_ORDER
// narrow AUTO's candidates to it, or the explicit kernel and its form's parameters).
FormatOptions options_for(const tuning::Plan &plan);

// The parameters of a tile-composite form (format.hpp describes the layout).
struct FormParams {
    int64_t tile_width = 0;
    int64_t max_tiles = -1;
    int64_t workload_size = 0;
    bool want_coo = false;  // the TILE-COO form as well
};
// The form parameters of options opt under policy p for values of vb bytes (plan.cu).
FormParams form_params(const FormatOptions &opt, const Policy &p, size_t vb, bool want_coo);
// Build the device tile-composite form of M (CSR already in M) into F (form.cu); the column
// ranking's counts go to *stats.
void build_form(CudaBackend &be, const CudaMatrix &M, const FormParams &p, int64_t hot_min_length, TcForm &F,
                ColumnStats &stats);

// The rows of M longer than min_len, in no particular order (a device int32 list); their count.
int64_t list_long_rows(CudaBackend &be, const CudaMatrix &M, int64_t min_len, Buffer &out);
// The chunk plan of M's CSR (chunk_plan.cu) with the cut spacing policy.chunk_stride(nvals,
// hot). Ranked or hot: col_order (the column ranking) moves into the plan; ranks below prefix
// only, the rest stored as prefix + column (ChunkPlan::ranked_prefix).
ChunkPlan build_chunk_plan(CudaBackend &be, const CudaMatrix &M, const Policy &policy, Buffer &&col_order, bool ranked,
                           int64_t prefix, int64_t hot, size_t hot_vb);

// The SELL-32 plan's slots for M's CSR (32 x the slices' longest rows, summed) and the slices'
// first groups of 32 slots (int64 [slices + 1]; none for an empty M), counted with one pass over
// the row pointer; and the plan (sell_plan.cu), built on a count already taken (else counted
// anew).
struct SellSlots {
    int64_t slots = 0;
    Buffer group;
};
SellSlots sell_slot_count(CudaBackend &be, const CudaMatrix &M);
SellPlan build_sell_plan(CudaBackend &be, const CudaMatrix &M, SellSlots counted = SellSlots());

// The streamed product's plan of M (stream_plan.cu) for values of vb bytes under policy p. Where M
// is the transpose of *transposed_from, the entries are read from that matrix (fewer sorting
// passes); the plan is the same. Without values (with_values false, M valued), the plan carries
// none through its sorts and holds none (CudaMatrix::stream_values_pending).
StreamPlan build_stream_plan(CudaBackend &be, const CudaMatrix &M, const Policy &p, size_t vb,
                             const CudaMatrix *transposed_from = nullptr, bool with_values = true);
// Tuples delivered in chunks on the device (assemble.cu): deliver(first, n, rows, cols, vals)
// writes tuples first .. first + n - 1 (n at most the chunk assemble_csr asks for) into the
// int32 arrays rows and cols and, unless vals is nullptr (a pattern), values of the matrix's
// value size, on the backend's stream; the same range gives the same tuples on every call. A
// tuple whose row is negative is dropped; any other index outside the matrix is
// PSV_ERROR_INVALID_INDEX.
struct TupleChunks {
    int64_t count = 0;
    std::function<void(int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *vals)> deliver;
    // Each row's tuples arrive in increasing column order, without repeats (a transpose): the
    // in-row sort is skipped.
    bool rows_in_order = false;
};
// The CSR of the tuples (values of vs bytes, 0 for a pattern) into M's row_ptr, col, val, nvals,
// nrows and ncols: counted, placed in delivery order, sorted within rows, and of tuples with one
// (row, column) the first delivered kept; chunks and pieces sized to the policy and free memory.
void assemble_csr(CudaBackend &be, int64_t nrows, int64_t ncols, size_t vs, const TupleChunks &src, CudaMatrix &M);
// Device memory free now, the pool's cached blocks included.
size_t device_free_bytes(CudaBackend &be);
// Device transpose of a CSR (values carried), assembled from A's entries read by column
// (transpose.cu).
void transpose_csr(CudaBackend &be, const CudaMatrix &A, CudaMatrix &T);
// Whether a rebuild of M under opt could choose the streamed plan, before its column statistics
// (plan.cu): the explicit kernel, AUTO within its rule's size bounds, or where the model ranks it.
bool may_stream(const CudaMatrix &M, const FormatOptions &opt, const Policy &p);
// The row pointer of A' alone (int64 [A.ncols + 1]): the running sum of A's column lengths, those
// its ranking counted (CudaMatrix::column_lengths), else counted here (count_indices).
Buffer transpose_row_ptr(CudaBackend &be, const CudaMatrix &A);
// The pattern of A + A' (square A) built on the device with A's options.
std::unique_ptr<MatrixStore> symmetric_pattern(CudaBackend &be, const CudaMatrix &A);
// A matrix from COO in device memory (duplicates: a pattern keeps one, valued the first).
std::unique_ptr<MatrixStore> coo_to_matrix(CudaBackend &be, int64_t nrows, int64_t ncols, psv_type type, int64_t nnz,
                                           const int32_t *rows, const int32_t *cols, const void *values,
                                           const FormatOptions &opt);
// Row statistics (empty rows, longest row) of M's CSR, then M.rebuild_from(opt, transposed_from)
// (matrix.cu; transposed_from: the matrix M is the transpose of, or null).
void finish_matrix(CudaBackend &be, CudaMatrix &M, const FormatOptions &opt, const CudaMatrix *transposed_from = nullptr);

}  // namespace cuda
}  // namespace psv
