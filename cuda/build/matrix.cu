// A CUDA matrix's life apart from its plan (plan.cu): construction from CSR on the host or the
// device, what psv_matrix_info and psv_tile_info report, the lazily built tile-composite form,
// tuples, the transpose and the pattern of A + A'.
#include <cstring>
#include <initializer_list>
#include <vector>

#include "cuda/build/build.cuh"

namespace psv {
namespace cuda {

__global__ void row_stats_kernel(int64_t n, const int64_t *rp, unsigned long long *empty,
                                 int *maxlen) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    unsigned long long e = 0;
    int m = 0;
    for (; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t l = rp[i + 1] - rp[i];
        e += l == 0;
        m = max(m, (int)l);
    }
    for (int o = 16; o; o >>= 1) {
        e += __shfl_xor_sync(0xffffffffu, e, o);
        m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(empty, e);
        atomicMax(maxlen, m);
    }
}

void finish_matrix(CudaBackend &be, CudaMatrix &M, const FormatOptions &opt, const CudaMatrix *transposed_from) {
    // empty rows and the longest row (integer atomics: exact)
    Buffer stats(&be, 16);
    be.set_bytes(stats.get(), 0, 16);
    if (M.nrows > 0) {
        row_stats_kernel<<<grid_for(M.nrows, 256, 4096), 256, 0, be.stream()>>>(
            M.nrows, M.row_ptr.as<int64_t>(), stats.as<unsigned long long>(),
            reinterpret_cast<int *>(stats.as<uint8_t>() + 8));
        PSV_CUDA_LAUNCH_CHECK();
    }
    uint64_t h[2];
    be.download(h, stats.get(), 16);
    M.empty_rows = (int64_t)h[0];
    M.max_row_length = (int32_t)(h[1] & 0xffffffffu);
    M.rebuild_from(opt, transposed_from);
    M.peak_bytes = (int64_t)(be.pool().peak_bytes() - M.build_start_bytes);
}

std::unique_ptr<CudaMatrix> CudaBackend::build_from_device_csr(int64_t nrows, int64_t ncols,
                                                               psv_type type, bool pattern,
                                                               const int64_t *rp, const int32_t *col,
                                                               const void *val,
                                                               const FormatOptions &opt) {
    activate();
    auto M = std::make_unique<CudaMatrix>(this);
    M->nrows = nrows;
    M->ncols = ncols;
    M->type = type;
    M->pattern = pattern;
    int64_t nnz = 0;
    if (nrows > 0) download(&nnz, rp + nrows, sizeof nnz);
    M->nvals = nnz;
    M->row_ptr = Buffer(this, (size_t)(nrows + 1) * 8);
    copy(M->row_ptr.get(), rp, (size_t)(nrows + 1) * 8);
    if (nrows == 0) set_bytes(M->row_ptr.get(), 0, 8);
    M->col = Buffer(this, (size_t)nnz * 4);
    copy(M->col.get(), col, (size_t)nnz * 4);
    if (!pattern) {
        M->val = Buffer(this, (size_t)nnz * type_size(type));
        copy(M->val.get(), val, (size_t)nnz * type_size(type));
    }
    finish_matrix(*this, *M, opt);
    return M;
}

std::unique_ptr<MatrixStore> CudaBackend::build_matrix(CsrHost &&csr, const FormatOptions &opt) {
    activate();
    auto M = std::make_unique<CudaMatrix>(this);
    M->nrows = csr.nrows;
    M->ncols = csr.ncols;
    M->type = csr.type;
    M->pattern = csr.pattern;
    M->nvals = csr.nvals();
    const int64_t nnz = M->nvals;
    M->row_ptr = Buffer(this, (size_t)(csr.nrows + 1) * 8);
    if (csr.row_ptr.empty()) set_bytes(M->row_ptr.get(), 0, 8);
    else upload(M->row_ptr.get(), csr.row_ptr.data(), (size_t)(csr.nrows + 1) * 8);
    M->col = Buffer(this, (size_t)nnz * 4);
    upload(M->col.get(), csr.col.data(), (size_t)nnz * 4);
    if (!csr.pattern) {
        M->val = Buffer(this, (size_t)nnz * type_size(csr.type));
        upload(M->val.get(), csr.values.data(), (size_t)nnz * type_size(csr.type));
    }
    CsrHost().row_ptr.swap(csr.row_ptr);  // the host copy is no longer needed
    std::vector<int32_t>().swap(csr.col);
    std::vector<uint8_t>().swap(csr.values);
    finish_matrix(*this, *M, opt);
    return M;
}

// ---- the tile-composite form where the kernel does not keep it ------------------------------------

namespace {

int64_t bytes_of(std::initializer_list<const Buffer *> buffers) {
    int64_t n = 0;
    for (const Buffer *b : buffers) n += (int64_t)b->size();
    return n;
}

}  // namespace

int64_t TcForm::device_bytes() const {
    return bytes_of({&col_order, &tiles_d, &workloads, &row_ids, &col16, &col32, &values, &coo_row, &coo_col,
                     &coo_val, &coo_chunk});
}

int64_t ChunkPlan::device_bytes() const {
    return bytes_of({&begin, &first_row, &head_long, &tail_long, &long_row, &long_first, &long_slot, &counters,
                     &slots, &col_enc, &col_order});
}

int64_t CudaMatrix::device_bytes() const {
    const int64_t n = bytes_of({&row_ptr, &col, &val, &column_lengths, &long_rows, &spmm_layout_.rows, &spmm_layout_.table,
                                &spmm_layout_.counts}) +
                      chunks.device_bytes() + stream.device_bytes() + sell.device_bytes();
    return form_ ? n + form_->device_bytes() : n;
}

std::unique_ptr<TcForm> CudaMatrix::build_padded_form(ColumnStats &cs) const {
    be_->activate();
    need_csr();
    const size_t vb = pattern ? 4 : type_size(type);
    auto F = std::make_unique<TcForm>();
    build_form(*be_, *this, form_params(options, policy, vb, false), policy.hot_min_length, *F, cs);
    be_->sync();
    return F;
}

// The kept form, or one built into `transient` (its column counts into cs).
const TcForm &CudaMatrix::kept_or_transient_form(std::unique_ptr<TcForm> &transient, ColumnStats &cs) const {
    if (form_) return *form_;
    transient = build_padded_form(cs);
    return *transient;
}

const TcForm &CudaMatrix::form() const {
    if (!form_) {
        ColumnStats cs;
        form_ = build_padded_form(cs);
    }
    return *form_;
}

namespace {

FormSummary summarize(CudaBackend &be, const TcForm &F, const ColumnStats &cs) {
    FormSummary s;
    s.tile_width = F.tile_width;
    s.dense_tiles = F.dense_tiles;
    s.tiles = F.tiles;
    s.n_workloads = F.n_workloads;
    s.n_rows = F.n_rows;
    s.n16 = F.n16;
    s.n32 = F.n32;
    s.slots = F.slots;
    s.columns = cs;
    std::vector<Workload> wl((size_t)F.n_workloads);
    if (!wl.empty()) be.download(wl.data(), F.workloads.get(), wl.size() * sizeof(Workload));
    for (const Tile &t : F.tiles) {
        int64_t rm = 0;
        for (int64_t w = t.wl_begin; w < t.wl_end; ++w) rm += wl[w].layout == kRowMajor;
        s.row_major.push_back(rm);
    }
    return s;
}

}  // namespace

// The summary of the kept form, or of one built here and released again -- where the form can
// hold the matrix (at most 2^32 - 1 entries) and the CSR with the form's construction fits the
// policy's share of device memory (a constant of the device); otherwise a summary without tiles.
// The construction's bound: form_construction_bytes.
const FormSummary &CudaMatrix::summary() const {
    if (summary_) return *summary_;
    be_->activate();
    if (!form_) {
        if (nvals > (int64_t)UINT32_MAX ||
            (double)device_bytes() + form_construction_bytes() > policy.plan_memory_share * (double)policy.global_bytes) {
            summary_ = std::make_unique<FormSummary>();
            summary_->columns = columns;
            return *summary_;
        }
    }
    std::unique_ptr<TcForm> transient;
    ColumnStats cs = columns;
    const TcForm &F = kept_or_transient_form(transient, cs);
    summary_ = std::make_unique<FormSummary>(summarize(*be_, F, cs));
    return *summary_;
}

void CudaMatrix::info(psv_matrix_info &o) const {
    const FormSummary &s = summary();
    std::memset(&o, 0, sizeof o);
    o.nrows = nrows;
    o.ncols = ncols;
    o.nvals = nvals;
    o.tile_width = s.tile_width;
    o.dense_tiles = s.dense_tiles;
    o.sparse_tile = (int32_t)s.tiles.size() > s.dense_tiles;
    o.dense_columns = (int64_t)s.dense_tiles * s.tile_width;
    for (size_t t = 0; t < s.tiles.size(); ++t) {
        if (!s.tiles[t].is_sparse) o.dense_nvals += s.tiles[t].nvals;
        o.row_major_workloads += s.row_major[t];
    }
    o.workloads = s.n_workloads;
    o.stored_entries = s.slots;
    o.padding_ratio = nvals ? (double)o.stored_entries / (double)nvals : 1.0;
    o.bytes = s.tile_width == 0 ? 0 : (int64_t)(ncols * 4 + s.tiles.size() * sizeof(Tile) + s.n_workloads * sizeof(Workload) +
                        s.n_rows * 4 + s.n16 * 2 + s.n32 * 4 +
                        (pattern ? 0 : s.slots * (int64_t)type_size(type)));
    o.workload_size = s.tiles.empty() ? 0 : s.tiles[0].workload_size;
    o.kernel = kernel;
    o.backend = PSV_BACKEND_CUDA;
    o.max_row_length = max_row_length;
    o.max_col_length = (int32_t)s.columns.max_col_length;
    o.build_seconds = build_seconds;
    o.device_bytes = device_bytes();
    o.peak_bytes = peak_bytes;
    o.predicted_ms = predicted_ms;
    o.plan_candidates = plan_candidates;
    o.runner_up_ms = plan_candidates >= 2 ? runner_up_ms : 0.0;
    o.runner_up_kernel = plan_candidates >= 2 ? tuning::family_kernel(runner_up.family) : -1;
    o.hot_columns = kernel == PSV_KERNEL_CSR ? chunks.hot : 0;
    o.ranked_columns = kernel == PSV_KERNEL_CSR && chunks.ranked ? chunks.ranked_prefix : 0;
}

void CudaMatrix::tile_info(int32_t tile, psv_tile_info &o) const {
    const FormSummary &s = summary();
    fill_tile_info(s.tiles[tile], o);
    o.row_major_workloads = s.row_major[tile];
}

std::string CudaMatrix::plan_text(int32_t which) const {
    if (which == 0) {
        std::string t = plan.describe();
        if (kernel == PSV_KERNEL_STREAM && stream.parts > 0) t += " (" + stream.describe() + ")";
        if (kernel == PSV_KERNEL_SELL && sell.slices > 0) t += " (" + sell.describe(nvals) + ")";
        return t;
    }
    return plan_candidates >= 2 ? runner_up.describe() : std::string();
}

std::string CudaMatrix::plan_description() const {
    if (kernel == PSV_KERNEL_TILE_COMPOSITE) return "tile-composite form";
    if (kernel == PSV_KERNEL_TILE_COO) return "TILE-COO form";
    if (kernel == PSV_KERNEL_STREAM && stream.parts > 0) return stream.describe();
    if (kernel == PSV_KERNEL_SELL && sell.slices > 0) return sell.describe(nvals);
    char b[128];
    if (chunks.ranked && chunks.ranked_prefix < ncols)
        std::snprintf(b, sizeof b, "ranked columns (first %lld), %lld hot", (long long)chunks.ranked_prefix,
                      (long long)chunks.hot);
    else
        std::snprintf(b, sizeof b, "%s columns, %lld hot", chunks.ranked ? "ranked" : "plain", (long long)chunks.hot);
    return b;
}

// ---- tuples, transpose ------------------------------------------------------------------------

void CudaMatrix::extract_tuples(int64_t *rows, int64_t *cols, void *values) const {
    need_csr();
    std::vector<int64_t> rp((size_t)nrows + 1);
    be_->download(rp.data(), row_ptr.get(), rp.size() * 8);
    if (rows)
        for (int64_t i = 0; i < nrows; ++i)
            for (int64_t e = rp[i]; e < rp[i + 1]; ++e) rows[e] = i;
    if (cols) {
        std::vector<int32_t> c((size_t)nvals);
        be_->download(c.data(), col.get(), c.size() * 4);
        for (int64_t e = 0; e < nvals; ++e) cols[e] = c[e];
    }
    if (values) {
        const size_t vs = type_size(type);
        if (pattern) {
            dispatch_type(type, [&](auto tag) {
                using T = typename decltype(tag)::type;
                T one = 1;
                for (int64_t e = 0; e < nvals; ++e) std::memcpy(static_cast<uint8_t *>(values) + e * vs, &one, vs);
            });
        } else {
            be_->download(values, val.get(), (size_t)nvals * vs);
        }
    }
}

__global__ void inverse_row_lengths_kernel(int64_t n, const int64_t *__restrict__ rp, float *__restrict__ out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t l = rp[i + 1] - rp[i];
        out[i] = l ? 1.0f / (float)l : 0.0f;
    }
}

