// The shims of matrices: build from tuples, read from a file, free, the dimension queries,
// tuples out, per-matrix options, and the description of its form (info, tile info).
#include <cstring>
#include <vector>

#include "api/shim.hpp"
#include "core/csr_build.hpp"
#include "io/bvgraph.hpp"
#include "io/psv_format.hpp"
#include "io/read.hpp"
#include "io/read_options.hpp"
#include "api/internal.h"
#include "dist/chunks.hpp"
#include "dist/comm.hpp"

using namespace psv;
using namespace psv::api;

// A matrix's type and dimensions, as every build checks them.
static void check_shape(psv_type type, int64_t nrows, int64_t ncols) {
    check_type(type);
    if (nrows < 0 || ncols < 0 || nrows > kMaxDimension || ncols > kMaxDimension)
        fail(PSV_ERROR_INVALID_VALUE, format("dimensions %lld x %lld outside 0 .. 2^31-1", (long long)nrows, (long long)ncols));
}

extern "C" {

psv_status psv_matrix_build(psv_context *c, psv_type type, int64_t nrows, int64_t ncols,
                            int64_t nvals, const int64_t *rows, const int64_t *cols,
                            const void *values, psv_op dup, psv_matrix **A) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_build", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(A, "A");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_shape(type, nrows, ncols);
        if (nvals < 0) fail(PSV_ERROR_INVALID_VALUE, "nvals is negative");
        if (nvals > 0) {
            need(rows, "rows");
            need(cols, "cols");
        }
        if (dup != PSV_NOOP && !valid_binary_op(dup))
            fail(PSV_ERROR_INVALID_VALUE, format("dup: %d is not a binary operator", (int)dup));
        HostMemoryScope memory;  // /proc and the cgroup read once for the build and its form
        if (ranked(*ctx)) {  // this rank's share; a bad tuple on any rank fails every rank
            CsrHost share;
            dist::agree(ctx->parts, [&] { share = build_csr(nrows, ncols, nvals, rows, cols, values, type, dup); });
            *A = new_matrix_share(c->core, std::move(share), dup);
            return PSV_SUCCESS;
        }
        CsrHost csr = build_csr(nrows, ncols, nvals, rows, cols, values, type, dup);
        *A = new_matrix(c->core, std::move(csr));
        return PSV_SUCCESS;
    });
}

// A file read into CSR with the read options applied; labels: the original ids (relabel).
static CsrHost read_csr(const char *path, int32_t flags, bool progress, int32_t &base,
                        std::vector<int64_t> &labels) {
    const bool relabel = flags & PSV_READ_RELABEL;
    Coo coo;
    // A file read straight into CSR (psv's binary format; a BVGraph, base 0): relabelled, its
    // tuples keep their values in its own type.
    CsrHost file;
    std::string bv_base;
    const bool psv_file = io::is_psv_file(path);  // regular files only, not "-"
    if (psv_file || io::bvgraph_file(path, bv_base)) {
        if (psv_file) {
            file = io::read_psv(path, base);
        } else {
            file = io::decode_bvgraph(path, bv_base);
            base = 0;
        }
        if (!relabel) return (flags & PSV_READ_UNDIRECTED) ? io::undirected(file) : file;
        coo = io::coo_of(file, base);
    } else {
        coo = io::read_file(path, progress, relabel);
    }
    if (relabel) labels = io::relabel(coo);
    base = coo.index_base;
    const int64_t nvals = (int64_t)coo.rows.size();
    const void *values = nullptr;
    if (!coo.pattern) {
        if (!file.values.empty()) values = file.values.data();  // in tuple order (coo_of)
        else if (coo.type == PSV_FP64) values = coo.fvalues.data();
        else if (coo.type == PSV_INT64) values = coo.ivalues.data();
        else fail(PSV_ERROR_PANIC, "reader produced an unexpected value type");
    }
    CsrHost csr = build_csr(coo.nrows, coo.ncols, nvals, coo.rows.data(), coo.cols.data(), values,
                            coo.type, coo.dup);
    coo = Coo();  // release the tuples (and the file's CSR) before building the form
    file = CsrHost();
    return (flags & PSV_READ_UNDIRECTED) ? io::undirected(csr) : csr;
}

