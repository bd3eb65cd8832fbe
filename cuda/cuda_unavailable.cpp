// Built where the CUDA backend is not (Ginkgo's device hooks): the entry points exist and say so.
#include "core/backend.hpp"
#include "core/error.hpp"

namespace psv {

bool cuda_backend_available() { return false; }

std::unique_ptr<Backend> create_cuda_backend(int32_t) {
    fail(PSV_ERROR_BACKEND_UNAVAILABLE, "this build of psv has no CUDA backend (configured without nvcc)");
}

}  // namespace psv