void CudaMatrix::inverse_row_lengths(float *out) const {
    if (nrows == 0) return;
    be_->activate();
    inverse_row_lengths_kernel<<<grid_for(nrows), 256, 0, be_->stream()>>>(nrows, row_ptr.as<int64_t>(), out);
    PSV_CUDA_LAUNCH_CHECK();
}

// A' that may be streamed (may_stream) gets its row pointer alone: its plan is read from this
// matrix's entries, and where the plan is not the streamed one (which reads nothing else),
// rebuild_from builds the rest first; any other A' is built whole, as before. Reason: PageRank's
// and HITS's streamed A' products never read its columns and values, which cost the first call a
// sort of every entry and 4 bytes an entry (8 weighted) held (docs/design.md, section 5).
std::unique_ptr<MatrixStore> CudaMatrix::transposed() const {
    be_->activate();
    need_csr();
    auto T = std::make_unique<CudaMatrix>(be_);
    T->type = type;
    T->pattern = pattern;
    T->nrows = ncols;
    T->ncols = nrows;
    T->nvals = nvals;
    if (may_stream(*T, options, T->policy)) {
        T->row_ptr = transpose_row_ptr(*be_, *this);
        T->csr_source_ = this;
    } else {
        transpose_csr(*be_, *this, *T);
    }
    finish_matrix(*be_, *T, options, this);
    return T;
}

