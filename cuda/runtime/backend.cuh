// The CUDA backend's context: a device, a stream, a caching device-memory pool and the tuning
// policy chosen for the device. Its matrices (cuda/build/matrix.cuh) live in device memory as CSR
// plus what their kernel reads: the CSR chunk plan, or the tile-composite form (and the TILE-COO
// form when that kernel is chosen).
//
// Determinism: every result is bit-for-bit reproducible run to run on the same device.
//  - SpMV: column tiles are launched one after another on the context's stream; tile t's launch
//    combines its partial into t(i) (t(i) = add(t(i), partial)), and a row appears once per tile,
//    so no two warps of a launch touch the same output and the order of tile sums is fixed.
//    Within a row the warp reduction is a fixed butterfly (row-major workloads) or a sequential
//    loop (column-major workloads, CSR-vector rows use a fixed butterfly too). The CSR chunk
//    kernel sums a chunk's row pieces in fixed orders and a long row's piece slots in slot order
//    (an integer counter picks which warp does it, not the order). No float atomics.
//  - Reductions (reduce, sum, PageRank's dangling sum and L1 difference, normalize, RWR) use a
//    fixed grid for a given n, fixed per-block trees, and a final in-order pass over the block
//    partials: the result does not depend on scheduling. Integer atomics are used only for
//    counts (exact).
// Results agree with the CPU backend exactly for integer and boolean semirings, and within
// floating-point rounding for float ones (the summation order differs).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/ops.hpp"
#include "cuda/runtime/check.cuh"
#include "cuda/runtime/pool.hpp"
#include "cuda/tuning/policy.hpp"
#include "tuning/model.hpp"

namespace psv {
namespace cuda {

class CudaMatrix;

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int32_t device);
    ~CudaBackend() override;
    psv_backend kind() const override { return PSV_BACKEND_CUDA; }
    std::string device_name() const override { return name_; }

    void *allocate(size_t bytes) override;
    void deallocate(void *p) noexcept override;
    void upload(void *dst, const void *src_host, size_t bytes) override;
    void download(void *dst_host, const void *src, size_t bytes) override;
    void copy(void *dst, const void *src, size_t bytes) override;
    void set_bytes(void *dst, int value, size_t bytes) override;
    void copy_from_device_pointer(void *dst, const void *src_device, size_t bytes) override;
    void copy_to_device_pointer(void *dst_device, const void *src, size_t bytes) override;

    int64_t default_tile_width(size_t value_bytes) const override;
    int64_t default_max_tiles() const override { return policy_.default_max_tiles; }
    PerfModel perf_model() const override;
    TuningState tuning() const override;                                             // tuning/tune.cu
    void tune(const std::string &path, int32_t effort, bool progress) override;      // tuning/tune.cu
    // The performance model's table (nullptr: none; AUTO follows the rules), and its
    // replacement (tests inject tables).
    const tuning::Table *tuning_table() const { return tuning_.source == tuning::Source::None ? nullptr : &tuning_.table; }
    void set_tuning(tuning::Loaded t) { tuning_ = std::move(t); }

    std::unique_ptr<MatrixStore> build_matrix(CsrHost &&csr, const FormatOptions &opt) override;
    std::unique_ptr<ShareBuilder> share_builder(int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                int32_t nparts, int64_t count) override;  // build/share.cu

    void fill(psv_type type, int64_t n, void *x, const void *value_host) override;
    void ewise(psv_op op, psv_type type, int64_t n, void *w, uint8_t *w_present, const void *u,
               const uint8_t *u_present, const void *v, const uint8_t *v_present) override;
    void apply(psv_op op, psv_type type, int64_t n, void *w, const void *u,
               const void *scalar_host) override;
    void reduce(psv_op monoid, psv_type type, int64_t n, const void *x, const uint8_t *x_present,
                void *result_host) override;
    int64_t count_present(int64_t n, const uint8_t *present) override;
    void spmv(const SpmvArgs &a) override;
    void assign(const AssignArgs &a) override;
    void spmm_pattern(const MatrixStore &A, int32_t k, const float *U, float *T) override;
    void pattern_product_transposed(const MatrixStore &A, const float *u, float *t) override;  // spmv/push.cu
    bool transpose_fits(const MatrixStore &A) const override;  // runtime/backend.cu

    // ---- internal ----
    void activate() const;  // cudaSetDevice
    int32_t device() const { return device_; }
    void sync();
    cudaStream_t stream() const { return stream_; }
    int sm_count() const { return traits_.sms; }
    size_t smem_optin() const { return traits_.smem_optin; }
    const DeviceTraits &traits() const { return traits_; }
    // The policy that matrices built or re-planned from now on follow; a new one also
    // reconfigures the pool (its cache limit, or no cache at all).
    const Policy &policy() const { return policy_; }
    void set_policy(const Policy &p);
    DevicePool &pool() { return *pool_; }
    // Scratch of the one-lane deterministic reductions (allocated with the context, so a
    // reduction allocates nothing): kReduceMaxBlocks partials of 8 bytes, one zeroed counter.
    void *reduce_partials() const { return red_partials_.get(); }
    unsigned *reduce_counter() const { return red_counter_.as<unsigned>(); }
    // Build a matrix whose CSR already lies in device memory (the arrays are copied).
    // (cuda/build/matrix.cu)
    std::unique_ptr<CudaMatrix> build_from_device_csr(int64_t nrows, int64_t ncols, psv_type type,
                                                      bool pattern, const int64_t *row_ptr,
                                                      const int32_t *col, const void *values,
                                                      const FormatOptions &opt);
    // CUB's two-phase temp storage: f(nullptr, bytes) sizes it, f(ptr, bytes) runs.
    template <class F> void cub_call(F &&f) {
        size_t bytes = 0;
        PSV_CUDA_CHECK(f((void *)nullptr, bytes));
        Buffer tmp(this, bytes ? bytes : 1);
        PSV_CUDA_CHECK(f(tmp.get(), bytes));
    }

private:
    int32_t device_ = 0;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<DevicePool> pool_;
    std::string name_;
    DeviceTraits traits_;
    Policy policy_;
    tuning::Loaded tuning_;  // the table found for this device at creation, or made by tune()
    Buffer red_partials_, red_counter_;  // after pool_: released before it
};

}  // namespace cuda
}  // namespace psv