psv_status psv_matrix_read_with_flags(psv_context *c, const char *path, int32_t flags,
                                      psv_matrix **A) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_read", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(path, "path");
        need(A, "A");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (flags & ~(PSV_READ_UNDIRECTED | PSV_READ_RELABEL))
            fail(PSV_ERROR_INVALID_VALUE, format("flags: unknown read option bits 0x%x",
                                                 (unsigned)flags));
        int32_t base = 0;
        std::vector<int64_t> labels;
        HostMemoryScope memory;  // /proc and the cgroup read once for the reader, build and form
        CsrHost csr;
        if (ranked(*ctx))  // every rank reads the file; one that fails fails every rank
            dist::agree(ctx->parts, [&] { csr = read_csr(path, flags, ctx->defaults.progress, base, labels); });
        else
            csr = read_csr(path, flags, ctx->defaults.progress, base, labels);
        psv_matrix *m = new_matrix(c->core, std::move(csr));
        m->index_base = base;
        m->labels = std::move(labels);
        *A = m;
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_read(psv_context *c, const char *path, psv_matrix **A) {
    return psv_matrix_read_with_flags(c, path, 0, A);
}

psv_status psv_matrix_labels(const psv_matrix *A, int64_t *labels, int64_t *n) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_labels", ctx, [&] {
        check(A, "A", ctx);
        need(labels, "labels");
        need(n, "n");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (A->labels.empty()) return PSV_NO_VALUE;
        const int64_t k = (int64_t)A->labels.size();
        if (*n < k)
            fail(PSV_ERROR_INSUFFICIENT_SPACE, format("capacity %lld < %lld labels", (long long)*n, (long long)k));
        std::memcpy(labels, A->labels.data(), (size_t)k * sizeof(int64_t));
        *n = k;
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_write(const psv_matrix *A, const char *path) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_write", ctx, [&] {
        check(A, "A", ctx);
        need(path, "path");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        const MatrixStore &s = *A->store;
        const int64_t n = s.nvals;
        const size_t ts = type_size(s.type);
        std::vector<int64_t> rows((size_t)n), cols((size_t)n);
        std::vector<uint8_t> vals(s.pattern ? 0 : (size_t)n * ts);
        s.extract_tuples(rows.data(), cols.data(), s.pattern ? nullptr : vals.data());
        // CSR by a stable counting sort on the rows (tuples come row by row, columns sorted).
        CsrHost csr;
        csr.nrows = s.nrows;
        csr.ncols = s.ncols;
        csr.type = s.type;
        csr.pattern = s.pattern;
        csr.row_ptr.assign((size_t)s.nrows + 1, 0);
        for (int64_t k = 0; k < n; ++k) ++csr.row_ptr[(size_t)rows[k] + 1];
        for (int64_t i = 0; i < s.nrows; ++i) csr.row_ptr[i + 1] += csr.row_ptr[i];
        csr.col.resize((size_t)n);
        csr.values.resize(vals.size());
        std::vector<int64_t> next(csr.row_ptr.begin(), csr.row_ptr.end() - 1);
        for (int64_t k = 0; k < n; ++k) {
            const int64_t d = next[(size_t)rows[k]]++;
            csr.col[d] = (int32_t)cols[k];
            if (!s.pattern) std::memcpy(&csr.values[(size_t)d * ts], &vals[(size_t)k * ts], ts);
        }
        if (ranked(*ctx))  // rank 0 writes; its failure is every rank's
            dist::agree(ctx->parts, [&] {
                if (ctx->rank == 0) io::write_psv(csr, A->index_base, path);
            });
        else
            io::write_psv(csr, A->index_base, path);
        return PSV_SUCCESS;
    });
}

// Internal (api/internal.h, for the psv program): the id base of the file A was read from.
int32_t psv_internal_matrix_index_base(const psv_matrix *A) {
    if (!A || !registry_has(A, Kind::Matrix)) return 0;
    return A->index_base;
}

void psv_matrix_free(psv_matrix **A) {
    if (!A || !*A || !registry_has(*A, Kind::Matrix)) return;
    psv_matrix *m = *A;
    registry_remove(m);
    {
        std::lock_guard<std::recursive_mutex> g(m->ctx->mutex);
        m->magic = kMagicFreed;
        m->transpose.reset();
        m->store.reset();
    }
    delete m;
    *A = nullptr;
}

#define PSV_MATRIX_QUERY(NAME, TYPE, EXPR)                                   \
    psv_status NAME(const psv_matrix *A, TYPE *out) {                         \
        ContextCore *ctx = nullptr;                                           \
        return guard(#NAME, ctx, [&] {                                        \
            check(A, "A", ctx);                                               \
            need(out, "output");                                              \
            *out = (TYPE)(EXPR);                                              \
            return PSV_SUCCESS;                                               \
        });                                                                   \
    }
