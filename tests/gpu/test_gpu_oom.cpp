// Device out of memory: with most of the device's memory taken by a ballast allocation, building
// a matrix larger than what is free returns PSV_ERROR_OUT_OF_MEMORY (through the C API and the
// backend), leaks nothing (cudaMemGetInfo before and after, the pool trimmed), and the same
// context then still works.
#include <cuda_runtime.h>

#include <cstring>

#include "core/error.hpp"
#include "core/objects.hpp"
#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"

using namespace psv;

int main() {
    gputest::require_device();
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_SUCCESS);
    Backend &be = *ctx->core->backend;
    // warm up the context (stream, reduction scratch, kernels)
    gputest::Edges small = gputest::rmat(8, 8, 1);
    {
        psv_matrix *A = nullptr;
        REQUIRE(psv_matrix_build(ctx, PSV_FP32, small.nrows, small.ncols, (int64_t)small.rows.size(), small.rows.data(),
                                 small.cols.data(), nullptr, PSV_NOOP, &A) == PSV_SUCCESS);
        psv_matrix_free(&A);
    }
    cuda::pool_trim(be);
    size_t free0 = 0, total = 0;
    REQUIRE(cudaMemGetInfo(&free0, &total) == cudaSuccess);
    // leave ~256 MB free
    const size_t keep = (size_t)256 << 20;
    void *ballast = nullptr;
    size_t bsize = free0 > keep + ((size_t)64 << 20) ? free0 - keep : 0;
    while (bsize > 0 && cudaMalloc(&ballast, bsize) != cudaSuccess) {
        cudaGetLastError();
        bsize -= (size_t)64 << 20;
    }
    size_t free1 = 0;
    cudaMemGetInfo(&free1, &total);
    std::fprintf(stderr, "free %zu MB of %zu MB; ballast %zu MB; %zu MB left\n", free0 >> 20, total >> 20, bsize >> 20, free1 >> 20);
    // a matrix whose build needs well over what is left: 24 M entries (device CSR alone ~200 MB,
    // the tile-composite builder's temporaries several times that; AUTO builds no padded form, so
    // the context asks for the tile-composite kernel here)
    const int64_t n = 1 << 20, m = gputest::small_mode() ? (int64_t)12 << 20 : (int64_t)24 << 20;
    std::vector<int64_t> rows((size_t)m), cols((size_t)m);
    uint64_t s = 5;
    for (int64_t k = 0; k < m; ++k) {
        rows[k] = k / 24 % n;
        cols[k] = (int64_t)(gputest::splitmix(s) % (uint64_t)n);
    }
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, PSV_KERNEL_TILE_COMPOSITE) == PSV_SUCCESS);
    for (int round = 0; round < 2; ++round) {
        psv_matrix *A = nullptr;
        const psv_status st = psv_matrix_build(ctx, PSV_FP32, n, n, m, rows.data(), cols.data(), nullptr, PSV_NOOP, &A);
        CHECK_MSG(st == PSV_ERROR_OUT_OF_MEMORY, "build returned %d (%s)", (int)st, psv_context_last_error(ctx));
        const char *msg = psv_context_last_error(ctx);  // the bytes asked and free
        CHECK_MSG(std::strstr(msg, "bytes asked") && std::strstr(msg, "free of"), "message: %s", msg);
        CHECK(A == nullptr);
        cuda::pool_trim(be);
        size_t free2 = 0;
        cudaMemGetInfo(&free2, &total);
        CHECK_MSG(free2 == free1, "leaked %lld bytes", (long long)free1 - (long long)free2);
    }
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, PSV_KERNEL_AUTO) == PSV_SUCCESS);
    // the context still works, with the ballast still in place
    {
        psv_matrix *A = nullptr;
        CHECK(psv_matrix_build(ctx, PSV_FP32, small.nrows, small.ncols, (int64_t)small.rows.size(), small.rows.data(),
                               small.cols.data(), nullptr, PSV_NOOP, &A) == PSV_SUCCESS);
        psv_vector *r = nullptr;
        int32_t it = 0;
        const psv_status st = psv_pagerank(&r, &it, A, 0.85, 1e-6, 100);
        CHECK(st == PSV_SUCCESS);
        float x = 0;
        CHECK(psv_vector_get_element(r, 0, &x) == PSV_SUCCESS && x > 0);
        psv_vector_free(&r);
        psv_matrix_free(&A);
    }
    // a vector larger than free memory
    {
        psv_vector *v = nullptr;
        CHECK(psv_vector_create(ctx, PSV_FP64, (int64_t)1 << 30, &v) == PSV_ERROR_OUT_OF_MEMORY);
    }
    cudaFree(ballast);
    // and after the ballast is gone the large build succeeds where it fits
    psv_context_free(&ctx);
    size_t free3 = 0;
    cudaMemGetInfo(&free3, &total);
    CHECK_MSG(free3 + ((size_t)8 << 20) >= free0, "context teardown left %lld bytes", (long long)free0 - (long long)free3);
    return check_exit();
}
