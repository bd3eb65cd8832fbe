// The partitioned product and psv_mxv's partitioned form. Per part: the local block's product
// (its own piece of x, nothing exchanged), then the exchange -- the all-gather of every part's
// piece into the part's full-length x buffer, in the gathered order, so the remote block's
// renumbered columns index it directly -- then the remote block's product, combined with the
// local result by the semiring's add. The local product comes first so that an asynchronous
// exchange (NCCL) can run under it; here the exchange is a copy. A part whose remote block is
// empty moves nothing.
#include "core/ops.hpp"
#include "dist/dist.hpp"

namespace psv {
namespace dist {

namespace {

// The full-length x of part q (positions of M.cols' gathered order), elem bytes per position;
// and its presence where some piece has one (else `present` stays empty).
void gather_x(const PartitionedStore &M, int32_t q, size_t elem, const std::vector<const void *> &x,
              const std::vector<const uint8_t *> &x_present, Buffer &full, Buffer &present) {
    const Layout &C = *M.cols;
    Backend &dst = *M.parts[q].backend;
    full = Buffer(&dst, (size_t)C.n * elem);
    bool any_presence = false;
    for (const uint8_t *p : x_present) any_presence = any_presence || p;
    if (any_presence) present = Buffer(&dst, (size_t)C.n);
    for (int32_t p = 0; p < C.nparts; ++p) {
        const int64_t m = C.size(p), at = C.offset[p];
        if (!m) continue;
        Backend &src = *M.parts[p].backend;
        copy_between(dst, full.as<uint8_t>() + (size_t)at * elem, src, x[p], (size_t)m * elem);
        if (!any_presence) continue;
        if (x_present[p]) copy_between(dst, present.as<uint8_t>() + at, src, x_present[p], (size_t)m);
        else dst.set_bytes(present.as<uint8_t>() + at, 1, (size_t)m);
    }
}

}  // namespace

void product(const PartitionedStore &M, const SpmvArgs &a, const std::vector<const void *> &x,
             const std::vector<const uint8_t *> &x_present, const std::vector<void *> &t,
             const std::vector<uint8_t *> &t_present) {
    const size_t vs = type_size(a.type);
    const bool with_presence = !t_present.empty();
    for (int32_t q = 0; q < (int32_t)M.blocks.size(); ++q) {
        const PartBlock &b = M.blocks[q];
        const int64_t m = M.rows->size(q);
        if (!m) continue;
        Backend &be = *M.parts[q].backend;
        SpmvArgs s = a;
        s.A = b.local.get();
        s.u = x[q];
        s.u_present = x_present[q];
        s.t = t[q];
        s.t_present = with_presence ? t_present[q] : nullptr;
        be.spmv(s);
        if (b.remote->nvals == 0) continue;
        Buffer X, XP;
        gather_x(M, q, vs, x, x_present, X, XP);
        Buffer t2(&be, (size_t)m * vs), p2(&be, with_presence ? (size_t)m : 0);
        s.A = b.remote.get();
        s.u = X.get();
        s.u_present = XP.as<uint8_t>();
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
    const std::vector<const void *> x(U.begin(), U.end());
    const std::vector<const uint8_t *> none(U.size(), nullptr);
    for (int32_t q = 0; q < (int32_t)M.blocks.size(); ++q) {
        const PartBlock &b = M.blocks[q];
        const int64_t m = M.rows->size(q);
        if (!m) continue;
        Backend &be = *M.parts[q].backend;
        be.spmm_pattern(*b.local, k, U[q], T[q]);
        if (b.remote->nvals == 0) continue;
        Buffer X, XP;
        gather_x(M, q, elem, x, none, X, XP);
        Buffer t2(&be, (size_t)m * elem);
        be.spmm_pattern(*b.remote, k, X.as<float>(), t2.as<float>());
        be.ewise(PSV_PLUS, PSV_FP32, m * k, T[q], nullptr, T[q], nullptr, t2.get(), nullptr);
    }
}

void mxv(psv_vector *w, const psv_vector *mask, const MxvArgs &m, const PartitionedStore &M, const psv_vector *u) {
    const std::vector<Part> &parts = M.parts;
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
        tv[p] = t_vals[p].get();
        tp[p] = t_pres[p].as<uint8_t>();
    }
    SpmvArgs sa;
    sa.add = m.add;
    sa.mul = m.mul;
    sa.type = m.type;
    product(M, sa, uv, up, tv, tp);
    int64_t present = 0;
    for (int32_t p = 0; p < P; ++p) {
        const int64_t n = M.rows->size(p);
        if (!n) continue;
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
        present += be.count_present(n, out_pres[p].as<uint8_t>());
    }
    w->layout = M.rows;
    w->piece_values = std::move(out_vals);
    w->piece_present = std::move(out_pres);
    w->full = present == w->n;
}

}  // namespace dist
}  // namespace psv
