// SocketGroup: the ranks' host transport (socket.hpp).
#include "dist/socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "core/error.hpp"

namespace psv {
namespace dist {

namespace {

constexpr uint64_t kHello = 0x31696f6a2d767370ull;  // "psv-joi1"

using Clock = std::chrono::steady_clock;

[[noreturn]] void comm_fail(const std::string &what) { fail(PSV_ERROR_COMMUNICATION, what); }

double timeout_seconds() {
    if (const char *t = std::getenv("PSV_SOCKET_TIMEOUT")) {
        const double v = std::atof(t);
        if (v > 0) return v;
    }
    return 600;
}

// Milliseconds left before `deadline` (at least 0).
int ms_left(Clock::time_point deadline) {
    const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return d <= 0 ? 0 : (int)std::min<long long>(d, 1 << 30);
}

// Wait for fd to become readable (or writable); false on timeout.
bool wait_fd(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, ms_left(deadline));
        if (r > 0) return true;
        if (r == 0) return false;
        if (errno != EINTR) comm_fail(std::string("poll: ") + std::strerror(errno));
    }
}

void send_all(int fd, const void *data, size_t bytes, Clock::time_point deadline, const char *peer) {
    const uint8_t *p = static_cast<const uint8_t *>(data);
    while (bytes) {
        if (!wait_fd(fd, POLLOUT, deadline)) comm_fail(std::string("timed out sending to ") + peer);
        const ssize_t n = ::send(fd, p, std::min<size_t>(bytes, 1u << 26), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            comm_fail(std::string("sending to ") + peer + ": " + std::strerror(errno));
        }
        p += n;
        bytes -= (size_t)n;
    }
}

void recv_all(int fd, void *data, size_t bytes, Clock::time_point deadline, const char *peer) {
    uint8_t *p = static_cast<uint8_t *>(data);
    while (bytes) {
        if (!wait_fd(fd, POLLIN, deadline)) comm_fail(std::string("timed out waiting for ") + peer);
        const ssize_t n = ::recv(fd, p, std::min<size_t>(bytes, 1u << 26), 0);
        if (n == 0) comm_fail(std::string(peer) + " closed its connection (its process or context ended)");
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            comm_fail(std::string("receiving from ") + peer + ": " + std::strerror(errno));
        }
        p += n;
        bytes -= (size_t)n;
    }
}

void put64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[i] = (uint8_t)(v >> (8 * i));
}
uint64_t get64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

void tune(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const int fl = ::fcntl(fd, F_GETFL, 0);
    if (fl >= 0) ::fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

// This host's address for the id: PSV_SOCKET_ADDR, else the first non-loopback IPv4 interface
// that is up, else loopback.
uint32_t host_address() {
    if (const char *a = std::getenv("PSV_SOCKET_ADDR")) {
        in_addr x;
        if (::inet_pton(AF_INET, a, &x) != 1)
            fail(PSV_ERROR_INVALID_VALUE, std::string("PSV_SOCKET_ADDR = \"") + a + "\" is not an IPv4 address");
        return x.s_addr;
    }
    uint32_t found = htonl(INADDR_LOOPBACK);
    ifaddrs *list = nullptr;
    if (::getifaddrs(&list) == 0) {
        for (ifaddrs *i = list; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
            if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
            found = reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr.s_addr;
            break;
        }
        ::freeifaddrs(list);
    }
    return found;
}

// Listening sockets made by SocketGroup::listen, by nonce, until their rank 0 joins.
std::mutex listening_mutex;
std::map<uint64_t, int> &listening() {
    static std::map<uint64_t, int> m;
    return m;
}

struct Hello {  // a joining rank's first words: magic, nonce, nranks, rank
    uint64_t magic, nonce, nranks, rank;
};
void put_hello(uint8_t *b, const Hello &h) {
    put64(b, h.magic);
    put64(b + 8, h.nonce);
    put64(b + 16, h.nranks);
    put64(b + 24, h.rank);
}

// Rank 0's answers to a joining rank.
enum : uint64_t { kJoined = 0, kBadNranks = 1, kTaken = 2, kGroupFailed = 3 };

}  // namespace

