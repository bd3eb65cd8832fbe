// PageRank, HITS and random walk with restart over the parts of a multi-part context: the same
// iterations as src/algo, each vector step run per part by that part's AlgoSteps, the product
// partitioned (product.cpp). Scalars that span the parts (dangling mass, totals, differences)
// are each part's partial result read back and combined on the host in part order, so results
// are the same run to run; the host decides convergence every iteration.
#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "dist/comm.hpp"
#include "dist/dist.hpp"

namespace psv {
namespace dist {

namespace {

std::vector<Buffer> pieces(const PartSet &parts, const Layout &L, size_t elem) {
    std::vector<Buffer> out;
    for (int32_t p = 0; p < L.nparts; ++p) {
        if (parts.holds(p)) out.emplace_back(parts[p].backend, (size_t)L.size(p) * elem);
        else out.emplace_back();  // another rank's
    }
    return out;
}

template <class T> std::vector<T *> ptrs(std::vector<Buffer> &b) {
    std::vector<T *> out;
    for (Buffer &x : b) out.push_back(x.as<T>());
    return out;
}

template <class T> std::vector<const T *> cptrs(std::vector<Buffer> &b) {
    std::vector<const T *> out;
    for (Buffer &x : b) out.push_back(x.as<T>());
    return out;
}

void fill_all(const PartSet &parts, const Layout &L, std::vector<Buffer> &b, float value) {
    for (int32_t p = 0; p < L.nparts; ++p)
        if (L.size(p) && parts.holds(p)) parts[p].backend->fill(PSV_FP32, L.size(p), b[p].get(), &value);
}

// t = M (+).(second) x, every vector full (absent entries of t: 0).
void pattern_product(const PartitionedStore &M, std::vector<Buffer> &x, std::vector<Buffer> &t) {
    SpmvArgs a;
    a.add = PSV_PLUS;
    a.mul = PSV_SECOND;
    a.type = PSV_FP32;
    std::vector<const void *> xs;
    for (Buffer &b : x) xs.push_back(b.get());
    std::vector<void *> ts;
    for (Buffer &b : t) ts.push_back(b.get());
    product(M, a, xs, std::vector<const uint8_t *>(x.size(), nullptr), ts, {});
}

// Sum over the parts, in part order, of one double each part's step wrote into scalars[p]
// (at `slot`); parts without rows count 0.
double combine(const PartSet &parts, const Layout &L, std::vector<Buffer> &scalars, int slot) {
    std::vector<double> mine((size_t)L.nparts, 0.0);
    for (int32_t p = 0; p < L.nparts; ++p)
        if (L.size(p) && parts.holds(p)) parts[p].backend->download(&mine[p], scalars[p].as<double>() + slot, sizeof(double));
    return parts.comm->sum(parts, mine);
}

void broadcast(const PartSet &parts, const Layout &L, std::vector<Buffer> &scalars, int slot, double value) {
    for (int32_t p = 0; p < L.nparts; ++p)
        if (L.size(p) && parts.holds(p)) parts[p].backend->upload(scalars[p].as<double>() + slot, &value, sizeof value);
}

}  // namespace

bool pagerank(const PartitionedStore &A, const PartitionedStore &AT, double damping, double tolerance,
              int32_t max_iterations, const float *personal, Result &rank, int32_t &iterations) {
    const PartSet &parts = AT.parts;
    const LayoutPtr L = AT.rows;  // AT is square: its columns have this layout too
    const int64_t n = A.nrows;
    std::vector<Buffer> r = pieces(parts, *L, sizeof(float));
    iterations = 0;
    if (n == 0) {
        rank = Result{L, std::move(r)};
        return true;
    }
    const auto inv_kept = A.inverse_row_lengths_in(L);
    const std::vector<Buffer> &inv = *inv_kept;
    std::vector<Buffer> w = pieces(parts, *L, sizeof(float)),
                        t = pieces(parts, *L, sizeof(float)), tele = pieces(parts, *L, sizeof(float)),
                        scalars = pieces(parts, *L, 0), states;
    // The teleport vector always explicit: the step's uniform 1/n would be 1/(the piece's size).
    if (personal) {
        std::vector<Buffer> no_presence;  // not written: scatter_host is given no presence
        scatter_host(parts, *L, PSV_FP32, reinterpret_cast<const uint8_t *>(personal), nullptr, tele, no_presence);
    } else {
        fill_all(parts, *L, tele, (float)(1.0 / (double)n));
    }
    const float r0 = (float)(1.0 / (double)n);
    fill_all(parts, *L, r, r0);
    LoopState s;
    s.max_iterations = INT32_MAX;  // the host decides: a part's state never ends the loop
    s.tolerance = -1;
    for (int32_t p = 0; p < L->nparts; ++p) {
        if (!parts.holds(p)) {
            states.emplace_back();
            continue;
        }
        scalars[p] = Buffer(parts[p].backend, sizeof(double));
        states.emplace_back(parts[p].backend, sizeof(LoopState));
        parts[p].backend->upload(states[p].get(), &s, sizeof s);
    }
    bool converged = false;
    while (iterations < max_iterations) {
        for (int32_t p = 0; p < L->nparts; ++p)
            if (L->size(p) && parts.holds(p))
                parts[p].steps->pagerank_scale(L->size(p), r[p].as<float>(), inv[p].as<float>(), w[p].as<float>(),
                                               scalars[p].as<double>());
        broadcast(parts, *L, scalars, 0, combine(parts, *L, scalars, 0));
        pattern_product(AT, w, t);
        std::vector<double> diffs((size_t)L->nparts, 0.0);
        for (int32_t p = 0; p < L->nparts; ++p) {
            if (!L->size(p) || !parts.holds(p)) continue;
            parts[p].steps->pagerank_update(L->size(p), t[p].as<float>(), r[p].as<float>(), damping,
                                            scalars[p].as<double>(), tele[p].as<float>(), states[p].as<LoopState>());
            LoopState h;
            parts[p].backend->download(&h, states[p].get(), sizeof h);
            diffs[p] = h.diff;
        }
        const double diff = parts.comm->sum(parts, diffs);
        ++iterations;
        if (diff <= tolerance) {
            converged = true;
            break;
        }
    }
    rank = Result{L, std::move(r)};
    return converged;
}

bool hits(const PartitionedStore &A, const PartitionedStore &AT, double tolerance, int32_t max_iterations,
          Result &hubs, Result &authorities, int32_t &iterations) {
    const PartSet &parts = A.parts;
    const LayoutPtr LA = A.rows, LT = AT.rows;  // h lives in A's row layout, a in A''s
    const int64_t n = A.nrows;
    // Each product's columns laid out as its input is: a = AT h reads h (LA), h = A a reads a (LT).
    auto AT_h = with_columns(AT, LA);
    auto A_a = with_columns(A, LT);
    std::vector<Buffer> a = pieces(parts, *LT, sizeof(float)), a_prev = pieces(parts, *LT, sizeof(float)),
                        h = pieces(parts, *LA, sizeof(float)), h_prev = pieces(parts, *LA, sizeof(float)),
                        sa, sh;
    for (int32_t p = 0; p < (int32_t)parts.size(); ++p) {
        sa.emplace_back(parts.holds(p) ? Buffer(parts[p].backend, 2 * sizeof(double)) : Buffer());  // total, difference
        sh.emplace_back(parts.holds(p) ? Buffer(parts[p].backend, 2 * sizeof(double)) : Buffer());
    }
    iterations = 0;
    bool converged = n == 0;
    if (n > 0) {
        const float x0 = (float)(1.0 / (double)n);
        fill_all(parts, *LT, a_prev, x0);
        fill_all(parts, *LA, h_prev, x0);
        // x = M x_in, normalized to sum 1; returns ||x - prev||_1
        auto step = [&](const PartitionedStore &M, std::vector<Buffer> &in, std::vector<Buffer> &x,
                        std::vector<Buffer> &prev, std::vector<Buffer> &sc) {
            const Layout &L = *M.rows;
            pattern_product(M, in, x);
            for (int32_t p = 0; p < L.nparts; ++p)
                if (L.size(p) && parts.holds(p)) parts[p].steps->sum(L.size(p), x[p].as<float>(), sc[p].as<double>());
            broadcast(parts, L, sc, 0, combine(parts, L, sc, 0));
            for (int32_t p = 0; p < L.nparts; ++p)
                if (L.size(p) && parts.holds(p))
                    parts[p].steps->normalize_diff(L.size(p), x[p].as<float>(), sc[p].as<double>(),
                                                   prev[p].as<float>(), sc[p].as<double>() + 1);
            return combine(parts, L, sc, 1);
        };
        while (iterations < max_iterations) {
            const double da = step(*AT_h, h_prev, a, a_prev, sa);
            const double dh = step(*A_a, a, h, h_prev, sh);
            ++iterations;
            std::swap(a, a_prev);
            std::swap(h, h_prev);
            if (da + dh <= tolerance) {
                converged = true;
                break;
            }
        }
    }
    hubs = Result{LA, std::move(h_prev)};
    authorities = Result{LT, std::move(a_prev)};
    return converged;
}

bool rwr(const PartitionedStore &S, const int64_t *queries, int32_t k, double c, double tolerance,
         int32_t max_iterations, std::vector<float> &relevance_host, int32_t *iterations) {
    const PartSet &parts = S.parts;
    const Layout &L = *S.rows;  // S is square: columns alike
    const int32_t P = L.nparts;
    const int64_t n = S.nrows;
    std::vector<float> out((size_t)n * k, 0.0f);
    for (int32_t j = 0; j < k; ++j) iterations[j] = -max_iterations;
    if (n == 0) {
        relevance_host = std::move(out);
        return true;
    }
    const size_t block = (size_t)k * sizeof(float);
    std::vector<Buffer> R = pieces(parts, L, block), U = pieces(parts, L, block), T = pieces(parts, L, block),
                        qd = pieces(parts, L, 0), diffs = pieces(parts, L, 0);
    const auto inv_kept = S.inverse_row_lengths_in(S.rows);
    const std::vector<Buffer> &inv = *inv_kept;
    const std::vector<float> inv_host = S.inverse_row_lengths_host();
    std::vector<int32_t> active((size_t)k);  // column of the running block -> query index j
    std::vector<int64_t> q((size_t)k);       // column of the running block -> vertex
    for (int32_t j = 0; j < k; ++j) {
        active[j] = j;
        q[j] = queries[j];
    }
    for (int32_t p = 0; p < P; ++p) {
        if (!parts.holds(p)) continue;
        qd[p] = Buffer(parts[p].backend, (size_t)k * sizeof(int64_t));
        diffs[p] = Buffer(parts[p].backend, (size_t)k * sizeof(double));
    }
    // Each part's queries: the position in its piece, -1 where another part owns the vertex
    // (the steps' [i == query] then never holds).
    auto upload_queries = [&](int32_t kk) {
        std::vector<int64_t> loc((size_t)kk);
        for (int32_t p = 0; p < P; ++p) {
            if (!L.size(p) || !parts.holds(p)) continue;
            for (int32_t jj = 0; jj < kk; ++jj) {
                const int64_t pos = L.position_of(q[jj]);
                loc[jj] = L.owner_of_position(pos) == p ? pos - L.offset[p] : -1;
            }
            parts[p].backend->upload(qd[p].get(), loc.data(), (size_t)kk * sizeof(int64_t));
        }
    };
    int32_t kk = k;  // queries still running
    upload_queries(kk);
    // R = E, U = E .* inv_degree (AlgoSteps::rwr_start would index a query outside the piece)
    for (int32_t p = 0; p < P; ++p) {
        if (!L.size(p) || !parts.holds(p)) continue;
        parts[p].backend->set_bytes(R[p].get(), 0, (size_t)L.size(p) * block);
        parts[p].backend->set_bytes(U[p].get(), 0, (size_t)L.size(p) * block);
    }
    for (int32_t j = 0; j < k; ++j) {
        const int64_t pos = L.position_of(q[j]);
        const int32_t p = L.owner_of_position(pos);
        const size_t at = (size_t)(pos - L.offset[p]) * k + j;
        const float one = 1.0f, u = 1.0f * inv_host[(size_t)q[j]];
        if (!parts.holds(p)) continue;
        parts[p].backend->upload(R[p].as<float>() + at, &one, sizeof one);
        parts[p].backend->upload(U[p].as<float>() + at, &u, sizeof u);
    }
    std::vector<double> d((size_t)k);
    std::vector<std::vector<double>> partial((size_t)P, std::vector<double>((size_t)k, 0.0));
    std::vector<int32_t> fin_src, fin_dst, keep, ident((size_t)k);
    for (int32_t j = 0; j < k; ++j) ident[j] = j;
    std::vector<float> piece;
    int32_t it = 0;
    while (kk > 0 && it < max_iterations) {
        product_pattern_k(S, kk, cptrs<float>(U), ptrs<float>(T));
        for (int32_t p = 0; p < P; ++p) {
            const int64_t m = L.size(p);
            std::fill(partial[p].begin(), partial[p].end(), 0.0);
            if (!m || !parts.holds(p)) continue;
            parts[p].steps->rwr_update(m, kk, T[p].as<float>(), R[p].as<float>(), R[p].as<float>(), U[p].as<float>(),
                                       inv[p].as<float>(), c, qd[p].as<int64_t>(), diffs[p].as<double>());
            parts[p].backend->download(partial[p].data(), diffs[p].get(), (size_t)kk * sizeof(double));
        }
        d = parts.comm->sum(parts, partial, (size_t)kk);
        ++it;
        fin_src.clear();
        fin_dst.clear();
        keep.clear();
        for (int32_t jj = 0; jj < kk; ++jj) {
            if (d[jj] <= tolerance || it >= max_iterations) {
                fin_src.push_back(jj);
                fin_dst.push_back(active[jj]);
                if (d[jj] <= tolerance) iterations[active[jj]] = it;
            } else {
                keep.push_back(jj);
            }
        }
        if (fin_src.empty()) continue;
        std::vector<Bytes> blocks((size_t)P);  // the finished columns into the host result
        for (int32_t p = 0; p < P; ++p) {
            const int64_t m = L.size(p);
            if (!m || !parts.holds(p)) continue;
            blocks[p].resize((size_t)m * kk * sizeof(float));
            parts[p].backend->download(blocks[p].data(), R[p].get(), blocks[p].size());
        }
        parts.comm->all_gather(blocks);
        for (int32_t p = 0; p < P; ++p) {
            const int64_t m = L.size(p);
            if (!m) continue;
            piece.resize((size_t)m * kk);
            std::memcpy(piece.data(), blocks[p].data(), piece.size() * sizeof(float));
            for (int64_t i = 0; i < m; ++i) {
                const int64_t g = L.global_of(L.offset[p] + i);
                for (size_t f = 0; f < fin_src.size(); ++f)
                    out[(size_t)g * k + fin_dst[f]] = piece[(size_t)i * kk + fin_src[f]];
            }
        }
        const int32_t nk = (int32_t)keep.size();
        if (nk == 0) break;
        // Compact as rwr_device does: R's kept columns into T, U's into R; the blocks trade roles.
        for (int32_t p = 0; p < P; ++p) {
            const int64_t m = L.size(p);
            if (!m || !parts.holds(p)) continue;
            parts[p].steps->copy_columns(m, R[p].as<float>(), kk, T[p].as<float>(), nk, nk, keep.data(), ident.data());
            parts[p].steps->copy_columns(m, U[p].as<float>(), kk, R[p].as<float>(), nk, nk, keep.data(), ident.data());
            Buffer free_block = std::move(U[p]);
            U[p] = std::move(R[p]);
            R[p] = std::move(T[p]);
            T[p] = std::move(free_block);
        }
        for (int32_t jj = 0; jj < nk; ++jj) {
            active[jj] = active[keep[jj]];
            q[jj] = q[keep[jj]];
        }
        kk = nk;
        upload_queries(kk);
    }
    relevance_host = std::move(out);
    bool all = true;
    for (int32_t j = 0; j < k; ++j) all = all && iterations[j] > 0;
    return all;
}

}  // namespace dist
}  // namespace psv
