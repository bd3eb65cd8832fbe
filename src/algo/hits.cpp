// HITS (Kleinberg) on the pattern of A: authorities a = A' h, hubs h = A a, each normalized to
// sum 1 every iteration, h0 = a0 = 1/n, stop when ||a - a_prev||_1 + ||h - h_prev||_1 <= tol.
//
// Two forms, both written over the Backend's products and the AlgoSteps sum and normalize steps:
//  - separate: a = A' h (on the cached transpose), normalize; h = A a with the NEW a,
//    normalize. Per iteration: two products of nnz entries, two sums, two fused
//    normalize+difference passes, one read-back of the two differences.
//  - stacked (the paper's appendix F): x = [a; h] <- [0 A'; A 0] x, one product of 2 nnz entries,
//    halves normalized separately. Both halves are computed from the OLD x, so the iterates are
//    two interleaved separate-form chains (a_{2k+1} and h_{2k} follow the separate form started
//    from h0, the others the one started from a0): reaching a given accuracy takes about twice
//    the iterations, each reading twice the entries -- about twice the work of the separate form.
//    Its only gain is one kernel launch of a larger, sparser matrix instead of two.
// Auto picks the separate form on every backend: an iteration costs about the same in both
// forms, the stacked one needs about twice as many and builds [0 A'; A 0] at every call
// (tests/algo/bench_algo.c times both; docs/design.md has the figures).
// The stacked form stays available (set_hits_form, the internal interface of tests and
// bench_algo) for measurements and for a backend where one launch of the larger product would win.
#include <utility>
#include <vector>

#include "algo/algorithms.hpp"
#include "core/csr_build.hpp"

namespace psv {

HitsForm hits_auto_form(const Backend &, const MatrixStore &) { return HitsForm::Separate; }

std::unique_ptr<MatrixStore> hits_stacked_matrix(Backend &be, const MatrixStore &A) {
    const int64_t n = A.nrows, nnz = A.nvals;
    std::vector<int64_t> rows((size_t)(2 * nnz)), cols((size_t)(2 * nnz));
    A.extract_tuples(rows.data(), cols.data(), nullptr);
    for (int64_t e = 0; e < nnz; ++e) {
        const int64_t i = rows[e], j = cols[e];
        rows[e] = j;  // a part: M(j, n + i) = A'(j, i) = A(i, j)
        cols[e] = n + i;
        rows[nnz + e] = n + i;  // h part: M(n + i, j) = A(i, j)
        cols[nnz + e] = j;
    }
    CsrHost csr = build_csr(2 * n, 2 * n, 2 * nnz, rows.data(), cols.data(), nullptr, PSV_FP32, PSV_NOOP);
    std::vector<int64_t>().swap(rows);
    std::vector<int64_t>().swap(cols);
    return be.build_matrix(std::move(csr), A.options);
}


bool hits_separate(Backend &be, AlgoSteps &st, const MatrixStore &A, const MatrixStore *AT, double tolerance,
                   int32_t max_iterations, Buffer &hubs, Buffer &authorities, int32_t &iterations) {
    const int64_t n = A.nrows;
    const size_t bytes = (size_t)n * sizeof(float);
    Buffer a(&be, bytes), h(&be, bytes), a_prev(&be, bytes), h_prev(&be, bytes),
        scalars(&be, 4 * sizeof(double));
    iterations = 0;
    if (n == 0) {
        hubs = std::move(h);
        authorities = std::move(a);
        return true;
    }
    const float x0 = (float)(1.0 / (double)n);
    be.fill(PSV_FP32, n, a_prev.get(), &x0);
    be.fill(PSV_FP32, n, h_prev.get(), &x0);
    double *tot_a = scalars.as<double>(), *tot_h = tot_a + 1, *diffs = tot_a + 2;
    bool converged = false;
    while (iterations < max_iterations) {
        transposed_product(be, A, AT, h_prev.as<float>(), a.as<float>());
        st.sum(n, a.as<float>(), tot_a);
        st.normalize_diff(n, a.as<float>(), tot_a, a_prev.as<float>(), diffs);
        pattern_product(be, A, a.as<float>(), h.as<float>());
        st.sum(n, h.as<float>(), tot_h);
        st.normalize_diff(n, h.as<float>(), tot_h, h_prev.as<float>(), diffs + 1);
        ++iterations;
        double d[2];
        be.download(d, diffs, sizeof d);
        std::swap(a, a_prev);
        std::swap(h, h_prev);
        if (d[0] + d[1] <= tolerance) {
            converged = true;
            break;
        }
    }
    hubs = std::move(h_prev);
    authorities = std::move(a_prev);
    return converged;
}

bool hits_stacked(Backend &be, AlgoSteps &st, const MatrixStore &M, double tolerance, int32_t max_iterations,
                  Buffer &hubs, Buffer &authorities, int32_t &iterations) {
    // The difference is taken against the iterate before the previous one: x_k and x_{k-1} belong
    // to the two different chains, whose fp32 limits differ by rounding, so ||x_k - x_{k-1}||
    // can stall above a small tolerance in a 2-cycle (karate: 4e-7), while x_k and x_{k-2} are
    // one separate-form iteration apart.
    const int64_t n = M.nrows / 2;
    const size_t bytes = (size_t)n * sizeof(float);
    Buffer x(&be, 2 * bytes), x_old(&be, 2 * bytes), y(&be, 2 * bytes), scalars(&be, 4 * sizeof(double));
    iterations = 0;
    bool converged = n == 0;
    if (n > 0) {
        const float x0 = (float)(1.0 / (double)n);
        be.fill(PSV_FP32, 2 * n, x.get(), &x0);
        be.fill(PSV_FP32, 2 * n, x_old.get(), &x0);
        double *tot = scalars.as<double>(), *diffs = tot + 2;
        while (iterations < max_iterations) {
            pattern_product(be, M, x.as<float>(), y.as<float>());
            float *ya = y.as<float>(), *yh = ya + n;
            const float *pa = x_old.as<float>(), *ph = pa + n;
            st.sum(n, ya, tot);
            st.sum(n, yh, tot + 1);
            st.normalize_diff(n, ya, tot, pa, diffs);
            st.normalize_diff(n, yh, tot + 1, ph, diffs + 1);
            ++iterations;
            double d[2];
            be.download(d, diffs, sizeof d);
            std::swap(x_old, x);  // x_old <- x_{k-1}
            std::swap(x, y);      // x <- x_k; y <- x_{k-2}'s buffer, overwritten next
            if (d[0] + d[1] <= tolerance) {
                converged = true;
                break;
            }
        }
    }
    // Split x = [a; h] into two vectors.
    Buffer a(&be, bytes), h(&be, bytes);
    if (n > 0) {
        be.copy(a.get(), x.get(), bytes);
        be.copy(h.get(), x.as<float>() + n, bytes);
    }
    hubs = std::move(h);
    authorities = std::move(a);
    return converged;
}

}  // namespace psv
