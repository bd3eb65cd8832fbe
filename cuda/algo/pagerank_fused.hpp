// PageRank's iteration fused into the streamed product's passes (pagerank_fused.cu); the CUDA
// AlgoSteps::pagerank_fused.
#pragma once
#include <memory>

#include "core/algo_steps.hpp"

namespace psv {
namespace cuda {

class CudaBackend;

// The fused iteration over AT where AT is planned for the streamed product (PSV_KERNEL_STREAM,
// fp32 slots, square, with entries); nullptr otherwise, nothing allocated.
std::unique_ptr<FusedIteration> pagerank_fused(CudaBackend &be, const MatrixStore &AT, float *r, const float *inv,
                                               double damping, const float *personal, LoopState *state);

}  // namespace cuda
}  // namespace psv
