// The CPU backend: OpenMP kernels over host memory. It executes the tile-composite form directly
// (so CI verifies the format) where the form fits the memory budget, and plain CSR where asked,
// where the form does not fit, or where u has absent entries.
// Every reduction runs over fixed-size chunks combined in order, so results do not depend on the
// number of threads.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/assign.hpp"
#include "core/clock.hpp"
#include "core/csr_build.hpp"
#include "core/kernels.h"
#include "cpu/cpu_backend.hpp"

namespace psv {
namespace cpu {

// ---- matrices ---------------------------------------------------------------------------------

namespace {

// The kernels only the CUDA backend has: the CPU runs its CSR loop for them (same results within
// the determinism contract).
bool gpu_only_kernel(psv_kernel k) {
    return k == PSV_KERNEL_TILE_COO || k == PSV_KERNEL_STREAM || k == PSV_KERNEL_SELL;
}

// An upper bound of the bytes build_tile_composite holds at once for A (its ranking, buckets,
// row segments, padded tiles and their concatenation), from the peaks it reports
// (docs/design.md, section 5), so that AUTO can decide before building.
int64_t form_build_bound(const CsrHost &A) {
    const int64_t vs = A.pattern ? 0 : (int64_t)type_size(A.type);
    return 32 * A.ncols + 8 * A.nrows + (kFormBoundPerEntry + 3 * vs) * A.nvals();
}

// The memory a form's construction may take: the options' budget; else, for AUTO's choice, half
// of the machine's memory (a constant, so that AUTO picks the same kernel, and so gives the same
// results, run to run whatever else the machine holds), and for a form asked for by name (or one
// built to be described) the host memory left. 0: unknown (every form fits).
uint64_t form_budget(const FormatOptions &opt, bool auto_choice) {
    if (opt.memory_budget > 0) return (uint64_t)opt.memory_budget;
    return auto_choice ? host_memory_total() / 2 : host_memory_left();
}

bool form_fits(const CsrHost &A, const FormatOptions &opt, bool auto_choice) {
    const uint64_t budget = form_budget(opt, auto_choice);
    return budget == 0 || (uint64_t)form_build_bound(A) <= budget;
}

FormDescription describe_form(const TileComposite &F) {
    FormDescription d;
    d.present = true;
    psv_matrix_info &o = d.info;
    std::memset(&o, 0, sizeof o);
    o.tile_width = F.tile_width;
    o.dense_tiles = F.dense_tiles;
    o.sparse_tile = (int32_t)F.tiles.size() > F.dense_tiles;
    o.dense_columns = (int64_t)F.dense_tiles * F.tile_width;
    d.tiles.resize(F.tiles.size());
    for (size_t k = 0; k < F.tiles.size(); ++k) {
        const Tile &t = F.tiles[k];
        psv_tile_info &ti = d.tiles[k];
        fill_tile_info(t, ti);
        for (int64_t w = t.wl_begin; w < t.wl_end; ++w) ti.row_major_workloads += F.workloads[w].layout == kRowMajor;
        if (!t.is_sparse) o.dense_nvals += t.nvals;
        o.row_major_workloads += ti.row_major_workloads;
    }
    o.workloads = (int64_t)F.workloads.size();
    o.stored_entries = F.stored_entries();
    o.padding_ratio = F.nvals ? (double)o.stored_entries / (double)F.nvals : 1.0;
    o.bytes = F.bytes();
    o.workload_size = F.tiles.empty() ? 0 : F.tiles[0].workload_size;
    return d;
}

TileComposite make_form(const CpuBackend &be, const CsrHost &A, const FormatOptions &opt) {
    const size_t vb = A.pattern ? 4 : type_size(A.type);
    const int64_t tw = opt.tile_width > 0 ? opt.tile_width : be.default_tile_width(vb);
    return build_tile_composite(A, tw, opt.max_tiles, opt.workload_size, be.perf_model());
}

}  // namespace

void CpuMatrix::rebuild(const FormatOptions &opt) {
    auto t0 = std::chrono::steady_clock::now();
    // TILE-COO, STREAM and SELL are GPU kernels; the CPU runs its CSR loop for them.
    bool with_form = !(opt.kernel == PSV_KERNEL_CSR || gpu_only_kernel(opt.kernel));
    const bool auto_choice = opt.kernel != PSV_KERNEL_TILE_COMPOSITE;
    if (with_form && !form_fits(csr, opt, auto_choice)) {
        if (!auto_choice)
            fail(PSV_ERROR_OUT_OF_MEMORY,
                 format("the tile-composite form of %lld entries needs up to %.1f GB of host memory to build, "
                        "more than the %.1f GB available",
                        (long long)nvals, (double)form_build_bound(csr) / 1e9,
                        (double)form_budget(opt, false) / 1e9));
        with_form = false;  // AUTO: the CSR kernel, which needs nothing beyond the CSR
    }
    MemoryMeter meter;
    const int64_t old_form = form_held() ? form.bytes() : 0;
    meter.hold(csr.bytes() + old_form);
    TileComposite f;
    if (with_form) {
        if (opt.progress && nvals > 20000000)
            std::fprintf(stderr, "psv: building tile-composite form of %lld entries...\n", (long long)nvals);
        f = make_form(*be_, csr, opt);
        meter.hold(f.build_peak);
    }
    // nothing below throws: a failure above leaves the matrix as it was
    form = std::move(f);
    kernel = with_form ? PSV_KERNEL_TILE_COMPOSITE : PSV_KERNEL_CSR;
    options = opt;
    described_ = false;
    description_ = FormDescription();
    peak_bytes = std::max(csr_peak_, meter.peak);
    csr_peak_ = 0;
    host_memory_held(form.bytes() - old_form);
    build_seconds = seconds_since(t0);
    if (opt.progress && build_seconds > 1.0 && with_form)
        std::fprintf(stderr, "psv: built in %.2f s (%d dense tiles, %zu workloads)\n", build_seconds,
                     form.dense_tiles, form.workloads.size());
}

const FormDescription &CpuMatrix::description() const {
    if (described_) return description_;
    if (form_held()) {
        description_ = describe_form(form);
    } else if (form_fits(csr, options, false)) {
        description_ = describe_form(make_form(*be_, csr, options));  // built, described, released
    } else {
        description_ = FormDescription();
    }
    described_ = true;
    return description_;
}

void CpuMatrix::info(psv_matrix_info &o) const {
    const FormDescription &d = description();
    if (d.present) o = d.info;
    else std::memset(&o, 0, sizeof o);
    o.nrows = nrows;
    o.ncols = ncols;
    o.nvals = nvals;
    o.kernel = kernel;
    o.backend = PSV_BACKEND_CPU;
    int64_t maxr = 0;
    for (int64_t i = 0; i < nrows; ++i) maxr = std::max(maxr, csr.row_ptr[i + 1] - csr.row_ptr[i]);
    o.max_row_length = (int32_t)maxr;
    if (max_col_length_ < 0) {
        std::vector<int64_t> cl((size_t)ncols, 0);
        for (int64_t e = 0; e < nvals; ++e) cl[(size_t)csr.col[e]]++;
        max_col_length_ = ncols ? *std::max_element(cl.begin(), cl.end()) : 0;
    }
    o.max_col_length = (int32_t)max_col_length_;
    o.build_seconds = build_seconds;
    o.device_bytes = device_bytes();
    o.peak_bytes = peak_bytes;
}

std::string CpuMatrix::plan_text(int32_t which) const {
    if (which != 0) return std::string();
    if (form_held()) {
        const bool sparse = (int32_t)form.tiles.size() > form.dense_tiles;
        return format("tile-composite kernel, tile width %lld, %d dense tiles%s, workload size %lld (first tile)",
                      (long long)form.tile_width, form.dense_tiles, sparse ? " and a sparse one" : "",
                      (long long)(form.tiles.empty() ? 0 : form.tiles[0].workload_size));
    }
    // TILE-COO, STREAM and SELL are GPU kernels (rebuild); AUTO fell back where the form did not fit
    if (gpu_only_kernel(options.kernel))
        return format("CSR loop (%s is a CUDA kernel)", psv_kernel_name(options.kernel));
    if (options.kernel == PSV_KERNEL_AUTO)
        return "CSR loop (building the tile-composite form would not fit its memory budget, half of the host memory)";
    return "CSR loop";
}

void CpuMatrix::extract_tuples(int64_t *rows, int64_t *cols, void *values) const {
    const size_t vs = type_size(type);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < nrows; ++i) {
        for (int64_t e = csr.row_ptr[i]; e < csr.row_ptr[i + 1]; ++e) {
            if (rows) rows[e] = i;
            if (cols) cols[e] = csr.col[e];
            if (values) {
                uint8_t *dst = static_cast<uint8_t *>(values) + e * vs;
                if (pattern) {
                    dispatch_type(type, [&](auto tag) {
                        using T = typename decltype(tag)::type;
                        T one = 1;
                        std::memcpy(dst, &one, vs);
                    });
                } else {
                    std::memcpy(dst, &csr.values[e * vs], vs);
                }
            }
        }
    }
}

std::unique_ptr<MatrixStore> CpuMatrix::transposed() const {
    // The transpose's CSR (row_ptr and placement cursors per column, the entries again) must fit
    // the memory left: on Linux an allocation beyond it succeeds and the process is killed later.
    const double need = 16.0 * (double)(ncols + 1) + (double)nvals * (double)(4 + (pattern ? 0 : type_size(type)));
    const uint64_t avail = host_memory_left();
    if (avail != 0 && need > (double)avail)
        fail(PSV_ERROR_OUT_OF_MEMORY,
             format("A' (PSV_DESC_TRANSPOSE_A, PageRank, HITS) needs %.1f GB of host memory to build, more than "
                    "the %.1f GB available",
                    need / 1e9, (double)avail / 1e9));
    auto T = std::make_unique<CpuMatrix>(be_, transpose(csr));
    T->rebuild(options);
    return T;
}

std::unique_ptr<MatrixStore> CpuMatrix::symmetric_pattern() const {
    if (nrows != ncols) fail(PSV_ERROR_DIMENSION_MISMATCH, "the pattern of A + A' needs a square matrix");
    const int64_t nnz = nvals;
    std::vector<int64_t> rows((size_t)(2 * nnz)), cols((size_t)(2 * nnz));
    for (int64_t i = 0; i < nrows; ++i)
        for (int64_t e = csr.row_ptr[i]; e < csr.row_ptr[i + 1]; ++e) {
            rows[e] = cols[nnz + e] = i;
            cols[e] = rows[nnz + e] = csr.col[e];
        }
    auto S = std::make_unique<CpuMatrix>(be_, build_csr(nrows, ncols, 2 * nnz, rows.data(), cols.data(), nullptr, PSV_FP32, PSV_NOOP));
    S->rebuild(options);
    return S;
}

// ---- products ---------------------------------------------------------------------------------

template <class S>
void spmv_csr(const CsrHost &A, const typename S::value_type *u, const uint8_t *up,
              typename S::value_type *t, uint8_t *tp) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    const T *av = A.pattern || S::ignores_matrix ? nullptr : reinterpret_cast<const T *>(A.values.data());
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = 0; i < A.nrows; ++i) {
        Acc acc = (Acc)S::identity();
        bool any = false;
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
            const int32_t j = A.col[e];
            if (up && !up[j]) continue;
            const T a = av ? av[e] : T(1);
            acc = S::acc_add(acc, (Acc)S::mul(a, u[j]));
            any = true;
        }
        t[i] = (T)acc;
        if (tp) tp[i] = any;
    }
}

