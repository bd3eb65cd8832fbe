// Graph algorithms, written once over the Backend interface (products, memory) and the
// backend's AlgoSteps (the per-iteration vector steps).
#pragma once
#include <memory>

#include "core/algo_steps.hpp"
#include "core/backend.hpp"

namespace psv {

// LAGr_PageRank on the pattern of A (AT: A's transpose store, or nullptr: the A' products push
// from A, Backend::pattern_product_transposed). rank receives n fp32 ranks in
// the backend's memory; iterations the count run. Returns whether it converged. personal (n
// fp32 values in the backend's memory, summing to 1, or nullptr for uniform) is the teleport
// vector; the rank of dangling vertices is spread by it too (networkx's convention).
bool pagerank(Backend &be, AlgoSteps &st, const MatrixStore &A, const MatrixStore *AT, double damping,
              double tolerance, int32_t max_iterations, Buffer &rank, int32_t &iterations,
              const float *personal = nullptr);

// ---- HITS ----------------------------------------------------------------------------------
// The two forms (HitsForm, core/algo_steps.hpp): Separate, two products an iteration; Stacked,
// the paper's single-matrix form (see hits.cpp).

// The form Auto resolves to on a backend (see hits.cpp for the reason).
HitsForm hits_auto_form(const Backend &be, const MatrixStore &A);

// The form psv_hits uses on the context ctx (a live handle; Auto, the default: hits_auto_form).
// Internal, for tests and measurements: the C API offers no choice of form. A stacked matrix
// whose 2n rows exceed the dimension limit falls back to the separate form.
void set_hits_form(psv_context *ctx, HitsForm form);

// [0 A'; A 0] (2n x 2n pattern) built from A's tuples with A's format options.
std::unique_ptr<MatrixStore> hits_stacked_matrix(Backend &be, const MatrixStore &A);

// HITS on the pattern of A. Separate needs A and AT (or nullptr: a = A' h pushed from A);
// Stacked needs M = hits_stacked_matrix(A).
// hubs and authorities receive n fp32 values each in the backend's memory. Returns whether it
// converged: ||a - a_prev||_1 + ||h - h_prev||_1 <= tolerance.
bool hits_separate(Backend &be, AlgoSteps &st, const MatrixStore &A, const MatrixStore *AT, double tolerance,
                   int32_t max_iterations, Buffer &hubs, Buffer &authorities,
                   int32_t &iterations);
bool hits_stacked(Backend &be, AlgoSteps &st, const MatrixStore &M, double tolerance, int32_t max_iterations,
                  Buffer &hubs, Buffer &authorities, int32_t &iterations);

// ---- Random walk with restart ----------------------------------------------------------------
// The graph of A taken as undirected: S = pattern of (A + A') (self-loops once), and the inverse
// column sums of S (0 for an empty column) -- S is symmetric, so they are its inverse degrees.
struct RwrGraph {
    std::unique_ptr<MatrixStore> S;
    Buffer inv_degree;  // n fp32 in the backend's memory
};
RwrGraph rwr_graph(Backend &be, const MatrixStore &A);

// k queries at once (host array of k vertex ids, each in [0, n)): R = c W R + (1-c) E with
// W = S D^-1 and E(:,j) = e_{queries[j]}, R0 = E. Each query stops on its own when
// ||R(:,j) - R_prev(:,j)||_1 <= tolerance (its column is then frozen and dropped from the
// batch), so a batch gives what k single runs give. relevance receives n x k fp32 in the
// backend's memory, row-major (entry (i, j) at i*k + j); iterations[j] the count of query j
// (negative: not converged after max_iterations). Returns whether every query converged.
bool rwr_device(Backend &be, AlgoSteps &st, const RwrGraph &g, const int64_t *queries_host, int32_t k, double c,
                double tolerance, int32_t max_iterations, Buffer &relevance, int32_t *iterations);

// rwr_device with the n x k result copied to the host (relevance_host).
bool rwr(Backend &be, AlgoSteps &st, const RwrGraph &g, const int64_t *queries_host, int32_t k, double c,
         double tolerance, int32_t max_iterations, float *relevance_host, int32_t *iterations);

// One query (rwr_device with k = 1), the relevance vector left in the backend's memory (n fp32);
// iterations: the count run.
bool rwr_single(Backend &be, AlgoSteps &st, const RwrGraph &g, int64_t query, double c, double tolerance,
                int32_t max_iterations, Buffer &relevance, int32_t &iterations);

}  // namespace psv
