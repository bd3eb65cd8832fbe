// The columns ranked by length (descending; a stable radix sort on the complemented length, so
// ties go to the lower column): the order the chunk plan's ranked and hot reads and the
// tile-composite form use, and the counts the rules read.
#include <cub/cub.cuh>

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

// rank_of, ranked lengths' count of columns of length >= 2, the longest column, and the count
// of columns of length >= hot_len
__global__ void rank_kernel(int64_t n, const uint32_t *skey, const int32_t *order, int32_t *rank_of, uint32_t hot_len,
                            int64_t *stats) {
    PSV_GRID_LOOP(k, n) {
        rank_of[order[k]] = (int32_t)k;
        const uint32_t len = ~skey[k];
        const uint32_t next = k + 1 < n ? ~skey[k + 1] : 0u;
        if (len >= 2 && next < 2) stats[0] = k + 1;
        if (k == 0) stats[1] = len;
        if (len >= hot_len && next < hot_len) stats[2] = k + 1;
    }
}

}  // namespace

ColumnStats rank_columns(CudaBackend &be, const CudaMatrix &M, int64_t hot_min_length, Buffer &col_order,
                         Buffer &rank_of, Buffer *ranked_keys) {
    cudaStream_t st = be.stream();
    const int64_t nrows = M.nrows, ncols = M.ncols, nnz = M.nvals;
    const int32_t *col = M.col.as<int32_t>();
    col_order = Buffer(&be, (size_t)ncols * 4);
    rank_of = Buffer(&be, (size_t)ncols * 4);
    int64_t stats[3] = {0, 0, 0};
    if (ncols > 0) {
        Buffer len(&be, (size_t)ncols * 4), key(&be, (size_t)ncols * 4), skey(&be, (size_t)ncols * 4),
            id(&be, (size_t)ncols * 4), st_d(&be, 24);
        be.set_bytes(len.get(), 0, (size_t)ncols * 4);
        be.set_bytes(st_d.get(), 0, 24);
        count_indices(be, nnz, col, len.as<int32_t>());
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
            rank_kernel<<<g, b, 0, st>>>(ncols, skey.as<uint32_t>(), col_order.as<int32_t>(), rank_of.as<int32_t>(),
                                         (uint32_t)hot_min_length, st_d.as<int64_t>());
        });
        be.download(stats, st_d.get(), 24);
        if (ranked_keys) *ranked_keys = std::move(skey);
    }
    ColumnStats s;
    s.long2 = stats[0];
    s.max_col_length = stats[1];
    s.hot_columns = stats[2];
    return s;
}

}  // namespace cuda
}  // namespace psv
