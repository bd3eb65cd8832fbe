// What the algorithm steps share on the device: the loop's state moved by a step's difference as
// a reduction's result (LoopState, src/core/algo_steps.hpp; see OutArray in cuda/vector/reduce.cuh),
// and PageRank's rank update (the update step's and the fused accumulate pass's).
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

// PageRank's new rank in fp32: scale p + d t, with scale = (1 - d) + d dangling (pagerank_scale_of),
// p the row's teleport share (1/n or personal(i)) and t its sum over A'.
__device__ __forceinline__ float pagerank_scale_of(double damping, double dangling) {
    return (float)((1.0 - damping) + damping * dangling);
}
__device__ __forceinline__ float pagerank_rank(float scale, float d, float p, float t) { return scale * p + d * t; }

}  // namespace cuda
}  // namespace psv
