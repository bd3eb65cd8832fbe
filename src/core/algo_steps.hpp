// The fp32 steps of the graph algorithms, run where the vectors live: each backend implements
// them (src/cpu, cuda/), the algorithms of src/algo call them. Double scalars (dangling mass,
// totals, differences) live in backend memory too, so an iteration needs no host round trip
// beyond its convergence scalar. CUDA: one launch each, reductions deterministic.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace psv {

class Backend;

// HITS's two forms (algo/hits.cpp). Separate: per iteration a = A' h, normalize; h = A a (the new
// a), normalize (two products). Stacked: the paper's single-matrix form, x = [a; h] <- [0 A'; A 0] x
// (one product of twice the size), halves normalized separately; its iterates are two interleaved
// chains of the separate form, so it needs about twice the iterations. A context holds the form
// its psv_hits uses (Auto: the rule of hits_auto_form); tests and measurements set it.
enum class HitsForm { Auto, Separate, Stacked };

// The state of an iteration loop whose convergence test runs where the vectors live (backend
// memory): the step that computes the difference counts the iteration and ends the loop, and the
// steps given the state do nothing once it has ended. So a backend may run several iterations
// before the host looks (AlgoSteps::run_loop) and still stop at the true iteration.
struct LoopState {
    int32_t iterations = 0;  // iterations run
    int32_t done = 0;        // 1: the loop has ended (converged, or max_iterations run)
    int32_t converged = 0;   // 1: ended by diff <= tolerance
    int32_t max_iterations = 0;
    double tolerance = 0;
    double diff = 0;  // the last iteration's difference
};

// One iteration of an algorithm's loop fused into the passes of its product (AlgoSteps::
// pagerank_fused). It holds its scratch; run() allocates nothing (run_loop may capture it).
class FusedIteration {
public:
    virtual ~FusedIteration() = default;
    virtual void run() = 0;
};

class MatrixStore;

class AlgoSteps {
public:
    virtual ~AlgoSteps() = default;
    // PageRank's iteration -- pagerank_scale, t = AT (+).(second) w, pagerank_update -- as the
    // passes of the product alone where the backend can (CUDA: AT planned for the streamed
    // product): the scale where the product reads x, the update, the difference and the loop
    // state where it writes its rows; the same formulas, the dangling sum and the difference
    // summed in other fixed orders (deterministic, not bit-equal to the three steps). nullptr
    // (nothing allocated) where it cannot; the caller then runs the three steps. AT: n x n.
    virtual std::unique_ptr<FusedIteration> pagerank_fused(const MatrixStore & /*AT*/, float * /*r*/,
                                                           const float * /*inv_outdeg*/, double /*damping*/,
                                                           const float * /*personal*/, LoopState * /*state*/) {
        return nullptr;
    }
    // w = r .* inv_outdeg; *dangling = sum of r(i) where inv_outdeg(i) == 0 (dangling may be
    // nullptr). Nothing at all where state (may be nullptr) has ended.
    virtual void pagerank_scale(int64_t n, const float *r, const float *inv_outdeg, float *w,
                                double *dangling, const LoopState *state = nullptr) = 0;
    // r_new = (1 - damping) * p + damping * (*dangling) * p + damping * t, with p(i) =
    // personal(i), or 1/n where personal is nullptr; r = r_new; the loop state counts the
    // iteration, keeps diff = ||r_new - r||_1 and ends where diff <= tolerance or max_iterations
    // are run. Nothing at all where the state has ended already.
    virtual void pagerank_update(int64_t n, const float *t, float *r, double damping,
                                 const double *dangling, const float *personal, LoopState *state) = 0;
    // pagerank_update, then the next iteration's pagerank_scale of the new rank: w = r .*
    // inv_outdeg and *dangling its dangling sum (the update reads *dangling first). CUDA: one
    // launch, the dangling sum in the update's fixed order (not bit-equal to pagerank_scale's).
    // Nothing at all where the state has ended already.
    virtual void pagerank_update_scale(int64_t n, const float *t, float *r, double damping, double *dangling,
                                       const float *personal, const float *inv_outdeg, float *w,
                                       LoopState *state) = 0;
    // Runs iteration() -- steps that end *state (backend memory) -- until the state has ended,
    // and copies the final state to host. The CPU backend runs one iteration at a time; CUDA may
    // run several per host round trip (captured as a CUDA graph where `entries`, the nonzeros
    // one iteration reads, is small enough for launches to dominate; launched ahead of the
    // host's look where skips_whole says an iteration past the loop's end does nothing at all,
    // its product included). iteration() must allocate nothing that outlives it and read back
    // nothing.
    virtual void run_loop(const std::function<void()> &iteration, LoopState *state, int64_t entries,
                          LoopState &final_host, bool skips_whole = false) = 0;
    // *out = sum of x (in double)
    virtual void sum(int64_t n, const float *x, double *out) = 0;
    // x = x / *total (unchanged where *total is 0); *diff = ||x - prev||_1 (prev may be nullptr:
    // then *diff is not written)
    virtual void normalize_diff(int64_t n, float *x, const double *total, const float *prev,
                                double *diff) = 0;

