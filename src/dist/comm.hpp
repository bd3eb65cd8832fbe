// The exchanges between the parts of a partitioned context. A multi-part context holds all its
// parts in one process and exchanges by copies (LocalComm); a rank context holds one part per
// process or thread (psv_context_create_rank) and exchanges host data over sockets relayed by
// rank 0 (SocketGroup), device vectors over NCCL where its id carries one (DeviceExchange, in
// cuda/runtime/nccl.cu) and through the host otherwise (RankComm).
//
// Every collective is called by every process of the group in the same order; each process
// passes the blocks of the parts it holds and ignores the others'.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/objects.hpp"

namespace psv {
namespace dist {

using Bytes = std::vector<uint8_t>;

// An all-gather of device pieces started by Comm::gather_pieces.
class PieceGather {
public:
    virtual ~PieceGather() = default;
    // Part q's full buffer holds every piece, and q's backend orders its later work after it;
    // needed false: q will not read it (every held part is still finished: an asynchronous
    // exchange must end before its buffers go).
    virtual void finish(int32_t q, bool needed) = 0;
};

class Comm {
public:
    explicit Comm(int32_t nparts) : nparts(nparts) {}
    virtual ~Comm() = default;
    const int32_t nparts;
    // One part per process (a rank context): steps that may fail on one part alone must agree.
    virtual bool ranked() const { return false; }

    // Every part's block on every process, in part order: blocks[p] is given for each held part
    // p (the others are overwritten).
    virtual void all_gather(std::vector<Bytes> &blocks) = 0;
    // send[p][q] (held p, every q) goes to part q: recv[q][p] for each held q and every p.
    virtual void all_to_all(std::vector<std::vector<Bytes>> &send, std::vector<std::vector<Bytes>> &recv) = 0;
    // Start the all-gather of device pieces: part p's bytes[p] at src[p] (held p) into every held
    // part q's full[q] at offset bytes[0] + .. + bytes[p-1]. src and full stay valid, and src
    // unchanged, until finish(q) for every held q.
    virtual std::unique_ptr<PieceGather> gather_pieces(const PartSet &parts, const std::vector<size_t> &bytes,
                                                       const std::vector<const void *> &src,
                                                       const std::vector<void *> &full) = 0;

    // Records between the parts' memories (the construction's routing, dist/build.cpp): held
    // part p sends bytes[p][q] bytes from send[p] + bytes[p][0] + .. + bytes[p][q-1] to every part
    // q; held part q receives part p's at recv[q] + bytes[0][q] + .. + bytes[p-1][q]. bytes is the
    // same on every process. Done when it returns (a CUDA part's later work is ordered after it).
    virtual void exchange(const PartSet &parts, const std::vector<std::vector<size_t>> &bytes,
                          const std::vector<const void *> &send, const std::vector<void *> &recv) = 0;

    // Helpers over all_gather. Sum, in part order, of one double per held part.
    double sum(const PartSet &parts, const std::vector<double> &mine);
    // The same, element-wise, k doubles per part.
    std::vector<double> sum(const PartSet &parts, const std::vector<std::vector<double>> &mine, size_t k);
    // int64 counts summed element-wise over the parts (exact; order does not matter).
    std::vector<int64_t> sum_counts(const PartSet &parts, const std::vector<std::vector<int64_t>> &mine, size_t n);
    // One int64 per part (mine[p] for held p): every part's, in part order.
    std::vector<int64_t> each(const PartSet &parts, const std::vector<int64_t> &mine);
    int64_t sum(const PartSet &parts, const std::vector<int64_t> &mine);
};

// All parts in this process: blocks are already in place, pieces are copied part to part.
std::shared_ptr<Comm> local_comm(int32_t nparts);

// Device pieces across ranks (NCCL): defined in cuda/runtime/nccl.cu where NCCL was found.
class DeviceExchange {
public:
    virtual ~DeviceExchange() = default;
    // On a stream of its own, ordered after the backend's work so far: this rank's bytes[rank]
    // at src to every rank, every rank p's piece into full at the sum of bytes[0 .. p-1].
    virtual void start(const std::vector<size_t> &bytes, const void *src, void *full) = 0;
    // The backend's later work waits for everything started.
    virtual void finish() = 0;
    // This rank's send_bytes[q] bytes (pieces in rank order at send) to every rank q, and every
    // rank p's recv_bytes[p] bytes (in rank order at recv); the backend's later work waits for it.
    virtual void all_to_all(const std::vector<size_t> &send_bytes, const void *send,
                            const std::vector<size_t> &recv_bytes, void *recv) = 0;
};
constexpr size_t kNcclIdBytes = 128;
bool nccl_available();
void nccl_unique_id(uint8_t out[kNcclIdBytes]);
std::unique_ptr<DeviceExchange> nccl_exchange(Backend &be, const uint8_t id[kNcclIdBytes], int32_t nranks,
                                              int32_t rank);

// ---- rank groups: psv_unique_id / psv_context_create_rank ----
class SocketGroup;
struct RankId {  // psv_id's fields
    uint32_t addr = 0;  // IPv4, network order
    uint16_t port = 0;  // network order
    uint64_t nonce = 0;
    bool nccl = false;
    uint8_t nccl_id[kNcclIdBytes] = {0};
};
// A new id: a listening socket in this process, and an NCCL id where nccl.
void make_rank_id(bool nccl, uint8_t out[256]);
RankId read_rank_id(const uint8_t in[256]);
// Join the group (blocks until all nranks have joined); be is this rank's backend. Uses NCCL for
// device pieces where the id carries an NCCL id and be is a CUDA backend.
std::shared_ptr<Comm> join_ranks(const RankId &id, int32_t nranks, int32_t rank, Backend &be);

}  // namespace dist
}  // namespace psv
