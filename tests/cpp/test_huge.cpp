// More than 2^32 entries on the CPU backend, in the default run: 65,536 rows of 65,537 entries
// (2^32 + 2^16), a pattern held as its CSR alone (4 bytes an entry, 17.2 GB). The CSR is made
// directly (tuples would take 16 bytes an entry) and handed to the backend with a memory budget of
// one byte, so AUTO takes the memory-budget path on every machine: no tile-composite form, none
// built to describe it, the CSR kernel. Three semirings, each row checked against an exact value
// computed from the row's column window; psv_matrix_info's nvals, kernel, bytes now and peak.
// Exits 77 (skipped) where the host has not the memory for it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/backend.hpp"
#include "core/csr_build.hpp"
#include "core/format.hpp"
#include "psv/psv.h"
#include "check.h"

using namespace psv;

namespace {

const int64_t kRows = 65536, kPerRow = 65537, kCols = 100003;

// Row i holds the columns of the window [first(i), first(i) + kPerRow) taken modulo kCols.
int64_t first(int64_t i) { return (i * 7919) % kCols; }

// The minimum of v over the wrapped window of row i, from a sparse table over v twice over.
class WindowMin {
public:
    explicit WindowMin(const std::vector<int32_t> &v) {
        const int64_t n = 2 * (int64_t)v.size();
        levels_.emplace_back(n);
        for (int64_t k = 0; k < n; ++k) levels_[0][k] = v[(size_t)(k % (int64_t)v.size())];
        for (int64_t w = 1; 2 * w <= n; w *= 2) {
            const std::vector<int32_t> &p = levels_.back();
            std::vector<int32_t> q((size_t)(n - 2 * w + 1));
            for (int64_t k = 0; k + 2 * w <= n; ++k) q[k] = std::min(p[k], p[k + w]);
            levels_.push_back(std::move(q));
        }
    }
    int32_t of(int64_t b, int64_t len) const {  // min of [b, b + len)
        int lvl = 0;
        while ((int64_t)2 << lvl <= len) ++lvl;
        const int64_t w = (int64_t)1 << lvl;
        return std::min(levels_[lvl][b], levels_[lvl][b + len - w]);
    }

private:
    std::vector<std::vector<int32_t>> levels_;
};

template <class T>
std::vector<T> product(Backend &be, const MatrixStore &M, psv_op add, psv_op mul, psv_type type, const std::vector<T> &u) {
    Buffer du(&be, u.size() * sizeof(T)), dt(&be, (size_t)kRows * sizeof(T));
    be.upload(du.get(), u.data(), u.size() * sizeof(T));
    SpmvArgs sa;
    sa.A = &M;
    sa.add = add;
    sa.mul = mul;
    sa.type = type;
    sa.u = du.get();
    sa.t = dt.get();
    be.spmv(sa);
    std::vector<T> t((size_t)kRows);
    be.download(t.data(), dt.get(), t.size() * sizeof(T));
    return t;
}

}  // namespace

