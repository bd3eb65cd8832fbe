// The partitioned product and psv_mxv's partitioned form. Per part: the local block's product
// (its own piece of x, nothing exchanged), then the exchange -- the all-gather of every part's
// piece into the part's full-length x buffer, in the gathered order, so the remote block's
// renumbered columns index it directly -- then the remote block's product, combined with the
// local result by the semiring's add. The local product comes first so that an asynchronous
// exchange (NCCL) runs under it. The exchange is skipped only where no part has a remote block.
// StagedProduct (stages.hpp) runs the same pieces one stage at a time, for the bench's split.
#include "core/ops.hpp"
#include "dist/comm.hpp"
#include "dist/dist.hpp"
#include "dist/stages.hpp"

namespace psv {
namespace dist {

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

namespace {

// Part q reads the gathered x: it has rows and a remote block with entries.
bool reads_remote(const PartitionedStore &M, int32_t q) { return M.rows->size(q) && M.blocks[q].remote->nvals; }

// Each held part's local block's product into t: its own piece of x, nothing exchanged.
void local_products(const PartitionedStore &M, const SpmvArgs &a, const std::vector<const void *> &x,
                    const std::vector<const uint8_t *> &x_present, const std::vector<void *> &t,
                    const std::vector<uint8_t *> &t_present) {
    const bool with_presence = !t_present.empty();
    for (int32_t q = 0; q < (int32_t)M.blocks.size(); ++q) {
        if (!M.parts.holds(q) || !M.rows->size(q)) continue;
        SpmvArgs s = a;
        s.A = M.blocks[q].local.get();
        s.u = x[q];
        s.u_present = x_present[q];
        s.t = t[q];
        s.t_present = with_presence ? t_present[q] : nullptr;
        M.parts[q].backend->spmv(s);
    }
}

// Part q's remote block's product on the gathered x (X, X_present), combined into t[q] with the add.
void remote_product(const PartitionedStore &M, int32_t q, const SpmvArgs &a, const void *X, const uint8_t *X_present,
                    const std::vector<void *> &t, const std::vector<uint8_t *> &t_present) {
    const size_t vs = type_size(a.type);
    const bool with_presence = !t_present.empty();
    const int64_t m = M.rows->size(q);
    Backend &be = *M.parts[q].backend;
    Buffer t2(&be, (size_t)m * vs), p2(&be, with_presence ? (size_t)m : 0);
    SpmvArgs s = a;
    s.A = M.blocks[q].remote.get();
    s.u = X;
    s.u_present = X_present;
    s.t = t2.get();
    s.t_present = p2.as<uint8_t>();
    be.spmv(s);
    if (!with_presence) {  // both full, absent entries the identity: t = t (+) t2
        be.ewise(a.add, a.type, m, t[q], nullptr, t[q], nullptr, t2.get(), nullptr);
        return;
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

}  // namespace

void product(const PartitionedStore &M, const SpmvArgs &a, const std::vector<const void *> &x,
             const std::vector<const uint8_t *> &x_present, const std::vector<void *> &t,
             const std::vector<uint8_t *> &t_present) {
    Exchange ex(M, type_size(a.type), x, x_present);
    local_products(M, a, x, x_present, t, t_present);
    for (int32_t q = 0; q < (int32_t)M.blocks.size(); ++q) {  // the remote blocks, on the gathered x
        if (!M.parts.holds(q)) continue;
        const bool needed = reads_remote(M, q);
        const void *X = nullptr;
        const uint8_t *X_present = nullptr;
        ex.finish(q, needed, X, X_present);
        if (needed) remote_product(M, q, a, X, X_present, t, t_present);
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

StagedProduct::StagedProduct(const psv_matrix &A, const psv_semiring &s, const psv_vector &u) {
    const psv_type T = s.type;
    a_.add = canonical_op(s.add, T);
    a_.mul = canonical_op(s.multiply, T);
    a_.type = T;
    const MatrixStore &store = *A.store;
    if (u.type != T || (store.type != T && !store.pattern && a_.mul != PSV_SECOND && a_.mul != PSV_PAIR))
        fail(PSV_ERROR_DOMAIN_MISMATCH, "u and A must have the semiring's type (A: or be a pattern)");
    if (u.n != store.ncols) fail(PSV_ERROR_DIMENSION_MISMATCH, "u's length is not A's column count");
    M_ = as_partitioned(store);
    if (!M_) {  // one part: psv_mxv's single-part product
        one_ = &store;
        one_backend_ = A.ctx->backend.get();
        t_vals_.emplace_back(one_backend_, (size_t)store.nrows * type_size(T));
        t_pres_.emplace_back(one_backend_, (size_t)store.nrows);
        x_ = {u.values.get()};
        x_present_ = {u.present_or_null()};
        t_ = {t_vals_[0].get()};
        t_present_ = {t_pres_[0].as<uint8_t>()};
        return;
    }
    const PartSet &parts = M_->parts;
    const int32_t P = (int32_t)parts.size();
    pieces_in(parts, u, M_->cols, u_vals_, u_pres_, x_, x_present_);
    allocate_pieces(parts, *M_->rows, T, t_vals_, t_pres_);
    t_.assign((size_t)P, nullptr);
    t_present_.assign((size_t)P, nullptr);
    for (int32_t p = 0; p < P; ++p)
        if (parts.holds(p)) {
            t_[p] = t_vals_[p].get();
            t_present_[p] = t_pres_[p].as<uint8_t>();
        }
    gathered_.assign((size_t)P, nullptr);
    gathered_present_.assign((size_t)P, nullptr);
}

StagedProduct::~StagedProduct() = default;

void StagedProduct::exchange() {
    ex_.reset();  // the last exchange's buffers go first, as no product holds two
    auto ex = std::make_unique<Exchange>(*M_, type_size(a_.type), x_, x_present_);
    for (int32_t q = 0; q < (int32_t)M_->blocks.size(); ++q)
        if (M_->parts.holds(q)) ex->finish(q, reads_remote(*M_, q), gathered_[q], gathered_present_[q]);
    ex_ = std::move(ex);
}

void StagedProduct::run(ProductStage stage) {
    if (!M_) {
        if (stage != ProductStage::Local && stage != ProductStage::All) return;  // nothing to move, no remote block
        SpmvArgs s = a_;
        s.A = one_;
        s.u = x_[0];
        s.u_present = x_present_[0];
        s.t = t_[0];
        s.t_present = t_present_[0];
        one_backend_->spmv(s);
        return;
    }
    switch (stage) {
    case ProductStage::Local: local_products(*M_, a_, x_, x_present_, t_, t_present_); break;
    case ProductStage::Exchange: exchange(); break;
    case ProductStage::Remote:
        if (!ex_) fail(PSV_ERROR_INVALID_VALUE, "the remote stage needs an exchange stage before it");
        for (int32_t q = 0; q < (int32_t)M_->blocks.size(); ++q)
            if (M_->parts.holds(q) && reads_remote(*M_, q))
                remote_product(*M_, q, a_, gathered_[q], gathered_present_[q], t_, t_present_);
        break;
    case ProductStage::All: product(*M_, a_, x_, x_present_, t_, t_present_); break;
    }
}

StagedProduct::Piece StagedProduct::piece(int32_t p) const {
    Piece out;
    out.backend = M_ ? M_->parts[p].backend : one_backend_;
    out.n = M_ ? M_->rows->size(p) : one_->nrows;
    out.values = t_[p];
    out.present = t_present_[p];
    return out;
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