void CudaMatrix::need_csr() const {
    if (!csr_source_) return;
    be_->activate();
    CudaMatrix T(be_, Scratch{});
    transpose_csr(*be_, *csr_source_, T);  // its row pointer equals row_ptr: the same column counts
    col = std::move(T.col);
    val = std::move(T.val);
    csr_source_ = nullptr;
}

void CudaMatrix::need_stream_values() const {
    if (!stream_values_pending()) return;
    be_->activate();
    // the same shape (the last rebuild's policy and value size), read from the transposed matrix
    // while this one's entries are not built; built whole before it replaces the plan held
    stream = build_stream_plan(*be_, *this, policy, stream.vb, csr_source_, true);
}

std::unique_ptr<MatrixStore> CudaMatrix::symmetric_pattern() const {
    be_->activate();
    need_csr();
    return cuda::symmetric_pattern(*be_, *this);
}

TileComposite CudaMatrix::form_to_host() const {
    std::unique_ptr<TcForm> transient;
    ColumnStats cs;
    const TcForm *Fd = &kept_or_transient_form(transient, cs);
    const CudaMatrix &M = *this;
    TileComposite F;
    F.nrows = M.nrows;
    F.ncols = M.ncols;
    F.nvals = M.nvals;
    F.type = M.type;
    F.pattern = M.pattern;
    F.tile_width = Fd->tile_width;
    F.dense_tiles = Fd->dense_tiles;
    F.tiles = Fd->tiles;
    F.col_order.resize((size_t)M.ncols);
    M.be_->download(F.col_order.data(), Fd->col_order.get(), F.col_order.size() * 4);
    F.workloads.resize((size_t)Fd->n_workloads);
    M.be_->download(F.workloads.data(), Fd->workloads.get(), F.workloads.size() * sizeof(Workload));
    F.row_ids.resize((size_t)Fd->n_rows);
    M.be_->download(F.row_ids.data(), Fd->row_ids.get(), F.row_ids.size() * 4);
    F.col16.resize((size_t)Fd->n16);
    M.be_->download(F.col16.data(), Fd->col16.get(), F.col16.size() * 2);
    F.col32.resize((size_t)Fd->n32);
    M.be_->download(F.col32.data(), Fd->col32.get(), F.col32.size() * 4);
    if (!M.pattern) {
        F.values.resize((size_t)Fd->slots * type_size(M.type));
        M.be_->download(F.values.data(), Fd->values.get(), F.values.size());
    }
    return F;
}

}  // namespace cuda
}  // namespace psv