    // ---- random walk with restart, k queries at once (k = 1: one). Blocks are n x k, row-major
    // (entry (i, j) at i*k + j); queries holds k int64 vertices in backend memory. ----
    // R = E (R(i,j) = [i == queries(j)]) and U = R .* inv_degree (row i scaled by inv_degree(i)).
    virtual void rwr_start(int64_t n, int32_t k, const int64_t *queries, const float *inv_degree,
                           float *R, float *U) = 0;
    // R_new(i,j) = c * T(i,j) + (1-c) * [i == queries(j)]; diffs(j) = ||R_new(:,j) - R(:,j)||_1;
    // U = R_new .* inv_degree (the next product's input: the scaling fused here). R_new may be
    // R or T (each element is read before it is written); a distinct R_new leaves R as it was,
    // so a loop may start the next iteration before it has looked at these diffs.
    virtual void rwr_update(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *U,
                            const float *inv_degree, double c, const int64_t *queries,
                            double *diffs) = 0;
    // dst(i, dst_cols[t]) = src(i, src_cols[t]) for t < m, every row i < n; src is n x src_k,
    // dst n x dst_k (distinct buffers); the column lists are host arrays.
    virtual void copy_columns(int64_t n, const float *src, int32_t src_k, float *dst, int32_t dst_k,
                              int32_t m, const int32_t *src_cols_host, const int32_t *dst_cols_host) = 0;

    // ---- reading results back while the steps run on ----
    // Whether the steps run asynchronously to the host (CUDA), so that a loop gains by launching
    // its next iteration before it looks at the last one's result; false: each step has finished
    // when its call returns (CPU).
    virtual bool runs_ahead() const = 0;
    // Starts copying `bytes` of backend memory at src, once every step called before has written
    // it, into host slot `slot` (0 or 1) that the steps own; read_wait(slot) waits for that copy
    // and returns the slot (valid until its next read_post). The CPU steps copy at once.
    virtual void read_post(const void *src, size_t bytes, int slot) = 0;
    virtual const void *read_wait(int slot) = 0;
    // Copies `bytes` of host memory at src into backend memory at dst once every step called
    // before has run, without waiting for them: the steps stage src, which the caller may reuse
    // when the call returns (the CPU steps copy at once).
    virtual void write_post(void *dst, const void *src, size_t bytes) = 0;
};

// The steps of a backend, for that backend (cuda::create_algo_steps throws
// PSV_ERROR_BACKEND_UNAVAILABLE where CUDA is not built).
std::unique_ptr<AlgoSteps> create_cpu_algo_steps(Backend &cpu);
namespace cuda {
std::unique_ptr<AlgoSteps> create_algo_steps(Backend &cuda_backend);
}
// Whichever of the two fits be.kind().
std::unique_ptr<AlgoSteps> create_algo_steps(Backend &be);

}  // namespace psv
