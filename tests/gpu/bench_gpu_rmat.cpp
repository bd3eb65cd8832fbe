// INFORMATIONAL timing harness (not a benchmark: bench/ holds the real one): build time and SpMV
// time of the tile-composite form on an R-MAT graph, CUDA backend next to the CPU backend.
// Usage: bench_gpu_rmat [scale=22] [edge_factor=16]. Prints one table.
#include <cuda_runtime.h>

#include <chrono>

#include "algo/algorithms.hpp"
#include "core/error.hpp"
#include "cuda/internal.hpp"
#include "gpu_common.hpp"

using namespace psv;
using clk = std::chrono::steady_clock;

static double secs(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

template <class F> static double median_time(int reps, F &&f) {
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        auto t0 = clk::now();
        f();
        t.push_back(secs(t0));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// Seconds to build the matrix from device-resident COO (the edges uploaded first, not timed;
// one warm-up build); 0 where the upload does not fit.
static double build_from_device_coo_time(Backend &gpu, const gputest::Edges &E, int64_t n, const FormatOptions &fo) {
    double t = 0;
    std::vector<int32_t> r(E.rows.begin(), E.rows.end()), c(E.cols.begin(), E.cols.end());
    int32_t *dr = nullptr, *dc = nullptr;
    if (cudaMalloc(&dr, r.size() * 4) == cudaSuccess && cudaMalloc(&dc, c.size() * 4) == cudaSuccess) {
        cudaMemcpy(dr, r.data(), r.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
        auto M2 = cuda::build_from_device_coo(gpu, n, n, PSV_FP32, (int64_t)r.size(), dr, dc, nullptr, fo);  // warm
        M2.reset();
        const auto t0 = clk::now();
        M2 = cuda::build_from_device_coo(gpu, n, n, PSV_FP32, (int64_t)r.size(), dr, dc, nullptr, fo);
        t = secs(t0);
    }
    cudaFree(dr);
    cudaFree(dc);
    return t;
}

// Median seconds of the product a on the context's stream, Mg rebuilt for kernel k first.
static double spmv_time(Backend &gpu, MatrixStore &Mg, const SpmvArgs &a, psv_kernel k) {
    FormatOptions ko;
    ko.kernel = k;
    Mg.rebuild(ko);
    for (int i = 0; i < 3; ++i) gpu.spmv(a);
    cuda::synchronize(gpu);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaStream_t st = (cudaStream_t)cuda::stream_of(gpu);
    std::vector<float> ms;
    for (int i = 0; i < 20; ++i) {
        cudaEventRecord(e0, st);
        gpu.spmv(a);
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        float m = 0;
        cudaEventElapsedTime(&m, e0, e1);
        ms.push_back(m);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2] / 1000.0;
}

// Seconds per PageRank iteration (20 iterations, tolerance 0; warm: 2 iterations first).
static double pagerank_iteration_time(Backend &be, const MatrixStore &M, bool warm) {
    auto MT = M.transposed();
    auto steps = create_algo_steps(be);
    Buffer r;
    int32_t it = 0;
    if (warm) pagerank(be, *steps, M, MT.get(), 0.85, 0.0, 2, r, it);
    const auto t0 = clk::now();
    pagerank(be, *steps, M, MT.get(), 0.85, 0.0, 20, r, it);
    return secs(t0) / it;
}

int main(int argc, char **argv) {
    gputest::require_device();
    const int scale = argc > 1 ? std::atoi(argv[1]) : 22;
    const int64_t ef = argc > 2 ? std::atoll(argv[2]) : 16;
    auto cpu = create_cpu_backend();
    auto gpu = create_cuda_backend(0);
    auto t0 = clk::now();
    gputest::Edges E = gputest::rmat(scale, ef, 42);
    CsrHost A = gputest::to_csr(E, PSV_FP32, true, 1);
    std::fprintf(stderr, "generated R-MAT %d in %.1f s: %lld vertices, %lld edges (deduplicated)\n", scale, secs(t0),
                 (long long)A.nrows, (long long)A.nvals());
    const int64_t n = A.nrows, nnz = A.nvals();
    FormatOptions fo;

    // CPU
    CsrHost ac = A;
    t0 = clk::now();
    auto Mc = cpu->build_matrix(std::move(ac), fo);
    const double cpu_build = secs(t0);
    std::vector<float> u((size_t)n), tc((size_t)n), tg((size_t)n);
    uint64_t s = 3;
    for (auto &x : u) x = (float)(gputest::splitmix(s) % 1000) / 1000.0f;
    SpmvArgs a;
    a.add = PSV_PLUS;
    a.mul = PSV_SECOND;
    a.type = PSV_FP32;
    a.A = Mc.get();
    a.u = u.data();
    a.t = tc.data();
    cpu->spmv(a);
    const double cpu_spmv = median_time(5, [&] { cpu->spmv(a); });

    // GPU: from the host CSR (upload included), and from device-resident COO (generation on the
    // device's side: the edges uploaded first, not timed)
    CsrHost ag = A;
    t0 = clk::now();
    auto Mg = gpu->build_matrix(std::move(ag), fo);
    const double gpu_build_host = secs(t0);
    const double gpu_build_coo = build_from_device_coo_time(*gpu, E, n, fo);
    Buffer du(gpu.get(), (size_t)n * 4), dt(gpu.get(), (size_t)n * 4);
    gpu->upload(du.get(), u.data(), (size_t)n * 4);
    a.A = Mg.get();
    a.u = du.get();
    a.t = dt.get();
    auto gpu_spmv_time = [&](psv_kernel k) { return spmv_time(*gpu, *Mg, a, k); };
    const double g_tc = gpu_spmv_time(PSV_KERNEL_TILE_COMPOSITE);
    gpu->download(tg.data(), dt.get(), (size_t)n * 4);
    double d = 0, nn = 0;
    for (int64_t i = 0; i < n; ++i) {
        d += std::fabs((double)tg[i] - (double)tc[i]);
        nn += std::fabs((double)tc[i]);
    }
    const double g_coo = gpu_spmv_time(PSV_KERNEL_TILE_COO);
    const double g_csr = gpu_spmv_time(PSV_KERNEL_CSR);
    Mg->rebuild(fo);
    psv_matrix_info info;
    Mg->info(info);

    // PageRank: 20 iterations (tolerance 0) on both
    const double pr_cpu = pagerank_iteration_time(*cpu, *Mc, false), pr_gpu = pagerank_iteration_time(*gpu, *Mg, true);
    std::printf("\n== INFORMATIONAL timings (tests/gpu/bench_gpu_rmat; real figures: bench/) ==\n");
    std::printf("device: %s\ncpu:    %s\n", gpu->device_name().c_str(), cpu->device_name().c_str());
    std::printf("R-MAT scale %d, edge factor %lld: n = %lld, nnz = %lld (pattern, fp32 plus.second)\n", scale, (long long)ef,
                (long long)n, (long long)nnz);
    std::printf("tile-composite: tile width %lld, %d dense tiles + %d sparse, %lld workloads, padding %.3f\n",
                (long long)info.tile_width, info.dense_tiles, info.sparse_tile, (long long)info.workloads, info.padding_ratio);
    std::printf("| what | CPU backend | CUDA backend |\n|---|---|---|\n");
    std::printf("| build from host CSR (s) | %.3f | %.3f (upload included) |\n", cpu_build, gpu_build_host);
    std::printf("| build from device COO (s) | - | %.3f (sort + dedup + CSR + plan) |\n", gpu_build_coo);
    std::printf("| SpMV tile-composite (ms) | %.3f | %.3f |\n", cpu_spmv * 1e3, g_tc * 1e3);
    std::printf("| SpMV TILE-COO (ms) | - | %.3f |\n", g_coo * 1e3);
    std::printf("| SpMV CSR-vector (ms) | - | %.3f |\n", g_csr * 1e3);
    std::printf("| PageRank per iteration (ms) | %.3f | %.3f |\n", pr_cpu * 1e3, pr_gpu * 1e3);
    std::printf("| GPU build / GPU SpMV | | %.0f SpMVs (host CSR), %.0f (device COO) |\n", gpu_build_host / g_tc,
                gpu_build_coo / g_tc);
    std::printf("GPU vs CPU SpMV: relative L1 difference %.2e\n", nn > 0 ? d / nn : d);
    return 0;
}
