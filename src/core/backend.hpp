// One operation, one signature, several backends (Ginkgo's layering): the Backend interface
// declares once what every backend provides -- memory, vector operations, products (spmv, assign,
// the k-vector pattern product) and the construction of matrices (MatrixStore) -- and src/cpu
// implements it with OpenMP, cuda/ with CUDA. The graph algorithms' per-iteration vector steps
// are a separate interface, AlgoSteps (src/core/algo_steps.hpp), implemented by each backend too.
// The C shims (src/api) validate arguments; the algorithms (src/algo) are written once above
// these two interfaces.
//
// Pointers passed to a Backend's vector and matrix operations live in that backend's memory
// space (device memory for CUDA) unless their name ends in _host. A presence array (uint8_t, one
// byte per entry, 1 = present) that is nullptr means "every entry present".
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/test_hooks.hpp"
#include "psv/psv.h"

namespace psv {

class Backend;

// A matrix as one backend holds it: its CSR and its executable form(s).
class MatrixStore {
public:
    virtual ~MatrixStore() = default;
    int64_t nrows = 0, ncols = 0, nvals = 0;
    psv_type type = PSV_FP32;
    bool pattern = true;
    int64_t empty_rows = 0;  // rows with no entry (their product entries are absent)
    FormatOptions options;

    // Rebuild the executable form with other options; on failure the old form is kept.
    virtual void rebuild(const FormatOptions &opt) = 0;
    virtual void info(psv_matrix_info &out) const = 0;
    // Bytes the store holds in its backend's memory (psv_matrix_info.device_bytes, without a
    // cached transpose). The default asks info(); a backend whose info() builds more than it
    // keeps overrides it.
    virtual int64_t device_bytes() const {
        psv_matrix_info i;
        info(i);
        return i.device_bytes;
    }
    virtual int32_t tile_count() const = 0;
    virtual void tile_info(int32_t tile, psv_tile_info &out) const = 0;
    // Tuples sorted by row then column into host arrays (any may be nullptr).
    virtual void extract_tuples(int64_t *rows_host, int64_t *cols_host, void *values_host) const = 0;
    // 1 / (length of row i) for every row, 0 for an empty row, into nrows floats of the backend's
    // memory (PageRank's inverse out-degrees; computed where the matrix is, nothing crosses).
    virtual void inverse_row_lengths(float *out) const = 0;
    // The transpose as a new store of the same backend, built with the same options.
    virtual std::unique_ptr<MatrixStore> transposed() const = 0;
    // The pattern of A + A' (a square A; an entry present both ways, or a self-loop, once) as a new
    // store of the same backend, built with the same options, where the matrix is.
    virtual std::unique_ptr<MatrixStore> symmetric_pattern() const = 0;
    // The plan psv_mxv runs (which 0) or the model's runner-up (which 1), in words; "" where
    // none (psv_matrix_plan).
    virtual std::string plan_text(int32_t which) const {
        (void)which;
        return "";
    }
};

// t = A (+).(x) u: t(i) is present iff a term exists (u_present == nullptr: iff row i of A is
// non-empty). t_present is written unless it is nullptr (then u must be full, and absent entries
// of t hold the add identity). t must not alias u. A's values are read only when the multiply
// uses them: with SECOND or PAIR, A may have any type.
struct SpmvArgs {
    const MatrixStore *A = nullptr;
    psv_op add = PSV_PLUS, mul = PSV_TIMES;  // canonical for type
    psv_type type = PSV_FP32;
    const void *u = nullptr;
    const uint8_t *u_present = nullptr;
    void *t = nullptr;
    uint8_t *t_present = nullptr;
};

// w<mask> accum= t with GraphBLAS semantics (see psv_mxv). All arrays have n entries.
struct AssignArgs {
    int64_t n = 0;
    psv_type type = PSV_FP32;
    void *w = nullptr;
    uint8_t *w_present = nullptr;        // never nullptr: the result's presence is written here
    const uint8_t *w_present_in = nullptr;  // w's presence before (nullptr: all present)
    const void *t = nullptr;
    const uint8_t *t_present = nullptr;  // nullptr: all present
    const void *mask = nullptr;          // nullptr: no mask
    const uint8_t *mask_present = nullptr;
    psv_type mask_type = PSV_BOOL;
    psv_op accum = PSV_NOOP;             // canonical for type
    bool complement = false, structure = false, replace = false;
};

// Tuples produced in a backend's memory in chunks (a device generator): deliver(first, n, rows,
// cols, values) writes tuples first .. first + n - 1 into the int32 arrays rows and cols and,
// for a valued matrix, n values into values (nullptr for a pattern), in that backend's memory
// (on a CUDA backend, on its stream); the same range gives the same tuples on every call.
using DeliverTuples = std::function<void(int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *values)>;

// One part's side of a partitioned matrix built from tuples delivered in its memory
// (dist::build_from_chunks, src/dist/build.cpp, drives every part in step): count the share's
// rows, lay the rows out, route each chunk's tuples to their rows' owners as records, receive
// the records for this part's rows, build its local and remote blocks. Every pointer is in the
// backend's memory. A record is an int32 row (its position in the owner's piece), an int32
// column (its position in the gathered order of the columns) and the value, padded to 4 bytes.
class ShareBuilder {
public:
    virtual ~ShareBuilder() = default;
    // The buffers a chunk is delivered into: `chunk` tuples.
    int64_t chunk = 0;
    int32_t *rows = nullptr, *cols = nullptr;
    void *values = nullptr;  // nullptr for a pattern
    size_t record_bytes = 0;

