// SpMV instantiations for value type int32_t: every semiring (add x multiply) of the type, each
// with the tile-composite (16- and 32-bit indices), TILE-COO and CSR-vector kernels.
#include "cuda/spmv/dispatch.cuh"

namespace psv {
namespace cuda {
PSV_INSTANTIATE_SPMV(int32_t)
}  // namespace cuda
}  // namespace psv
