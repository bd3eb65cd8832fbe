// The two Comms (comm.hpp): LocalComm (every part in this process) and RankComm (one part per
// rank: host data over a SocketGroup, device pieces over NCCL or through the host), and the ids
// that join ranks.
#include "dist/comm.hpp"

#include <cstring>
#include <new>
#include <string>

#include "core/error.hpp"
#include "dist/dist.hpp"
#include "dist/socket.hpp"

namespace psv {
namespace dist {

double Comm::sum(const PartSet &parts, const std::vector<double> &mine) {
    std::vector<std::vector<double>> one((size_t)nparts);
    for (int32_t p = 0; p < nparts; ++p)
        if (parts.holds(p)) one[p].assign(1, mine[p]);
    return sum(parts, one, 1)[0];
}

std::vector<double> Comm::sum(const PartSet &parts, const std::vector<std::vector<double>> &mine, size_t k) {
    std::vector<Bytes> b((size_t)nparts);
    for (int32_t p = 0; p < nparts; ++p)
        if (parts.holds(p)) {
            b[p].resize(k * sizeof(double));
            std::memcpy(b[p].data(), mine[p].data(), k * sizeof(double));
        }
    all_gather(b);
    std::vector<double> total(k, 0.0), d(k);
    for (int32_t p = 0; p < nparts; ++p) {
        std::memcpy(d.data(), b[p].data(), k * sizeof(double));
        for (size_t j = 0; j < k; ++j) total[j] += d[j];
    }
    return total;
}

std::vector<int64_t> Comm::sum_counts(const PartSet &parts, const std::vector<std::vector<int64_t>> &mine, size_t n) {
    std::vector<Bytes> b((size_t)nparts);
    for (int32_t p = 0; p < nparts; ++p)
        if (parts.holds(p)) {
            b[p].resize(n * sizeof(int64_t));
            if (n) std::memcpy(b[p].data(), mine[p].data(), n * sizeof(int64_t));
        }
    all_gather(b);
    std::vector<int64_t> total(n, 0), d(n);
    for (int32_t p = 0; p < nparts; ++p) {
        if (n) std::memcpy(d.data(), b[p].data(), n * sizeof(int64_t));
        for (size_t i = 0; i < n; ++i) total[i] += d[i];
    }
    return total;
}

void agree(const PartSet &parts, const std::function<void()> &f) {
    Comm &comm = *parts.comm;
    int32_t held = -1;
    for (int32_t p = 0; p < (int32_t)parts.size() && held < 0; ++p)
        if (parts.holds(p)) held = p;
    if (!comm.ranked()) {
        f();  // every part in this process: its failure is everybody's already
        return;
    }
    psv_status st = PSV_SUCCESS;
    std::string msg;
    try {
        f();
    } catch (const Error &e) {
        st = e.status();
        msg = e.what();
    } catch (const std::bad_alloc &) {
        st = PSV_ERROR_OUT_OF_MEMORY;
        msg = "out of host memory";
    } catch (const std::exception &e) {
        st = PSV_ERROR_PANIC;
        msg = std::string("internal error: ") + e.what();
    }
    std::vector<Bytes> b((size_t)comm.nparts);
    b[held].resize(sizeof st + msg.size());
    std::memcpy(b[held].data(), &st, sizeof st);
    std::memcpy(b[held].data() + sizeof st, msg.data(), msg.size());
    comm.all_gather(b);
    for (int32_t p = 0; p < comm.nparts; ++p) {
        psv_status s;
        std::memcpy(&s, b[p].data(), sizeof s);
        if (s == PSV_SUCCESS) continue;
        const std::string m(reinterpret_cast<const char *>(b[p].data()) + sizeof s, b[p].size() - sizeof s);
        fail(s, p == held ? m : format("rank %d: ", (int)p) + m);
    }
}

std::vector<int64_t> Comm::each(const PartSet &parts, const std::vector<int64_t> &mine) {
    std::vector<Bytes> b((size_t)nparts);
    for (int32_t p = 0; p < nparts; ++p)
        if (parts.holds(p)) b[p].assign(reinterpret_cast<const uint8_t *>(&mine[p]), reinterpret_cast<const uint8_t *>(&mine[p]) + 8);
    all_gather(b);
    std::vector<int64_t> out((size_t)nparts);
    for (int32_t p = 0; p < nparts; ++p) std::memcpy(&out[p], b[p].data(), 8);
    return out;
}

int64_t Comm::sum(const PartSet &parts, const std::vector<int64_t> &mine) {
    int64_t total = 0;
    for (int64_t v : each(parts, mine)) total += v;
    return total;
}

namespace {

// ---- every part in this process ----
class LocalGather : public PieceGather {
public:
    LocalGather(const PartSet &parts, const std::vector<size_t> &bytes, const std::vector<const void *> &src,
                const std::vector<void *> &full)
        : parts_(parts), bytes_(bytes), src_(src), full_(full) {}
    void finish(int32_t q, bool needed) override {
        if (!needed) return;
        size_t at = 0;
        for (size_t p = 0; p < bytes_.size(); ++p) {
            copy_between(*parts_[q].backend, static_cast<uint8_t *>(full_[q]) + at, *parts_[p].backend, src_[p], bytes_[p]);
            at += bytes_[p];
        }
    }

private:
    const PartSet &parts_;
    std::vector<size_t> bytes_;
    std::vector<const void *> src_;
    std::vector<void *> full_;
};

class LocalComm : public Comm {
public:
    using Comm::Comm;
    void all_gather(std::vector<Bytes> &blocks) override { blocks.resize((size_t)nparts); }
    void all_to_all(std::vector<std::vector<Bytes>> &send, std::vector<std::vector<Bytes>> &recv) override {
        recv.assign((size_t)nparts, std::vector<Bytes>((size_t)nparts));
        for (int32_t p = 0; p < nparts; ++p)
            for (int32_t q = 0; q < nparts; ++q) recv[q][p] = std::move(send[p][q]);
    }
    std::unique_ptr<PieceGather> gather_pieces(const PartSet &parts, const std::vector<size_t> &bytes,
                                               const std::vector<const void *> &src,
                                               const std::vector<void *> &full) override {
        return std::make_unique<LocalGather>(parts, bytes, src, full);
    }
    void exchange(const PartSet &parts, const std::vector<std::vector<size_t>> &bytes,
                  const std::vector<const void *> &send, const std::vector<void *> &recv) override {
        std::vector<size_t> sent((size_t)nparts, 0), got((size_t)nparts, 0);
        for (int32_t p = 0; p < nparts; ++p)
            for (int32_t q = 0; q < nparts; ++q) {
                const size_t b = bytes[p][q];
                if (b)
                    copy_between(*parts[q].backend, static_cast<uint8_t *>(recv[q]) + got[q], *parts[p].backend,
                                 static_cast<const uint8_t *>(send[p]) + sent[p], b);
                sent[p] += b;
                got[q] += b;
            }
    }
};

// ---- one part per rank ----
class DeviceGather : public PieceGather {
public:
    explicit DeviceGather(DeviceExchange &x) : x_(x) {}
    ~DeviceGather() override {  // a failure between start and finish: the buffers outlive the exchange
        try {
            x_.finish();
        } catch (...) {
        }
    }
    void finish(int32_t, bool) override { x_.finish(); }

private:
    DeviceExchange &x_;
};

class DoneGather : public PieceGather {
public:
    void finish(int32_t, bool) override {}
};

class RankComm : public Comm {
public:
    RankComm(std::unique_ptr<SocketGroup> g, std::unique_ptr<DeviceExchange> dx)
        : Comm(g->nranks), group_(std::move(g)), device_(std::move(dx)) {}
    bool ranked() const override { return true; }
    void all_gather(std::vector<Bytes> &blocks) override {
        blocks.resize((size_t)nparts);
        group_->all_gather(blocks);
    }
    void all_to_all(std::vector<std::vector<Bytes>> &send, std::vector<std::vector<Bytes>> &recv) override {
        const int32_t r = group_->rank;
        recv.assign((size_t)nparts, std::vector<Bytes>());
        send.resize((size_t)nparts);
        group_->all_to_all(send[r], recv[r]);
    }
    std::unique_ptr<PieceGather> gather_pieces(const PartSet &parts, const std::vector<size_t> &bytes,
                                               const std::vector<const void *> &src,
                                               const std::vector<void *> &full) override {
        const int32_t r = group_->rank;
        if (device_) {
            device_->start(bytes, src[r], full[r]);
            return std::make_unique<DeviceGather>(*device_);
        }
        Backend &be = *parts[r].backend;  // through the host
        std::vector<Bytes> b((size_t)nparts);
        b[r].resize(bytes[r]);
        if (bytes[r]) be.download(b[r].data(), src[r], bytes[r]);
        group_->all_gather(b);
        size_t at = 0;
        for (int32_t p = 0; p < nparts; ++p) {
            if (bytes[p]) be.upload(static_cast<uint8_t *>(full[r]) + at, b[p].data(), bytes[p]);
            at += bytes[p];
        }
        return std::make_unique<DoneGather>();
    }

