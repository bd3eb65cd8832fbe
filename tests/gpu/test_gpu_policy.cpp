// The CUDA backend's tuning policy (cuda/tuning/policy.hpp): select_policy's numbers for a
// Hopper device (host only: runs everywhere CUDA is built), then, on a device, the policy
// injection and what a matrix holds: under AUTO no padded form (device_bytes below the
// tile-composite matrix's, the form built transiently for psv_matrix_info_get and released), the
// plan in words, and a re-plan following a new policy.
#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"

namespace {

void check_hopper_numbers() {
    psv::cuda::DeviceTraits d;  // an H100's
    d.sms = 132;
    d.l2_bytes = 50u << 20;
    d.smem_per_sm = 228 * 1024;
    d.smem_optin = 227 * 1024;
    d.global_bytes = (size_t)80 << 30;
    const psv::cuda::Policy p = psv::cuda::select_policy(d);
    CHECK(p.hot_min_length == 33);
    CHECK(p.hot_capacity(4) == 15840);       // what two blocks' shared memory leaves for fp32 values
    CHECK(p.tile_width_for(4) == 28672 && p.tile_width_for(8) == 14336);
    CHECK(p.chunk_stride(1000000, 0) == psv::cuda::kChunkEntries - 64);
    CHECK(p.chunk_stride(1000000, 100) == psv::cuda::kChunkEntries);
    CHECK(!p.many_waves(8 * 8 * 132 * psv::cuda::kChunkEntries - 1) && p.many_waves(8 * 8 * 132 * psv::cuda::kChunkEntries));
    CHECK(p.pool_cache_bytes == ((size_t)20 << 30) && p.default_max_tiles == 0);
    CHECK(p.hot_columns == -1 && !p.rank_order_always && p.ranked_prefix == -1 && !p.pool_no_cache);
    CHECK(p.sell_auto && p.sell_min_entries == (1ll << 22) && p.sell_min_row_mean == 8.0 && p.sell_max_padding == 1.1);
}

psv_matrix *build(psv_context *ctx, const gputest::Edges &E) {
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, E.nrows, E.ncols, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(),
                             nullptr, PSV_NOOP, &A) == PSV_SUCCESS);
    return A;
}

void check_device() {
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_SUCCESS);
    // these checks are of the rules (the performance model's choice is test_gpu_tuning's)
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_PLAN_CHOICE, PSV_CHOICE_RULES) == PSV_SUCCESS);
    const gputest::Edges E = gputest::rmat(gputest::small_mode() ? 10 : 14, 16, 3);
    psv_matrix *A = build(ctx, E);
    REQUIRE(psv_context_set_option(ctx, PSV_OPT_KERNEL, PSV_KERNEL_TILE_COMPOSITE) == PSV_SUCCESS);
    psv_matrix *T = build(ctx, E);
    psv_matrix_info ia, it;
    REQUIRE(psv_matrix_info_get(A, &ia) == PSV_SUCCESS && psv_matrix_info_get(T, &it) == PSV_SUCCESS);
    // the same form described; only the tile-composite matrix keeps it
    CHECK(ia.workloads == it.workloads && ia.stored_entries == it.stored_entries && ia.bytes == it.bytes);
    CHECK_MSG(ia.device_bytes > 0 && ia.device_bytes + it.bytes / 2 < it.device_bytes, "AUTO %lld bytes, tile-composite %lld",
              (long long)ia.device_bytes, (long long)it.device_bytes);
    CHECK(psv::cuda::plan_description(T) == "tile-composite form");
    const std::string plain = psv::cuda::plan_description(A);
    CHECK_MSG(plain == "plain columns, 0 hot", "AUTO plan: %s", plain.c_str());
    // a forced hot set and rank order, after a re-plan
    const psv::cuda::Policy base = psv::cuda::policy_of(ctx);
    psv::cuda::Policy p = base;
    p.hot_columns = 64;
    p.rank_order_always = true;
    psv::cuda::set_policy(ctx, p);
    CHECK(psv::cuda::policy_of(ctx).hot_columns == 64);
    psv::cuda::replan(A);
    const std::string hot = psv::cuda::plan_description(A);
    CHECK_MSG(hot.find("ranked") == 0 && hot.find("64 hot") != std::string::npos, "forced plan: %s", hot.c_str());
    // no cache: the pool releases what it held
    p = base;
    p.pool_no_cache = true;
    psv::cuda::set_policy(ctx, p);
    CHECK(psv::cuda::pool_cached_bytes(psv::cuda::backend_of(ctx)) == 0);
    psv_matrix_free(&A);
    CHECK(psv::cuda::pool_cached_bytes(psv::cuda::backend_of(ctx)) == 0);
    psv::cuda::set_policy(ctx, base);
    psv_matrix_free(&T);
    psv_context_free(&ctx);
}

}  // namespace

int main() {
    check_hopper_numbers();
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        std::fprintf(stderr, "no CUDA device: the device checks skipped\n");
        return check_exit();
    }
    check_device();
    return check_exit();
}
