// Random walk with restart (Tong, Faloutsos and Pan; the paper's appendix F), single and batched.
//
// W = S D^-1 is never formed: S is the symmetric pattern of A + A' and every iteration is
//   T = S (+).(second) U  ->  R = c T + (1-c) E, U = R .* inv_degree (fused with the per-query
//   L1 differences: AlgoSteps::rwr_update),
// and one read-back of the k convergence scalars. k > 1 queries take the k-vector product
// (Backend::spmm_pattern), so the matrix is read once per iteration for all of them.
//
// A batch drops a query as soon as it has converged: its column is copied into the result block
// and the running block is compacted, all in the backend's memory (AlgoSteps::copy_columns), so
// each query runs exactly the iterations a single run would, no work is spent on finished
// queries, and nothing but the k differences crosses to the host per iteration.
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
    if (n == 0) {
        relevance = std::move(out);
        return true;
    }
    // R, U, T: the running block, its scaled copy (the product's input), the product
    Buffer bufs[3] = {Buffer(&be, block), Buffer(&be, block), Buffer(&be, block)};
    float *R = bufs[0].as<float>(), *U = bufs[1].as<float>(), *T = bufs[2].as<float>();
    Buffer qd(&be, (size_t)k * sizeof(int64_t)), diffs(&be, (size_t)k * sizeof(double));
    std::vector<int32_t> active((size_t)k);  // column of the running block -> query index j
    std::vector<int64_t> q((size_t)k);       // column of the running block -> vertex
    for (int32_t j = 0; j < k; ++j) {
        active[j] = j;
        q[j] = queries_host[j];
    }
    be.upload(qd.get(), q.data(), (size_t)k * sizeof(int64_t));
    const float *inv = g.inv_degree.as<float>();
    int32_t kk = k;  // queries still running
    st.rwr_start(n, kk, qd.as<int64_t>(), inv, R, U);
    std::vector<double> d((size_t)k);
    std::vector<int32_t> fin_src, fin_dst, keep, ident((size_t)k);
    for (int32_t j = 0; j < k; ++j) ident[j] = j;
    int32_t it = 0;
    while (kk > 0 && it < max_iterations) {
        be.spmm_pattern(*g.S, kk, U, T);
        st.rwr_update(n, kk, T, R, U, inv, c, qd.as<int64_t>(), diffs.as<double>());
        ++it;
        be.download(d.data(), diffs.get(), (size_t)kk * sizeof(double));
        fin_src.clear();
        fin_dst.clear();
        keep.clear();
        for (int32_t j = 0; j < kk; ++j) {
            if (d[j] <= tolerance || it >= max_iterations) {
                fin_src.push_back(j);
                fin_dst.push_back(active[j]);
                if (d[j] <= tolerance) iterations[active[j]] = it;
            } else {
                keep.push_back(j);
            }
        }
        if (fin_src.empty()) continue;
        st.copy_columns(n, R, kk, out.as<float>(), k, (int32_t)fin_src.size(), fin_src.data(), fin_dst.data());
        const int32_t nk = (int32_t)keep.size();
        if (nk == 0) break;
        // Compact: R's kept columns into T (free until the next product), U's into R; the
        // buffers then trade roles.
        st.copy_columns(n, R, kk, T, nk, nk, keep.data(), ident.data());
        st.copy_columns(n, U, kk, R, nk, nk, keep.data(), ident.data());
        float *const free_block = U;
        U = R;
        R = T;
        T = free_block;
        for (int32_t jj = 0; jj < nk; ++jj) {
            active[jj] = active[keep[jj]];
            q[jj] = q[keep[jj]];
        }
        kk = nk;
        be.upload(qd.get(), q.data(), (size_t)kk * sizeof(int64_t));
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