template <class S, class Index>
void run_workloads(const TileComposite &F, const Tile &tile, const Index *cols,
                   const typename S::value_type *xr, typename S::value_type *t) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    const T *vals = F.pattern || S::ignores_matrix ? nullptr : reinterpret_cast<const T *>(F.values.data());
    const Index pad = (Index)~Index(0);
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t wi = tile.wl_begin; wi < tile.wl_end; ++wi) {
        const Workload &W = F.workloads[wi];
        const int64_t local = W.entry_begin - tile.entry_begin;
        for (int32_t q = 0; q < W.height; ++q) {
            Acc acc = (Acc)S::identity();
            for (int32_t k = 0; k < W.width; ++k) {
                const int64_t pos = W.layout == kRowMajor ? (int64_t)q * W.stride + k : (int64_t)k * W.stride + q;
                const Index c = cols[local + pos];
                if (c == pad) break;  // a row's padding follows its entries
                const T a = vals ? vals[W.entry_begin + pos] : T(1);
                acc = S::acc_add(acc, (Acc)S::mul(a, xr[c]));
            }
            const int32_t row = F.row_ids[W.row_begin + q];
            t[row] = S::add(t[row], (T)acc);
        }
    }
}

template <class S>
void spmv_tile_composite(const CpuMatrix &M, const typename S::value_type *u,
                         typename S::value_type *t, uint8_t *tp) {
    using T = typename S::value_type;
    const TileComposite &F = M.form;
    std::vector<T> xr((size_t)F.ncols);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < F.ncols; ++k) xr[k] = u[F.col_order[k]];
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < F.nrows; ++i) {
        t[i] = S::identity();
        if (tp) tp[i] = M.csr.row_ptr[i + 1] > M.csr.row_ptr[i];
    }
    // Tiles run one after another: each row appears once per tile, so no two workloads of a
    // launch touch the same t(i), and the order of the tile sums is fixed (deterministic).
    for (const Tile &tile : F.tiles) {
        const T *x = xr.data() + tile.col_begin;
        if (tile.index_bits == 16)
            run_workloads<S>(F, tile, F.col16.data() + tile.index_offset, x, t);
        else
            run_workloads<S>(F, tile, F.col32.data() + tile.index_offset, x, t);
    }
}

