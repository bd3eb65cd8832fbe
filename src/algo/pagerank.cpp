// PageRank as LAGraph's LAGr_PageRank defines it (see psv.h). Each iteration is three calls --
// the step scaling by inverse out-degree (with the dangling sum, AlgoSteps::pagerank_scale), the
// backend's product t = A' w (plus-second), and the step of the fused rank update with the L1
// difference (AlgoSteps::pagerank_update) -- and one scalar read back: the convergence test.
// Personalized PageRank passes a teleport vector (backend memory, summing to 1) to the update,
// which then spreads both the teleport and the dangling rank by it.
#include "algo/algorithms.hpp"

namespace psv {

bool pagerank(Backend &be, AlgoSteps &st, const MatrixStore &A, const MatrixStore &AT, double damping,
              double tolerance, int32_t max_iterations, Buffer &rank, int32_t &iterations,
              const float *personal) {
    const int64_t n = A.nrows;
    Buffer r(&be, (size_t)n * sizeof(float));
    iterations = 0;
    if (n == 0) {
        rank = std::move(r);
        return true;
    }
    Buffer inv(&be, (size_t)n * sizeof(float)), w(&be, (size_t)n * sizeof(float)),
        t(&be, (size_t)n * sizeof(float)), scalars(&be, 2 * sizeof(double));
    A.inverse_row_lengths(inv.as<float>());
    const float r0 = (float)(1.0 / (double)n);
    be.fill(PSV_FP32, n, r.get(), &r0);
    double *dangling = scalars.as<double>(), *diff = dangling + 1;
    bool converged = false;
    while (iterations < max_iterations) {
        st.pagerank_scale(n, r.as<float>(), inv.as<float>(), w.as<float>(), dangling);
        pattern_product(be, AT, w.as<float>(), t.as<float>());
        st.pagerank_update(n, t.as<float>(), r.as<float>(), damping, dangling, personal, diff);
        ++iterations;
        double d = 0;
        be.download(&d, diff, sizeof d);
        if (d <= tolerance) {
            converged = true;
            break;
        }
    }
    rank = std::move(r);
    return converged;
}

}  // namespace psv
