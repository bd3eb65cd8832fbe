// One product of a matrix run a stage at a time, so that each stage can be timed alone: the split
// that psv_bench --ranks prints (the local block's product, the exchange, the remote block's
// product). Internal, for the bench and the tests; the library's calls use dist::product, whose
// pieces (product.cpp) the stages run.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "dist/dist.hpp"

namespace psv {
namespace dist {

class Exchange;  // product.cpp: one product's all-gather of x

enum class ProductStage {
    Local,     // t = each part's local block (+).(x) its own piece of u: nothing moves
    Exchange,  // the all-gather of u into each part's full-length buffer, started and finished
               // (each held part's backend ordered after it), with no product
    Remote,    // t = t (+) each part's remote block (+).(x) the u gathered by the last Exchange
               // (none yet: PSV_ERROR_INVALID_VALUE)
    All,       // the whole product as psv_mxv runs it (dist::product: the exchange under the
               // local products), into t
};

// t = A (+).(x) u as psv_mxv computes it before assigning it to w, a stage at a time. A is a
// matrix of a multi-part or rank context, or of a one-part context: there Local and All are the
// whole product (psv_mxv's single-part spmv) and Exchange and Remote do nothing. Collective: on
// a rank context every rank makes one and runs the same stages in the same order. Local, then
// Exchange, then Remote leave in t what All leaves, bit for bit.
class StagedProduct {
public:
    // s: the semiring (ops made canonical as psv_mxv does); u: of s's type and A's column count,
    // brought into A's column layout here (once) where its layout differs. A, s, u and their
    // context must outlive this object. Errors (here and in run) are thrown as psv::Error:
    // PSV_ERROR_DOMAIN_MISMATCH and PSV_ERROR_DIMENSION_MISMATCH (psv_mxv's checks),
    // PSV_ERROR_OUT_OF_MEMORY, a Comm's errors.
    StagedProduct(const psv_matrix &A, const psv_semiring &s, const psv_vector &u);
    ~StagedProduct();
    StagedProduct(const StagedProduct &) = delete;
    StagedProduct &operator=(const StagedProduct &) = delete;

    void run(ProductStage stage);

    // Part p's piece of t, in A's row layout (p held; a one-part matrix: p = 0 and all of t):
    // its backend, length, values and presence (every byte written by Local and All).
    struct Piece {
        Backend *backend = nullptr;
        int64_t n = 0;
        const void *values = nullptr;
        const uint8_t *present = nullptr;
    };
    int32_t nparts() const { return (int32_t)t_.size(); }
    Piece piece(int32_t p) const;

private:
    void exchange();

    const PartitionedStore *M_ = nullptr;  // nullptr: a one-part matrix, one_ on one_backend_
    const MatrixStore *one_ = nullptr;
    Backend *one_backend_ = nullptr;
    SpmvArgs a_;
    std::vector<Buffer> u_vals_, u_pres_, t_vals_, t_pres_;  // u's copies (layouts differ); t
    std::vector<const void *> x_;
    std::vector<const uint8_t *> x_present_;
    std::vector<void *> t_;
    std::vector<uint8_t *> t_present_;
    std::unique_ptr<Exchange> ex_;  // the last exchange, its full-length buffers
    std::vector<const void *> gathered_;
    std::vector<const uint8_t *> gathered_present_;
};

}  // namespace dist
}  // namespace psv
