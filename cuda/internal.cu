// The internal C++ interface of the CUDA backend (internal.hpp).
#include <mutex>

#include "core/objects.hpp"
#include "cuda/build/build.cuh"
#include "cuda/internal.hpp"

namespace psv {
namespace cuda {

bool is_cuda(const Backend &be) { return be.kind() == PSV_BACKEND_CUDA; }

namespace {

CudaBackend &as_cuda(Backend &be) {
    if (!is_cuda(be)) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA context");
    return static_cast<CudaBackend &>(be);
}

const CudaMatrix &as_cuda(const MatrixStore &A) {
    const auto *M = dynamic_cast<const CudaMatrix *>(&A);
    if (!M) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA matrix");
    return *M;
}

ContextCore &core_of(const psv_context *ctx) {
    if (!ctx || !registry_has(ctx, Kind::Context) || ctx->magic != kMagicContext)
        fail(PSV_ERROR_UNINITIALIZED_OBJECT, "not a live psv_context");
    return *ctx->core;
}

ContextCore &core_of(const psv_matrix *A) {
    if (!A || !registry_has(A, Kind::Matrix) || A->magic != kMagicMatrix || !A->ctx->alive)
        fail(PSV_ERROR_UNINITIALIZED_OBJECT, "not a live psv_matrix");
    return *A->ctx;
}

}  // namespace

std::unique_ptr<MatrixStore> build_from_device_csr(Backend &be, int64_t nrows, int64_t ncols, psv_type type,
                                                   const int64_t *rp, const int32_t *col, const void *values,
                                                   const FormatOptions &opt) {
    return as_cuda(be).build_from_device_csr(nrows, ncols, type, values == nullptr, rp, col, values, opt);
}

std::unique_ptr<MatrixStore> build_from_device_coo(Backend &be, int64_t nrows, int64_t ncols, psv_type type,
                                                   int64_t nnz, const int32_t *rows, const int32_t *cols,
                                                   const void *values, const FormatOptions &opt) {
    return coo_to_matrix(as_cuda(be), nrows, ncols, type, nnz, rows, cols, values, opt);
}

std::unique_ptr<MatrixStore> build_from_device_chunks(Backend &be, int64_t nrows, int64_t ncols, psv_type type,
                                                      bool pattern, int64_t count, const DeliverTuples &deliver,
                                                      const FormatOptions &opt) {
    CudaBackend &cb = as_cuda(be);
    cb.activate();
    auto M = std::make_unique<CudaMatrix>(&cb);
    M->type = type;
    M->pattern = pattern;
    TupleChunks src;
    src.count = count;
    src.deliver = deliver;
    assemble_csr(cb, nrows, ncols, pattern ? 0 : type_size(type), src, *M);
    finish_matrix(cb, *M, opt);
    return M;
}

void csr_arrays(const psv_matrix *A, const int64_t **row_ptr, const int32_t **col, const void **values) {
    const CudaMatrix &M = as_cuda(store_of(A));
    M.need_csr();
    *row_ptr = M.row_ptr.as<int64_t>();
    *col = M.col.as<int32_t>();
    *values = M.pattern ? nullptr : M.val.get();
}

size_t pool_in_use_bytes(Backend &be) { return as_cuda(be).pool().in_use_bytes(); }
size_t pool_peak_bytes(Backend &be) { return as_cuda(be).pool().peak_bytes(); }
void reset_pool_peak(Backend &be) { as_cuda(be).pool().reset_peak(); }

void *stream_of(Backend &be) { return as_cuda(be).stream(); }
void synchronize(Backend &be) { as_cuda(be).sync(); }
size_t pool_cached_bytes(Backend &be) { return as_cuda(be).pool().cached_bytes(); }
void pool_trim(Backend &be) {
    as_cuda(be).sync();
    as_cuda(be).pool().trim();
}

TileComposite download_form(const MatrixStore &A) { return as_cuda(A).form_to_host(); }

Policy policy_of(psv_context *ctx) {
    ContextCore &c = core_of(ctx);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    return as_cuda(*c.backend).policy();
}

void set_policy(psv_context *ctx, const Policy &p) {
    ContextCore &c = core_of(ctx);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    as_cuda(*c.backend).set_policy(p);
}

void replan(psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    A->store->rebuild(A->store->options);
    A->transpose.reset();  // rebuilt with the new policy when next used
}

std::vector<Candidate> plan_candidates(const psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    std::vector<Candidate> r;
    for (const tuning::Ranked &x : as_cuda(*A->store).ranking()) {
        Candidate k;
        k.plan = x.plan;
        k.predicted_ms = x.ms;
        k.options = options_for(x.plan);
        r.push_back(k);
    }
    return r;
}

tuning::Plan built_plan(const psv_matrix *A, double *predicted_ms) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    const CudaMatrix &M = as_cuda(*A->store);
    if (predicted_ms) *predicted_ms = M.predicted_ms;
    return M.plan;
}

std::string model_stats_line(const psv_matrix *A, const std::string &name) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    const CudaMatrix &M = as_cuda(*A->store);
    return tuning::stats_line(name, model_stats(M, M.columns, M.pattern ? 4 : type_size(M.type)));
}

