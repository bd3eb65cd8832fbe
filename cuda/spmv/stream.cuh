// The streamed product (PSV_KERNEL_STREAM; StreamPlan in cuda/build/matrix.cuh): x is read in
// order and written once per (partition, column) pair, then a block per partition sums its rows in
// shared memory from its pieces' pair values, staged there. Deterministic: a row's entries in a
// piece are consecutive and summed in an order the plan fixes (by thread, warp shuffles, then the
// warps' shares in warp order; pieces in order); no float atomics.
#pragma once
#include <climits>

#include <cuda_pipeline.h>

#include "cuda/build/matrix.cuh"
#include "cuda/spmv/semiring.cuh"

namespace psv {
namespace cuda {

// Copy the 16-byte pieces holding src[p0 .. p0 + n) to shared memory at dst, asynchronously (one
// committed group of copies a thread; __pipeline_wait_prior(0) then a barrier before reading):
// dst[p0 % (16 / sizeof(T))] is src[p0]. dst holds up to n + 2 * 16 / sizeof(T) - 2 values; src
// is 16-byte aligned and readable up to the 16-byte boundary past p0 + n.
template <class T> __device__ __forceinline__ void stream_stage_async(const T *src, int64_t p0, int64_t n, T *dst) {
    constexpr int V = 16 / sizeof(T);
    const int64_t a0 = p0 / V, a1 = (p0 + n + V - 1) / V;
    for (int64_t v = a0 + threadIdx.x; v < a1; v += blockDim.x) __pipeline_memcpy_async(dst + (v - a0) * V, src + v * V, 16);
    __pipeline_commit();
}

// Four values of one entry group or scatter group (16-byte aligned for 4-byte values).
template <class T> struct alignas(4 * sizeof(T)) StreamQuad {
    T v[4];
};

// Where the scatter's x window comes from (the scatter's Src): u as it is, copied to shared
// memory asynchronously. A fused algorithm step supplies its own (cuda/algo/pagerank_fused.cu):
// skip() ends every block at once (an ended loop); stage(xw, c0, n, b, s) leaves x(c0 .. c0 + n)
// in xw[0 .. n) for block (window b, split s), all threads calling it, the caller's barrier after;
// stages_empty(s): split s stages its window even where it writes no run; kStagedVectors: the
// vectors stage() reads (StreamPlan::splits_for).
template <class T> struct StreamSourceU {
    static constexpr int kStagedVectors = 1;
    const T *u;
    __device__ bool skip() const { return false; }
    __device__ bool stages_empty(int64_t) const { return false; }
    __device__ void stage(T *xw, int64_t c0, int64_t n, int64_t, int64_t) const {
        stream_stage_async(u, c0, n, xw);
        __pipeline_wait_prior(0);
    }
};

// The scatter pass: block (window b, split s) stages x's window b (column_block columns) in
// shared memory and writes its share of the window's runs, a warp per run: run r fills pv's
// places run_dest[r] .. + its length, place p with the window's column item_col[p]. The places
// are taken in aligned groups of 4 (one 8-byte load of their columns, one store of their values;
// the run's first and last groups write only their places in the run), up to 16 per lane in
// flight, and the next run's bounds are loaded while one is written.
template <class T, class Src>
__global__ void __launch_bounds__(kStreamScatterThreads, 2)
    stream_scatter_kernel(int64_t ncols, int64_t cblock, int64_t splits, const uint32_t *__restrict__ window_run,
                          const uint32_t *__restrict__ run_item, const uint32_t *__restrict__ run_dest,
                          const uint16_t *__restrict__ item_col, const Src src, T *__restrict__ pv) {
    constexpr int U = 4;  // groups of 4 a lane loads before it stores
    extern __shared__ __align__(16) unsigned char stream_smem[];
    T *xw = reinterpret_cast<T *>(stream_smem);
    const int64_t b = blockIdx.x / splits, s = blockIdx.x % splits;
    const int64_t w0 = window_run[b], len = (int64_t)window_run[b + 1] - w0;
    const uint32_t r0 = (uint32_t)(w0 + len * s / splits), r1 = (uint32_t)(w0 + len * (s + 1) / splits);  // runs < 2^32
    grid_dependency_wait();    // (launched overlapped) the kernel before: x, the loop's state, pv's last reader
    grid_dependents_launch();  // the accumulate pass may start (launched overlapped, it waits for this grid's end)
    if (src.skip() || (r0 == r1 && !src.stages_empty(s))) return;
    const int64_t c0 = b * cblock;
    const uint32_t lane = threadIdx.x & 31, nw = blockDim.x >> 5, warp = threadIdx.x >> 5;
    uint32_t r = r1 - r0 > warp ? r0 + warp : r1;
    uint32_t p0 = 0, n = 0;  // the run's first place and length (places fit 32 bits: pairs <= entries)
    if (r < r1) p0 = __ldg(run_dest + r), n = __ldg(run_item + r + 1) - __ldg(run_item + r);
    src.stage(xw, c0, min(cblock, ncols - c0), b, s);  // c0 a multiple of 32: xw[0] is x(c0)
    __syncthreads();
    while (r < r1) {
        const bool more = r1 - r > nw;  // (r + nw may pass 2^32)
        uint32_t q0 = 0, qn = 0;        // the next run's
        if (more) q0 = __ldg(run_dest + r + nw), qn = __ldg(run_item + r + nw + 1) - __ldg(run_item + r + nw);
        // offsets from the aligned group holding p0: the run holds [head, end)
        const uint32_t head = p0 & 3u, end = head + n;
        const uint2 *ic = reinterpret_cast<const uint2 *>(item_col + (p0 - head));
        T *dst = pv + (p0 - head);
        for (uint32_t o = 4 * lane; o < end; o += 4 * 32 * U) {
            uint2 c[U];
#pragma unroll
            for (int k = 0; k < U; ++k)
                if (o + 128 * k < end) c[k] = __ldcs(ic + (o + 128 * k) / 4);
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const uint32_t ok = o + 128 * k;
                if (ok >= end) break;
                const uint32_t col[4] = {c[k].x & 0xffffu, c[k].x >> 16, c[k].y & 0xffffu, c[k].y >> 16};
                if (ok >= head && ok + 4 <= end) {
                    StreamQuad<T> v;
#pragma unroll
                    for (int i = 0; i < 4; ++i) v.v[i] = xw[col[i]];
                    *reinterpret_cast<StreamQuad<T> *>(dst + ok) = v;
                } else {
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        if (ok + i >= head && ok + i < end) dst[ok + i] = xw[col[i]];
                }
            }
        }
        if (!more) break;
        r += nw, p0 = q0, n = qn;
    }
}

template <class T> struct StreamArgs {
    int64_t nrows, rows;  // rows of the matrix, of a partition
    const int32_t *order;     // partitions in launch order
    const int32_t *pg;        // part_piece
    const uint32_t *gp;       // piece_pair
    const int64_t *ge;        // piece_entry
    const T *pv;              // pair values
    const uint32_t *ent;      // row << 16 | slot, 0xffffffff a pad
    const T *vals;            // values in ent's order, or null (a pattern product)
    const uint32_t *nonempty; // row flags
    T *t;
    uint8_t *tp;
};

// A thread's group of 4 entries and their values (pads are 0xffffffff and end the piece: only a
// piece's last group holds any, at its end).
template <class T> struct StreamGroup {
    uint32_t ent[4];
    T a[4];
    __device__ __forceinline__ void load(const StreamArgs<T> &A, int64_t e) {
        const uint4 w = __ldcs(reinterpret_cast<const uint4 *>(A.ent + e));
        ent[0] = w.x, ent[1] = w.y, ent[2] = w.z, ent[3] = w.w;
        if (A.vals) {
            const StreamQuad<T> v = *reinterpret_cast<const StreamQuad<T> *>(A.vals + e);
#pragma unroll
            for (int c = 0; c < 4; ++c) a[c] = v.v[c];
        }
    }
};

// Segmented inclusive scan across the warp keyed by row (keys ascend with the lane): v becomes the
// sum of v over the lanes up to this one holding the same key, earlier lanes on the left.
template <class S, class Acc> __device__ __forceinline__ Acc warp_scan_by_row(const S &s, int key, Acc v) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int kr = __shfl_up_sync(0xffffffffu, key, d);
        const Acc kv = shfl_up_any(v, d);
        if (lane >= d && kr == key) v = s.acc_add(kv, v);
    }
    return v;
}