void CpuBackend::spmv(const SpmvArgs &a) {
    const CpuMatrix &M = static_cast<const CpuMatrix &>(*a.A);
    dispatch_semiring(a.add, a.mul, a.type, [&](auto s) {
        using S = decltype(s);
        using T = typename S::value_type;
        const T *u = static_cast<const T *>(a.u);
        T *t = static_cast<T *>(a.t);
        if (a.u_present || M.kernel == PSV_KERNEL_CSR)
            spmv_csr<S>(M.csr, u, a.u_present, t, a.t_present);
        else
            spmv_tile_composite<S>(M, u, t, a.t_present);
    });
}

template <class Op> struct CompiledAccum {
    template <class T> T operator()(T x, T y) const { return Op::apply(x, y); }
};

void CpuBackend::assign(const AssignArgs &a) {
    dispatch_type(a.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        auto body = [&](auto accum) {
            T *w = static_cast<T *>(a.w);
            const T *t = static_cast<const T *>(a.t);
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < a.n; ++i) assign_entry(a, i, w, t, accum);
        };
        if (a.accum == PSV_NOOP)
            body(CompiledAccum<BinaryOp<PSV_FIRST, T>>{});  // never called without an accumulator
        else
            dispatch_binary_op<T>(a.accum, [&](auto op) { body(CompiledAccum<decltype(op)>{}); });
    });
}

