// The CUDA implementation of the algorithms' steps (AlgoSteps, src/core/algo_steps.hpp): one launch
// each, the reductions deterministic (vector/reduce.cuh and the RWR update's fixed tree below),
// and the iteration loop captured as a CUDA graph for small matrices, or launched ahead of the
// host's read-back where its iterations skip whole (run_loop).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/algo_steps.hpp"
#include "cuda/algo/loop_state.cuh"
#include "cuda/algo/pagerank_fused.hpp"
#include "cuda/internal.hpp"
#include "cuda/runtime/backend.cuh"
#include "cuda/vector/reduce.cuh"

namespace psv {
namespace cuda {

namespace {

class CudaAlgoSteps final : public AlgoSteps {
public:
    explicit CudaAlgoSteps(CudaBackend &be) : be_(be) {}
    void pagerank_scale(int64_t n, const float *r, const float *inv_outdeg, float *w, double *dangling,
                        const LoopState *state) override;
    void pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                         const float *personal, LoopState *state) override;
    void pagerank_update_scale(int64_t n, const float *t, float *r, double damping, double *dangling,
                               const float *personal, const float *inv_outdeg, float *w, LoopState *state) override;
    std::unique_ptr<FusedIteration> pagerank_fused(const MatrixStore &AT, float *r, const float *inv_outdeg, double damping,
                                                   const float *personal, LoopState *state) override {
        return cuda::pagerank_fused(be_, AT, r, inv_outdeg, damping, personal, state);
    }
    void run_loop(const std::function<void()> &iteration, LoopState *state, int64_t entries,
                  LoopState &final_host, bool skips_whole) override;
    void sum(int64_t n, const float *x, double *out) override;
    void normalize_diff(int64_t n, float *x, const double *total, const float *prev,
                        double *diff) override;
    void rwr_start(int64_t n, int32_t k, const int64_t *queries, const float *inv_degree, float *R,
                   float *U) override;
    void rwr_update(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *U,
                    const float *inv_degree, double c, const int64_t *queries, double *diffs) override;
    void copy_columns(int64_t n, const float *src, int32_t src_k, float *dst, int32_t dst_k, int32_t m,
                      const int32_t *src_cols, const int32_t *dst_cols) override;
    bool runs_ahead() const override { return true; }
    void read_post(const void *src, size_t bytes, int slot) override;
    const void *read_wait(int slot) override;
    void write_post(void *dst, const void *src, size_t bytes) override;

