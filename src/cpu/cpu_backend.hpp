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

class CpuBackend;

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
    }
    void rebuild(const FormatOptions &opt) override;
    void info(psv_matrix_info &out) const override;
    // Its CSR and its tile-composite form (kept whatever the kernel: both run on the host).
    int64_t device_bytes() const override {
        return (int64_t)(csr.row_ptr.size() * sizeof(int64_t) + csr.col.size() * sizeof(int32_t) +
                         csr.values.size()) + form.bytes();
    }
    int32_t tile_count() const override { return (int32_t)form.tiles.size(); }
    void tile_info(int32_t tile, psv_tile_info &out) const override;
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

    const CpuBackend *be_;
    CsrHost csr;
    TileComposite form;
    psv_kernel kernel = PSV_KERNEL_TILE_COMPOSITE;
    double build_seconds = 0;
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
