// The CPU backend: OpenMP kernels over host memory. It executes the tile-composite form directly
// (so CI verifies the format), and plain CSR where asked or where u has absent entries.
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
#include "core/csr_build.hpp"
#include "cpu/cpu_backend.hpp"

namespace psv {
namespace cpu {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- matrices ---------------------------------------------------------------------------------

void CpuMatrix::rebuild(const FormatOptions &opt) {
    auto t0 = std::chrono::steady_clock::now();
    const size_t vb = pattern ? 4 : type_size(type);
    const int64_t tw = opt.tile_width > 0 ? opt.tile_width : be_->default_tile_width(vb);
    if (opt.progress && nvals > 20000000)
        std::fprintf(stderr, "psv: building tile-composite form of %lld entries...\n", (long long)nvals);
    TileComposite f = build_tile_composite(csr, tw, opt.max_tiles, opt.workload_size, be_->perf_model());
    form = std::move(f);
    options = opt;
    // TILE-COO and STREAM are GPU kernels; the CPU runs its CSR loop for them.
    kernel = (opt.kernel == PSV_KERNEL_CSR || opt.kernel == PSV_KERNEL_TILE_COO || opt.kernel == PSV_KERNEL_STREAM)
                 ? PSV_KERNEL_CSR
                 : PSV_KERNEL_TILE_COMPOSITE;
    build_seconds = seconds_since(t0);
    if (opt.progress && build_seconds > 1.0)
        std::fprintf(stderr, "psv: built in %.2f s (%d dense tiles, %zu workloads)\n", build_seconds,
                     form.dense_tiles, form.workloads.size());
}

void CpuMatrix::info(psv_matrix_info &o) const {
    std::memset(&o, 0, sizeof o);
    o.nrows = nrows;
    o.ncols = ncols;
    o.nvals = nvals;
    o.tile_width = form.tile_width;
    o.dense_tiles = form.dense_tiles;
    o.sparse_tile = (int32_t)form.tiles.size() > form.dense_tiles;
    o.dense_columns = (int64_t)form.dense_tiles * form.tile_width;
    for (const Tile &t : form.tiles) {
        if (!t.is_sparse) o.dense_nvals += t.nvals;
        for (int64_t w = t.wl_begin; w < t.wl_end; ++w) o.row_major_workloads += form.workloads[w].layout == kRowMajor;
    }
    o.workloads = (int64_t)form.workloads.size();
    o.stored_entries = form.stored_entries();
    o.padding_ratio = nvals ? (double)o.stored_entries / (double)nvals : 1.0;
    o.bytes = form.bytes();
    o.workload_size = form.tiles.empty() ? 0 : form.tiles[0].workload_size;
    o.kernel = kernel;
    o.backend = PSV_BACKEND_CPU;
    int64_t maxr = 0;
    std::vector<int64_t> cl((size_t)ncols, 0);
    for (int64_t i = 0; i < nrows; ++i) maxr = std::max(maxr, csr.row_ptr[i + 1] - csr.row_ptr[i]);
    o.max_row_length = (int32_t)maxr;
    o.max_col_length = 0;
    if (!form.col_order.empty()) {
        for (int64_t e = 0; e < nvals; ++e) cl[csr.col[e]]++;
        o.max_col_length = (int32_t)cl[form.col_order[0]];
    }
    o.build_seconds = build_seconds;
    o.device_bytes = device_bytes();
}

void CpuMatrix::tile_info(int32_t tile, psv_tile_info &o) const {
    const Tile &t = form.tiles[tile];
    fill_tile_info(t, o);
    for (int64_t w = t.wl_begin; w < t.wl_end; ++w) o.row_major_workloads += form.workloads[w].layout == kRowMajor;
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