// What the accumulate pass does with its partition's row sums (the accumulate kernel's Out): the
// product's t (and t's present flags). A fused algorithm step supplies its own
// (cuda/algo/pagerank_fused.cu): skip() ends every block at once; finish(A, ys, r0, nr, k,
// scratch) takes rows r0 .. r0 + nr of partition k from ys, all threads calling it after a
// barrier, with kStreamThreads / 32 x 8 bytes of shared scratch.
struct StreamOutT {
    __device__ bool skip() const { return false; }
    template <class T, class Acc>
    __device__ void finish(const StreamArgs<T> &A, const Acc *ys, int64_t r0, int64_t nr, int64_t, void *) const {
        for (int64_t i = threadIdx.x; i < nr; i += blockDim.x) {
            const int64_t row = r0 + i;
            A.t[row] = (T)ys[i];
            if (A.tp) A.tp[row] = (uint8_t)((A.nonempty[row >> 5] >> (row & 31)) & 1u);
        }
    }
};

// The accumulate pass: a block per partition, in the plan's order (most entries first). The
// partition's rows are summed in shared memory (ys); for each piece, its pair values are copied
// to shared memory (xs: asynchronous copies, issued with the loads of each thread's first groups
// while the piece before is being chained) and each thread walks its range of the piece's entries
// (StreamPieceShape), the next groups' loads in flight while one is summed. A run of one row that
// starts and ends inside the range is the only one of its row in the piece: the thread adds it to
// the row at once. A range's first and last runs may continue from the range before or into the
// one after: a segmented scan over the threads in order (warps, then the warps' last runs) adds
// them, and the thread where a row's run ends adds the row's share. Every row's sum is so formed in an order the
// plan fixes; no atomics.
template <class S, class Out>
__global__ void __launch_bounds__(kStreamThreads, 1)
    stream_accumulate_kernel(const S s, const StreamArgs<typename S::value_type> A, const Out out) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    constexpr int kWarps = kStreamThreads / 32;
    static_assert(sizeof(Acc) <= 8 && kWarps * (2 * sizeof(int32_t) + 8) + 16 <= kStreamStaticSmem, "the policy counts the static share");
    static_assert(kWarps == 32, "warp 0 chains the warps' last runs, a lane each");
    extern __shared__ __align__(16) unsigned char stream_smem[];
    Acc *ys = reinterpret_cast<Acc *>(stream_smem);
    T *xs = reinterpret_cast<T *>(stream_smem + ((size_t)A.rows * sizeof(Acc) + 15) / 16 * 16);
    __shared__ int32_t wlast[kWarps], wfirst[kWarps];
    __shared__ __align__(8) unsigned char wsum_raw[kWarps * 8];  // also out.finish's scratch
    Acc *wsum = reinterpret_cast<Acc *>(wsum_raw);
    if (out.skip()) return;  // (its state's writer ended before the scatter's blocks passed their wait)
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t k = A.order[blockIdx.x];
    const int64_t r0 = k * A.rows, nr = min(A.rows, A.nrows - r0);
    const Acc id = (Acc)s.identity();
    for (int64_t i = threadIdx.x; i < nr; i += blockDim.x) ys[i] = id;
    const int32_t gfirst = A.pg[k], gend = A.pg[k + 1];
    constexpr int D = stream_groups_in_flight(sizeof(T)) + 1;  // group buffers: D - 1 loads in flight while one is summed
    StreamGroup<T> buf[D];
    // stage(g): piece g's pair values into xs (one committed group of copies); first_loads(g):
    // this thread's first D - 1 groups of its entries into buf. Group loads are never skipped:
    // past the thread's last group they read the piece's last one (a piece holds at least one),
    // so no load is merged with a default value (which would make the loop wait on it where it is
    // issued).
    auto group = [&](int64_t e0, int64_t groups, int64_t j) {  // the j-th group of this thread's range
        return e0 + 4 * min((int64_t)threadIdx.x + j * kStreamThreads, groups - 1);
    };
    auto stage = [&](int32_t g) { stream_stage_async(A.pv, (int64_t)A.gp[g], (int64_t)A.gp[g + 1] - A.gp[g], xs); };
    auto first_loads = [&](int32_t g) {
        const int64_t e0 = A.ge[g], groups = (A.ge[g + 1] - e0) / 4;
#pragma unroll
        for (int j = 0; j + 1 < D; ++j) buf[j].load(A, group(e0, groups, j));
    };
    if (gfirst < gend) first_loads(gfirst);  // the plan's: not written by the scatter
    grid_dependency_wait();                   // the scatter's pair values (where this launch overlaps it)
    grid_dependents_launch();                 // a scatter launched overlapped may start (it waits for this grid's end)
    if (gfirst < gend) stage(gfirst);
    for (int32_t g = gfirst; g < gend; ++g) {
        const int64_t e0 = A.ge[g], groups = (A.ge[g + 1] - e0) / 4;
        const int64_t mine = StreamPieceShape::of(groups).groups_of(threadIdx.x);
        const T *xp = xs + A.gp[g] % (16 / sizeof(T));  // the piece's slot 0
        __pipeline_wait_prior(0);
        __syncthreads();  // the piece's pair values staged (the first: the rows' identities set)
        // the range's runs: the first (row frow; it may continue from the range before) kept in
        // fs, the current one in (trow, ts); each run between ends with a change of row and is
        // added at once. A row has one run in a range (rows ascend), so trow == frow marks the first.
        const int frow = mine > 0 && buf[0].ent[0] != 0xffffffffu ? (int)(buf[0].ent[0] >> 16) : INT_MAX;
        int trow = frow;
        Acc fs = id, ts = id;
        auto step = [&](uint32_t w, T a) {
            const int r = (int)(w >> 16);
            const Acc v = (Acc)s.mul(A.vals ? a : T(1), xp[w & 0xffffu]);
            const bool ch = r != trow;
            fs = ch && trow == frow ? ts : fs;
            if (ch && trow != frow) ys[trow] = s.acc_add(ys[trow], ts);
            ts = ch ? v : s.acc_add(ts, v);
            trow = r;
        };
        auto sum = [&](const StreamGroup<T> &G) {
            if (G.ent[3] != 0xffffffffu) {  // a whole group (pads only end a piece's last group)
#pragma unroll
                for (int c = 0; c < 4; ++c) step(G.ent[c], G.a[c]);
            } else {
#pragma unroll
                for (int c = 0; c < 3; ++c)
                    if (G.ent[c] != 0xffffffffu) step(G.ent[c], G.a[c]);
            }
        };
        for (int64_t q = 0; q < mine; q += D) {  // the buffers in turn
#pragma unroll
            for (int j = 0; j < D; ++j) {
                if (q + j >= mine) break;
                buf[(j + D - 1) % D].load(A, group(e0, groups, q + j + D - 1));
                sum(buf[j]);
            }
        }
        const bool multi = trow != frow;
        if (!multi) fs = ts;  // one run (or none): first and last
        // what the range passes on: its last run (its only one if it has one)
        const int okey = multi ? trow : frow;
        Acc ov = warp_scan_by_row(s, okey, multi ? ts : fs);
        if (lane == 31) wlast[warp] = okey, wsum[warp] = ov;
        if (lane == 0) wfirst[warp] = frow;
        __syncthreads();  // every range summed: xs is free
        if (g + 1 < gend) {  // in flight while the ranges are chained
            first_loads(g + 1);
            stage(g + 1);
        }
        if (warp == 0) {  // the warps' last runs, chained in warp order
            const int wk = wlast[lane];
            const Acc wv = warp_scan_by_row(s, wk, wsum[lane]);
            __syncwarp();
            wsum[lane] = wv;
        }
        __syncthreads();
        const int pkey = warp > 0 ? wlast[warp - 1] : INT_MAX;
        if (warp > 0 && okey == pkey) ov = s.acc_add(wsum[warp - 1], ov);  // the chain from the warps before
        // the run passed on by the range before this one, and the first row of the range after
        int before_key = __shfl_up_sync(0xffffffffu, okey, 1);
        Acc before = shfl_up_any(ov, 1);
        if (lane == 0) before_key = pkey, before = warp > 0 ? wsum[warp - 1] : id;
        int after_first = __shfl_down_sync(0xffffffffu, frow, 1);
        if (lane == 31) after_first = warp + 1 < kWarps ? wfirst[warp + 1] : INT_MAX;
        if (frow != INT_MAX && (multi || after_first != frow)) {  // the first run ends in this range
            const Acc v = (threadIdx.x > 0 && before_key == frow) ? s.acc_add(before, fs) : fs;
            ys[frow] = s.acc_add(ys[frow], v);
        }
        if (multi && after_first != trow) ys[trow] = s.acc_add(ys[trow], ts);  // so does the last
    }
    __syncthreads();
    out.finish(A, ys, r0, nr, k, wsum_raw);
}

