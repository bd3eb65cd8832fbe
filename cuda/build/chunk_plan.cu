// The CSR chunk plan (ChunkPlan, cuda/build/matrix.cuh): chunk starts cut at row starts except
// inside long rows, the long rows' piece slots and counters, and the columns encoded as the
// chunk kernels read them (ranked, hot).
#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace psv {
namespace cuda {

namespace {

// Chunk k starts at entry k*C, moved back to the start of the row holding it unless that row is
// longer than C (chunk 0 starts at 0, the end is nnz). The starts increase strictly: a row of at
// most C entries cannot hold two multiples of C.
__global__ void chunk_begin_kernel(int64_t K, int64_t C, int64_t n, int64_t nnz, const int64_t *rp, int64_t *begin) {
    PSV_GRID_LOOP(k, K + 1) {
        int64_t b;
        if (k == 0) b = 0;
        else if (k == K) b = nnz;
        else {
            const int64_t pos = k * C;
            const int64_t r = upper_bound_d<int64_t>(rp, n + 1, pos) - 1;  // rp[r] <= pos < rp[r + 1]
            b = rp[r + 1] - rp[r] > C ? pos : rp[r];
        }
        begin[k] = b;
    }
}

// The first row starting at or after each chunk's start (empty rows at the start included).
__global__ void chunk_rows_kernel(int64_t K, int64_t n, const int64_t *rp, const int64_t *begin, int32_t *first_row) {
    PSV_GRID_LOOP(k, K + 1) first_row[k] = (int32_t)(k == K ? n : lower_bound_d<int64_t>(rp, n, begin[k]));
}

// Each long row's first chunk and its count of chunks (pieces).
__global__ void long_span_kernel(int64_t nlong, int64_t K, const int32_t *rows, const int64_t *rp, const int64_t *begin,
                                 int64_t *first, int32_t *pieces) {
    PSV_GRID_LOOP(j, nlong) {
        const int32_t r = rows[j];
        const int64_t bs = upper_bound_d<int64_t>(begin, K + 1, rp[r]) - 1;
        const int64_t be = upper_bound_d<int64_t>(begin, K + 1, rp[r + 1] - 1) - 1;
        first[j] = bs;
        pieces[j] = (int32_t)(be - bs + 1);
    }
}

__global__ void long_map_kernel(int64_t nlong, const int64_t *first, const int64_t *slot, int32_t *head, int32_t *tail) {
    PSV_GRID_LOOP(j, nlong) {
        const int64_t bs = first[j], np = slot[j + 1] - slot[j];
        tail[bs] = (int32_t)j;
        for (int64_t p = 1; p < np; ++p) head[bs + p] = (int32_t)j;
    }
}

__global__ void long_rows_kernel(int64_t n, const int64_t *rp, int64_t min_len, int32_t *list, unsigned long long *count) {
    PSV_GRID_LOOP(i, n)
    if (rp[i + 1] - rp[i] > min_len) list[atomicAdd(count, 1ull)] = (int32_t)i;
}

// col_enc (CudaMatrix::ChunkPlan): rank | 2^31 for a hot column, else the rank (ranked, below
// prefix), prefix + the column (ranked, from prefix on) or the column
__global__ void encode_cols_kernel(int64_t nnz, const int32_t *col, const int32_t *rank_of, int64_t hot, bool ranked,
                                   int64_t prefix, int32_t *out) {
    PSV_GRID_LOOP(q, nnz) {
        const int32_t c = col[q], r = rank_of[c];
        out[q] = r < hot ? (int32_t)((uint32_t)r | 0x80000000u) : !ranked ? c : r < prefix ? r : (int32_t)(prefix + c);
    }
}

}  // namespace

int64_t list_long_rows(CudaBackend &be, const CudaMatrix &M, int64_t min_len, Buffer &out) {
    if (M.max_row_length <= min_len || M.nrows == 0) {
        out = Buffer();
        return 0;
    }
    const int64_t cap = std::min<int64_t>(M.nrows, M.nvals / (min_len + 1) + 1);
    Buffer list(&be, (size_t)cap * 4), cnt(&be, 8);
    be.set_bytes(cnt.get(), 0, 8);
    launch(be, M.nrows, [&](unsigned g, int b) {
        long_rows_kernel<<<g, b, 0, be.stream()>>>(M.nrows, M.row_ptr.as<int64_t>(), min_len, list.as<int32_t>(),
                                                   cnt.as<unsigned long long>());
    });
    uint64_t h = 0;
    be.download(&h, cnt.get(), 8);
    out = std::move(list);
    return (int64_t)h;
}

ChunkPlan build_chunk_plan(CudaBackend &be, const CudaMatrix &M, const Policy &policy, Buffer &&col_order, bool ranked,
                           int64_t prefix, int64_t hot, size_t hot_vb) {
    // every column ranked unless the prefix is below ncols, at least the hot ones, and prefix +
    // column stays an int32 below 2^31 (bit 31 tags hot columns)
    if (!ranked || prefix < hot || prefix > M.ncols || prefix + M.ncols > (int64_t)INT32_MAX) prefix = M.ncols;
    cudaStream_t st = be.stream();
    ChunkPlan P;
    const int64_t n = M.nrows, nnz = M.nvals;
    const int64_t C = policy.chunk_stride(nnz, hot);
    if (n == 0 || nnz == 0) return P;
    const int64_t K = (nnz + C - 1) / C;
    P.nchunks = K;
    P.begin = Buffer(&be, (size_t)(K + 1) * 8);
    P.first_row = Buffer(&be, (size_t)(K + 1) * 4);
    P.head_long = Buffer(&be, (size_t)K * 4);
    P.tail_long = Buffer(&be, (size_t)K * 4);
    const int64_t *rp = M.row_ptr.as<int64_t>();
    launch(be, K + 1, [&](unsigned g, int b) { chunk_begin_kernel<<<g, b, 0, st>>>(K, C, n, nnz, rp, P.begin.as<int64_t>()); });
    launch(be, K + 1, [&](unsigned g, int b) {
        chunk_rows_kernel<<<g, b, 0, st>>>(K, n, rp, P.begin.as<int64_t>(), P.first_row.as<int32_t>());
    });
    be.set_bytes(P.head_long.get(), 0xff, (size_t)K * 4);
    be.set_bytes(P.tail_long.get(), 0xff, (size_t)K * 4);
    if (M.max_row_length > C) {
        Buffer list;
        const int64_t L = list_long_rows(be, M, C, list);
        Buffer first(&be, (size_t)L * 8), pieces(&be, (size_t)L * 4);
        launch(be, L, [&](unsigned g, int b) {
            long_span_kernel<<<g, b, 0, st>>>(L, K, list.as<int32_t>(), rp, P.begin.as<int64_t>(), first.as<int64_t>(),
                                              pieces.as<int32_t>());
        });
        counts_to_row_ptr(be, L, pieces.as<int32_t>(), P.long_slot);  // the slots of row j: long_slot[j] .. [j + 1]
        int64_t nslots = 0;
        be.download(&nslots, P.long_slot.as<int64_t>() + L, 8);
        launch(be, L, [&](unsigned g, int b) {
            long_map_kernel<<<g, b, 0, st>>>(L, first.as<int64_t>(), P.long_slot.as<int64_t>(), P.head_long.as<int32_t>(),
                                             P.tail_long.as<int32_t>());
        });
        P.nlong = L;
        P.long_row = std::move(list);
        P.long_first = std::move(first);
        P.counters = Buffer(&be, (size_t)L * 4);
        be.set_bytes(P.counters.get(), 0, (size_t)L * 4);
        P.slots = Buffer(&be, (size_t)nslots * 8);
    }
    if ((ranked || hot > 0) && col_order.get()) {
        Buffer rank_of(&be, (size_t)M.ncols * 4);
        invert_order(be, M.ncols, col_order.as<int32_t>(), rank_of.as<int32_t>());
        P.col_enc = Buffer(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            encode_cols_kernel<<<g, b, 0, st>>>(nnz, M.col.as<int32_t>(), rank_of.as<int32_t>(), hot, ranked,
                                                prefix, P.col_enc.as<int32_t>());
        });
        P.ranked = ranked;
        P.ranked_prefix = ranked ? prefix : 0;
        P.hot = hot;
        P.hot_vb = hot > 0 ? hot_vb : 0;
        P.col_order = std::move(col_order);
    }
    be.sync();
    return P;
}

}  // namespace cuda
}  // namespace psv