int main() {
    const int64_t nnz = kRows * kPerRow;
    const int64_t csr_bytes = 8 * (kRows + 1) + 4 * nnz;
    const uint64_t avail = host_memory_left();
    const int64_t need = csr_bytes + ((int64_t)1 << 30);  // and a GB for the vectors and the rest
    if (avail != 0 && avail < (uint64_t)need) {
        fprintf(stderr, "needs %.1f GB of host memory, %.1f GB available: skipped\n", need / 1e9, avail / 1e9);
        return 77;
    }
    REQUIRE(nnz > ((int64_t)1 << 32));
    std::unique_ptr<Backend> be = create_cpu_backend();
    CsrHost A;
    A.nrows = kRows;
    A.ncols = kCols;
    A.type = PSV_FP32;
    A.pattern = true;
    A.row_ptr.resize(kRows + 1);
    for (int64_t i = 0; i <= kRows; ++i) A.row_ptr[i] = i * kPerRow;
    A.col.resize((size_t)nnz);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < kRows; ++i) {
        // sorted: the wrapped part [0, c0 + kPerRow - kCols) first, then [c0, kCols) or [c0, c0 + kPerRow)
        const int64_t c0 = first(i), wrapped = std::max<int64_t>(0, c0 + kPerRow - kCols);
        int32_t *out = A.col.data() + i * kPerRow;
        for (int64_t c = 0; c < wrapped; ++c) *out++ = (int32_t)c;
        for (int64_t c = c0; c < std::min(kCols, c0 + kPerRow); ++c) *out++ = (int32_t)c;
    }
    FormatOptions opt;
    opt.memory_budget = 1;  // no form fits: AUTO runs the CSR kernel on the CSR alone
    auto M = be->build_matrix(std::move(A), opt);
    psv_matrix_info info;
    M->info(info);
    CHECK_MSG(info.nvals == nnz, "nvals %lld", (long long)info.nvals);
    CHECK(info.kernel == PSV_KERNEL_CSR);
    CHECK_MSG(info.device_bytes == csr_bytes, "device_bytes %lld, the CSR %lld", (long long)info.device_bytes,
              (long long)csr_bytes);
    CHECK_MSG(info.peak_bytes == csr_bytes, "peak_bytes %lld, the CSR %lld", (long long)info.peak_bytes,
              (long long)csr_bytes);
    CHECK(info.bytes == 0 && info.dense_tiles == 0 && M->tile_count() == 0);
    CHECK(info.max_row_length == kPerRow);
    CHECK(info.max_col_length <= kRows && info.max_col_length > 0);

    // Expected sums from prefix sums over the columns twice over (a window wraps at most once).
    auto window_sum = [](const std::vector<double> &prefix, int64_t i) { return prefix[first(i) + kPerRow] - prefix[first(i)]; };
    auto prefix_of = [](auto value) {
        std::vector<double> p((size_t)(2 * kCols + 1), 0.0);
        for (int64_t k = 0; k < 2 * kCols; ++k) p[k + 1] = p[k] + (double)value(k % kCols);
        return p;
    };

    // plus.times (fp32): the entries are 1, so t(i) sums u over row i's window
    std::vector<float> u1((size_t)kCols);
    for (int64_t j = 0; j < kCols; ++j) u1[j] = (float)(j % 5);
    const std::vector<double> p1 = prefix_of([&](int64_t j) { return u1[j]; });
    std::vector<float> t = product<float>(*be, *M, PSV_PLUS, PSV_TIMES, PSV_FP32, u1);
    int64_t bad = 0;
    for (int64_t i = 0; i < kRows; ++i) bad += t[i] != (float)window_sum(p1, i);
    CHECK_MSG(bad == 0, "plus.times: %lld rows differ", (long long)bad);

    // plus.second (fp32): t(i) counts row i's columns below 40000
    std::vector<float> u2((size_t)kCols);
    for (int64_t j = 0; j < kCols; ++j) u2[j] = j < 40000 ? 1.0f : 0.0f;
    const std::vector<double> p2 = prefix_of([&](int64_t j) { return u2[j]; });
    t = product<float>(*be, *M, PSV_PLUS, PSV_SECOND, PSV_FP32, u2);
    bad = 0;
    for (int64_t i = 0; i < kRows; ++i) bad += t[i] != (float)window_sum(p2, i);
    CHECK_MSG(bad == 0, "plus.second: %lld rows differ", (long long)bad);

    // min.second (int32): t(i) is the least u over row i's window
    std::vector<int32_t> u3((size_t)kCols);
    for (int64_t j = 0; j < kCols; ++j) u3[j] = (int32_t)((j * 104729 + 12345) % 1000003);
    const WindowMin wm(u3);
    std::vector<int32_t> m = product<int32_t>(*be, *M, PSV_MIN, PSV_SECOND, PSV_INT32, u3);
    bad = 0;
    for (int64_t i = 0; i < kRows; ++i) bad += m[i] != wm.of(first(i), kPerRow);
    CHECK_MSG(bad == 0, "min.second: %lld rows differ", (long long)bad);
    return check_exit();
}
