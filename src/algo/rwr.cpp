// Random walk with restart (Tong, Faloutsos and Pan; the paper's appendix F), single and batched.
//
// W = S D^-1 is never formed: S is the symmetric pattern of A + A' and every iteration is
//   T = S (+).(second) U  ->  R = c T + (1-c) E, U = R .* inv_degree (fused with the per-query
//   L1 differences: AlgoSteps::rwr_update),
// and one read-back of the k convergence scalars, which the host looks at while the next
// iteration runs where the steps run asynchronously (AlgoSteps::runs_ahead). k > 1 queries take
// the k-vector product (Backend::spmm_pattern), so the matrix is read once per iteration for all
// of them.
//
// A batch drops a query as soon as it has converged: its column is copied into the result block
// and the running block is compacted, all in the backend's memory (AlgoSteps::copy_columns), so
// each query runs exactly the iterations a single run would, no work is spent on finished
// queries but the iteration already launched when they finish, and nothing but the k differences
// crosses to the host per iteration.
#include <algorithm>
#include <utility>
#include <vector>

#include "algo/algorithms.hpp"
#include "core/error.hpp"

namespace psv {

RwrGraph rwr_graph(Backend &be, const MatrixStore &A) {
    RwrGraph g;
    g.S = A.symmetric_pattern();
    g.inv_degree = Buffer(&be, (size_t)A.nrows * sizeof(float));
    g.S->inverse_row_lengths(g.inv_degree.as<float>());
    return g;
}

bool rwr_device(Backend &be, AlgoSteps &st, const RwrGraph &g, const int64_t *queries_host, int32_t k, double c,
                double tolerance, int32_t max_iterations, Buffer &relevance, int32_t *iterations) {
    const int64_t n = g.S->nrows;
    if (k <= 0) return true;
    for (int32_t j = 0; j < k; ++j) iterations[j] = -max_iterations;
    const size_t block = (size_t)n * k * sizeof(float);
    Buffer out(&be, block);
    if (n == 0 || max_iterations < 1) {
        relevance = std::move(out);
        return n == 0;
    }
    // R: the last iteration's R; U: its product input; F: free, or, launched ahead, the R of the
    // iteration before it, kept until that iteration's differences have been looked at
    Buffer bufs[3] = {Buffer(&be, block), Buffer(&be, block), Buffer(&be, block)};
    float *R = bufs[0].as<float>(), *U = bufs[1].as<float>(), *F = bufs[2].as<float>();
    Buffer qd(&be, (size_t)k * sizeof(int64_t)), diffs(&be, (size_t)k * sizeof(double));
    std::vector<int32_t> active((size_t)k);  // column of the running block -> query index j
    std::vector<int64_t> q((size_t)k);       // column of the running block -> vertex
    for (int32_t j = 0; j < k; ++j) {
        active[j] = j;
        q[j] = queries_host[j];
    }
    be.upload(qd.get(), q.data(), (size_t)k * sizeof(int64_t));
    const float *inv = g.inv_degree.as<float>();
    int32_t kk = k;  // columns of the running block
    st.rwr_start(n, kk, qd.as<int64_t>(), inv, R, U);
    // Iteration m: T = S U into F, R_new over T (R left as it was), U = R_new .* inv_degree; its
    // differences posted to read-back slot m & 1. R then names R_new, F the R before.
    const auto launch = [&](int32_t m) {
        be.spmm_pattern(*g.S, kk, U, F);
        st.rwr_update(n, kk, F, R, F, U, inv, c, qd.as<int64_t>(), diffs.as<double>());
        st.read_post(diffs.get(), (size_t)kk * sizeof(double), m & 1);
        std::swap(R, F);
    };
    // Where the steps run asynchronously (CUDA), iteration m + 1 is launched before the host looks
    // at iteration m's differences, so the device never waits on the look; the columns that
    // finish at m have run one iteration more, which nobody reads (their R_m is F then). An
    // iteration's differences are in the columns of the block it ran on: `seen` maps them to the
    // columns of the block launched last (-1: left at a compaction since).
    const bool ahead = st.runs_ahead();
    std::vector<int32_t> seen((size_t)k), fin_src, fin_dst, keep, ident((size_t)k);
    for (int32_t j = 0; j < k; ++j) seen[j] = ident[j] = j;
    int32_t k_seen = kk;  // columns of the iteration looked at
    launch(1);
    for (int32_t m = 1;; ++m) {
        const bool next = ahead && m < max_iterations;
        if (next) launch(m + 1);
        const double *d = static_cast<const double *>(st.read_wait(m & 1));
        // iteration m's R: F once m + 1 is launched (in the running block's columns), else R
        const float *Rm = next ? F : R;
        fin_src.clear();
        fin_dst.clear();
        for (int32_t j = 0; j < k_seen; ++j) {
            const int32_t col = seen[j];
            if (col < 0) continue;
            if (d[j] <= tolerance || m >= max_iterations) {
                fin_src.push_back(col);
                fin_dst.push_back(active[col]);
                if (d[j] <= tolerance) iterations[active[col]] = m;
            }
        }
        if (!fin_src.empty()) st.copy_columns(n, Rm, kk, out.as<float>(), k, (int32_t)fin_src.size(), fin_src.data(), fin_dst.data());
        const int32_t nk = kk - (int32_t)fin_src.size();
        if (nk == 0 || m >= max_iterations) break;
        k_seen = kk;
        if (fin_src.empty()) {
            for (int32_t j = 0; j < kk; ++j) seen[j] = j;
            if (!next) launch(m + 1);
            continue;
        }
        // Compact the running block (the state after m + 1 where launched, else after m): R's kept
        // columns into F (free: R_m copied out above, or unused), U's into R; the buffers then
        // trade roles.
        // seen now maps iteration m + 1's columns (the running block's) to the compacted block's
        // (-1: finished); keep lists the columns kept
        std::fill(seen.begin(), seen.begin() + kk, 0);
        for (int32_t col : fin_src) seen[col] = -1;
        keep.clear();
        for (int32_t col = 0; col < kk; ++col)
            if (seen[col] >= 0) {
                seen[col] = (int32_t)keep.size();
                keep.push_back(col);
            }
        st.copy_columns(n, R, kk, F, nk, nk, keep.data(), ident.data());
        st.copy_columns(n, U, kk, R, nk, nk, keep.data(), ident.data());
        float *const free_block = U;
        U = R;
        R = F;
        F = free_block;
        for (int32_t jj = 0; jj < nk; ++jj) {
            active[jj] = active[keep[jj]];
            q[jj] = q[keep[jj]];
        }
        kk = nk;
        // in stream order, after iteration m + 1 (launched ahead, it reads the queries as they
        // were), and without waiting for it
        st.write_post(qd.get(), q.data(), (size_t)kk * sizeof(int64_t));
        if (!next) {
            for (int32_t j = 0; j < kk; ++j) seen[j] = j;
            k_seen = kk;
            launch(m + 1);
        }
    }
    relevance = std::move(out);
    bool all = true;
    for (int32_t j = 0; j < k; ++j) all = all && iterations[j] > 0;
    return all;
}

bool rwr(Backend &be, AlgoSteps &st, const RwrGraph &g, const int64_t *queries_host, int32_t k, double c,
         double tolerance, int32_t max_iterations, float *relevance_host, int32_t *iterations) {
    Buffer out;
    const bool all = rwr_device(be, st, g, queries_host, k, c, tolerance, max_iterations, out, iterations);
    if (k > 0) be.download(relevance_host, out.get(), (size_t)g.S->nrows * k * sizeof(float));
    return all;
}

bool rwr_single(Backend &be, AlgoSteps &st, const RwrGraph &g, int64_t query, double c, double tolerance,
                int32_t max_iterations, Buffer &relevance, int32_t &iterations) {
    const bool converged = rwr_device(be, st, g, &query, 1, c, tolerance, max_iterations, relevance, &iterations);
    if (!converged) iterations = max_iterations;
    return converged;
}

}  // namespace psv
