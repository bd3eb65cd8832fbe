// PageRank's iteration as the two passes of the streamed product over AT (AlgoSteps::
// pagerank_fused; the passes in cuda/spmv/stream.cuh): the scatter stages w = r .* inv_outdeg for
// its window of x, the first block of each window sums the window's dangling rank and the last of
// those the windows' sums; the accumulate pass turns its partition's row sums into the new rank
// (pagerank_rank, as the update step), and the last block to finish sums the blocks' differences and
// moves the loop state. Every sum is in a fixed order: the dangling rank by window, then in window
// order; the differences by partition, then in partition order. Against the three steps it saves
// writing and reading w and t and two launches an iteration.
#include "core/algo_steps.hpp"
#include "cuda/algo/loop_state.cuh"
#include "cuda/algo/pagerank_fused.hpp"
#include "cuda/build/matrix.cuh"
#include "cuda/spmv/stream.cuh"
#include "cuda/vector/reduce.cuh"

namespace psv {
namespace cuda {

namespace {

// The scatter's x: r .* inv_outdeg (as PrScale); split 0 of window b keeps the window's dangling
// rank (the sum of r(j) where inv_outdeg(j) is 0) in dangling[b], also where it writes no run, and
// the last of those blocks to finish sums them in window order into dangling[windows].
struct PrStreamSource {
    static constexpr int kStagedVectors = 2;  // r and inv
    const float *r, *inv;
    double *dangling;
    int64_t windows;
    unsigned *counter;  // last_block_combine's
    const LoopState *state;
    __device__ bool skip() const { return state->done; }
    __device__ bool stages_empty(int64_t s) const { return s == 0; }
    __device__ void stage(float *xw, int64_t c0, int64_t n, int64_t b, int64_t s) const {
        __shared__ double scratch[32];
        double dg = 0.0;
        // 4 columns a thread at a time (c0 is a multiple of 32: 16-byte aligned), 4 such loads in flight
        const int64_t n4 = n / 4;
        const float4 *r4 = reinterpret_cast<const float4 *>(r + c0), *i4 = reinterpret_cast<const float4 *>(inv + c0);
#pragma unroll 4
        for (int64_t q = threadIdx.x; q < n4; q += blockDim.x) {
            const float4 a = __ldg(r4 + q), v = __ldg(i4 + q);
            reinterpret_cast<float4 *>(xw)[q] = make_float4(a.x * v.x, a.y * v.y, a.z * v.z, a.w * v.w);
            if (v.x == 0.0f) dg += (double)a.x;
            if (v.y == 0.0f) dg += (double)a.y;
            if (v.z == 0.0f) dg += (double)a.z;
            if (v.w == 0.0f) dg += (double)a.w;
        }
        for (int64_t c = 4 * n4 + threadIdx.x; c < n; c += blockDim.x) {
            const float iv = __ldg(inv + c0 + c), ri = __ldg(r + c0 + c);
            xw[c] = ri * iv;
            if (iv == 0.0f) dg += (double)ri;
        }
        if (s != 0) return;  // the block's split: uniform
        dg = block_allreduce(PlusD{}, dg, 0.0, scratch);
        double total;
        if (last_block_combine(PlusD{}, dg, 0.0, dangling, b, windows, counter, scratch, total) && threadIdx.x == 0)
            dangling[windows] = total;
    }
};

// The accumulate pass's rows: r(i) = (1 - d) p(i) + d dangling p(i) + d t(i) (pagerank_rank, t(i)
// the row's sum rounded to fp32), the block's sum of |r_new(i) - r(i)| into diffs[k]; the last
// block sums diffs in partition order and counts the iteration (OutLoop).
struct PrStreamOut {
    float *r;
    const float *personal;  // nullptr: p(i) = 1/n
    const double *dangling;  // the scatter's total
    double damping, inv_n;
    double *diffs;
    unsigned *counter;  // last_block_combine's
    int64_t parts;
    LoopState *state;
    __device__ bool skip() const { return state->done; }
    template <class T, class Acc>
    __device__ void finish(const StreamArgs<T> &, const Acc *ys, int64_t r0, int64_t nr, int64_t k, void *scratch_raw) const {
        double *scratch = static_cast<double *>(scratch_raw);
        // r and p are read before they are written, a row by its one thread (__ldg: the loads of a
        // batch fly together, none waits on the stores before it)
        const double dg = __ldg(dangling);
        const float d = (float)damping;
        const float scale = pagerank_scale_of(damping, dg);
        double diff = 0.0;
        constexpr int U = 8;
        for (int64_t i0 = threadIdx.x; i0 < nr; i0 += U * (int64_t)blockDim.x) {
            float old[U], p[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t i = i0 + u * (int64_t)blockDim.x;
                old[u] = i < nr ? __ldg(r + r0 + i) : 0.0f;
                p[u] = i < nr && personal ? __ldg(personal + r0 + i) : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t i = i0 + u * (int64_t)blockDim.x;
                if (i >= nr) break;
                const float rn = pagerank_rank(scale, d, personal ? p[u] : (float)inv_n, (float)ys[i]);
                diff += fabs((double)rn - (double)old[u]);
                r[r0 + i] = rn;
            }
        }
        diff = block_allreduce(PlusD{}, diff, 0.0, scratch);
        double total;
        if (last_block_combine(PlusD{}, diff, 0.0, diffs, k, parts, counter, scratch, total) && threadIdx.x == 0)
            OutLoop{state}.put(0, total);
    }
};

class PageRankFused final : public FusedIteration {
public:
    PageRankFused(CudaBackend &be, const CudaMatrix &AT, float *r, const float *inv, double damping, const float *personal,
                  LoopState *state)
        : be_(be), AT_(AT), dangling_(&be, (size_t)(AT.stream.column_blocks + 1) * sizeof(double)),
          diffs_(&be, (size_t)AT.stream.parts * sizeof(double)), counters_(&be, 2 * sizeof(unsigned)) {
        be.set_bytes(counters_.get(), 0, 2 * sizeof(unsigned));
        const int64_t windows = AT.stream.column_blocks;
        src_ = PrStreamSource{r, inv, dangling_.as<double>(), windows, counters_.as<unsigned>(), state};
        out_ = PrStreamOut{r,        personal, dangling_.as<double>() + windows, damping, 1.0 / (double)AT.nrows, diffs_.as<double>(),
                           counters_.as<unsigned>() + 1, AT.stream.parts, state};
    }
    void run() override {
        be_.activate();
        // the kernel before an iteration's scatter writes none of AT's plan (the loop's setup or
        // the iteration before): the scatter may overlap it
        launch_stream_with(be_, AT_, CtSemiring<float, PSV_PLUS, PSV_SECOND>{}, false, src_, out_, nullptr, nullptr, true);
    }

private:
    CudaBackend &be_;
    const CudaMatrix &AT_;
    Buffer dangling_, diffs_, counters_;
    PrStreamSource src_;
    PrStreamOut out_;
};

}  // namespace

std::unique_ptr<FusedIteration> pagerank_fused(CudaBackend &be, const MatrixStore &AT, float *r, const float *inv,
                                               double damping, const float *personal, LoopState *state) {
    const CudaMatrix *M = dynamic_cast<const CudaMatrix *>(&AT);
    if (!M || M->kernel != PSV_KERNEL_STREAM || M->nrows != M->ncols || M->nrows == 0 || M->stream.parts == 0 ||
        M->stream.vb < sizeof(float))
        return nullptr;
    be.activate();
    return std::unique_ptr<FusedIteration>(new PageRankFused(be, *M, r, inv, damping, personal, state));
}

}  // namespace cuda
}  // namespace psv