// The two passes of one product over M's streamed plan: x from src, the row sums to out. The
// accumulate pass is launched overlapped where M's policy says (it reads only the plan before it
// waits for the scatter); so is the scatter where the caller says too (overlap_scatter: the
// kernel before it in the stream writes none of the plan's arrays, which it reads before it waits).
template <class S, class Src, class Out>
void launch_stream_with(CudaBackend &be, const CudaMatrix &M, const S s, bool use_vals, const Src &src, const Out &out,
                        typename S::value_type *t, uint8_t *tp, bool overlap_scatter = false) {
    using T = typename S::value_type;
    using Acc = typename S::acc_type;
    static_assert(sizeof(Acc) <= 8, "the plan counts 8 bytes a row");
    if (use_vals) M.need_stream_values();  // a plan built without them (PageRank's A') built again with them
    const StreamPlan &P = M.stream;
    cudaStream_t st = be.stream();
    T *pv = P.pv.as<T>();
    {
        const size_t wbytes = (size_t)P.column_block * sizeof(T);
        const int64_t splits = P.splits_for(Src::kStagedVectors, M.policy.stream_scatter_block_runs);
        auto kernel = stream_scatter_kernel<T, Src>;
        allow_smem(kernel, wbytes);
        launch_maybe_overlapped(kernel, (unsigned)(P.column_blocks * splits), kStreamScatterThreads, wbytes, st,
                                overlap_scatter && M.policy.stream_overlap_launch, M.ncols, P.column_block, splits,
                                P.window_run.as<uint32_t>(), P.run_item.as<uint32_t>(), P.run_dest.as<uint32_t>(),
                                P.item_col.as<uint16_t>(), src, pv);
    }
    StreamArgs<T> A{M.nrows, P.rows, P.order.as<int32_t>(), P.part_piece.as<int32_t>(), P.piece_pair.as<uint32_t>(),
                    P.piece_entry.as<int64_t>(), pv, P.ent.as<uint32_t>(), use_vals ? P.val.as<T>() : nullptr,
                    P.nonempty.as<uint32_t>(), t, tp};
    const size_t sbytes = ((size_t)P.rows * sizeof(Acc) + 15) / 16 * 16 + (size_t)P.slots * sizeof(T) + kStreamStageSlack;
    auto kernel = stream_accumulate_kernel<S, Out>;
    allow_smem(kernel, sbytes);
    launch_maybe_overlapped(kernel, (unsigned)P.parts, kStreamThreads, sbytes, st, M.policy.stream_overlap_launch, s, A, out);
}

// t = M (+).(x) u (t's present flags into tp where given) by the streamed plan.
template <class S>
void launch_stream(CudaBackend &be, const CudaMatrix &M, const S s, bool use_vals, const typename S::value_type *u,
                   typename S::value_type *t, uint8_t *tp) {
    launch_stream_with(be, M, s, use_vals, StreamSourceU<typename S::value_type>{u}, StreamOutT{}, t, tp);
}

}  // namespace cuda
}  // namespace psv
