// SpMV instantiations for value type bool_t: every semiring (add x multiply) of the type, each
// with the tile-composite (16- and 32-bit indices), TILE-COO and CSR-vector kernels.
#include "cuda/spmv/dispatch.cuh"

namespace psv {
namespace cuda {
PSV_INSTANTIATE_SPMV(bool_t)
}  // namespace cuda
}  // namespace psv