void SocketGroup::listen(uint32_t &addr, uint16_t &port, uint64_t &nonce) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) comm_fail(std::string("socket: ") + std::strerror(errno));
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    sa.sin_port = 0;
    socklen_t len = sizeof sa;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || ::listen(fd, 1024) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        comm_fail("opening the rendezvous socket: " + why);
    }
    uint32_t a = 0;
    try {
        a = host_address();
    } catch (...) {
        ::close(fd);
        throw;
    }
    std::random_device rd;
    uint64_t n = ((uint64_t)rd() << 32) ^ rd() ^ (uint64_t)Clock::now().time_since_epoch().count() ^ ((uint64_t)::getpid() << 17);
    if (n == 0) n = 1;
    {
        std::lock_guard<std::mutex> g(listening_mutex);
        listening()[n] = fd;
    }
    addr = a;
    port = sa.sin_port;
    nonce = n;
}

std::unique_ptr<SocketGroup> SocketGroup::join(uint32_t addr, uint16_t port, uint64_t nonce, int32_t nranks,
                                               int32_t rank) {
    std::unique_ptr<SocketGroup> g(new SocketGroup(nranks, rank));
    g->timeout_ = timeout_seconds();
    const auto deadline = Clock::now() + std::chrono::milliseconds((long long)(g->timeout_ * 1000));
    if (rank == 0) {
        int lfd = -1;
        {
            std::lock_guard<std::mutex> lk(listening_mutex);
            auto it = listening().find(nonce);
            if (it == listening().end())
                fail(PSV_ERROR_INVALID_VALUE, "rank 0 must join in the process that made the id with psv_unique_id "
                                              "(and only once)");
            lfd = it->second;
            listening().erase(it);
        }
        g->fd_.assign((size_t)nranks, -1);
        auto refuse_all = [&](uint64_t why) {
            uint8_t b[8];
            put64(b, why);
            for (int32_t r = 1; r < nranks; ++r) {
                if (g->fd_[r] < 0) continue;
                try {
                    send_all(g->fd_[r], b, 8, Clock::now() + std::chrono::seconds(1), "a rank");
                } catch (const Error &) {
                }
            }
        };
        try {
            for (int32_t joined = 1; joined < nranks;) {
                if (!wait_fd(lfd, POLLIN, deadline))
                    comm_fail(format("%d of %d ranks joined before the timeout (PSV_SOCKET_TIMEOUT)", (int)joined,
                                     (int)nranks));
                const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd < 0) {
                    if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
                    comm_fail(std::string("accept: ") + std::strerror(errno));
                }
                tune(fd);
                uint8_t b[32];
                try {
                    recv_all(fd, b, 32, std::min(deadline, Clock::now() + std::chrono::seconds(10)), "a joining rank");
                } catch (const Error &) {
                    ::close(fd);  // not one of ours (or it left at once): keep waiting for the others
                    continue;
                }
                const Hello h{get64(b), get64(b + 8), get64(b + 16), get64(b + 24)};
                if (h.magic != kHello || h.nonce != nonce) {
                    ::close(fd);  // another group's, or a stranger
                    continue;
                }
                uint64_t why = kJoined;
                if (h.nranks != (uint64_t)nranks) why = kBadNranks;
                else if (h.rank < 1 || h.rank >= (uint64_t)nranks || g->fd_[h.rank] >= 0) why = kTaken;
                if (why != kJoined) {
                    uint8_t r[8];
                    put64(r, why);
                    send_all(fd, r, 8, Clock::now() + std::chrono::seconds(1), "a joining rank");
                    ::close(fd);
                    comm_fail(why == kBadNranks ? format("a rank joined with nranks = %lld, rank 0 with %d", (long long)h.nranks, (int)nranks)
                                                : format("rank %lld joined twice (or is out of range)", (long long)h.rank));
                }
                g->fd_[h.rank] = fd;
                ++joined;
            }
            uint8_t ok[8];
            put64(ok, kJoined);
            for (int32_t r = 1; r < nranks; ++r) send_all(g->fd_[r], ok, 8, deadline, "a rank");
        } catch (...) {
            refuse_all(kGroupFailed);
            ::close(lfd);
            throw;  // the destructor closes the peers
        }
        ::close(lfd);
        return g;
    }
    // rank > 0: connect (rank 0 may not be listening yet on another host: retry), say who, wait.
    int fd = -1;
    for (;;) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) comm_fail(std::string("socket: ") + std::strerror(errno));
        sockaddr_in sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = addr;
        sa.sin_port = port;
        if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0) break;
        const int e = errno;
        ::close(fd);
        if (Clock::now() >= deadline || (e != ECONNREFUSED && e != EINTR && e != ETIMEDOUT && e != EAGAIN))
            comm_fail(std::string("connecting to rank 0: ") + std::strerror(e));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    g->fd_.assign(1, fd);
    tune(fd);
    uint8_t b[32];
    put_hello(b, Hello{kHello, nonce, (uint64_t)nranks, (uint64_t)rank});
    send_all(fd, b, 32, deadline, "rank 0");
    uint8_t r[8];
    recv_all(fd, r, 8, deadline, "rank 0 (the group is not whole yet)");
    switch (get64(r)) {
    case kJoined: return g;
    case kBadNranks: comm_fail(format("rank 0 has another nranks than this rank's %d", (int)nranks));
    case kTaken: comm_fail(format("rank %d was already taken (or is out of range)", (int)rank));
    default: comm_fail("the group failed to form (another rank's join failed)");
    }
}

