// Random walk with restart (Tong, Faloutsos and Pan; the paper's appendix F), single and batched.
//
// W = S D^-1 is never formed: S is the symmetric pattern of A + A' and every iteration is
//   U = R .* inv_degree (row scaling)  ->  T = S (+).(second) U  ->  R = c T + (1-c) E (fused with
//   the per-query L1 differences: AlgoSteps::rwr_update),
// and one read-back of the k convergence scalars. k > 1 queries take the k-vector product
// (Backend::spmm_pattern), so the matrix is read once per iteration for all of them (see product()
// for k = 1).
//
// A batch drops a query as soon as it has converged (its column is copied out and the block is
// compacted: one host round trip of the block, at most k times per call), so each query runs
// exactly the iterations a single run would, and no work is spent on finished queries.
#include <algorithm>
#include <cstring>
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

namespace {

// T = S U for k vectors (row-major n x k): the k-vector product for every k, so the matrix is read
// once per iteration for all queries and a batch computes exactly the columns of single runs.
void product(Backend &be, const MatrixStore &S, int32_t k, const float *U, float *T) {
    be.spmm_pattern(S, k, U, T);
}

// R = e_q columns (n x k row-major, zero elsewhere).
void start_block(Backend &be, int64_t n, int32_t k, const int64_t *queries, float *R) {
    be.set_bytes(R, 0, (size_t)n * k * sizeof(float));
    const float one = 1.0f;
    for (int32_t j = 0; j < k; ++j) be.upload(R + queries[j] * k + j, &one, sizeof one);
}

// inv_degree repeated k times per row (n x k row-major) in the backend's memory.
void scale_block(Backend &be, const std::vector<float> &inv_host, int32_t k, Buffer &out) {
    const int64_t n = (int64_t)inv_host.size();
    std::vector<float> rep((size_t)n * k);
    for (int64_t i = 0; i < n; ++i)
        for (int32_t j = 0; j < k; ++j) rep[(size_t)i * k + j] = inv_host[i];
    be.upload(out.get(), rep.data(), rep.size() * sizeof(float));
}

}  // namespace

bool rwr_single(Backend &be, AlgoSteps &st, const RwrGraph &g, int64_t query, double c, double tolerance,
                int32_t max_iterations, Buffer &relevance, int32_t &iterations) {
    const int64_t n = g.S->nrows;
    Buffer R(&be, (size_t)n * sizeof(float)), U(&be, (size_t)n * sizeof(float)),
        T(&be, (size_t)n * sizeof(float)), diff(&be, sizeof(double));
    start_block(be, n, 1, &query, R.as<float>());
    iterations = 0;
    bool converged = false;
    while (iterations < max_iterations) {
        st.pagerank_scale(n, R.as<float>(), g.inv_degree.as<float>(), U.as<float>(), nullptr);
        product(be, *g.S, 1, U.as<float>(), T.as<float>());
        st.rwr_update(n, 1, T.as<float>(), R.as<float>(), c, &query, diff.as<double>());
        ++iterations;
        double d = 0;
        be.download(&d, diff.get(), sizeof d);
        if (d <= tolerance) {
            converged = true;
            break;
        }
    }
    relevance = std::move(R);
    return converged;
}

bool rwr(Backend &be, AlgoSteps &st, const RwrGraph &g, const int64_t *queries_host, int32_t k, double c,
         double tolerance, int32_t max_iterations, float *out, int32_t *iterations) {
    const int64_t n = g.S->nrows;
    if (k <= 0) return true;
    for (int32_t j = 0; j < k; ++j) iterations[j] = -max_iterations;
    if (n == 0) return true;

    std::vector<int32_t> active((size_t)k);  // column of the batch -> query index j
    std::vector<int64_t> q((size_t)k);       // column of the batch -> vertex
    for (int32_t j = 0; j < k; ++j) {
        active[j] = j;
        q[j] = queries_host[j];
    }
    int32_t kk = k;  // queries still running
    const size_t block = (size_t)n * k * sizeof(float);
    Buffer R(&be, block), U(&be, block), T(&be, block), diffs(&be, (size_t)k * sizeof(double));
    Buffer inv_block;
    std::vector<float> inv_host;
    if (k > 1) {
        inv_host.resize((size_t)n);
        be.download(inv_host.data(), g.inv_degree.get(), (size_t)n * sizeof(float));
        inv_block = Buffer(&be, block);
        scale_block(be, inv_host, kk, inv_block);
    }
    start_block(be, n, kk, q.data(), R.as<float>());
    std::vector<double> d((size_t)k);
    std::vector<float> host;  // the block on the host while it is compacted
    int32_t it = 0;
    while (kk > 0 && it < max_iterations) {
        const float *inv = kk > 1 ? inv_block.as<float>() : g.inv_degree.as<float>();
        // kk == 1 after compaction: inv_block holds inv_degree itself, either is right.
        st.pagerank_scale(n * kk, R.as<float>(), inv, U.as<float>(), nullptr);
        product(be, *g.S, kk, U.as<float>(), T.as<float>());
        st.rwr_update(n, kk, T.as<float>(), R.as<float>(), c, q.data(), diffs.as<double>());
        ++it;
        be.download(d.data(), diffs.get(), (size_t)kk * sizeof(double));
        int32_t done = 0;
        for (int32_t j = 0; j < kk; ++j) done += d[j] <= tolerance;
        if (!done && it < max_iterations) continue;
        // Copy the finished columns out (all of them at the limit) and compact the rest.
        host.resize((size_t)n * kk);
        be.download(host.data(), R.get(), host.size() * sizeof(float));
        int32_t keep = 0;
        std::vector<int32_t> keep_cols;
        for (int32_t j = 0; j < kk; ++j) {
            const bool fin = d[j] <= tolerance;
            if (fin || it >= max_iterations) {
                const int32_t qj = active[j];
                for (int64_t i = 0; i < n; ++i) out[(size_t)i * k + qj] = host[(size_t)i * kk + j];
                if (fin) iterations[qj] = it;
            } else {
                keep_cols.push_back(j);
                ++keep;
            }
        }
        if (keep == 0 || it >= max_iterations) {
            kk = 0;
            break;
        }
        std::vector<float> packed((size_t)n * keep);
        for (int64_t i = 0; i < n; ++i)
            for (int32_t jj = 0; jj < keep; ++jj)
                packed[(size_t)i * keep + jj] = host[(size_t)i * kk + keep_cols[jj]];
        for (int32_t jj = 0; jj < keep; ++jj) {
            active[jj] = active[keep_cols[jj]];
            q[jj] = q[keep_cols[jj]];
        }
        kk = keep;
        be.upload(R.get(), packed.data(), packed.size() * sizeof(float));
        if (kk > 1) scale_block(be, inv_host, kk, inv_block);
    }
    bool all = true;
    for (int32_t j = 0; j < k; ++j) all = all && iterations[j] > 0;
    return all;
}

}  // namespace psv
