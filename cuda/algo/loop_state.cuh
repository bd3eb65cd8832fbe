// An algorithm loop's state moved on the device (LoopState, src/core/algo_steps.hpp): a step's
// difference as a reduction's result (see OutArray in cuda/vector/reduce.cuh).
#pragma once
#include "core/algo_steps.hpp"

namespace psv {
namespace cuda {

// The update's result: the difference, the iteration counted, the convergence test; a step of an
// ended loop does nothing (skip).
struct OutLoop {
    LoopState *state;
    __device__ bool skip() const { return state->done; }
    __device__ void put(int, double r) const {
        LoopState &s = *state;
        s.diff = r;
        s.iterations += 1;
        s.converged = r <= s.tolerance;
        s.done = s.converged || s.iterations >= s.max_iterations;
    }
};

}  // namespace cuda
}  // namespace psv
