// Built where the CUDA backend is not (Ginkgo's device hooks): the entry points exist and say so.
#include "core/algo_steps.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "cuda/internal.hpp"

namespace psv {

bool cuda_backend_available() { return false; }

std::unique_ptr<Backend> create_cuda_backend(int32_t) {
    fail(PSV_ERROR_BACKEND_UNAVAILABLE, "this build of psv has no CUDA backend (configured without nvcc)");
}

namespace cuda {

[[noreturn]] static void unavailable() {
    fail(PSV_ERROR_BACKEND_UNAVAILABLE, "this build of psv has no CUDA backend (configured without nvcc)");
}
bool is_cuda(const Backend &) { return false; }
std::unique_ptr<MatrixStore> build_from_device_csr(Backend &, int64_t, int64_t, psv_type, const int64_t *,
                                                   const int32_t *, const void *, const FormatOptions &) {
    unavailable();
}
std::unique_ptr<MatrixStore> build_from_device_coo(Backend &, int64_t, int64_t, psv_type, int64_t, const int32_t *,
                                                   const int32_t *, const void *, const FormatOptions &) {
    unavailable();
}
std::unique_ptr<MatrixStore> build_from_device_chunks(Backend &, int64_t, int64_t, psv_type, bool, int64_t,
                                                      const DeliverTuples &, const FormatOptions &) {
    unavailable();
}
void csr_arrays(const psv_matrix *, const int64_t **, const int32_t **, const void **) { unavailable(); }
size_t pool_in_use_bytes(Backend &) { unavailable(); }
size_t pool_peak_bytes(Backend &) { unavailable(); }
void reset_pool_peak(Backend &) { unavailable(); }
void *stream_of(Backend &) { unavailable(); }
void synchronize(Backend &) { unavailable(); }
size_t pool_cached_bytes(Backend &) { unavailable(); }
void pool_trim(Backend &) { unavailable(); }
TileComposite download_form(const MatrixStore &) { unavailable(); }
Policy policy_of(psv_context *) { unavailable(); }
void set_policy(psv_context *, const Policy &) { unavailable(); }
void replan(psv_matrix *) { unavailable(); }
std::string plan_description(const psv_matrix *) { unavailable(); }
std::vector<Candidate> plan_candidates(const psv_matrix *) { unavailable(); }
tuning::Plan built_plan(const psv_matrix *, double *) { unavailable(); }
void rebuild_with(psv_matrix *, const FormatOptions &) { unavailable(); }
std::string model_stats_line(const psv_matrix *, const std::string &) { unavailable(); }
double model_seconds(const psv_matrix *) { unavailable(); }
void set_tuning_table(psv_context *, const tuning::Table &, tuning::Source) { unavailable(); }
StreamCounts stream_counts(const psv_matrix *) { unavailable(); }
SellCounts sell_counts(const psv_matrix *) { unavailable(); }
StreamPlanCopy download_stream_plan(const MatrixStore &) { unavailable(); }
bool stream_values_pending(const MatrixStore &) { unavailable(); }
void need_stream_values(const MatrixStore &) { unavailable(); }
void need_csr(const MatrixStore &) { unavailable(); }
bool transpose_csr_pending(const psv_matrix *) { unavailable(); }
int64_t transpose_device_bytes(const psv_matrix *) { unavailable(); }
bool column_lengths_kept(const psv_matrix *) { unavailable(); }
psv_matrix *wrap_matrix(psv_context *, std::unique_ptr<MatrixStore>) { unavailable(); }
Backend &backend_of(psv_context *) { unavailable(); }
AlgoSteps &steps_of(psv_context *) { unavailable(); }
const MatrixStore &store_of(const psv_matrix *) { unavailable(); }
std::unique_ptr<AlgoSteps> create_algo_steps(Backend &) { unavailable(); }

}  // namespace cuda
}  // namespace psv
