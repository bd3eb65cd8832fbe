// SpMV instantiations for value type float: every semiring (add x multiply) of the type, each
// with the tile-composite (16- and 32-bit indices), TILE-COO and CSR-vector kernels.
#include "cuda/spmv/dispatch.cuh"

namespace psv {
namespace cuda {
PSV_INSTANTIATE_SPMV(float)
}  // namespace cuda
}  // namespace psv