    // Pass 1: the n delivered tuples (first: their place in the share, for the message) checked
    // -- a negative row drops a tuple, any other index outside the matrix is
    // PSV_ERROR_INVALID_INDEX -- and counted per row.
    virtual void count(int64_t first, int64_t n) = 0;
    // Every row's count so far (nrows int64, host memory).
    virtual void counts(int64_t *counts_host) = 0;
    // Between the passes: each row's and column's position in its layout's gathered order (host
    // arrays of nrows and ncols int32, valid until build returns; nullptr: the identity) and the
    // row layout's part offsets.
    virtual void set_layout(const int32_t *row_position_host, const int32_t *col_position_host,
                            const std::vector<int64_t> &row_offset) = 0;
    // Pass 2: the n delivered tuples as records in send(), grouped by the part owning their row
    // in part order, each group in delivery order; per_part[q] (resized to the parts) the
    // records for part q.
    virtual void route(int64_t n, std::vector<int64_t> &per_part) = 0;
    virtual const void *send() const = 0;
    // Room for the `total` records this part receives (held until build returns).
    virtual void *receive(int64_t total) = 0;
    // This part's blocks from the received records, read in the order of `pieces` (first record,
    // count): rows 0 .. m - 1; `local` holds the columns c0 .. c0 + cm - 1 (renumbered from 0),
    // `remote` the others (positions in the gathered order of ncols columns). Of records with
    // one (row, column) the first read is kept. row_length: each row's entries, both blocks.
    struct Blocks {
        std::unique_ptr<MatrixStore> local, remote;
        std::vector<int64_t> row_length;
    };
    virtual Blocks build(const std::vector<std::pair<int64_t, int64_t>> &pieces, int64_t m, int64_t c0, int64_t cm,
                         const FormatOptions &opt) = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual psv_backend kind() const = 0;
    virtual std::string device_name() const = 0;

    // ---- memory (throw Error(PSV_ERROR_OUT_OF_MEMORY) when exhausted) ----
    virtual void *allocate(size_t bytes) = 0;
    virtual void deallocate(void *p) noexcept = 0;
    virtual void upload(void *dst, const void *src_host, size_t bytes) = 0;
    virtual void download(void *dst_host, const void *src, size_t bytes) = 0;
    virtual void copy(void *dst, const void *src, size_t bytes) = 0;
    virtual void set_bytes(void *dst, int value, size_t bytes) = 0;
    // Device-pointer import/export (CUDA only; others throw PSV_ERROR_BACKEND_UNAVAILABLE).
    virtual void copy_from_device_pointer(void *dst, const void *src_device, size_t bytes) = 0;
    virtual void copy_to_device_pointer(void *dst_device, const void *src, size_t bytes) = 0;

    // Default tile width for a value type of `value_bytes` bytes.
    virtual int64_t default_tile_width(size_t value_bytes) const = 0;
    // The dense-tile limit when the caller sets neither a tile width nor a tile limit: -1 lets
    // Algorithm 1 alone decide.
    virtual int64_t default_max_tiles() const { return -1; }
    virtual PerfModel perf_model() const = 0;
    // The performance model's table (psv_context_tuning, psv_context_tuning_text) and its
    // making (psv_context_tune): a backend without a model has none and cannot tune.
    struct TuningState {
        psv_tuning_info info{};
        std::string text;
    };
    virtual TuningState tuning() const {
        TuningState t;
        t.text = "the " + device_name() + " backend has no performance model: PSV_KERNEL_AUTO follows its rules";
        return t;
    }
    virtual void tune(const std::string &path, int32_t effort, bool progress) {
        (void)path, (void)effort, (void)progress;
        fail(PSV_ERROR_NOT_IMPLEMENTED, "this backend has no performance model to tune (CUDA contexts have one)");
    }

    // ---- matrices ----
    virtual std::unique_ptr<MatrixStore> build_matrix(CsrHost &&csr, const FormatOptions &opt) = 0;
    // A part's builder of a partitioned matrix from delivered chunks (see ShareBuilder) of an
    // nrows x ncols matrix of `type` (pattern: no values) over nparts parts, for a share of
    // `count` tuples (its chunks sized to it).
    virtual std::unique_ptr<ShareBuilder> share_builder(int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                        int32_t nparts, int64_t count) = 0;

