// The fp32 steps of the graph algorithms, run where the vectors live: each backend implements
// them (src/cpu, cuda/), the algorithms of src/algo call them. Double scalars (dangling mass,
// totals, differences) live in backend memory too, so an iteration needs no host round trip
// beyond its convergence scalar. CUDA: one launch each, reductions deterministic.
#pragma once
#include <cstdint>
#include <memory>

namespace psv {

class Backend;

// HITS's two forms (algo/hits.cpp). Separate: per iteration a = A' h, normalize; h = A a (the new
// a), normalize (two products). Stacked: the paper's single-matrix form, x = [a; h] <- [0 A'; A 0] x
// (one product of twice the size), halves normalized separately; its iterates are two interleaved
// chains of the separate form, so it needs about twice the iterations. A context holds the form
// its psv_hits uses (Auto: the rule of hits_auto_form); tests and measurements set it.
enum class HitsForm { Auto, Separate, Stacked };

class AlgoSteps {
public:
    virtual ~AlgoSteps() = default;
    // w = r .* inv_outdeg; *dangling = sum of r(i) where inv_outdeg(i) == 0 (dangling may be nullptr)
    virtual void pagerank_scale(int64_t n, const float *r, const float *inv_outdeg, float *w,
                                double *dangling) = 0;
    // r_new = (1 - damping) * p + damping * (*dangling) * p + damping * t, with p(i) =
    // personal(i), or 1/n where personal is nullptr; *diff = ||r_new - r||_1; r = r_new
    virtual void pagerank_update(int64_t n, const float *t, float *r, double damping,
                                 const double *dangling, const float *personal, double *diff) = 0;
    // *out = sum of x (in double)
    virtual void sum(int64_t n, const float *x, double *out) = 0;
    // x = x / *total (unchanged where *total is 0); *diff = ||x - prev||_1 (prev may be nullptr:
    // then *diff is not written)
    virtual void normalize_diff(int64_t n, float *x, const double *total, const float *prev,
                                double *diff) = 0;
    // Random walk with restart, k queries at once (k = 1: one). T and R are n x k, row-major
    // (entry (i, j) at i*k + j): R_new(i,j) = c * T(i,j) + (1-c) * [i == queries(j)];
    // diffs(j) = ||R_new(:,j) - R(:,j)||_1; R = R_new. queries is a host array.
    virtual void rwr_update(int64_t n, int32_t k, const float *T, float *R, double c,
                            const int64_t *queries_host, double *diffs) = 0;
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
