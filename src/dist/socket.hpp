// The ranks' host transport: TCP sockets in a star around rank 0, which relays every collective
// in rank order (so results do not depend on arrival order). psv_unique_id's process listens;
// its rank 0 accepts the others, which connect, say who they are, and wait for the group.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "dist/comm.hpp"

namespace psv {
namespace dist {

class SocketGroup {
public:
    // Open the rendezvous: a listening socket kept in this process under a fresh nonce. addr and
    // port (network order) say where others reach it.
    static void listen(uint32_t &addr, uint16_t &port, uint64_t &nonce);
    // Join as `rank` of `nranks`: rank 0 takes the listening socket of `nonce` (made in this
    // process) and accepts nranks - 1 peers; the others connect to addr:port. Blocks until the
    // group is whole; fails with PSV_ERROR_COMMUNICATION after the timeout.
    static std::unique_ptr<SocketGroup> join(uint32_t addr, uint16_t port, uint64_t nonce, int32_t nranks,
                                             int32_t rank);
    ~SocketGroup();
    SocketGroup(const SocketGroup &) = delete;
    SocketGroup &operator=(const SocketGroup &) = delete;

    const int32_t nranks, rank;
    // blocks[rank] in; every rank's block out.
    void all_gather(std::vector<Bytes> &blocks);
    // send[q] (from this rank to q) in; recv[p] (from p to this rank) out.
    void all_to_all(std::vector<Bytes> &send, std::vector<Bytes> &recv);

private:
    SocketGroup(int32_t nranks, int32_t rank) : nranks(nranks), rank(rank) {}
    std::vector<int> fd_;  // rank 0: fd_[r] for peer r (fd_[0] unused); others: fd_[0], rank 0
    double timeout_ = 600;
    void send_frame(int fd, const Bytes &b);
    void recv_frame(int fd, Bytes &b);
};

}  // namespace dist
}  // namespace psv
