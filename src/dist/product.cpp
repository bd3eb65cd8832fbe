// The partitioned product and psv_mxv's partitioned form. Per part: the local block's product
// (its own piece of x, nothing exchanged), then the exchange -- the all-gather of every part's
// piece into the part's full-length x buffer, in the gathered order, so the remote block's
// renumbered columns index it directly -- then the remote block's product, combined with the
// local result by the semiring's add. The local product comes first so that an asynchronous
// exchange (NCCL) runs under it. The exchange is skipped only where no part has a remote block.
#include "core/ops.hpp"
#include "dist/comm.hpp"
#include "dist/dist.hpp"

namespace psv {
namespace dist {

namespace {

// The exchange of one product: every part's piece of x (elem bytes per position, in M.cols'
// gathered order) into each held part's full-length buffer, and the presence likewise where
// some piece has one. Started before the local products, so that an asynchronous exchange (NCCL)
// runs under them; finish(q) before part q's remote product. Collective: every rank starts it,
// whatever its own blocks hold.
class Exchange {
public:
    Exchange(const PartitionedStore &M, size_t elem, const std::vector<const void *> &x,
             const std::vector<const uint8_t *> &x_present) {
        const Layout &C = *M.cols;
        const PartSet &parts = M.parts;
        const int32_t P = (int32_t)parts.size();
        if (!M.exchanges) return;
        full_.resize((size_t)P);
        pfull_.resize((size_t)P);
        ones_.resize((size_t)P);
        std::vector<size_t> bytes((size_t)P), pbytes((size_t)P);
        std::vector<void *> dst((size_t)P, nullptr), pdst((size_t)P, nullptr);
        std::vector<const void *> psrc((size_t)P, nullptr);
        bool any_presence = false;
        for (int32_t p = 0; p < P; ++p) {
            bytes[p] = (size_t)C.size(p) * elem;
            pbytes[p] = (size_t)C.size(p);
            any_presence = any_presence || (parts.holds(p) && x_present[p]);
        }
        for (int32_t q = 0; q < P; ++q) {
            if (!parts.holds(q)) continue;
            Backend &be = *parts[q].backend;
            full_[q] = Buffer(&be, (size_t)C.n * elem);
            dst[q] = full_[q].get();
            if (!any_presence) continue;
            pfull_[q] = Buffer(&be, (size_t)C.n);
            pdst[q] = pfull_[q].get();
            psrc[q] = x_present[q];
            if (!psrc[q] && C.size(q)) {  // a full piece: all present
                ones_[q] = Buffer(&be, (size_t)C.size(q));
                be.set_bytes(ones_[q].get(), 1, (size_t)C.size(q));
                psrc[q] = ones_[q].get();
            }
        }
        values_ = parts.comm->gather_pieces(parts, bytes, x, dst);
        if (any_presence) presence_ = parts.comm->gather_pieces(parts, pbytes, psrc, pdst);
    }
    // Part q's full x and presence (nullptr: all present); needed false: q has no remote block.
    void finish(int32_t q, bool needed, const void *&x, const uint8_t *&present) {
        if (values_) values_->finish(q, needed);
        if (presence_) presence_->finish(q, needed);
        x = full_.empty() ? nullptr : full_[q].get();
        present = pfull_.empty() ? nullptr : pfull_[q].as<uint8_t>();
    }

private:
    std::vector<Buffer> full_, pfull_, ones_;
    std::unique_ptr<PieceGather> values_, presence_;
};

}  // namespace

void product(const PartitionedStore &M, const SpmvArgs &a, const std::vector<const void *> &x,
             const std::vector<const uint8_t *> &x_present, const std::vector<void *> &t,
             const std::vector<uint8_t *> &t_present) {
    const size_t vs = type_size(a.type);
    const bool with_presence = !t_present.empty();
    const int32_t P = (int32_t)M.blocks.size();
    Exchange ex(M, vs, x, x_present);
    for (int32_t q = 0; q < P; ++q) {  // the local blocks: no exchange needed
        if (!M.parts.holds(q) || !M.rows->size(q)) continue;
        SpmvArgs s = a;
        s.A = M.blocks[q].local.get();
        s.u = x[q];
        s.u_present = x_present[q];
        s.t = t[q];
        s.t_present = with_presence ? t_present[q] : nullptr;
        M.parts[q].backend->spmv(s);
    }
    for (int32_t q = 0; q < P; ++q) {  // the remote blocks, on the gathered x
        if (!M.parts.holds(q)) continue;
        const PartBlock &b = M.blocks[q];
        const int64_t m = M.rows->size(q);
        SpmvArgs s = a;
        const bool needed = m && b.remote->nvals;
        ex.finish(q, needed, s.u, s.u_present);
        if (!needed) continue;
        Backend &be = *M.parts[q].backend;
        Buffer t2(&be, (size_t)m * vs), p2(&be, with_presence ? (size_t)m : 0);
        s.A = b.remote.get();
        s.t = t2.get();
        s.t_present = p2.as<uint8_t>();
        be.spmv(s);
        if (!with_presence) {  // both full, absent entries the identity: t = t (+) t2
            be.ewise(a.add, a.type, m, t[q], nullptr, t[q], nullptr, t2.get(), nullptr);
            continue;
        }
        AssignArgs aa;  // t accum= t2 with the add: the union of both patterns
        aa.n = m;
        aa.type = a.type;
        aa.w = t[q];
        aa.w_present = t_present[q];
        aa.w_present_in = t_present[q];
        aa.t = t2.get();
        aa.t_present = p2.as<uint8_t>();
        aa.accum = a.add;
        be.assign(aa);
    }
}

void product_pattern_k(const PartitionedStore &M, int32_t k, const std::vector<const float *> &U,
                       const std::vector<float *> &T) {
    const size_t elem = (size_t)k * sizeof(float);
    const int32_t P = (int32_t)M.blocks.size();
    const std::vector<const void *> x(U.begin(), U.end());
    const std::vector<const uint8_t *> none(U.size(), nullptr);
    Exchange ex(M, elem, x, none);
    for (int32_t q = 0; q < P; ++q)
        if (M.parts.holds(q) && M.rows->size(q)) M.parts[q].backend->spmm_pattern(*M.blocks[q].local, k, U[q], T[q]);
    for (int32_t q = 0; q < P; ++q) {
        if (!M.parts.holds(q)) continue;
        const PartBlock &b = M.blocks[q];
        const int64_t m = M.rows->size(q);
        const void *X = nullptr;
        const uint8_t *unused = nullptr;
        const bool needed = m && b.remote->nvals;
        ex.finish(q, needed, X, unused);
        if (!needed) continue;
        Backend &be = *M.parts[q].backend;
        Buffer t2(&be, (size_t)m * elem);
        be.spmm_pattern(*b.remote, k, static_cast<const float *>(X), t2.as<float>());
        be.ewise(PSV_PLUS, PSV_FP32, m * k, T[q], nullptr, T[q], nullptr, t2.get(), nullptr);
    }
}

void mxv(psv_vector *w, const psv_vector *mask, const MxvArgs &m, const PartitionedStore &M, const psv_vector *u) {
    const PartSet &parts = M.parts;
    const int32_t P = (int32_t)parts.size();
    const size_t vs = type_size(m.type);
    // u in M's column layout, the mask and w's old values in its row layout (copies where the
    // layouts differ); the result goes into new pieces that replace w's at the end, so a failure
    // leaves w untouched and w may alias u or the mask.
    std::vector<Buffer> u_vals, u_pres, k_vals, k_pres, w_vals, w_pres;
    std::vector<const void *> uv, kv, wv;
    std::vector<const uint8_t *> up, kp, wp;
    pieces_in(parts, *u, M.cols, u_vals, u_pres, uv, up);
    if (mask) pieces_in(parts, *mask, M.rows, k_vals, k_pres, kv, kp);
    pieces_in(parts, *w, M.rows, w_vals, w_pres, wv, wp);
    std::vector<Buffer> out_vals, out_pres, t_vals, t_pres;
    allocate_pieces(parts, *M.rows, m.type, out_vals, out_pres);
    allocate_pieces(parts, *M.rows, m.type, t_vals, t_pres);
    std::vector<void *> tv((size_t)P);
    std::vector<uint8_t *> tp((size_t)P);
    for (int32_t p = 0; p < P; ++p) {
        if (!parts.holds(p)) continue;
        tv[p] = t_vals[p].get();
        tp[p] = t_pres[p].as<uint8_t>();
    }
    SpmvArgs sa;
    sa.add = m.add;
    sa.mul = m.mul;
    sa.type = m.type;
    product(M, sa, uv, up, tv, tp);
    std::vector<int64_t> present((size_t)P, 0);
    for (int32_t p = 0; p < P; ++p) {
        const int64_t n = M.rows->size(p);
        if (!n || !parts.holds(p)) continue;
        Backend &be = *parts[p].backend;
        // w's old values first (the assignment keeps what the mask protects), then w<mask> accum= t
        be.copy(out_vals[p].get(), wv[p], (size_t)n * vs);
        if (wp[p]) be.copy(out_pres[p].get(), wp[p], (size_t)n);
        AssignArgs aa;
        aa.n = n;
        aa.type = m.type;
        aa.w = out_vals[p].get();
        aa.w_present = out_pres[p].as<uint8_t>();
        aa.w_present_in = wp[p] ? out_pres[p].as<uint8_t>() : nullptr;
        aa.t = tv[p];
        aa.t_present = tp[p];
        if (mask) {
            aa.mask = kv[p];
            aa.mask_present = kp[p];
            aa.mask_type = mask->type;
        }
        aa.accum = m.accum;
        aa.complement = m.complement;
        aa.structure = m.structure;
        aa.replace = m.replace;
        be.assign(aa);
        present[p] = be.count_present(n, out_pres[p].as<uint8_t>());
    }
    const int64_t total = parts.comm->sum(parts, present);
    w->layout = M.rows;
    w->piece_values = std::move(out_vals);
    w->piece_present = std::move(out_pres);
    w->full = total == w->n;
}

}  // namespace dist
}  // namespace psv
