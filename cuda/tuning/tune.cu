// psv_context_tune on the CUDA backend: the offline half of the performance model. Synthetic
// matrices spanning the model's cost drivers are generated on the device (R-MAT of three skews
// over scales and edge factors: the column-rank profile and x's size against L2; 3-D stencils:
// banded locality), every candidate plan of every family is built and timed (weighted and
// pattern products, the L2 flushed before each run, median of several), the features of each
// are recorded, and the table's coefficients are fitted to them (tuning::fit).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/clock.hpp"
#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"
#include "cuda/internal.hpp"
#include "cuda/runtime/backend.cuh"

namespace psv {
namespace cuda {

namespace {

__device__ __forceinline__ uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
// A bijection of [0, 2^bits): odd multiplications and xor-shifts, each invertible mod 2^bits.
__device__ __forceinline__ uint64_t relabel(uint64_t v, int bits, uint64_t key) {
    const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    for (int r = 0; r < 2; ++r) {
        v = (v * (key | 1ull)) & mask;
        v ^= v >> (bits / 2 + 1);
        v = (v + (key >> 17)) & mask;
        key = mix64(key);
    }
    return v;
}

// R-MAT tuples first .. first + n - 1: each of `scale` levels picks a quadrant with
// probabilities a, b, c (d the rest); rows and columns relabelled by two bijections.
__global__ void rmat_kernel(int64_t first, int64_t n, int scale, float a, float b, float c, uint64_t seed, int32_t *rows,
                            int32_t *cols, float *vals) {
    PSV_GRID_LOOP(i, n) {
        const uint64_t id = (uint64_t)(first + i);
        uint64_t r = 0, col = 0;
        uint64_t h = mix64(seed ^ (id * 0xD6E8FEB86659FD93ull));
        for (int l = 0; l < scale; ++l) {
            if ((l & 1) == 0 && l > 0) h = mix64(h + (uint64_t)l);
            const float u = (float)((h >> ((l & 1) * 32)) & 0xFFFFFFu) * (1.0f / 16777216.0f);
            const int q = u < a ? 0 : u < a + b ? 1 : u < a + b + c ? 2 : 3;
            r = (r << 1) | (uint64_t)(q >> 1);
            col = (col << 1) | (uint64_t)(q & 1);
        }
        rows[i] = (int32_t)relabel(r, scale, seed * 3 + 1);
        cols[i] = (int32_t)relabel(col, scale, seed * 5 + 7);
        if (vals) vals[i] = 0.5f + 0.5f * (float)(mix64(id ^ seed) >> 40) * (1.0f / 16777216.0f);
    }
}

// 27-point stencil on an n^3 grid: tuple i is neighbour i % 27 of point i / 27, dropped (row -1)
// where it falls off the grid.
__global__ void stencil_kernel(int64_t first, int64_t count, int64_t n, int32_t *rows, int32_t *cols, float *vals) {
    PSV_GRID_LOOP(i, count) {
        const int64_t t = first + i, p = t / 27, k = t % 27;
        const int64_t x = p % n, y = (p / n) % n, z = p / (n * n);
        const int64_t xx = x + k % 3 - 1, yy = y + (k / 3) % 3 - 1, zz = z + k / 9 - 1;
        const bool in = xx >= 0 && xx < n && yy >= 0 && yy < n && zz >= 0 && zz < n;
        rows[i] = in ? (int32_t)p : -1;
        cols[i] = in ? (int32_t)((zz * n + yy) * n + xx) : 0;
        if (vals) vals[i] = k == 13 ? 26.0f : -1.0f;
    }
}

struct Synthetic {
    const char *kind;  // "rmat" or "stencil"
    int scale = 0;     // R-MAT: 2^scale rows; stencil: the grid's side
    int ef = 16;       // R-MAT edge factor
    float a = 0.57f, b = 0.19f, c = 0.19f;
    const char *skew = "g500";
    std::string name() const {
        char s[64];
        if (kind[0] == 's') std::snprintf(s, sizeof s, "stencil:%d", scale);
        else std::snprintf(s, sizeof s, "rmat:%d:%d:%s", scale, ef, skew);
        return s;
    }
    int64_t tuples() const { return kind[0] == 's' ? 27ll * scale * scale * scale : ((int64_t)ef << scale); }
    int64_t dim() const { return kind[0] == 's' ? (int64_t)scale * scale * scale : (1ll << scale); }
};

Synthetic rmat(int scale, int ef, const char *skew) {
    Synthetic s;
    s.kind = "rmat";
    s.scale = scale;
    s.ef = ef;
    s.skew = skew;
    if (skew[0] == 'm') s.a = 0.45f, s.b = 0.22f, s.c = 0.22f;       // milder: 0.11 to d
    else if (skew[0] == 'u') s.a = s.b = s.c = 0.25f;                // uniform random
    return s;
}
Synthetic stencil(int n) {
    Synthetic s;
    s.kind = "stencil";
    s.scale = n;
    return s;
}

// The training set. Full: sizes from L1-resident to x beyond L2 (scale 24), edge factors 4-16.
std::vector<Synthetic> training_set(int effort) {
    if (effort == 0) return {rmat(12, 16, "g500"), rmat(14, 8, "g500"), rmat(13, 8, "uniform"), stencil(16)};
    return {rmat(14, 16, "g500"),    rmat(16, 16, "g500"),    rmat(18, 16, "g500"),    rmat(20, 16, "g500"),
            rmat(21, 16, "g500"),    rmat(22, 16, "g500"),    rmat(23, 8, "g500"),     rmat(23, 16, "g500"),
            rmat(24, 4, "g500"),     rmat(24, 8, "g500"),     rmat(25, 4, "g500"),     rmat(25, 8, "g500"),
            rmat(26, 2, "g500"),     rmat(25, 4, "mild"),     rmat(18, 16, "mild"),    rmat(20, 16, "mild"),
            rmat(22, 16, "mild"),    rmat(24, 4, "mild"),     rmat(18, 16, "uniform"), rmat(20, 16, "uniform"),
            rmat(22, 8, "uniform"),  rmat(24, 4, "uniform"),  stencil(32),             stencil(64),
            stencil(128),            stencil(192)};
}

// Times one product (t = M u, mul TIMES or SECOND) `runs` times after two warm-ups, the L2
// flushed before each; the median in ms.
struct ProductTimer {
    CudaBackend &be;
    Buffer flush;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    explicit ProductTimer(CudaBackend &b) : be(b), flush(&b, b.traits().l2_bytes * 2) {
        PSV_CUDA_CHECK(cudaEventCreate(&e0));
        PSV_CUDA_CHECK(cudaEventCreate(&e1));
    }
    ~ProductTimer() {
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
    }
    double time(const CudaMatrix &M, psv_op mul, const float *u, float *t, int runs) {
        std::vector<double> ms;
        for (int r = -2; r < runs; ++r) {
            be.set_bytes(flush.get(), r & 0xff, flush.size());
            PSV_CUDA_CHECK(cudaEventRecord(e0, be.stream()));
            plus_product(be, M, mul, u, t);
            PSV_CUDA_CHECK(cudaEventRecord(e1, be.stream()));
            PSV_CUDA_CHECK(cudaEventSynchronize(e1));
            float x = 0;
            PSV_CUDA_CHECK(cudaEventElapsedTime(&x, e0, e1));
            if (r >= 0) ms.push_back(x);
        }
        std::sort(ms.begin(), ms.end());
        const size_t k = ms.size();
        return k % 2 ? ms[k / 2] : 0.5 * (ms[k / 2 - 1] + ms[k / 2]);
    }
};

__global__ void fill_u_kernel(int64_t n, float *u) {
    PSV_GRID_LOOP(i, n) u[i] = 0.25f + (float)(mix64((uint64_t)i) >> 41) * (1.0f / 8388608.0f);
}

}  // namespace

void CudaBackend::tune(const std::string &path_in, int32_t effort, bool progress) {
    activate();
    const tuning::DeviceShape dshape = device_shape(*this);
    std::string path = path_in;
    if (path.empty()) {
        const std::string dir = tuning::user_table_dir();
        if (dir.empty()) fail(PSV_ERROR_IO, "no path given, and neither XDG_CACHE_HOME nor HOME is set for the user's cache");
        path = dir + "/" + tuning::table_file_name(dshape);
    }
    tuning::Table table;
    table.device = dshape;
    table.kernels = kernel_shape(policy_);
    const auto t_all = std::chrono::steady_clock::now();
    const int runs = effort == 0 ? 3 : 15;
    const tuning::KernelShape kshape = kernel_shape(policy_);
    ProductTimer timer(*this);
    for (const Synthetic &syn : training_set(effort)) {
        // device memory: the tuples, the CSR, a form and the timer's vectors within a quarter
        if ((double)syn.tuples() * 48.0 > 0.25 * (double)traits_.global_bytes) {
            if (progress) std::fprintf(stderr, "psv tune: %s skipped (it would take more than a quarter of device memory)\n", syn.name().c_str());
            continue;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const int64_t dim = syn.dim();
        const Synthetic s = syn;
        DeliverTuples deliver = [this, s](int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *vals) {
            float *v = static_cast<float *>(vals);
            launch(*this, n, [&](unsigned g, int b) {
                if (s.kind[0] == 's') stencil_kernel<<<g, b, 0, stream_>>>(first, n, (int64_t)s.scale, rows, cols, v);
                else rmat_kernel<<<g, b, 0, stream_>>>(first, n, s.scale, s.a, s.b, s.c, 0x5eed0000ull + (uint64_t)s.scale * 131 + (uint64_t)s.ef, rows, cols, v);
            });
        };
        FormatOptions base;
        base.plan_choice = PSV_CHOICE_RULES;
        std::unique_ptr<MatrixStore> store = build_from_device_chunks(*this, dim, dim, PSV_FP32, false, syn.tuples(), deliver, base);
        CudaMatrix &M = static_cast<CudaMatrix &>(*store);
        // its statistics, as a rebuild gathers them
        ColumnStats cs;
        {
            Buffer order;
            cs = rank_columns(*this, M, policy_.hot_min_length, order, nullptr);
        }
        tuning::MatrixStats ms = model_stats(M, cs, 4);
        table.matrices.push_back({syn.name(), ms});
        Buffer u(this, (size_t)std::max<int64_t>(1, M.ncols) * 4), t(this, (size_t)std::max<int64_t>(1, M.nrows) * 4);
        launch(*this, M.ncols, [&](unsigned g, int b) { fill_u_kernel<<<g, b, 0, stream_>>>(M.ncols, u.as<float>()); });
        // every family is measured, the streamed product too where AUTO may not choose it (an
        // explicit PSV_KERNEL_STREAM is priced as well)
        Policy all = policy_;
        all.stream_in_model = true;
        // SELL-32 where its slices pad the entries by at most half (beyond the rule's bound, for
        // the fit's range)
        all.sell_max_padding = std::max(policy_.sell_max_padding, 1.5);
        const std::vector<tuning::Plan> plans = auto_candidates(M, all, 4, base, sell_slot_count(*this, M).slots);
        for (const tuning::Plan &plan : plans) {
            M.rebuild(options_for(plan));
            for (int w = 0; w < 2; ++w) {
                ms.weighted = w == 0;
                tuning::Sample smp;
                smp.matrix = syn.name();
                smp.plan = plan;
                smp.weighted = w == 0;
                smp.f = tuning::features(ms, plan, dshape, kshape);
                smp.ms = timer.time(M, w == 0 ? PSV_TIMES : PSV_SECOND, u.as<float>(), t.as<float>(), runs);
                table.samples.push_back(smp);
            }
        }
        if (progress)
            std::fprintf(stderr, "psv tune: %s (%lld entries): %zu plans timed in %.1f s\n", syn.name().c_str(),
                         (long long)M.nvals, plans.size(), seconds_since(t0));
    }
    tuning::fit(table);
    std::string err;
    if (!tuning::save_table(table, path, err)) fail(PSV_ERROR_IO, err);
    if (progress)
        std::fprintf(stderr, "psv tune: %zu samples in %.1f s; table written to %s\n", table.samples.size(),
                     seconds_since(t_all), path.c_str());
    tuning_.table = std::move(table);
    tuning_.source = tuning::Source::User;
    tuning_.path = path;
}

Backend::TuningState CudaBackend::tuning() const {
    TuningState s;
    s.info.source = (int32_t)tuning_.source;
    if (tuning_.source == tuning::Source::None) {
        s.text = format("no tuning table for %s (sm_%d%d) and none of a related architecture is shipped: PSV_KERNEL_AUTO "
                        "follows its rules; `psv tune-device` makes one",
                        traits_.name.c_str(), traits_.cc_major, traits_.cc_minor);
        return s;
    }
    const tuning::Table &t = tuning_.table;
    s.info.cc_major = t.device.cc_major;
    s.info.cc_minor = t.device.cc_minor;
    for (int f = 0; f < tuning::kFamilies; ++f) s.info.families += t.has((tuning::Family)f) ? 1 : 0;
    s.info.samples = (int64_t)t.samples.size();
    const char *where = tuning_.source == tuning::Source::User ? "the user's table " : "shipped with psv as ";
    s.text = format("%s (sm_%d%d), %s%s", t.device.name.c_str(), t.device.cc_major, t.device.cc_minor, where,
                    tuning_.path.c_str());
    if (tuning_.source == tuning::Source::Nearest)
        s.text = format("no tuning table for %s (sm_%d%d): using the nearest architecture's, %s; `psv tune-device` "
                        "measures this device once",
                        traits_.name.c_str(), traits_.cc_major, traits_.cc_minor, s.text.c_str());
    return s;
}

}  // namespace cuda
}  // namespace psv
