// Graph algorithms, written once over the Backend interface.
#pragma once
#include "core/backend.hpp"

namespace psv {

// LAGr_PageRank on the pattern of A (AT is A's transpose store). rank receives n fp32 ranks in
// the backend's memory; iterations the count run. Returns whether it converged.
bool pagerank(Backend &be, const MatrixStore &A, const MatrixStore &AT, double damping,
              double tolerance, int32_t max_iterations, Buffer &rank, int32_t &iterations);

}  // namespace psv
