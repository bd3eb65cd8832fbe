// Built where NCCL is not (no CUDA, or NCCL not found): ranks exchange device pieces through the
// host (dist::RankComm), and ids carry no NCCL id.
#include "core/error.hpp"
#include "dist/comm.hpp"

namespace psv {
namespace dist {

bool nccl_available() { return false; }

void nccl_unique_id(uint8_t *) { fail(PSV_ERROR_NOT_IMPLEMENTED, "this build of psv has no NCCL"); }

std::unique_ptr<DeviceExchange> nccl_exchange(Backend &, const uint8_t *, int32_t, int32_t) {
    fail(PSV_ERROR_NOT_IMPLEMENTED, "this build of psv has no NCCL");
}

}  // namespace dist
}  // namespace psv
