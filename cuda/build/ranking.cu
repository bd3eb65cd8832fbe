// The columns ranked by length (descending; a stable radix sort on the complemented length, so
// ties go to the lower column): the order the chunk plan's ranked and hot reads and the
// tile-composite form use, and the counts the rules read.
#include <cub/cub.cuh>

#include <chrono>

#include "core/clock.hpp"
#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

__global__ void col_keys_kernel(int64_t n, const int32_t *len, uint32_t *key, int32_t *id) {
    PSV_GRID_LOOP(c, n) {
        key[c] = ~(uint32_t)len[c];
        id[c] = (int32_t)c;
    }
}

// rank_of (where asked), ranked lengths' count of columns of length >= 2, the longest column, and
// the count of columns of length >= hot_len
__global__ void rank_kernel(int64_t n, const uint32_t *skey, const int32_t *order, int32_t *rank_of, uint32_t hot_len,
                            int64_t *stats) {
    PSV_GRID_LOOP(k, n) {
        if (rank_of) rank_of[order[k]] = (int32_t)k;
        const uint32_t len = ~skey[k];
        const uint32_t next = k + 1 < n ? ~skey[k + 1] : 0u;
        if (len >= 2 && next < 2) stats[0] = k + 1;
        if (k == 0) stats[1] = len;
        if (len >= hot_len && next < hot_len) stats[2] = k + 1;
    }
}

// Column lengths (len, zeroed) and the entries whose column lies within kNearBand columns of
// their row's position scaled to the columns, in one pass over the entries: a block per
// kNearTile entries, whose rows are taken to be the row of its first entry (a tile spans few rows
// of a banded matrix; elsewhere the test is a statistic, not a bound). Integer atomics only.
constexpr int kNearThreads = 256;
constexpr int64_t kNearTile = 2048;
template <bool LEN>
__global__ void __launch_bounds__(kNearThreads) count_near_kernel(int64_t nnz, const int32_t *col, const int64_t *rp,
                                                                  int64_t nrows, double scale, int32_t *len,
                                                                  unsigned long long *near) {
    __shared__ double pos;
    __shared__ unsigned long long count;
    for (int64_t base = (int64_t)blockIdx.x * kNearTile; base < nnz; base += (int64_t)gridDim.x * kNearTile) {
        if (threadIdx.x == 0) {
            pos = (double)(upper_bound_d<int64_t>(rp, nrows + 1, base) - 1) * scale;
            count = 0;
        }
        __syncthreads();
        const int64_t end = base + kNearTile < nnz ? base + kNearTile : nnz;
        unsigned c = 0;
        for (int64_t e = base + threadIdx.x; e < end; e += kNearThreads) {
            const int32_t j = col[e];
            if (LEN) atomicAdd(&len[j], 1);
            c += fabs((double)j - pos) <= (double)tuning::kNearBand ? 1u : 0u;
        }
        for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
        if ((threadIdx.x & 31) == 0 && c) atomicAdd(&count, (unsigned long long)c);
        __syncthreads();
        if (threadIdx.x == 0 && count) atomicAdd(near, count);
        __syncthreads();
    }
}

// A transpose's column lengths: the row lengths of the matrix it transposes.
__global__ void row_lengths_kernel(int64_t n, const int64_t *rp, int32_t *len) {
    PSV_GRID_LOOP(i, n) len[i] = (int32_t)(rp[i + 1] - rp[i]);
}

}  // namespace

