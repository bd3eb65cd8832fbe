// The CSR chunk kernel's cuts (cuda/spmv/csr_chunk.cuh, csr_chunk_kernel): row lengths placed on and
// around the chunk size (rows of exactly C, C + 1, 2C, a long row starting and ending on a cut,
// long rows back to back, empty rows first, last and between, one row holding every entry, a
// Zipf-like spread), each product checked against a float64 host reference (fp32, fp64,
// pattern) or the CPU backend (exact for int32 min-plus and boolean), run three times: the results
// must be bit-identical (the long rows' counters reset; sums have a fixed order). Also with the
// columns in rank order and with hot columns of x in shared memory (csr_hot_kernel), AUTO's
// paths for power-law matrices, forced through the tuning policy (psv::cuda::set_policy). And a stencil-like matrix of many waves of
// chunks (the kernel's 8-blocks-per-SM variant).
#include <cuda_runtime.h>

#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "spmv_cases.hpp"
#include "psv/psv.h"

using namespace spmvcases;

int main() {
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        std::fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    psv_context *cpu = nullptr, *gpu = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &cpu) == PSV_SUCCESS);
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &gpu) == PSV_SUCCESS);
    int checks = 0;
    // CSR; AUTO (plain column order, no hot columns at these sizes but for zipf); then AUTO with
    // the policy's overrides: rank order (x gathered) without hot columns; hot columns in shared memory
    // (csr_hot_kernel) gathered by each block itself (H <= kHotDirect), or by a gather launch;
    // hot columns with rank order. A pattern matrix in an fp64 product is wider than its plan's
    // hot values (4 bytes): that product takes the plain chunk kernel.
    // The last two: rank order kept for the first ranks only (ranked_prefix), the other entries
    // reading x in plain order, with the hot values gathered by each block or by a launch.
    struct Pass {
        psv_kernel kernel;
        bool rank_order;
        int64_t hot;     // Policy::hot_columns
        int64_t prefix;  // Policy::ranked_prefix
    };
    const psv::cuda::Policy base = psv::cuda::policy_of(gpu);
    const Pass passes[] = {{PSV_KERNEL_CSR, false, -1, -1}, {PSV_KERNEL_AUTO, false, -1, -1}, {PSV_KERNEL_AUTO, true, 0, -1},
                           {PSV_KERNEL_AUTO, false, 1000, -1}, {PSV_KERNEL_AUTO, false, 30000, -1}, {PSV_KERNEL_AUTO, true, 5000, -1},
                           {PSV_KERNEL_AUTO, true, 1000, 1337}, {PSV_KERNEL_AUTO, true, 5000, 5000}};
    for (int pass = 0; pass < (int)(sizeof passes / sizeof passes[0]); ++pass) {
        const Pass &P = passes[pass];
        psv::cuda::Policy policy = base;
        policy.rank_order_always = P.rank_order;
        policy.hot_columns = P.hot;
        policy.ranked_prefix = P.prefix;
        psv::cuda::set_policy(gpu, policy);
        psv_context_set_option(gpu, PSV_OPT_KERNEL, P.kernel);
        // under the sanitizers (small mode): the cut cases, fp32 and int32, all but passes 1, 3
        // and 5 (the hot kernel's paths are all in passes 4, 6 and 7)
        const bool small = gputest::small_mode();
        if (small && (pass == 1 || pass == 3 || pass == 5)) continue;
        for (const Case &cs : cases()) {
            if (small && (std::strcmp(cs.name, "zipf") == 0 || std::strcmp(cs.name, "short") == 0)) continue;
            const gputest::Edges E = edges_for(cs, 5);
            checks += run_float<float>(gpu, cs, E, PSV_FP32, false);
            if (!small) {
                checks += run_float<float>(gpu, cs, E, PSV_FP32, true);
                checks += run_float<double>(gpu, cs, E, PSV_FP64, false);
                if (P.hot > 0) checks += run_float<double>(gpu, cs, E, PSV_FP64, true);
            }
            if (pass != 1) {
                checks += run_exact(cpu, gpu, cs, E, PSV_INT32);
                if (!small) checks += run_exact(cpu, gpu, cs, E, PSV_BOOL);
            }
        }
    }
    psv::cuda::set_policy(gpu, base);
    // Enough uniform rows of 27 (a stencil's) for csr_chunk_kernel's many-waves variant (8 blocks
    // per SM from Policy::chunk_many_waves = 8 waves of them): 64 chunks per SM and a tenth more.
    if (!gputest::small_mode()) {
        int dev = 0, sms = 0;
        REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
        REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
        psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_CSR);
        Case cs{"many-waves", std::vector<int64_t>((size_t)(1.1 * 64 * sms * 2048 / 27), 27), 1000003};
        const gputest::Edges E = edges_for(cs, 11);
        checks += run_float<float>(gpu, cs, E, PSV_FP32, false);
        checks += run_float<float>(gpu, cs, E, PSV_FP32, true);
        checks += run_exact(cpu, gpu, cs, E, PSV_INT32);
    }
    psv_context_free(&cpu);
    psv_context_free(&gpu);
    std::printf("gpu_chunks: %d checks\n", checks);
    return check_exit();
}