SocketGroup::~SocketGroup() {
    for (int fd : fd_)
        if (fd >= 0) ::close(fd);
}

void SocketGroup::send_frame(int fd, const Bytes &b) {
    const auto deadline = Clock::now() + std::chrono::milliseconds((long long)(timeout_ * 1000));
    uint8_t h[8];
    put64(h, b.size());
    send_all(fd, h, 8, deadline, "a rank");
    send_all(fd, b.data(), b.size(), deadline, "a rank");
}

void SocketGroup::recv_frame(int fd, Bytes &b) {
    const auto deadline = Clock::now() + std::chrono::milliseconds((long long)(timeout_ * 1000));
    uint8_t h[8];
    recv_all(fd, h, 8, deadline, "a rank");
    b.resize((size_t)get64(h));
    recv_all(fd, b.data(), b.size(), deadline, "a rank");
}

void SocketGroup::all_gather(std::vector<Bytes> &blocks) {
    blocks.resize((size_t)nranks);
    if (nranks == 1) return;
    if (rank == 0) {
        for (int32_t r = 1; r < nranks; ++r) recv_frame(fd_[r], blocks[r]);
        for (int32_t r = 1; r < nranks; ++r)
            for (int32_t p = 0; p < nranks; ++p)
                if (p != r) send_frame(fd_[r], blocks[p]);
        return;
    }
    send_frame(fd_[0], blocks[rank]);
    for (int32_t p = 0; p < nranks; ++p)
        if (p != rank) recv_frame(fd_[0], blocks[p]);
}

void SocketGroup::all_to_all(std::vector<Bytes> &send, std::vector<Bytes> &recv) {
    send.resize((size_t)nranks);
    recv.assign((size_t)nranks, Bytes());
    recv[rank] = std::move(send[rank]);
    if (nranks == 1) return;
    if (rank == 0) {
        std::vector<std::vector<Bytes>> from((size_t)nranks);  // from[p][q]: p's block for q
        for (int32_t p = 1; p < nranks; ++p) {
            from[p].resize((size_t)nranks);
            for (int32_t q = 0; q < nranks; ++q)
                if (q != p) recv_frame(fd_[p], from[p][q]);
        }
        for (int32_t p = 1; p < nranks; ++p) recv[p] = std::move(from[p][0]);
        for (int32_t q = 1; q < nranks; ++q) {
            for (int32_t p = 0; p < nranks; ++p) {
                if (p == q) continue;
                send_frame(fd_[q], p == 0 ? send[q] : from[p][q]);
                (p == 0 ? send[q] : from[p][q]) = Bytes();
            }
        }
        return;
    }
    for (int32_t q = 0; q < nranks; ++q)
        if (q != rank) send_frame(fd_[0], send[q]);
    for (int32_t p = 0; p < nranks; ++p)
        if (p != rank) recv_frame(fd_[0], recv[p]);
}

}  // namespace dist
}  // namespace psv