ColumnStats rank_columns(CudaBackend &be, const CudaMatrix &M, int64_t hot_min_length, Buffer &col_order,
                         Buffer *rank_of, Buffer *ranked_keys, const CudaMatrix *transposed_from, bool near,
                         Buffer *lengths) {
    cudaStream_t st = be.stream();
    const int64_t nrows = M.nrows, ncols = M.ncols, nnz = M.nvals;
    col_order = Buffer(&be, (size_t)ncols * 4);
    if (rank_of) *rank_of = Buffer(&be, (size_t)ncols * 4);
    int64_t stats[4] = {0, 0, 0, 0};
    ColumnStats s;
    if (ncols > 0) {
        Buffer len(&be, (size_t)ncols * 4), key(&be, (size_t)ncols * 4), skey(&be, (size_t)ncols * 4),
            id(&be, (size_t)ncols * 4), st_d(&be, 32);
        be.set_bytes(st_d.get(), 0, 32);
        // the lengths counted with the near entries, or (a transpose being built) read from the
        // row pointer of the matrix it transposes
        if (transposed_from) {
            launch(be, ncols, [&](unsigned g, int b) {
                row_lengths_kernel<<<g, b, 0, st>>>(ncols, transposed_from->row_ptr.as<int64_t>(), len.as<int32_t>());
            });
        } else {
            be.set_bytes(len.get(), 0, (size_t)ncols * 4);
        }
        if (nnz > 0 && nrows > 0 && (near || !transposed_from)) {  // the lengths need the pass without a source
            const int64_t tiles = (nnz + kNearTile - 1) / kNearTile;
            const unsigned g = (unsigned)std::min<int64_t>(tiles, (int64_t)be.policy().sms * 8);
            auto kernel = transposed_from ? count_near_kernel<false> : count_near_kernel<true>;
            kernel<<<g, kNearThreads, 0, st>>>(nnz, M.col.as<int32_t>(), M.row_ptr.as<int64_t>(), nrows, (double)ncols / (double)nrows,
                                               len.as<int32_t>(), (unsigned long long *)(st_d.as<int64_t>() + 3));
            PSV_CUDA_LAUNCH_CHECK();
        }
        launch(be, ncols, [&](unsigned g, int b) {
            col_keys_kernel<<<g, b, 0, st>>>(ncols, len.as<int32_t>(), key.as<uint32_t>(), id.as<int32_t>());
        });
        const int hb = std::max(1, bits_for((uint64_t)nrows));
        be.cub_call([&](void *tmp, size_t &bytes) {
            // keys ~len: the high bits are all ones for len < 2^hb; sort all 32 bits
            (void)hb;
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint32_t>(), skey.as<uint32_t>(), id.as<int32_t>(),
                                                     col_order.as<int32_t>(), ncols, 0, 32, st);
        });
        launch(be, ncols, [&](unsigned g, int b) {
            rank_kernel<<<g, b, 0, st>>>(ncols, skey.as<uint32_t>(), col_order.as<int32_t>(), rank_of ? rank_of->as<int32_t>() : nullptr,
                                         (uint32_t)hot_min_length, st_d.as<int64_t>());
        });
        be.download(stats, st_d.get(), 32);
        // the length profile: runs of equal lengths in the ranked keys
        {
            const auto t0 = std::chrono::steady_clock::now();
            Buffer uk(&be, (size_t)ncols * 4), cnt(&be, (size_t)ncols * 4), nruns(&be, 8);
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceRunLengthEncode::Encode(tmp, bytes, skey.as<uint32_t>(), uk.as<uint32_t>(),
                                                            cnt.as<int32_t>(), nruns.as<int64_t>(), ncols, st);
            });
            int64_t runs = 0;
            be.download(&runs, nruns.get(), 8);
            std::vector<uint32_t> keys((size_t)runs);
            std::vector<int32_t> counts((size_t)runs);
            if (runs > 0) {
                be.download(keys.data(), uk.get(), (size_t)runs * 4);
                be.download(counts.data(), cnt.get(), (size_t)runs * 4);
            }
            s.profile.resize((size_t)runs);
            for (int64_t r = 0; r < runs; ++r) s.profile[(size_t)r] = {(int64_t)~keys[(size_t)r], (int64_t)counts[(size_t)r]};
            s.profile_seconds = seconds_since(t0);
        }
        if (ranked_keys) *ranked_keys = std::move(skey);
        if (lengths && !transposed_from) *lengths = std::move(len);
    }
    s.near_entries = stats[3];
    s.long2 = stats[0];
    s.max_col_length = stats[1];
    s.hot_columns = stats[2];
    return s;
}

}  // namespace cuda
}  // namespace psv