    ~CudaAlgoSteps() override {
        if (read_host_[0] || read_host_[1] || read_done_[0] || read_done_[1] || write_host_ || write_done_) {
            (void)cudaSetDevice(be_.device());
            (void)cudaStreamSynchronize(be_.stream());
            for (int i = 0; i < 2; ++i) {
                if (read_done_[i]) (void)cudaEventDestroy(read_done_[i]);
                if (read_host_[i]) (void)cudaFreeHost(read_host_[i]);
            }
            if (write_done_) (void)cudaEventDestroy(write_done_);
            if (write_host_) (void)cudaFreeHost(write_host_);
            (void)cudaGetLastError();
        }
    }

private:
    void run_ahead(const std::function<void()> &iteration, LoopState *state, int32_t group, LoopState &final_host);
    // A double the caller does not want (a launch's result nobody reads).
    double *unwanted() {
        if (!unwanted_.get()) unwanted_ = Buffer(&be_, sizeof(double));
        return unwanted_.as<double>();
    }
    CudaBackend &be_;
    Buffer unwanted_;
    // the RWR update's block partials (grown as needed); its counter is the context's reduction
    // counter (zero between launches, reset by the last block)
    Buffer rwr_partials_;
    // read_post's two slots (pinned host memory, grown as asked) and the events of their copies,
    // made on first use and kept with the context
    void *read_host_[2] = {nullptr, nullptr};
    size_t read_cap_[2] = {0, 0};
    cudaEvent_t read_done_[2] = {nullptr, nullptr};
    // write_post's staging (pinned host memory, grown as asked) and the event of its last copy
    void *write_host_ = nullptr;
    size_t write_cap_ = 0;
    cudaEvent_t write_done_ = nullptr;
};

// ---- PageRank ---------------------------------------------------------------------------------

// The steps below read their inputs through the read-only path (__ldg), and a device scalar (the
// dangling sum) once a thread: a plain load may not move above the element's store before it, so
// a scalar read per element would wait on every store, and no two elements' loads would be in
// flight at once.

// A step's result into a plain scalar, the whole launch skipped once the loop has ended.
struct OutUnlessDone {
    double *p;
    const LoopState *state;
    __device__ bool skip() const { return state && state->done; }
    __device__ void put(int, double r) const { *p = r; }
};

struct PrScale {
    const float *r, *inv;
    float *w;
    __device__ double operator()(int64_t i, int) const {
        const float iv = __ldg(inv + i), ri = __ldg(r + i);
        w[i] = ri * iv;
        return iv == 0.0f ? (double)ri : 0.0;
    }
};

void CudaAlgoSteps::pagerank_scale(int64_t n, const float *r, const float *inv, float *w, double *dangling,
                                   const LoopState *state) {
    be_.activate();
    if (n <= 0) {
        if (dangling && !state) be_.set_bytes(dangling, 0, 8);
        return;
    }
    double *out = dangling ? dangling : unwanted();
    launch_mapreduce_out<double, PlusD>(be_, n, PrScale{r, inv, w}, 0.0, OutUnlessDone{out, state});
}

// The update's two sums (pagerank_update_scale): the L1 difference and the new rank's dangling sum.
struct PrSums {
    double diff, dangling;
};
struct PlusPrSums {
    __device__ __forceinline__ static PrSums apply(PrSums a, PrSums b) { return {a.diff + b.diff, a.dangling + b.dangling}; }
};

// The rank's update: r(i) = pagerank_rank(...) and its difference; with Scale, also the next
// iteration's pagerank_scale (w(i) = r(i) inv(i), the dangling sum) in the same pass. Personal: the
// teleport vector is given (a type apiece keeps the branches out of the loop). The dangling sum
// is read once a thread (start()), before the thread's block counts itself done: the last block
// of pagerank_update_scale writes the next one there, after every block has read it.
template <bool Personal, bool Scale> struct PrUpdate {
    const float *t;
    float *r;
    const float *personal, *inv;
    float *w;
    const double *dangling;
    double damping, inv_n;
    float scale = 0.0f;  // of the dangling sum, set by start()
    __device__ PrUpdate start() const {
        PrUpdate g = *this;
        g.scale = pagerank_scale_of(damping, *dangling);
        return g;
    }
    __device__ auto operator()(int64_t i, int) const {
        const float rn = pagerank_rank(scale, (float)damping, Personal ? __ldg(personal + i) : (float)inv_n, __ldg(t + i));
        const double dd = fabs((double)rn - (double)r[i]);
        r[i] = rn;
        if constexpr (Scale) {
            const float iv = __ldg(inv + i);
            w[i] = rn * iv;
            return PrSums{dd, iv == 0.0f ? (double)rn : 0.0};
        } else {
            return dd;
        }
    }
};

// pagerank_update_scale's result: the next dangling sum, and the difference into the loop state.
struct OutPrSums {
    double *dangling;
    LoopState *state;
    __device__ bool skip() const { return state->done; }
    __device__ void put(int, PrSums s) const {
        *dangling = s.dangling;
        OutLoop{state}.put(0, s.diff);
    }
};

// PrUpdate<Personal, Scale> over the n ranks, reduced with Op from id into out.
template <bool Scale, class T, class Op, class Out>
void launch_pr_update(CudaBackend &be, int64_t n, const float *t, float *r, const float *personal, const float *inv, float *w,
                      const double *dangling, double damping, T id, Out out) {
    const double inv_n = 1.0 / (double)n;
    if (personal)
        launch_mapreduce_out<T, Op>(be, n, PrUpdate<true, Scale>{t, r, personal, inv, w, dangling, damping, inv_n}, id, out);
    else
        launch_mapreduce_out<T, Op>(be, n, PrUpdate<false, Scale>{t, r, personal, inv, w, dangling, damping, inv_n}, id, out);
}

void CudaAlgoSteps::pagerank_update(int64_t n, const float *t, float *r, double damping, const double *dangling,
                                    const float *personal, LoopState *state) {
    if (n <= 0) return;
    be_.activate();
    launch_pr_update<false, double, PlusD>(be_, n, t, r, personal, nullptr, nullptr, dangling, damping, 0.0, OutLoop{state});
}

void CudaAlgoSteps::pagerank_update_scale(int64_t n, const float *t, float *r, double damping, double *dangling,
                                          const float *personal, const float *inv, float *w, LoopState *state) {
    if (n <= 0) return;
    be_.activate();
    launch_pr_update<true, PrSums, PlusPrSums>(be_, n, t, r, personal, inv, w, dangling, damping, PrSums{0.0, 0.0},
                                               OutPrSums{dangling, state});
}

// A captured graph and its executable, destroyed with the object; the pool holds the blocks the
// capture freed until then (the graph's launches have ended: the stream is synchronized first).
class LoopGraph {
public:
    explicit LoopGraph(CudaBackend &be) : be_(be) { be_.pool().hold(true); }
    ~LoopGraph() {
        (void)cudaStreamSynchronize(be_.stream());
        if (exec_) cudaGraphExecDestroy(exec_);
        if (graph_) cudaGraphDestroy(graph_);
        (void)cudaGetLastError();
        be_.pool().hold(false);
    }
    LoopGraph(const LoopGraph &) = delete;
    LoopGraph &operator=(const LoopGraph &) = delete;
    // Captures `times` calls of f on the stream (relaxed mode: the product may take blocks of the
    // pool, which then come from the held ones or from cudaMalloc) and instantiates the graph.
    void capture(const std::function<void()> &f, int times) {
        cudaStream_t st = be_.stream();
        PSV_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
        try {
            for (int i = 0; i < times; ++i) f();
        } catch (...) {
            cudaGraph_t g = nullptr;
            (void)cudaStreamEndCapture(st, &g);
            if (g) cudaGraphDestroy(g);
            throw;
        }
        PSV_CUDA_CHECK(cudaStreamEndCapture(st, &graph_));
        PSV_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }
    void launch() { PSV_CUDA_CHECK(cudaGraphLaunch(exec_, be_.stream())); }

private:
    CudaBackend &be_;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

// The first iteration runs as it is (whatever the product builds on first use is built, its
// blocks taken); then, for a small matrix, Policy::loop_graph_iterations iterations are captured
// once and the graph launched until the state ends, one read-back per launch. A larger matrix's
// loop whose iterations skip whole past its end (skips_whole) runs ahead of the host instead
// (run_ahead); any other reads the state back after every iteration. The steps past the
// converged iteration do nothing but the product (the state's skip), so rank and count are those
// of the plain loop, bit for bit.
void CudaAlgoSteps::run_loop(const std::function<void()> &iteration, LoopState *state, int64_t entries,
                             LoopState &final_host, bool skips_whole) {
    be_.activate();
    iteration();
    be_.download(&final_host, state, sizeof final_host);
    const Policy &P = be_.policy();
    if (final_host.done) return;
    if (entries > P.loop_graph_max_entries || P.loop_graph_iterations <= 1) {
        if (skips_whole && P.loop_ahead_iterations > 0) {
            run_ahead(iteration, state, P.loop_ahead_iterations, final_host);
            return;
        }
        while (!final_host.done) {
            iteration();
            be_.download(&final_host, state, sizeof final_host);
        }
        return;
    }
    LoopGraph graph(be_);
    graph.capture(iteration, P.loop_graph_iterations);
    while (!final_host.done) {
        graph.launch();
        be_.download(&final_host, state, sizeof final_host);
    }
}

// Groups of `group` iterations, each followed by an asynchronous copy of the state into one of
// the two read-back slots; the next group is launched before the host waits on the one before,
// so the device never waits on the host's look. Once a slot shows the loop ended, the groups
// launched after it do nothing (skips_whole) and leave the state as that slot has it: the stream
// is synchronized (so no copy into a slot is still in flight) and that state returned.
void CudaAlgoSteps::run_ahead(const std::function<void()> &iteration, LoopState *state, int32_t group,
                              LoopState &final_host) {
    const auto launch_group = [&](int slot) {
        for (int32_t i = 0; i < group; ++i) iteration();
        read_post(state, sizeof(LoopState), slot);
    };
    try {
        int slot = 0;
        launch_group(slot);
        for (;;) {
            launch_group(1 - slot);
            const LoopState &seen = *static_cast<const LoopState *>(read_wait(slot));
            if (seen.done) {
                final_host = seen;
                break;
            }
            slot = 1 - slot;
        }
    } catch (...) {
        (void)cudaStreamSynchronize(be_.stream());
        throw;
    }
    be_.sync();
}

// Pinned staging of at least `bytes` in host / cap, grown (the old one freed) where smaller; the
// caller has waited for the old one's last copy. A failed allocation leaves it as it was.
static void grow_pinned(void *&host, size_t &cap, size_t bytes) {
    if (cap >= bytes) return;
    void *h = nullptr;
    const size_t c = std::max<size_t>(bytes, 256);
    PSV_CUDA_CHECK(cudaHostAlloc(&h, c, cudaHostAllocDefault));
    if (host) (void)cudaFreeHost(host);
    host = h;
    cap = c;
}

// A slot grows only once its last copy has landed (its event); an allocation that fails leaves
// the slot as it was and throws out of memory.
void CudaAlgoSteps::read_post(const void *src, size_t bytes, int slot) {
    slot &= 1;
    be_.activate();
    if (!read_done_[slot]) PSV_CUDA_CHECK(cudaEventCreateWithFlags(&read_done_[slot], cudaEventDisableTiming));
    if (read_cap_[slot] < bytes) {
        PSV_CUDA_CHECK(cudaEventSynchronize(read_done_[slot]));
        grow_pinned(read_host_[slot], read_cap_[slot], bytes);
    }
    cudaStream_t st = be_.stream();
    if (bytes) PSV_CUDA_CHECK(cudaMemcpyAsync(read_host_[slot], src, bytes, cudaMemcpyDeviceToHost, st));
    PSV_CUDA_CHECK(cudaEventRecord(read_done_[slot], st));
}

const void *CudaAlgoSteps::read_wait(int slot) {
    slot &= 1;
    if (!read_done_[slot]) fail(PSV_ERROR_PANIC, "read_wait on a slot never posted");
    be_.activate();
    PSV_CUDA_CHECK(cudaEventSynchronize(read_done_[slot]));
    return read_host_[slot];
}

// The staging is reused once its last copy has run (usually long since: the loops post a write
// at most once an iteration, after waiting for a read-back).
void CudaAlgoSteps::write_post(void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    be_.activate();
    if (!write_done_) PSV_CUDA_CHECK(cudaEventCreateWithFlags(&write_done_, cudaEventDisableTiming));
    else PSV_CUDA_CHECK(cudaEventSynchronize(write_done_));
    grow_pinned(write_host_, write_cap_, bytes);
    std::memcpy(write_host_, src, bytes);
    cudaStream_t st = be_.stream();
    PSV_CUDA_CHECK(cudaMemcpyAsync(dst, write_host_, bytes, cudaMemcpyHostToDevice, st));
    PSV_CUDA_CHECK(cudaEventRecord(write_done_, st));
}

// ---- HITS -------------------------------------------------------------------------------------

struct SumF {
    const float *x;
    __device__ double operator()(int64_t i, int) const { return (double)x[i]; }
};

void CudaAlgoSteps::sum(int64_t n, const float *x, double *out) {
    if (n <= 0) {
        be_.set_bytes(out, 0, 8);
        return;
    }
    be_.activate();
    launch_mapreduce<double, PlusD>(be_, n, SumF{x}, 0.0, out);
}

struct NormDiff {
    float *x;
    const double *total;
    const float *prev;
    __device__ double operator()(int64_t i, int) const {
        const double tot = __ldg(total);
        const float inv = tot != 0 ? (float)(1.0 / tot) : 1.0f;
        const float v = x[i] * inv;
        x[i] = v;
        return prev ? fabs((double)v - (double)__ldg(prev + i)) : 0.0;
    }
};

void CudaAlgoSteps::normalize_diff(int64_t n, float *x, const double *total, const float *prev, double *diff) {
    if (n <= 0) {
        if (prev && diff) be_.set_bytes(diff, 0, 8);
        return;
    }
    be_.activate();
    double *out = prev && diff ? diff : unwanted();
    launch_mapreduce<double, PlusD>(be_, n, NormDiff{x, total, prev}, 0.0, out);
}

// ---- random walk with restart -----------------------------------------------------------------

__global__ void rwr_start_kernel(int32_t k, const int64_t *queries, const float *inv, float *R, float *U) {
    const int32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const int64_t q = queries[j];
    R[q * k + j] = 1.0f;
    U[q * k + j] = 1.0f * inv[q];
}

void CudaAlgoSteps::rwr_start(int64_t n, int32_t k, const int64_t *queries, const float *inv, float *R, float *U) {
    if (n <= 0 || k <= 0) return;
    be_.activate();
    be_.set_bytes(R, 0, (size_t)n * k * sizeof(float));
    be_.set_bytes(U, 0, (size_t)n * k * sizeof(float));
    rwr_start_kernel<<<grid_for(k), 256, 0, be_.stream()>>>(k, queries, inv, R, U);
    PSV_CUDA_LAUNCH_CHECK();
}

// One query (k = 1): the element-wise map-reduce.
struct RwrUpdate1 {
    const float *T, *R;  // R_new may be either (each element read before it is written)
    float *R_new, *U;
    const float *inv;
    const int64_t *query;
    double c;
    __device__ double operator()(int64_t i, int) const {
        const float cf = (float)c, restart = (float)(1.0 - c);
        const float rn = cf * __ldg(T + i) + (i == __ldg(query) ? restart : 0.0f);
        const double dd = fabs((double)rn - (double)R[i]);
        R_new[i] = rn;
        U[i] = rn * __ldg(inv + i);
        return dd;
    }
};

constexpr int kRwrThreads = 1024;
constexpr int64_t kRwrRowsPerBlock = 512;
constexpr int kRwrBatch = 8;  // rows a thread has in flight

// One block per SM (all resident at once: 1024 threads of at most 64 registers fill one), fewer
// for a small block: each block's partial differences are one more term of the last block's sums.
inline int rwr_blocks(int64_t n, int sms) {
    return (int)std::min<int64_t>(sms, std::max<int64_t>(1, (n + kRwrRowsPerBlock - 1) / kRwrRowsPerBlock));
}

// k >= 2 queries: block b takes a fixed range of rows, and columns [j0, j0 + kc) at a time (kc =
// min(k - j0, kRwrThreads)): thread t < (kRwrThreads / kc) * kc takes column j0 + t % kc and rows
// t / kc, t / kc + kRwrThreads / kc, ..., so the block reads whole stretches of consecutive
// values of the row-major blocks, kRwrBatch rows' loads in flight per thread. Per column: each
// thread sums its rows in order, the block's threads of one column in thread order, the blocks'
// partials in block order by the last block to finish (an integer counter picks it). No float
// atomics: the same sums every run.
__global__ void __launch_bounds__(kRwrThreads)
    rwr_update_kernel(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *__restrict__ U,
                      const float *__restrict__ inv, float cf, float restart, const int64_t *__restrict__ queries,
                      double *partials, unsigned *counter, double *diffs) {
    __shared__ double sum[kRwrThreads];
    __shared__ bool last;
    const int t = threadIdx.x;
    const int64_t per = (n + gridDim.x - 1) / gridDim.x;
    const int64_t r0 = (int64_t)blockIdx.x * per, r1 = min(n, r0 + per);
    for (int32_t j0 = 0; j0 < k; j0 += kRwrThreads) {
        const int kc = min(k - j0, kRwrThreads), rows = kRwrThreads / kc;
        const int ri = t / kc;
        const int32_t j = j0 + t % kc;
        double acc = 0.0;
        if (ri < rows) {
            const int64_t q = queries[j];
            for (int64_t i0 = r0 + ri; i0 < r1; i0 += (int64_t)kRwrBatch * rows) {
                float tv[kRwrBatch], rv[kRwrBatch], iv[kRwrBatch];
#pragma unroll
                for (int u = 0; u < kRwrBatch; ++u) {
                    const int64_t i = i0 + (int64_t)u * rows;
                    tv[u] = i < r1 ? T[i * k + j] : 0.0f;
                    rv[u] = i < r1 ? R[i * k + j] : 0.0f;
                    iv[u] = i < r1 ? inv[i] : 0.0f;
                }
#pragma unroll
                for (int u = 0; u < kRwrBatch; ++u) {
                    const int64_t i = i0 + (int64_t)u * rows;
                    if (i >= r1) break;
                    const float rn = cf * tv[u] + (i == q ? restart : 0.0f);
                    acc += fabs((double)rn - (double)rv[u]);
                    R_new[i * k + j] = rn;
                    U[i * k + j] = rn * iv[u];
                }
            }
        }
        sum[t] = acc;
        __syncthreads();
        if (t < kc) {
            double s = 0.0;
            for (int m = 0; m < rows; ++m) s += sum[t + m * kc];
            partials[(int64_t)blockIdx.x * k + j0 + t] = s;
            __threadfence();  // each writer's own: the last block reads them
        }
        __syncthreads();
    }
    if (t == 0) {
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    // warp w combines columns w, w + 32, ...: lanes over blocks in order (four loads in flight),
    // then a fixed butterfly
    const int lane = t & 31, warp = t >> 5;
    for (int32_t j = warp; j < k; j += kRwrThreads / 32) {
        double s = 0.0;
        for (unsigned b0 = lane; b0 < gridDim.x; b0 += 4 * 32) {
            double v[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const unsigned b = b0 + 32 * u;
                v[u] = b < gridDim.x ? __ldcg(partials + (int64_t)b * k + j) : 0.0;  // L2: past the fence
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) s += v[u];
        }
        s = warp_allreduce(PlusD{}, s);
        if (lane == 0) diffs[j] = s;
    }
    if (t == 0) *counter = 0;
}

void CudaAlgoSteps::rwr_update(int64_t n, int32_t k, const float *T, const float *R, float *R_new, float *U,
                               const float *inv, double c, const int64_t *queries, double *diffs) {
    if (k <= 0) return;
    be_.activate();
    if (n <= 0) {
        be_.set_bytes(diffs, 0, (size_t)k * 8);
        return;
    }
    if (k == 1) {
        launch_mapreduce<double, PlusD>(be_, n, RwrUpdate1{T, R, R_new, U, inv, queries, c}, 0.0, diffs);
        return;
    }
    const int blocks = rwr_blocks(n, be_.sm_count());
    const size_t need = (size_t)blocks * k * sizeof(double);
    if (rwr_partials_.size() < need) rwr_partials_ = Buffer(&be_, need);  // the old one kept on failure
    rwr_update_kernel<<<blocks, kRwrThreads, 0, be_.stream()>>>(n, k, T, R, R_new, U, inv, (float)c, (float)(1.0 - c), queries,
                                                                rwr_partials_.as<double>(), be_.reduce_counter(), diffs);
    PSV_CUDA_LAUNCH_CHECK();
}

// Up to kCopyColumns column pairs, passed by value: no upload (and no wait) per compaction.
constexpr int kCopyColumns = 64;
constexpr int kCopyThreads = 256;
struct ColumnPairs {
    int32_t src[kCopyColumns], dst[kCopyColumns];
};

// A block's threads cover kCopyThreads / m rows at a time, thread t of a row its column pair
// t % m; blocks stride over the rows.
__global__ void __launch_bounds__(kCopyThreads)
    copy_columns_kernel(int64_t n, int32_t m, const float *__restrict__ src, int32_t src_k, float *__restrict__ dst,
                        int32_t dst_k, const ColumnPairs cols) {
    const int rows = kCopyThreads / m, t = (int)threadIdx.x % m, ri = (int)threadIdx.x / m;
    if (ri >= rows) return;
    const int32_t sc = cols.src[t], dc = cols.dst[t];
    for (int64_t i = (int64_t)blockIdx.x * rows + ri; i < n; i += (int64_t)gridDim.x * rows)
        dst[i * dst_k + dc] = src[i * src_k + sc];
}

void CudaAlgoSteps::copy_columns(int64_t n, const float *src, int32_t src_k, float *dst, int32_t dst_k, int32_t m,
                                 const int32_t *src_cols, const int32_t *dst_cols) {
    if (n <= 0 || m <= 0) return;
    be_.activate();
    for (int32_t t0 = 0; t0 < m; t0 += kCopyColumns) {
        const int32_t mm = std::min(kCopyColumns, m - t0);
        ColumnPairs cols{};
        std::copy(src_cols + t0, src_cols + t0 + mm, cols.src);
        std::copy(dst_cols + t0, dst_cols + t0 + mm, cols.dst);
        const int64_t rows = kCopyThreads / mm;
        const unsigned blocks = (unsigned)std::min<int64_t>((n + rows - 1) / rows, 8 * (int64_t)be_.sm_count());
        copy_columns_kernel<<<blocks, kCopyThreads, 0, be_.stream()>>>(n, mm, src, src_k, dst, dst_k, cols);
        PSV_CUDA_LAUNCH_CHECK();
    }
}

}  // namespace

std::unique_ptr<AlgoSteps> create_algo_steps(Backend &be) {
    if (!is_cuda(be)) fail(PSV_ERROR_BACKEND_UNAVAILABLE, "not a CUDA context");
    return std::make_unique<CudaAlgoSteps>(static_cast<CudaBackend &>(be));
}

}  // namespace cuda
}  // namespace psv