// ---- vectors ----------------------------------------------------------------------------------

void CpuBackend::fill(psv_type type, int64_t n, void *x, const void *value) {
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v;
        std::memcpy(&v, value, sizeof(T));
        T *p = static_cast<T *>(x);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; ++i) p[i] = v;
    });
}

void CpuBackend::ewise(psv_op op, psv_type type, int64_t n, void *wv, uint8_t *wp, const void *uv,
                       const uint8_t *up, const void *vv, const uint8_t *vp) {
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        dispatch_binary_op<T>(canonical_op(op, type), [&](auto f) {
            using Op = decltype(f);
            T *w = static_cast<T *>(wv);
            const T *u = static_cast<const T *>(uv);
            const T *v = static_cast<const T *>(vv);
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < n; ++i) {
                const bool p = (!up || up[i]) && (!vp || vp[i]);
                if (p) w[i] = Op::apply(u[i], v[i]);
                if (up || vp) wp[i] = p;
            }
        });
    });
}

void CpuBackend::apply(psv_op op, psv_type type, int64_t n, void *wv, const void *uv,
                       const void *scalar) {
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T s;
        std::memcpy(&s, scalar, sizeof(T));
        dispatch_binary_op<T>(canonical_op(op, type), [&](auto f) {
            using Op = decltype(f);
            T *w = static_cast<T *>(wv);
            const T *u = static_cast<const T *>(uv);
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < n; ++i) w[i] = Op::apply(u[i], s);
        });
    });
}

void CpuBackend::reduce(psv_op monoid, psv_type type, int64_t n, const void *xv, const uint8_t *xp,
                        void *result) {
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        dispatch_monoid<T>(canonical_op(monoid, type), [&](auto f) {
            using Op = decltype(f);
            const T id = MonoidIdentity<Op::code, T>::value();
            const T *x = static_cast<const T *>(xv);
            const int64_t nchunks = (n + kChunk - 1) / kChunk;
            std::vector<T> part((size_t)nchunks, id);
#pragma omp parallel for schedule(static)
            for (int64_t c = 0; c < nchunks; ++c) {
                T acc = id;
                const int64_t end = std::min(n, (c + 1) * kChunk);
                for (int64_t i = c * kChunk; i < end; ++i)
                    if (!xp || xp[i]) acc = Op::apply(acc, x[i]);
                part[c] = acc;
            }
            T acc = id;
            for (T p : part) acc = Op::apply(acc, p);
            std::memcpy(result, &acc, sizeof(T));
        });
    });
}

}  // namespace cpu

std::unique_ptr<Backend> create_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace psv
