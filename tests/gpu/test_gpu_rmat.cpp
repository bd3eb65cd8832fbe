// R-MAT graphs (Graph500 parameters, random relabelling) of 10^6 edges and more: CUDA against
// CPU for SpMV (several semirings, the three kernels) and PageRank. Arguments: scales (default
// "16 20": 1 M and 16 M edges; PSV_GPU_TEST_SMALL: scale 11).
#include <chrono>

#include "algo/algorithms.hpp"
#include "core/error.hpp"
#include "gpu_common.hpp"

using namespace psv;

template <class T> static double rel_l1(const std::vector<T> &a, const std::vector<T> &b) {
    double d = 0, n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        d += std::fabs((double)a[i] - (double)b[i]);
        n += std::fabs((double)b[i]);
    }
    return n > 0 ? d / n : d;
}

template <class T>
static void spmv_both(Backend &cpu, Backend &gpu, const MatrixStore &Mc, const MatrixStore &Mg, psv_op add, psv_op mul,
                      const std::vector<T> &u, std::vector<T> &tc, std::vector<T> &tg, std::vector<uint8_t> &pc,
                      std::vector<uint8_t> &pg) {
    const psv_type ty = TypeCode<T>::value;
    const int64_t n = Mc.nrows, k = Mc.ncols;
    tc.assign((size_t)n, T(0));
    tg.assign((size_t)n, T(0));
    pc.assign((size_t)n, 0);
    pg.assign((size_t)n, 0);
    // CPU: host memory is the backend's memory
    SpmvArgs a;
    a.A = &Mc;
    a.add = add;
    a.mul = mul;
    a.type = ty;
    a.u = u.data();
    a.t = tc.data();
    a.t_present = pc.data();
    cpu.spmv(a);
    Buffer du(&gpu, (size_t)k * sizeof(T)), dt(&gpu, (size_t)n * sizeof(T)), dp(&gpu, (size_t)n);
    gpu.upload(du.get(), u.data(), (size_t)k * sizeof(T));
    a.A = &Mg;
    a.u = du.get();
    a.t = dt.get();
    a.t_present = dp.as<uint8_t>();
    gpu.spmv(a);
    gpu.download(tg.data(), dt.get(), (size_t)n * sizeof(T));
    gpu.download(pg.data(), dp.get(), (size_t)n);
}

int main(int argc, char **argv) {
    gputest::require_device();
    std::vector<int> scales;
    for (int i = 1; i < argc; ++i) scales.push_back(std::atoi(argv[i]));
    if (scales.empty()) scales = {16, 20};
    if (gputest::small_mode()) scales = {11};
    auto cpu = create_cpu_backend();
    auto gpu = create_cuda_backend(0);
    for (int scale : scales) {
        gputest::Edges E = gputest::rmat(scale, 16, 1000 + scale);
        CsrHost A = gputest::to_csr(E, PSV_FP32, false, 3);
        std::fprintf(stderr, "R-MAT %d: %lld vertices, %lld edges after duplicate removal\n", scale, (long long)A.nrows,
                     (long long)A.nvals());
        E = gputest::Edges();
        FormatOptions fo;
        CsrHost ac = A, ag = A;
        auto Mc = cpu->build_matrix(std::move(ac), fo);
        auto Mg = gpu->build_matrix(std::move(ag), fo);
        std::vector<float> u((size_t)A.ncols), tc, tg;
        std::vector<uint8_t> pc, pg;
        uint64_t s = 9;
        for (auto &x : u) x = (float)(gputest::splitmix(s) % 1000) / 1000.0f + 0.5f;
        for (psv_kernel k : {PSV_KERNEL_TILE_COMPOSITE, PSV_KERNEL_TILE_COO, PSV_KERNEL_CSR}) {
            FormatOptions ko;
            ko.kernel = k;
            Mg->rebuild(ko);
            spmv_both<float>(*cpu, *gpu, *Mc, *Mg, PSV_PLUS, PSV_TIMES, u, tc, tg, pc, pg);
            const double e1 = rel_l1(tg, tc);
            CHECK_MSG(e1 < 1e-5 && pc == pg, "R-MAT %d kernel %d plus.times: rel L1 %g", scale, (int)k, e1);
            spmv_both<float>(*cpu, *gpu, *Mc, *Mg, PSV_PLUS, PSV_SECOND, u, tc, tg, pc, pg);
            const double e2 = rel_l1(tg, tc);
            CHECK_MSG(e2 < 1e-5 && pc == pg, "R-MAT %d kernel %d plus.second: rel L1 %g", scale, (int)k, e2);
            spmv_both<float>(*cpu, *gpu, *Mc, *Mg, PSV_MIN, PSV_PLUS, u, tc, tg, pc, pg);
            CHECK_MSG(tg == tc && pc == pg, "R-MAT %d kernel %d min.plus differs", scale, (int)k);
            spmv_both<float>(*cpu, *gpu, *Mc, *Mg, PSV_MAX, PSV_DIV, u, tc, tg, pc, pg);  // the runtime-operator path
            CHECK_MSG(tg == tc && pc == pg, "R-MAT %d kernel %d max.div differs", scale, (int)k);
            std::fprintf(stderr, "  kernel %d: plus.times rel L1 %.2e, plus.second %.2e\n", (int)k, e1, e2);
        }
        Mg->rebuild(fo);
        // PageRank on both
        auto MTc = Mc->transposed();
        auto MTg = Mg->transposed();
        Buffer rc, rg;
        int32_t ic = 0, ig = 0;
        pagerank(*cpu, *create_algo_steps(*cpu), *Mc, MTc.get(), 0.85, 1e-6, 100, rc, ic);
        pagerank(*gpu, *create_algo_steps(*gpu), *Mg, MTg.get(), 0.85, 1e-6, 100, rg, ig);
        std::vector<float> a((size_t)A.nrows), b((size_t)A.nrows);
        std::memcpy(a.data(), rc.get(), a.size() * 4);
        gpu->download(b.data(), rg.get(), b.size() * 4);
        const double e = rel_l1(b, a);
        CHECK_MSG(e < 1e-5 && std::abs(ic - ig) <= 1, "R-MAT %d PageRank: rel L1 %g, iterations %d vs %d", scale, e, ic, ig);
        std::fprintf(stderr, "  PageRank: %d vs %d iterations, rel L1 %.2e\n", ic, ig, e);
    }
    return check_exit();
}
