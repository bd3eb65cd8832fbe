// The CPU backend's classes (implemented in cpu_backend.cpp and cpu_graph.cpp; its algorithm
// steps in cpu_steps.cpp).
#pragma once
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/ops.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace psv {
namespace cpu {

constexpr int64_t kChunk = 8192;  // reduction chunk: fixed, so sums are thread-count independent
// Bytes per entry (plus 3 per value byte) that bound build_tile_composite's peak: the most it
// reported per entry (41.7 on 50 M uniform random tuples: a row segment per entry), with a margin
// (docs/design.md, section 5).
constexpr int64_t kFormBoundPerEntry = 48;

class CpuBackend;

// What psv_matrix_info and psv_matrix_tile_info say of a tile-composite form.
struct FormDescription {
    bool present = false;  // false: no form (the CSR kernel, and none would fit to describe)
    psv_matrix_info info{};  // the form's fields only
    std::vector<psv_tile_info> tiles;
};

class CpuMatrix final : public MatrixStore {
public:
    CpuMatrix(const CpuBackend *be, CsrHost &&csr) : be_(be), csr(std::move(csr)) {
        nrows = this->csr.nrows;
        ncols = this->csr.ncols;
        nvals = this->csr.nvals();
        type = this->csr.type;
        pattern = this->csr.pattern;
        empty_rows = 0;
        for (int64_t i = 0; i < nrows; ++i)
            empty_rows += this->csr.row_ptr[i + 1] == this->csr.row_ptr[i];
        csr_peak_ = this->csr.build_peak > 0 ? this->csr.build_peak : this->csr.bytes();
    }
    // The kernel and form opt asks for: CSR (and TILE-COO and STREAM, GPU kernels) keep the CSR
    // alone; TILE_COMPOSITE builds the form (PSV_ERROR_OUT_OF_MEMORY where its construction
    // would not fit the memory budget); AUTO builds it where it fits, else runs the CSR kernel.
    void rebuild(const FormatOptions &opt) override;
    void info(psv_matrix_info &out) const override;
    // Its CSR and the tile-composite form where it keeps one.
    int64_t device_bytes() const override { return csr.bytes() + (form_held() ? form.bytes() : 0); }
    int32_t tile_count() const override { return (int32_t)description().tiles.size(); }
    void tile_info(int32_t tile, psv_tile_info &out) const override { out = description().tiles[(size_t)tile]; }
    void extract_tuples(int64_t *rows, int64_t *cols, void *values) const override;
    void inverse_row_lengths(float *out) const override {
        const int64_t *rp = csr.row_ptr.data();
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < nrows; ++i) {
            const int64_t l = rp[i + 1] - rp[i];
            out[i] = l ? 1.0f / (float)l : 0.0f;
        }
    }
    std::unique_ptr<MatrixStore> transposed() const override;
    std::unique_ptr<MatrixStore> symmetric_pattern() const override;
    // The plan psv_mxv runs: the tile-composite form's shape, or the CSR loop and why; the CPU
    // has no model, so no runner-up (which 1: "").
    std::string plan_text(int32_t which) const override;
    bool form_held() const { return kernel == PSV_KERNEL_TILE_COMPOSITE; }

    const CpuBackend *be_;
    CsrHost csr;
    TileComposite form;  // empty unless the kernel is TILE_COMPOSITE
    psv_kernel kernel = PSV_KERNEL_TILE_COMPOSITE;
    double build_seconds = 0;
    int64_t peak_bytes = 0;  // the most bytes held at once by the latest construction

private:
    // The form kept, or one built to describe it where it fits the memory budget (kept as its
    // description only), or none.
    const FormDescription &description() const;
    int64_t csr_peak_ = 0;  // the CSR's own construction: counted by the first rebuild
    mutable bool described_ = false;
    mutable FormDescription description_;
    mutable int64_t max_col_length_ = -1;
};

class CpuBackend final : public Backend {
public:
    psv_backend kind() const override { return PSV_BACKEND_CPU; }
    std::string device_name() const override {
#ifdef _OPENMP
        return format("CPU (OpenMP, %d threads)", omp_get_max_threads());
#else
        return "CPU (1 thread)";
#endif
    }
    void *allocate(size_t bytes) override {
        void *p = std::malloc(bytes ? bytes : 1);
        if (!p) fail(PSV_ERROR_OUT_OF_MEMORY, format("out of host memory (%zu bytes)", bytes));
        return p;
    }
    void deallocate(void *p) noexcept override { std::free(p); }
    void upload(void *dst, const void *src, size_t bytes) override { if (bytes) std::memcpy(dst, src, bytes); }
    void download(void *dst, const void *src, size_t bytes) override { if (bytes) std::memcpy(dst, src, bytes); }
    void copy(void *dst, const void *src, size_t bytes) override { if (bytes) std::memmove(dst, src, bytes); }
    void set_bytes(void *dst, int value, size_t bytes) override { if (bytes) std::memset(dst, value, bytes); }
    void copy_from_device_pointer(void *, const void *, size_t) override {
        fail(PSV_ERROR_BACKEND_UNAVAILABLE, "device pointers need a CUDA context; this one is CPU");
    }
    void copy_to_device_pointer(void *, const void *, size_t) override {
        fail(PSV_ERROR_BACKEND_UNAVAILABLE, "device pointers need a CUDA context; this one is CPU");
    }
    // A tile's slice of x should stay in a core's L2: 16 K columns (64 KB of fp32).
    int64_t default_tile_width(size_t value_bytes) const override {
        return value_bytes > 4 ? 8192 : 16384;
    }
    PerfModel perf_model() const override {
        PerfModel m;
#ifdef _OPENMP
        m.max_active_warps = 32 * omp_get_max_threads();
#else
        m.max_active_warps = 32;
#endif
        m.workload_cost = default_workload_cost;
        return m;
    }

    std::unique_ptr<MatrixStore> build_matrix(CsrHost &&csr, const FormatOptions &opt) override {
        auto M = std::make_unique<CpuMatrix>(this, std::move(csr));
        M->rebuild(opt);
        return M;
    }

    std::unique_ptr<ShareBuilder> share_builder(int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                int32_t nparts, int64_t count) override;  // cpu_share.cpp

    void fill(psv_type type, int64_t n, void *x, const void *value) override;
    void ewise(psv_op op, psv_type type, int64_t n, void *w, uint8_t *wp, const void *u,
               const uint8_t *up, const void *v, const uint8_t *vp) override;
    void apply(psv_op op, psv_type type, int64_t n, void *w, const void *u,
               const void *scalar) override;
    void reduce(psv_op monoid, psv_type type, int64_t n, const void *x, const uint8_t *xp,
                void *result) override;
    int64_t count_present(int64_t n, const uint8_t *p) override {
        if (!p) return n;
        int64_t c = 0;
#pragma omp parallel for reduction(+ : c) schedule(static)
        for (int64_t i = 0; i < n; ++i) c += p[i] != 0;
        return c;
    }
    void spmv(const SpmvArgs &a) override;
    void assign(const AssignArgs &a) override;
    void spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) override;
    void pattern_product_transposed(const MatrixStore &A, const float *u, float *t) override;
};


// Sum f(i) over [0, n) in double, in fixed chunks combined in order (thread-count independent).
template <class F> double chunked_sum(int64_t n, F &&f) {
    const int64_t nchunks = (n + kChunk - 1) / kChunk;
    std::vector<double> part((size_t)nchunks, 0.0);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < nchunks; ++c) {
        double s = 0;
        const int64_t end = std::min(n, (c + 1) * kChunk);
        for (int64_t i = c * kChunk; i < end; ++i) s += f(i);
        part[c] = s;
    }
    double s = 0;
    for (double p : part) s += p;
    return s;
}

}  // namespace cpu
}  // namespace psv
