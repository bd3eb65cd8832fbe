// PageRank as LAGraph's LAGr_PageRank defines it (see psv.h). Each iteration is the backend's
// product t = A' w (plus-second; on the transpose, or pushed from A) and the step of the fused
// rank update with the L1 difference and the convergence test (into a LoopState in backend
// memory), which also scales the new rank by inverse out-degree for the next product, with the
// dangling sum (AlgoSteps::pagerank_update_scale; the first iteration's scale, pagerank_scale,
// runs before the loop). The backend's run_loop
// repeats it: on CUDA several iterations per host round trip for a small matrix, the steps doing
// nothing past the converged iteration, so the rank and the count are those of a loop that reads
// the difference back every iteration.
// Where the backend fuses the iteration into the product's passes (AlgoSteps::pagerank_fused: CUDA
// with AT planned for the streamed product), each iteration is that one product.
// Personalized PageRank passes a teleport vector (backend memory, summing to 1) to the update,
// which then spreads both the teleport and the dangling rank by it.
#include "algo/algorithms.hpp"

namespace psv {

bool pagerank(Backend &be, AlgoSteps &st, const MatrixStore &A, const MatrixStore *AT, double damping,
              double tolerance, int32_t max_iterations, Buffer &rank, int32_t &iterations,
              const float *personal) {
    const int64_t n = A.nrows;
    Buffer r(&be, (size_t)n * sizeof(float));
    iterations = 0;
    if (n == 0) {
        rank = std::move(r);
        return true;
    }
    Buffer inv(&be, (size_t)n * sizeof(float)), state(&be, sizeof(LoopState));
    A.inverse_row_lengths(inv.as<float>());
    const float r0 = (float)(1.0 / (double)n);
    be.fill(PSV_FP32, n, r.get(), &r0);
    LoopState s;
    s.max_iterations = max_iterations;
    s.tolerance = tolerance;
    be.upload(state.get(), &s, sizeof s);
    LoopState *sd = state.as<LoopState>();
    const std::unique_ptr<FusedIteration> fused =
        AT ? st.pagerank_fused(*AT, r.as<float>(), inv.as<float>(), damping, personal, sd) : nullptr;
    if (fused) {
        st.run_loop([&] { fused->run(); }, sd, A.nvals, s, true);
    } else {
        Buffer w(&be, (size_t)n * sizeof(float)), t(&be, (size_t)n * sizeof(float)), dangling(&be, sizeof(double));
        st.pagerank_scale(n, r.as<float>(), inv.as<float>(), w.as<float>(), dangling.as<double>(), sd);
        st.run_loop(
            [&] {
                transposed_product(be, A, AT, w.as<float>(), t.as<float>());
                st.pagerank_update_scale(n, t.as<float>(), r.as<float>(), damping, dangling.as<double>(), personal,
                                         inv.as<float>(), w.as<float>(), sd);
            },
            sd, A.nvals, s);
    }
    iterations = s.iterations;
    rank = std::move(r);
    return s.converged != 0;
}

}  // namespace psv
