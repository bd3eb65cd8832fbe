// The rank contexts' device exchange over NCCL (dist::DeviceExchange, src/dist/comm.hpp): the
// product's all-gather of vector pieces, issued on a stream of its own so that it runs under the
// local block's product. Pieces differ in length, so the all-gather is one broadcast per rank,
// grouped (NCCL's all-gather takes equal pieces only).
#include <nccl.h>

#include <cstring>

#include "cuda/runtime/backend.cuh"
#include "cuda/runtime/check.cuh"
#include "dist/comm.hpp"

namespace psv {
namespace dist {

namespace {

void nccl_check(ncclResult_t r, const char *what) {
    if (r != ncclSuccess) fail(PSV_ERROR_COMMUNICATION, std::string(what) + ": " + ncclGetErrorString(r));
}

class NcclExchange : public DeviceExchange {
public:
    NcclExchange(cuda::CudaBackend &be, const uint8_t id[kNcclIdBytes], int32_t nranks, int32_t rank)
        : be_(be), nranks_(nranks), rank_(rank) {
        be_.activate();
        ncclUniqueId uid;
        static_assert(sizeof uid == kNcclIdBytes, "an NCCL id is 128 bytes");
        std::memcpy(&uid, id, sizeof uid);
        PSV_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
        PSV_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
        PSV_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        nccl_check(ncclCommInitRank(&comm_, nranks, uid, rank), "ncclCommInitRank");
    }
    ~NcclExchange() override {
        be_.activate();
        if (comm_) ncclCommDestroy(comm_);
        cudaEventDestroy(done_);
        cudaEventDestroy(ready_);
        cudaStreamDestroy(side_);
    }
    void start(const std::vector<size_t> &bytes, const void *src, void *full) override {
        be_.activate();
        PSV_CUDA_CHECK(cudaEventRecord(ready_, be_.stream()));  // src is written on the backend's stream
        PSV_CUDA_CHECK(cudaStreamWaitEvent(side_, ready_, 0));
        nccl_check(ncclGroupStart(), "ncclGroupStart");
        size_t at = 0;
        for (int32_t p = 0; p < nranks_; ++p) {
            if (bytes[p]) {
                uint8_t *dst = static_cast<uint8_t *>(full) + at;
                nccl_check(ncclBroadcast(p == rank_ ? src : dst, dst, bytes[p], ncclUint8, p, comm_, side_), "ncclBroadcast");
            }
            at += bytes[p];
        }
        nccl_check(ncclGroupEnd(), "ncclGroupEnd");
        PSV_CUDA_CHECK(cudaEventRecord(done_, side_));
        pending_ = true;
    }
    void finish() override {
        if (!pending_) return;
        be_.activate();
        PSV_CUDA_CHECK(cudaStreamWaitEvent(be_.stream(), done_, 0));
        pending_ = false;
    }

    void all_to_all(const std::vector<size_t> &send_bytes, const void *send, const std::vector<size_t> &recv_bytes,
                    void *recv) override {
        be_.activate();
        PSV_CUDA_CHECK(cudaEventRecord(ready_, be_.stream()));  // send is written on the backend's stream
        PSV_CUDA_CHECK(cudaStreamWaitEvent(side_, ready_, 0));
        std::vector<size_t> sat((size_t)nranks_ + 1, 0), rat((size_t)nranks_ + 1, 0);
        for (int32_t p = 0; p < nranks_; ++p) {
            sat[p + 1] = sat[p] + send_bytes[p];
            rat[p + 1] = rat[p] + recv_bytes[p];
        }
        const uint8_t *s = static_cast<const uint8_t *>(send);
        uint8_t *d = static_cast<uint8_t *>(recv);
        if (send_bytes[rank_]) {  // this rank's own records: a copy
            if (send_bytes[rank_] != recv_bytes[rank_])
                fail(PSV_ERROR_PANIC, "the records a rank sends itself differ in size from those it receives");
            PSV_CUDA_CHECK(cudaMemcpyAsync(d + rat[rank_], s + sat[rank_], send_bytes[rank_], cudaMemcpyDeviceToDevice, side_));
        }
        nccl_check(ncclGroupStart(), "ncclGroupStart");
        for (int32_t p = 0; p < nranks_; ++p) {
            if (p == rank_) continue;
            if (send_bytes[p]) nccl_check(ncclSend(s + sat[p], send_bytes[p], ncclUint8, p, comm_, side_), "ncclSend");
            if (recv_bytes[p]) nccl_check(ncclRecv(d + rat[p], recv_bytes[p], ncclUint8, p, comm_, side_), "ncclRecv");
        }
        nccl_check(ncclGroupEnd(), "ncclGroupEnd");
        PSV_CUDA_CHECK(cudaEventRecord(done_, side_));
        PSV_CUDA_CHECK(cudaStreamWaitEvent(be_.stream(), done_, 0));
    }

private:
    cuda::CudaBackend &be_;
    int32_t nranks_, rank_;
    ncclComm_t comm_ = nullptr;
    cudaStream_t side_ = nullptr;
    cudaEvent_t ready_ = nullptr, done_ = nullptr;
    bool pending_ = false;
};

}  // namespace

bool nccl_available() { return true; }

void nccl_unique_id(uint8_t out[kNcclIdBytes]) {
    ncclUniqueId uid;
    nccl_check(ncclGetUniqueId(&uid), "ncclGetUniqueId");
    std::memcpy(out, &uid, kNcclIdBytes);
}

std::unique_ptr<DeviceExchange> nccl_exchange(Backend &be, const uint8_t id[kNcclIdBytes], int32_t nranks, int32_t rank) {
    return std::make_unique<NcclExchange>(static_cast<cuda::CudaBackend &>(be), id, nranks, rank);
}

}  // namespace dist
}  // namespace psv
