// A matrix of more than 2^31 entries (64-bit offsets end to end): 65,536 rows of 32,769 entries
// each, built on the backend of PSV_TEST_BACKEND, multiplied, checked row by row. About 40 GB of
// host memory on the CPU backend: suite 'slow', not part of the default run.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/backend.hpp"
#include "core/format.hpp"
#include "psv/psv.h"
#include "check.h"

using namespace psv;

int main() {
    const psv_backend be_kind = test_backend();
    std::unique_ptr<Backend> be = be_kind == PSV_BACKEND_CUDA ? create_cuda_backend(0) : create_cpu_backend();
    const int64_t nrows = 65536, ncols = 40000, per_row = 32769;
    CsrHost A;
    A.nrows = nrows;
    A.ncols = ncols;
    A.type = PSV_FP32;
    A.pattern = true;
    A.row_ptr.resize(nrows + 1);
    for (int64_t i = 0; i <= nrows; ++i) A.row_ptr[i] = i * per_row;
    const int64_t nnz = A.row_ptr[nrows];
    REQUIRE(nnz > ((int64_t)1 << 31));
    A.col.resize((size_t)nnz);
    std::vector<int64_t> expect(nrows, 0);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < nrows; ++i) {
        int64_t c0 = (i * 7) % ncols, cnt = 0;
        // sorted columns of row i: the window [c0, c0 + per_row) wrapped around ncols
        int64_t k = 0;
        for (int64_t c = 0; c < ncols; ++c) {
            const int64_t off = (c - c0 + ncols) % ncols;
            if (off < per_row) {
                A.col[i * per_row + k++] = (int32_t)c;
                if (c < 20000) ++cnt;
            }
        }
        expect[i] = cnt;
    }
    FormatOptions opt;
    opt.tile_width = 16384;
    auto M = be->build_matrix(std::move(A), opt);
    psv_matrix_info info;
    M->info(info);
    CHECK(info.nvals == nnz);
    CHECK(info.stored_entries >= nnz);
    fprintf(stderr, "built: %d dense tiles, %lld workloads, %lld slots, %.1f s\n", info.dense_tiles,
            (long long)info.workloads, (long long)info.stored_entries, info.build_seconds);
    // t = A (+).(second) u with u(j) = 1 for j < 20000: t(i) counts row i's columns below 20000
    std::vector<float> u(ncols), t(nrows);
    for (int64_t j = 0; j < ncols; ++j) u[j] = j < 20000 ? 1.0f : 0.0f;
    Buffer du(be.get(), ncols * sizeof(float)), dt(be.get(), nrows * sizeof(float));
    be->upload(du.get(), u.data(), ncols * sizeof(float));
    SpmvArgs sa;
    sa.A = M.get();
    sa.add = PSV_PLUS;
    sa.mul = PSV_SECOND;
    sa.type = PSV_FP32;
    sa.u = du.get();
    sa.t = dt.get();
    be->spmv(sa);
    be->download(t.data(), dt.get(), nrows * sizeof(float));
    int64_t bad = 0;
    for (int64_t i = 0; i < nrows; ++i) bad += t[i] != (float)expect[i];
    CHECK_MSG(bad == 0, "%lld rows differ", (long long)bad);
    return check_exit();
}