PSV_MATRIX_QUERY(psv_matrix_nrows, int64_t, A->store->nrows)
PSV_MATRIX_QUERY(psv_matrix_ncols, int64_t, A->store->ncols)
PSV_MATRIX_QUERY(psv_matrix_nvals, int64_t, A->store->nvals)
PSV_MATRIX_QUERY(psv_matrix_type, psv_type, A->store->type)
PSV_MATRIX_QUERY(psv_matrix_is_pattern, int32_t, A->store->pattern ? 1 : 0)
#undef PSV_MATRIX_QUERY

psv_status psv_matrix_extract_tuples(const psv_matrix *A, int64_t *rows, int64_t *cols, void *values,
                                     int64_t *n) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_extract_tuples", ctx, [&] {
        check(A, "A", ctx);
        need(n, "n");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (*n < A->store->nvals)
            fail(PSV_ERROR_INSUFFICIENT_SPACE, format("capacity %lld < %lld entries", (long long)*n, (long long)A->store->nvals));
        A->store->extract_tuples(rows, cols, values);
        *n = A->store->nvals;
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_set_option(psv_matrix *A, psv_option option, int64_t value) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_set_option", ctx, [&] {
        check(A, "A", ctx);
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_option(option, value);
        FormatOptions o = A->store->options;
        set_option(o, option, value);
        if (option == PSV_OPT_TRANSPOSE) {  // how A' products run: nothing to rebuild
            A->store->options = o;
            return PSV_SUCCESS;
        }
        A->store->rebuild(o);
        A->transpose.reset();
        return PSV_SUCCESS;
    });
}

psv_status psv_matrix_info_get(const psv_matrix *A, psv_matrix_info *info) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_info_get", ctx, [&] {
        check(A, "A", ctx);
        need(info, "info");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        psv_matrix_info tmp;
        A->store->info(tmp);
        if (A->transpose) tmp.device_bytes += A->transpose->device_bytes();  // cached by A' products
        if (tmp.plan_candidates < 2) tmp.runner_up_kernel = -1, tmp.runner_up_ms = 0;
        *info = tmp;
        return PSV_SUCCESS;
    });
}

const char *psv_matrix_plan(const psv_matrix *A, int32_t which) {
    if (!A || !registry_has(A, Kind::Matrix) || A->magic != kMagicMatrix || (which != 0 && which != 1)) return "";
    ContextCore *ctx = A->ctx.get();
    std::lock_guard<std::recursive_mutex> g(ctx->mutex);
    try {
        auto *m = const_cast<psv_matrix *>(A);
        m->plan_text[which] = A->store->plan_text(which);
        return m->plan_text[which].c_str();
    } catch (...) {
        return "";
    }
}

psv_status psv_matrix_tile_info(const psv_matrix *A, int32_t tile, psv_tile_info *info) {
    ContextCore *ctx = nullptr;
    return guard("psv_matrix_tile_info", ctx, [&] {
        check(A, "A", ctx);
        need(info, "info");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        if (tile < 0 || tile >= A->store->tile_count())
            fail(PSV_ERROR_INVALID_INDEX, format("tile %d of %d", (int)tile, (int)A->store->tile_count()));
        psv_tile_info tmp;
        A->store->tile_info(tile, tmp);
        *info = tmp;
        return PSV_SUCCESS;
    });
}

}  // extern "C"

// The internal partitioned build from delivered chunks (dist/chunks.hpp).
psv_status psv::dist::matrix_from_chunks(psv_context *c, psv_type type, int64_t nrows, int64_t ncols, bool pattern,
                                         const std::vector<ChunkSource> &sources, psv_matrix **A) {
    ContextCore *ctx = nullptr;
    return guard("matrix_from_chunks", ctx, [&] {
        ctx = check_context(c, "ctx");
        need(A, "A");
        std::lock_guard<std::recursive_mutex> g(ctx->mutex);
        check_shape(type, nrows, ncols);
        const size_t nparts = ctx->multi() ? ctx->parts.size() : 1;
        if (sources.size() != nparts) fail(PSV_ERROR_INVALID_VALUE, format("%zu sources for %zu parts", sources.size(), nparts));
        auto m = std::make_unique<psv_matrix_s>();
        m->ctx = c->core;
        if (ctx->multi()) {
            m->store = dist::build_from_chunks(ctx->parts, nrows, ncols, type, pattern, sources, ctx->defaults);
        } else {  // one part: its local block is the whole matrix (every column local, rows in order)
            PartSet one;
            one.part.push_back(Part{ctx->backend.get(), ctx->steps.get()});
            one.comm = dist::local_comm(1);
            m->store = std::move(dist::build_from_chunks(one, nrows, ncols, type, pattern, sources, ctx->defaults)->blocks[0].local);
        }
        registry_add(m.get(), Kind::Matrix);
        *A = m.release();
        return PSV_SUCCESS;
    });
}