double model_seconds(const psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    return as_cuda(*A->store).model_seconds;
}

void rebuild_with(psv_matrix *A, const FormatOptions &o) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    A->store->rebuild(o);
    A->transpose.reset();
}

void set_tuning_table(psv_context *ctx, const tuning::Table &t, tuning::Source source) {
    std::lock_guard<std::recursive_mutex> g(ctx->core->mutex);
    tuning::Loaded L;
    L.table = t;
    L.source = source;
    L.path = "(set by a test)";
    as_cuda(*ctx->core->backend).set_tuning(std::move(L));
}

std::string plan_description(const psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    return as_cuda(*A->store).plan_description();
}

StreamCounts stream_counts(const psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    const CudaMatrix &M = as_cuda(*A->store);
    const StreamPlan &P = M.stream;
    StreamCounts r;
    if (M.kernel != PSV_KERNEL_STREAM || P.parts == 0) return r;
    r.parts = P.parts, r.rows = P.rows, r.pieces = P.pieces, r.slots = P.slots, r.pairs = P.pairs, r.runs = P.runs;
    r.entries = P.entries, r.max_part_entries = P.max_part_entries;
    r.windows = P.column_blocks, r.splits = P.splits;
    r.bytes_pattern = P.model_bytes(M.nrows, M.ncols, false);
    r.bytes_weighted = P.model_bytes(M.nrows, M.ncols, true);
    return r;
}

SellCounts sell_counts(const psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    const CudaMatrix &M = as_cuda(*A->store);
    SellCounts r;
    if (M.kernel != PSV_KERNEL_SELL || M.sell.slices == 0) return r;
    r.slices = M.sell.slices, r.slots = M.sell.slots, r.bytes = M.sell.device_bytes();
    r.bytes_pattern = M.sell.model_bytes(M.nrows, M.ncols, 4, false);
    r.bytes_weighted = M.sell.model_bytes(M.nrows, M.ncols, 4, true);
    return r;
}

bool transpose_csr_pending(const psv_matrix *A) {
    return A->transpose && as_cuda(*A->transpose).csr_pending();
}

int64_t transpose_device_bytes(const psv_matrix *A) {
    ContextCore &c = core_of(A);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    return A->transpose ? A->transpose->device_bytes() : 0;
}

bool column_lengths_kept(const psv_matrix *A) { return as_cuda(*A->store).has_column_lengths(); }

StreamPlanCopy download_stream_plan(const MatrixStore &A) {
    const CudaMatrix &M = as_cuda(A);
    const StreamPlan &P = M.stream;
    StreamPlanCopy r;
    if (M.kernel != PSV_KERNEL_STREAM || P.parts == 0) return r;
    r.counts = {P.parts, P.rows, P.slots, P.pieces, P.pairs, P.runs, P.entries, P.column_block, P.column_blocks, P.splits,
                P.max_part_entries, (int64_t)P.vb};
    r.piece_sorted = P.piece_sorted;
    for (const Buffer *b : P.arrays()) {
        std::vector<uint8_t> h(b->size());
        if (!h.empty()) M.be_->download(h.data(), b->get(), h.size());
        r.arrays.push_back(std::move(h));
    }
    return r;
}

bool stream_values_pending(const MatrixStore &A) { return as_cuda(A).stream_values_pending(); }
void need_stream_values(const MatrixStore &A) { as_cuda(A).need_stream_values(); }
void need_csr(const MatrixStore &A) { as_cuda(A).need_csr(); }

psv_matrix *wrap_matrix(psv_context *ctx, std::unique_ptr<MatrixStore> store) {
    ContextCore &c = core_of(ctx);
    if (!store) fail(PSV_ERROR_NULL_POINTER, "no matrix to wrap");
    const auto *M = dynamic_cast<const CudaMatrix *>(store.get());
    if (M && M->be_ != c.backend.get()) fail(PSV_ERROR_INVALID_VALUE, "the matrix was built on another context's backend");
    auto m = std::make_unique<psv_matrix_s>();
    m->ctx = ctx->core;
    m->store = std::move(store);
    std::lock_guard<std::recursive_mutex> g(c.mutex);
    registry_add(m.get(), Kind::Matrix);
    return m.release();
}

Backend &backend_of(psv_context *ctx) { return *core_of(ctx).backend; }
AlgoSteps &steps_of(psv_context *ctx) { return *core_of(ctx).steps; }
const MatrixStore &store_of(const psv_matrix *A) {
    core_of(A);  // a live matrix handle
    return *A->store;
}

}  // namespace cuda
}  // namespace psv