    // ---- vectors ----
    virtual void fill(psv_type type, int64_t n, void *x, const void *value_host) = 0;
    // w = u op v where both present; w_present written when either input has a presence array.
    virtual void ewise(psv_op op, psv_type type, int64_t n, void *w, uint8_t *w_present,
                       const void *u, const uint8_t *u_present, const void *v,
                       const uint8_t *v_present) = 0;
    // w = u op scalar (values only; the caller keeps the pattern)
    virtual void apply(psv_op op, psv_type type, int64_t n, void *w, const void *u,
                       const void *scalar_host) = 0;
    virtual void reduce(psv_op monoid, psv_type type, int64_t n, const void *x,
                        const uint8_t *x_present, void *result_host) = 0;
    virtual int64_t count_present(int64_t n, const uint8_t *present) = 0;

    // ---- products ----
    virtual void spmv(const SpmvArgs &a) = 0;
    virtual void assign(const AssignArgs &a) = 0;

    // T = A (+).(second) U over A's pattern for k vectors at once (U: ncols x k, T: nrows x k,
    // row-major): the matrix is read once for all k. Every entry of U is present.
    virtual void spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) = 0;

    // t = A' (+).(second) u over A's pattern, one fp32 vector, read from A alone (the push
    // product: no transpose): each entry (i, j) adds u(i) into t(j), summed in 64-bit fixed point
    // scaled to ||u||_1 (integer sums: the same whatever their order), t(j) = 0 for a column
    // without entries. u (nrows finite values) and t (ncols) are in the backend's memory.
    virtual void pattern_product_transposed(const MatrixStore &A, const float *u, float *t) = 0;
    // PSV_TRANSPOSE_AUTO: whether A' products cache A's transpose (A and it fit the backend's
    // budget for them) rather than push from A. A constant rule of the matrix and the machine,
    // so that the results are the same run to run.
    virtual bool transpose_fits(const MatrixStore &A) const {
        (void)A;
        return true;
    }
};

// t = M (+).(mul) u, one fp32 vector with every entry; both backends sum each row in double (see
// Semiring::acc_type).
inline void plus_product(Backend &be, const MatrixStore &M, psv_op mul, const float *u, float *t) {
    SpmvArgs sa;
    sa.A = &M;
    sa.add = PSV_PLUS;
    sa.mul = mul;
    sa.type = PSV_FP32;
    sa.u = u;
    sa.t = t;
    be.spmv(sa);
}

// t = M (+).(second) u over M's pattern: the product of PageRank, HITS and (on CUDA) a single RWR
// query.
inline void pattern_product(Backend &be, const MatrixStore &M, const float *u, float *t) {
    plus_product(be, M, PSV_SECOND, u, t);
}

// t = A' (+).(second) u (PageRank's and HITS's A' products): on AT, A's transpose, where the
// caller holds one, else pushed from A (Backend::pattern_product_transposed).
inline void transposed_product(Backend &be, const MatrixStore &A, const MatrixStore *AT, const float *u, float *t) {
    if (AT) pattern_product(be, *AT, u, t);
    else be.pattern_product_transposed(A, u, t);
}

// Backends available in this build. create_cuda_backend throws PSV_ERROR_BACKEND_UNAVAILABLE
// where CUDA was not built or no device exists.
std::unique_ptr<Backend> create_cpu_backend();
std::unique_ptr<Backend> create_cuda_backend(int32_t device);
bool cuda_backend_available();

// RAII buffer in a backend's memory.
class Buffer {
public:
    Buffer() = default;
    Buffer(Backend *be, size_t bytes) : be_(be), bytes_(bytes) {
        // Every backend allocation comes through here: the test hook can fail any of them.
        if (bytes && test_hooks::should_fail_allocation(be->kind(), bytes))
            fail(PSV_ERROR_OUT_OF_MEMORY, format("out of %s memory (%zu bytes; injected by a test)",
                                                 be->kind() == PSV_BACKEND_CUDA ? "device" : "host", bytes));
        ptr_ = bytes ? be->allocate(bytes) : nullptr;
        if (ptr_) test_hooks::live_buffers.fetch_add(1, std::memory_order_relaxed);
    }
    Buffer(Buffer &&o) noexcept : be_(o.be_), ptr_(o.ptr_), bytes_(o.bytes_) {
        o.ptr_ = nullptr;
        o.bytes_ = 0;
    }
    Buffer &operator=(Buffer &&o) noexcept {
        if (this != &o) {
            reset();
            be_ = o.be_;
            ptr_ = o.ptr_;
            bytes_ = o.bytes_;
            o.ptr_ = nullptr;
            o.bytes_ = 0;
        }
        return *this;
    }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer() { reset(); }
    void reset() {
        if (ptr_) {
            be_->deallocate(ptr_);
            test_hooks::live_buffers.fetch_sub(1, std::memory_order_relaxed);
        }
        ptr_ = nullptr;
        bytes_ = 0;
    }
    void *get() const { return ptr_; }
    template <class T> T *as() const { return static_cast<T *>(ptr_); }
    size_t size() const { return bytes_; }

private:
    Backend *be_ = nullptr;
    void *ptr_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace psv