    void exchange(const PartSet &parts, const std::vector<std::vector<size_t>> &bytes,
                  const std::vector<const void *> &send, const std::vector<void *> &recv) override {
        const int32_t r = group_->rank;
        std::vector<size_t> out((size_t)nparts), in((size_t)nparts);
        for (int32_t q = 0; q < nparts; ++q) {
            out[q] = bytes[r][q];
            in[q] = bytes[q][r];
        }
        if (device_) {
            device_->all_to_all(out, send[r], in, recv[r]);
            return;
        }
        Backend &be = *parts[r].backend;  // through the host
        std::vector<Bytes> pieces((size_t)nparts), got;
        size_t at = 0;
        for (int32_t q = 0; q < nparts; ++q) {
            pieces[q].resize(out[q]);
            if (out[q]) be.download(pieces[q].data(), static_cast<const uint8_t *>(send[r]) + at, out[q]);
            at += out[q];
        }
        group_->all_to_all(pieces, got);
        at = 0;
        for (int32_t p = 0; p < nparts; ++p) {
            if (got[p].size() != in[p]) fail(PSV_ERROR_COMMUNICATION, format("rank %d sent %zu bytes, %zu expected", (int)p, got[p].size(), in[p]));
            if (in[p]) be.upload(static_cast<uint8_t *>(recv[r]) + at, got[p].data(), in[p]);
            at += in[p];
        }
    }

private:
    std::unique_ptr<SocketGroup> group_;
    std::unique_ptr<DeviceExchange> device_;
};

// psv_id's bytes: magic, flags, address, port, nonce, NCCL id.
constexpr char kIdMagic[8] = {'p', 's', 'v', '-', 'i', 'd', '0', '1'};
enum : size_t { kAtFlags = 8, kAtAddr = 12, kAtPort = 16, kAtNonce = 24, kAtNccl = 32 };
static_assert(kAtNccl + kNcclIdBytes <= 256, "psv_id holds the NCCL id");

}  // namespace

std::shared_ptr<Comm> local_comm(int32_t nparts) { return std::make_shared<LocalComm>(nparts); }

void make_rank_id(bool nccl, uint8_t out[256]) {
    uint8_t b[256];
    std::memset(b, 0, sizeof b);
    std::memcpy(b, kIdMagic, 8);
    if (nccl) {
        nccl_unique_id(b + kAtNccl);
        b[kAtFlags] = 1;
    }
    uint32_t addr;
    uint16_t port;
    uint64_t nonce;
    SocketGroup::listen(addr, port, nonce);
    std::memcpy(b + kAtAddr, &addr, 4);
    std::memcpy(b + kAtPort, &port, 2);
    std::memcpy(b + kAtNonce, &nonce, 8);
    std::memcpy(out, b, sizeof b);
}

RankId read_rank_id(const uint8_t in[256]) {
    if (std::memcmp(in, kIdMagic, 8) != 0) fail(PSV_ERROR_INVALID_VALUE, "id was not made by psv_unique_id");
    RankId id;
    id.nccl = in[kAtFlags] & 1;
    std::memcpy(&id.addr, in + kAtAddr, 4);
    std::memcpy(&id.port, in + kAtPort, 2);
    std::memcpy(&id.nonce, in + kAtNonce, 8);
    std::memcpy(id.nccl_id, in + kAtNccl, kNcclIdBytes);
    return id;
}

std::shared_ptr<Comm> join_ranks(const RankId &id, int32_t nranks, int32_t rank, Backend &be) {
    std::unique_ptr<SocketGroup> g = SocketGroup::join(id.addr, id.port, id.nonce, nranks, rank);
    std::unique_ptr<DeviceExchange> dx;
    if (id.nccl && be.kind() == PSV_BACKEND_CUDA) dx = nccl_exchange(be, id.nccl_id, nranks, rank);
    return std::make_shared<RankComm>(std::move(g), std::move(dx));
}

}  // namespace dist
}  // namespace psv
