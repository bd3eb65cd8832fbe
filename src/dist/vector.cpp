// Pieces of partitioned vectors: allocation, the copy between two parts (the exchange's unit),
// whole-vector gathers and scatters through the host, and redistribution between layouts.
#include <cstring>

#include "core/ops.hpp"
#include "dist/comm.hpp"
#include "dist/dist.hpp"

namespace psv {
namespace dist {

void copy_between(Backend &dst_be, void *dst, Backend &src_be, const void *src, size_t bytes) {
    if (!bytes) return;
    // One memory space (the same backend, or host memory on both sides): a plain copy.
    if (&dst_be == &src_be || (dst_be.kind() == PSV_BACKEND_CPU && src_be.kind() == PSV_BACKEND_CPU)) {
        dst_be.copy(dst, src, bytes);
        return;
    }
    // Two devices (or a device and the host): staged through the host -- correct, not fast;
    // a peer copy or NCCL replaces it.
    std::vector<uint8_t> stage(bytes);
    src_be.download(stage.data(), src, bytes);
    dst_be.upload(dst, stage.data(), bytes);
}

void allocate_pieces(const PartSet &parts, const Layout &L, psv_type type, std::vector<Buffer> &values,
                     std::vector<Buffer> &present) {
    const size_t vs = type_size(type);
    std::vector<Buffer> v, pr;
    for (int32_t p = 0; p < L.nparts; ++p) {
        Backend *be = parts[p].backend;
        if (!be) {  // another rank's
            v.emplace_back();
            pr.emplace_back();
            continue;
        }
        const int64_t m = L.size(p);
        v.emplace_back(be, (size_t)m * vs);
        pr.emplace_back(be, (size_t)m);
        if (m) be->set_bytes(pr.back().get(), 0, (size_t)m);
    }
    values = std::move(v);
    present = std::move(pr);
}

void gather_host(const PartSet &parts, const psv_vector &v, std::vector<uint8_t> &values,
                 std::vector<uint8_t> &present) {
    const Layout &L = *v.layout;
    const size_t vs = type_size(v.type);
    // Each held piece's values (then its presence) in one block; every part's block, everywhere.
    std::vector<Bytes> blocks((size_t)L.nparts);
    for (int32_t p = 0; p < L.nparts; ++p) {
        const int64_t m = L.size(p);
        if (!m || !parts.holds(p)) continue;
        Bytes &b = blocks[p];
        b.resize((size_t)m * vs + (v.full ? 0 : (size_t)m));
        parts[p].backend->download(b.data(), v.piece_values[p].get(), (size_t)m * vs);
        if (!v.full) parts[p].backend->download(b.data() + (size_t)m * vs, v.piece_present[p].get(), (size_t)m);
    }
    parts.comm->all_gather(blocks);
    std::vector<uint8_t> vals((size_t)v.n * vs), pres(v.full ? 0 : (size_t)v.n);
    for (int32_t p = 0; p < L.nparts; ++p) {
        const int64_t m = L.size(p);
        if (!m) continue;
        const uint8_t *piece = blocks[p].data(), *ppiece = piece + (size_t)m * vs;
        for (int64_t k = 0; k < m; ++k) {
            const int64_t g = L.global_of(L.offset[p] + k);
            std::memcpy(&vals[(size_t)g * vs], &piece[(size_t)k * vs], vs);
            if (!v.full) pres[(size_t)g] = ppiece[(size_t)k];
        }
    }
    values = std::move(vals);
    present = std::move(pres);
}

void scatter_host(const PartSet &parts, const Layout &L, psv_type type, const uint8_t *values,
                  const uint8_t *present, std::vector<Buffer> &piece_values, std::vector<Buffer> &piece_present) {
    const size_t vs = type_size(type);
    std::vector<uint8_t> piece, ppiece;
    for (int32_t p = 0; p < L.nparts; ++p) {
        const int64_t m = L.size(p);
        if (!m || !parts.holds(p)) continue;
        piece.resize((size_t)m * vs);
        ppiece.resize((size_t)m);
        for (int64_t k = 0; k < m; ++k) {
            const int64_t g = L.global_of(L.offset[p] + k);
            std::memcpy(&piece[(size_t)k * vs], values + (size_t)g * vs, vs);
            if (present) ppiece[(size_t)k] = present[g];
        }
        parts[p].backend->upload(piece_values[p].get(), piece.data(), piece.size());
        if (present) parts[p].backend->upload(piece_present[p].get(), ppiece.data(), (size_t)m);
    }
}

void pieces_in(const PartSet &parts, const psv_vector &v, const LayoutPtr &L, std::vector<Buffer> &values,
               std::vector<Buffer> &present, std::vector<const void *> &vals, std::vector<const uint8_t *> &pres) {
    vals.assign((size_t)L->nparts, nullptr);
    pres.assign((size_t)L->nparts, nullptr);
    if (v.layout->same(*L)) {
        for (int32_t p = 0; p < L->nparts; ++p) {
            vals[p] = v.piece_values[p].get();
            if (!v.full) pres[p] = v.piece_present[p].as<uint8_t>();
        }
        return;
    }
    std::vector<uint8_t> hv, hp;
    gather_host(parts, v, hv, hp);
    allocate_pieces(parts, *L, v.type, values, present);
    scatter_host(parts, *L, v.type, hv.data(), v.full ? nullptr : hp.data(), values, present);
    for (int32_t p = 0; p < L->nparts; ++p) {
        vals[p] = values[p].get();
        if (!v.full) pres[p] = present[p].as<uint8_t>();
    }
}

void locate(const psv_vector &v, int64_t i, int32_t &part, int64_t &local) {
    const Layout &L = *v.layout;
    const int64_t pos = L.position_of(i);
    part = L.owner_of_position(pos);
    local = pos - L.offset[part];
}

}  // namespace dist
}  // namespace psv
