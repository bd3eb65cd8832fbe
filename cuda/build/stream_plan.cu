// The streamed product's plan (StreamPlan, matrix.cuh), built on the device from the CSR: the
// (partition, column) pairs by one radix sort of the entries, the pieces, each entry's row and
// slot in its piece's order (a counting sort by row in shared memory, a block a piece, or a second
// radix sort of all the entries), and the scatter pass's runs (a partition's pairs of one column
// block, consecutive) by a third sort, of the runs alone.
// A transpose's plan reads the entries of the matrix it transposes instead: they are in column
// order already, so its first sort is by partition only.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

// What an entry carries through the sorts (CV): its row in M (pattern, CV 0: uint32), or its row
// and, in the low half of a uint64, its value's bits (values of CV = 1 or 4 bytes) or its value's
// place in the source's values (CV 8: gathered once placed).
template <int CV> using Carry = typename std::conditional<CV == 0, uint32_t, uint64_t>::type;
template <class W> __device__ __forceinline__ uint32_t carried_row(W w) {
    if constexpr (sizeof(W) == 8) return (uint32_t)(w >> 32);
    else return w;
}

// Entry e of the source CSR (its row in row[e]): key = partition << cbits | column, of M's entry
// (row[e], col[e]), or of (col[e], row[e]) where the source is M's transpose (TR).
template <bool TR, int CV>
__global__ void pair_keys_kernel(int64_t nnz, const int32_t *row, const int32_t *col, const uint8_t *vals, int64_t rows,
                                 int cbits, uint64_t *key, Carry<CV> *val) {
    PSV_GRID_LOOP(e, nnz) {
        const uint32_t i = (uint32_t)(TR ? col[e] : row[e]), j = (uint32_t)(TR ? row[e] : col[e]);
        key[e] = ((uint64_t)(i / (uint64_t)rows) << cbits) | j;
        if constexpr (CV == 0) val[e] = i;
        else if constexpr (CV == 8) val[e] = ((uint64_t)i << 32) | (uint32_t)e;
        else if constexpr (CV == 4) val[e] = ((uint64_t)i << 32) | reinterpret_cast<const uint32_t *>(vals)[e];
        else val[e] = ((uint64_t)i << 32) | vals[e];
    }
}

__global__ void first_flags_kernel(int64_t n, const uint64_t *key, uint32_t *flag) {
    PSV_GRID_LOOP(i, n) flag[i] = (i == 0 || key[i] != key[i - 1]) ? 1u : 0u;
}

__global__ void pair_write_kernel(int64_t n, const uint64_t *key, const uint32_t *flag, const uint32_t *pid1,
                                  uint64_t *pkey) {
    PSV_GRID_LOOP(i, n) if (flag[i]) pkey[pid1[i] - 1] = key[i];
}

// pp[k] = the first pair of partition k (pp[parts] = pairs)
__global__ void part_pair_kernel(int64_t parts, int64_t npairs, const uint64_t *pkey, int cbits, uint32_t *pp) {
    PSV_GRID_LOOP(k, parts + 1) pp[k] = (uint32_t)lower_bound_d<uint64_t>(pkey, npairs, (uint64_t)k << cbits);
}
// pieces[k] = partition k's pieces (pieces[parts] = 0)
__global__ void part_pieces_kernel(int64_t parts, const uint32_t *pp, int64_t slots, int32_t *pieces) {
    PSV_GRID_LOOP(k, parts + 1) pieces[k] = k < parts ? (int32_t)(((int64_t)(pp[k + 1] - pp[k]) + slots - 1) / slots) : 0;
}

// piece_pair of partition k's pieces; the last entry is the pair count
__global__ void piece_pair_kernel(int64_t parts, int64_t npairs, const uint32_t *pp, const int32_t *pg, int64_t slots,
                                  uint32_t *gp) {
    PSV_GRID_LOOP(k, parts + 1) {
        if (k == parts) {
            gp[pg[parts]] = (uint32_t)npairs;
            continue;
        }
        for (int32_t g = pg[k], j = 0; g < pg[k + 1]; ++g, ++j) gp[g] = pp[k] + (uint32_t)(j * slots);
    }
}

// per entry in pair order: its piece and row in partition as a sort key (K: 32 or 64 bits), and
// what it carries on: its row and slot packed (uint32), valued with the low half of its carry
// (value bits or place) above (uint64)
template <int CV, class K>
__global__ void entry_keys_kernel(int64_t nnz, const uint64_t *skey, const Carry<CV> *sval, const uint32_t *pid1, int cbits,
                                  const uint32_t *pp, const int32_t *pg, int64_t rows, int64_t slots, int rbits, K *key2,
                                  Carry<CV> *val2) {
    PSV_GRID_LOOP(i, nnz) {
        const Carry<CV> w = sval[i];
        const int64_t k = (int64_t)(skey[i] >> cbits);
        const int64_t local = (int64_t)(pid1[i] - 1) - (int64_t)pp[k];
        const int64_t g = pg[k] + local / slots;
        const int64_t r = (int64_t)carried_row(w) - k * rows;
        key2[i] = (K)(((uint64_t)g << rbits) | (uint64_t)r);
        const uint32_t packed = ((uint32_t)r << 16) | (uint32_t)(local % slots);
        if constexpr (CV == 0) val2[i] = packed;
        else val2[i] = ((uint64_t)(uint32_t)w << 32) | packed;
    }
}

__global__ void iota_kernel(int64_t n, uint32_t *v) {
    PSV_GRID_LOOP(i, n) v[i] = (uint32_t)i;
}

// the first entry (pair order) of each piece: the first whose pair is its first pair, and each
// piece's length padded to a multiple of 4
__global__ void piece_first_kernel(int64_t pieces, int64_t nnz, const uint32_t *pid1, const uint32_t *gp, int64_t *first) {
    PSV_GRID_LOOP(g, pieces + 1) first[g] = lower_bound_d<uint32_t>(pid1, nnz, gp[g] + 1);
}
__global__ void piece_padded_kernel(int64_t pieces, const int64_t *first, int64_t *padded) {
    PSV_GRID_LOOP(g, pieces + 1) padded[g] = g < pieces ? (first[g + 1] - first[g] + 3) / 4 * 4 : 0;
}

// Sorted entry j of a piece (its entries' first place ge0, its shape sh) to its place in ent:
// the piece's ranges of groups of 4, group-interleaved (StreamPieceShape, cuda/build/matrix.cuh).
// A piece's entries and groups number less than 2^32 (the plan's pair ids are 32-bit).
__device__ __forceinline__ int64_t piece_place(int64_t ge0, const StreamPieceShape &sh, uint32_t j) {
    const uint32_t J = j / 4, gl = (uint32_t)sh.groups_long, a = (uint32_t)sh.a, lead = a * gl;  // the longer ranges' groups
    const uint32_t t = J < lead ? J / gl : a + (J - lead) / (gl - 1);
    const uint32_t q = J < lead ? J % gl : (J - lead) % (gl - 1);
    return ge0 + 4 * ((int64_t)q * kStreamThreads + t) + j % 4;
}
// An entry's carry at place d: ent, and (valued) its value or the source position of its value.
template <int CV> __device__ __forceinline__ void put_entry(int64_t d, Carry<CV> w, uint32_t *ent, uint32_t *src, uint8_t *val) {
    ent[d] = (uint32_t)w;
    if constexpr (CV == 8) src[d] = (uint32_t)(w >> 32);
    else if constexpr (CV == 4) reinterpret_cast<uint32_t *>(val)[d] = (uint32_t)(w >> 32);
    else if constexpr (CV == 1) val[d] = (uint8_t)(w >> 32);
}

// entry i of the sorted order (the radix sort of all the entries) to its place
template <class K, int CV>
__global__ void place_kernel(int64_t nnz, const K *skey2, const Carry<CV> *sv2, int rbits, const int64_t *first,
                             const int64_t *ge, uint32_t *ent, uint32_t *src, uint8_t *val) {
    PSV_GRID_LOOP(i, nnz) {
        const int64_t g = (int64_t)(skey2[i] >> rbits);
        const StreamPieceShape sh = StreamPieceShape::of((ge[g + 1] - ge[g]) / 4);
        put_entry<CV>(piece_place(ge[g], sh, (uint32_t)(i - first[g])), sv2[i], ent, src, val);
    }
}

// The entries of a piece sorted by row in shared memory, a block a piece (piece_sort_kernel): a
// stable counting sort, one cursor per row of the partition (dynamic shared memory). A tile of
// kPieceTile entries in input order is kPieceWarps warps' consecutive runs of kPieceItems x 32; a
// warp groups its 32 entries of one step by row (match), and the warps take the cursors in turn,
// each its steps in order: a row's entries take its places in input order, the order the radix
// sort of all the entries by (piece, row) gives them.
constexpr int kPieceThreads = 256, kPieceWarps = kPieceThreads / 32, kPieceItems = 8;
constexpr int kPieceTile = kPieceThreads * kPieceItems;
using PieceScan = cubns::BlockScan<int32_t, kPieceThreads>;

// Piece order[b] (its input entries first[g] .. first[g + 1] - 1, in pair order: the entries of
// skey / sval / pid1): each entry's row in partition and slot in piece packed, the rows counted,
// the counts summed into each row's first place, then the entries placed tile by tile.
template <int CV>
__global__ void __launch_bounds__(kPieceThreads)
    piece_sort_kernel(const uint32_t *order, const uint32_t *piece_pair, const int64_t *first, const int64_t *ge,
                      const uint64_t *skey, const Carry<CV> *sval, const uint32_t *pid1, int cbits, int64_t rows,
                      uint32_t *ent, uint32_t *src, uint8_t *val) {
    using W = Carry<CV>;
    constexpr uint32_t kNone = 0xffffffffu;  // past the piece: no row
    __shared__ typename PieceScan::TempStorage scan;
    extern __shared__ uint32_t cursor[];  // [rows]: each row's count, then its next place
    const int64_t g = order[blockIdx.x], s = first[g], n = first[g + 1] - s;
    if (n <= 0) return;  // the whole block
    const uint32_t base = (uint32_t)((skey[s] >> cbits) * (uint64_t)rows), p0 = piece_pair[g];
    const int tid = (int)threadIdx.x, warp = tid / 32, lane = tid % 32;
    const uint32_t below = (1u << lane) - 1;
    for (int64_t r = tid; r < rows; r += kPieceThreads) cursor[r] = 0;
    __syncthreads();
    for (int64_t i0 = 0; i0 < n; i0 += kPieceThreads) {  // counted a row's group of a warp at once
        const int64_t i = i0 + tid;
        const uint32_t r = i < n ? carried_row(sval[s + i]) - base : kNone;
        const uint32_t m = __match_any_sync(0xffffffffu, r);
        if (r != kNone && lane == __ffs(m) - 1) atomicAdd(&cursor[r], (uint32_t)__popc(m));
    }
    __syncthreads();
    {  // the counts' running sum: each thread's consecutive rows, the threads in order
        const int64_t per = (rows + kPieceThreads - 1) / kPieceThreads, r0 = tid * per, r1 = min(rows, r0 + per);
        int32_t sum = 0, before = 0;
        for (int64_t r = r0; r < r1; ++r) sum += (int32_t)cursor[r];
        PieceScan(scan).ExclusiveSum(sum, before);
        for (int64_t r = r0; r < r1; ++r) {
            const int32_t c = (int32_t)cursor[r];
            cursor[r] = (uint32_t)before;
            before += c;
        }
    }
    __syncthreads();
    const int64_t ge0 = ge[g];
    const StreamPieceShape sh = StreamPieceShape::of((ge[g + 1] - ge0) / 4);
    for (int64_t t0 = 0; t0 < n; t0 += kPieceTile) {
        uint32_t r[kPieceItems], rank[kPieceItems], got[kPieceItems];
        int leader[kPieceItems];
        W w[kPieceItems];
#pragma unroll
        for (int k = 0; k < kPieceItems; ++k) {  // step k of this warp: 32 consecutive entries
            const int64_t i = t0 + (int64_t)(warp * kPieceItems + k) * 32 + lane;
            r[k] = kNone;
            w[k] = 0;
            if (i < n) {
                const W x = sval[s + i];
                r[k] = carried_row(x) - base;
                const uint32_t packed = r[k] << 16 | (pid1[s + i] - 1 - p0);
                if constexpr (CV == 0) w[k] = packed;
                else w[k] = ((uint64_t)(uint32_t)x << 32) | packed;
            }
        }
#pragma unroll
        for (int k = 0; k < kPieceItems; ++k) {
            const uint32_t m = __match_any_sync(0xffffffffu, r[k]);
            rank[k] = (uint32_t)__popc(m & below);
            leader[k] = __ffs(m) - 1;
            got[k] = (uint32_t)__popc(m);  // the group's count; its leader's becomes the row's first place
        }
        for (int turn = 0; turn < kPieceWarps; ++turn) {
            if (warp == turn) {
#pragma unroll
                for (int k = 0; k < kPieceItems; ++k) {
                    if (r[k] != kNone && lane == leader[k]) {
                        const uint32_t c = cursor[r[k]];
                        cursor[r[k]] = c + got[k];
                        got[k] = c;
                    }
                    __syncwarp();  // the next step's leaders read what this one's wrote
                }
            }
            __syncthreads();
        }
#pragma unroll
        for (int k = 0; k < kPieceItems; ++k) {
            const uint32_t first_place = __shfl_sync(0xffffffffu, got[k], leader[k]);
            if (r[k] != kNone) put_entry<CV>(piece_place(ge0, sh, first_place + rank[k]), w[k], ent, src, val);
        }
    }
}

// a partition's entries (padded), for the launch order
__global__ void part_entries_kernel(int64_t parts, const int32_t *pg, const int64_t *ge, uint64_t *n, int32_t *id) {
    PSV_GRID_LOOP(k, parts) {
        n[k] = (uint64_t)(ge[pg[k + 1]] - ge[pg[k]]);
        id[k] = (int32_t)k;
    }
}

__global__ void nonempty_kernel(int64_t nrows, const int64_t *rp, uint32_t *bits) {
    PSV_GRID_LOOP(w, (nrows + 31) / 32) {
        uint32_t b = 0;
        for (int64_t i = w * 32, j = 0; j < 32 && i < nrows; ++i, ++j)
            if (rp[i + 1] > rp[i]) b |= 1u << j;
        bits[w] = b;
    }
}

// The scatter's items, in pair order: each pair's column in its window (stored at the pair's place
// in pv: a run's items and its pv places share their alignment), and a flag where a run starts. A
// partition's pairs ascend by column, so the pairs of one partition and window (a run) are
// consecutive.
__global__ void items_kernel(int64_t npairs, const uint64_t *pkey, int cbits, uint64_t cmask, int64_t cblock,
                             uint16_t *item_col, uint32_t *rflag) {
    PSV_GRID_LOOP(p, npairs) {
        const uint64_t kp = pkey[p];
        const int64_t c = (int64_t)(kp & cmask);
        item_col[p] = (uint16_t)(c % cblock);
        bool start = p == 0;
        if (!start) {
            const uint64_t kb = pkey[p - 1];
            start = (kb >> cbits) != (kp >> cbits) || (int64_t)(kb & cmask) / cblock != c / cblock;
        }
        rflag[p] = start ? 1u : 0u;
    }
}

// run r (pair order) starting at pair p: its window (the sort key) and its first place
__global__ void run_starts_kernel(int64_t npairs, const uint32_t *rflag, const uint32_t *rid1, const uint64_t *pkey,
                                  uint64_t cmask, int64_t cblock, uint32_t *wkey, uint32_t *first) {
    PSV_GRID_LOOP(p, npairs) {
        if (!rflag[p]) continue;
        const uint32_t r = rid1[p] - 1;
        wkey[r] = (uint32_t)((int64_t)(pkey[p] & cmask) / cblock);
        first[r] = (uint32_t)p;
    }
}

// the runs in (window, partition) order: each one's first place and length (len[runs] = 0, for
// the scan that gives run_item)
__global__ void run_order_kernel(int64_t runs, int64_t npairs, const uint32_t *sid, const uint32_t *first, uint32_t *dest,
                                 uint32_t *len) {
    PSV_GRID_LOOP(q, runs + 1) {
        if (q == runs) {
            len[q] = 0;
            continue;
        }
        const uint32_t r = sid[q];
        dest[q] = first[r];
        len[q] = (r + 1 < runs ? first[r + 1] : (uint32_t)npairs) - first[r];
    }
}

__global__ void window_run_kernel(int64_t windows, int64_t runs, const uint32_t *swk, uint32_t *wr) {
    PSV_GRID_LOOP(b, windows + 1) wr[b] = (uint32_t)lower_bound_d<uint32_t>(swk, runs, (uint32_t)b);
}

template <class T> T last_of(CudaBackend &be, const Buffer &b, int64_t n) {
    T v{};
    if (n > 0) be.download(&v, b.as<uint8_t>() + (size_t)(n - 1) * sizeof(T), sizeof(T));
    return v;
}

// The plan's pairs, pieces and entries (S's part_piece, piece_pair, piece_entry, ent, val and
// counts) from the entries of src: M itself, or (TR) the matrix M transposes; returns the pairs'
// keys (uint64 partition << cbits | column, in pair order). CV: what an entry carries through the
// sorts (Carry); K: the second sort's key.
template <bool TR, int CV, class K>
Buffer build_entries(CudaBackend &be, const CudaMatrix &src, const Policy &p, StreamPlan &S, int cbits, int kbits,
                     int rbits) {
    cudaStream_t st = be.stream();
    const int64_t nnz = src.nvals;

    // ---- pairs: the entries sorted by (partition, column), one pair per distinct key; a
    // transpose's source lists them by column already (its rows in order), so by partition only ----
    using W = Carry<CV>;
    Buffer skey(&be, (size_t)nnz * 8), sval(&be, (size_t)nnz * sizeof(W));
    {
        Buffer key(&be, (size_t)nnz * 8), val(&be, (size_t)nnz * sizeof(W));
        {
            Buffer row(&be, (size_t)nnz * 4);
            rows_of_entries(be, nnz, src.row_ptr.as<int64_t>(), src.nrows, row.as<int32_t>());
            launch(be, nnz, [&](unsigned g, int b) {
                pair_keys_kernel<TR, CV><<<g, b, 0, st>>>(nnz, row.as<int32_t>(), src.col.as<int32_t>(), src.val.as<uint8_t>(),
                                                           S.rows, cbits, key.as<uint64_t>(), val.as<W>());
            });
        }
        be.cub_call([&](void *tmp, size_t &bytes) {  // stable: a pair's entries keep their rows' order
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(), val.as<W>(),
                                                     sval.as<W>(), nnz, TR ? cbits : 0, cbits + kbits, st);
        });
    }
    Buffer pid1(&be, (size_t)nnz * 4), pkey;
    {
        Buffer flag(&be, (size_t)nnz * 4);
        launch(be, nnz, [&](unsigned g, int b) { first_flags_kernel<<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), flag.as<uint32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::InclusiveSum(tmp, bytes, flag.as<uint32_t>(), pid1.as<uint32_t>(), nnz, st);
        });
        S.pairs = (int64_t)last_of<uint32_t>(be, pid1, nnz);
        pkey = Buffer(&be, (size_t)S.pairs * 8);
        launch(be, nnz, [&](unsigned g, int b) {
            pair_write_kernel<<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), flag.as<uint32_t>(), pid1.as<uint32_t>(), pkey.as<uint64_t>());
        });
    }

    // ---- pieces: each partition's pairs, slots at a time ----
    Buffer pp(&be, (size_t)(S.parts + 1) * 4), npieces(&be, (size_t)(S.parts + 1) * 4);
    S.part_piece = Buffer(&be, (size_t)(S.parts + 1) * 4);
    launch(be, S.parts + 1, [&](unsigned g, int b) {
        part_pair_kernel<<<g, b, 0, st>>>(S.parts, S.pairs, pkey.as<uint64_t>(), cbits, pp.as<uint32_t>());
    });
    launch(be, S.parts + 1, [&](unsigned g, int b) {
        part_pieces_kernel<<<g, b, 0, st>>>(S.parts, pp.as<uint32_t>(), S.slots, npieces.as<int32_t>());
    });
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceScan::ExclusiveSum(tmp, bytes, npieces.as<int32_t>(), S.part_piece.as<int32_t>(), S.parts + 1, st);
    });
    npieces = Buffer();
    S.pieces = (int64_t)last_of<int32_t>(be, S.part_piece, S.parts + 1);
    S.piece_pair = Buffer(&be, (size_t)(S.pieces + 1) * 4);
    launch(be, S.parts + 1, [&](unsigned g, int b) {
        piece_pair_kernel<<<g, b, 0, st>>>(S.parts, S.pairs, pp.as<uint32_t>(), S.part_piece.as<int32_t>(), S.slots,
                                           S.piece_pair.as<uint32_t>());
    });

    // ---- entries: sorted by (piece, row in partition), each piece padded to a multiple of 4; a
    // row's entries in a piece keep their pair order (their columns ascending). A piece's entries
    // are consecutive in pair order: sorted in shared memory, a block a piece (piece_sort_kernel),
    // where the largest piece is a small enough share of the work and a partition's cursors fit;
    // else by a stable radix sort of all the entries by (piece, row). The two give the same plan ----
    Buffer first(&be, (size_t)(S.pieces + 1) * 8), padded(&be, (size_t)(S.pieces + 1) * 8);
    launch(be, S.pieces + 1, [&](unsigned g, int b) {
        piece_first_kernel<<<g, b, 0, st>>>(S.pieces, nnz, pid1.as<uint32_t>(), S.piece_pair.as<uint32_t>(), first.as<int64_t>());
    });
    launch(be, S.pieces + 1, [&](unsigned g, int b) {
        piece_padded_kernel<<<g, b, 0, st>>>(S.pieces, first.as<int64_t>(), padded.as<int64_t>());
    });
    S.piece_entry = Buffer(&be, (size_t)(S.pieces + 1) * 8);
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceScan::ExclusiveSum(tmp, bytes, padded.as<int64_t>(), S.piece_entry.as<int64_t>(), S.pieces + 1, st);
    });
    S.entries = last_of<int64_t>(be, S.piece_entry, S.pieces + 1);
    // the sort in pieces where the policy allows it and a partition's cursors fit: its launch
    // order (the pieces by entries, most first), taken where the most is small enough
    const size_t cursor_bytes = (size_t)S.rows * 4;
    Buffer order;
    if (p.stream_piece_sort_share > 0 && cursor_bytes + sizeof(typename PieceScan::TempStorage) <= p.smem_optin) {
        order = Buffer(&be, (size_t)S.pieces * 4);
        Buffer id(&be, (size_t)S.pieces * 4), sorted(&be, (size_t)S.pieces * 8);
        launch(be, S.pieces, [&](unsigned g, int b) { iota_kernel<<<g, b, 0, st>>>(S.pieces, id.as<uint32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairsDescending(tmp, bytes, padded.as<int64_t>(), sorted.as<int64_t>(),
                                                               id.as<uint32_t>(), order.as<uint32_t>(), S.pieces, 0, 64, st);
        });
        int64_t most = 0;
        be.download(&most, sorted.get(), 8);
        S.piece_sorted = (double)most <= p.stream_piece_sort_share * (double)nnz / std::max(1, p.sms);
    }
    padded = Buffer();
    // the plan's entries (0xffffffff pads) and values: carried (zero under the pads), or (8 bytes)
    // gathered by their places
    Buffer vsrc;
    auto outputs = [&] {
        S.ent = Buffer(&be, (size_t)S.entries * 4);
        be.set_bytes(S.ent.get(), 0xff, (size_t)S.entries * 4);
        if constexpr (CV == 8) {
            vsrc = Buffer(&be, (size_t)S.entries * 4);
            be.set_bytes(vsrc.get(), 0xff, (size_t)S.entries * 4);  // kNoValue: pads' values are zero
        } else if constexpr (CV != 0) {
            S.val = Buffer(&be, (size_t)S.entries * CV);
            be.set_bytes(S.val.get(), 0, (size_t)S.entries * CV);
        }
    };
    if (S.piece_sorted) {
        outputs();
        auto kernel = piece_sort_kernel<CV>;
        allow_smem(kernel, cursor_bytes);
        kernel<<<(unsigned)S.pieces, kPieceThreads, cursor_bytes, st>>>(
            order.as<uint32_t>(), S.piece_pair.as<uint32_t>(), first.as<int64_t>(), S.piece_entry.as<int64_t>(), skey.as<uint64_t>(),
            sval.as<W>(), pid1.as<uint32_t>(), cbits, S.rows, S.ent.as<uint32_t>(), vsrc.as<uint32_t>(), S.val.as<uint8_t>());
        PSV_CUDA_LAUNCH_CHECK();
        skey = Buffer();
        sval = Buffer();
        pid1 = Buffer();
    } else {
        order = Buffer();
        const int gbits = std::max(1, bits_for((uint64_t)(S.pieces - 1)));
        Buffer skey2(&be, (size_t)nnz * sizeof(K)), sv2(&be, (size_t)nnz * sizeof(W));
        {
            Buffer key2(&be, (size_t)nnz * sizeof(K)), val2(&be, (size_t)nnz * sizeof(W));
            launch(be, nnz, [&](unsigned g, int b) {
                entry_keys_kernel<CV, K><<<g, b, 0, st>>>(nnz, skey.as<uint64_t>(), sval.as<W>(), pid1.as<uint32_t>(), cbits,
                                                          pp.as<uint32_t>(), S.part_piece.as<int32_t>(), S.rows, S.slots, rbits,
                                                          key2.as<K>(), val2.as<W>());
            });
            skey = Buffer();
            sval = Buffer();
            pid1 = Buffer();
            pp = Buffer();
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key2.as<K>(), skey2.as<K>(), val2.as<W>(), sv2.as<W>(), nnz,
                                                         0, gbits + rbits, st);
            });
        }
        outputs();
        launch(be, nnz, [&](unsigned g, int b) {
            place_kernel<K, CV><<<g, b, 0, st>>>(nnz, skey2.as<K>(), sv2.as<W>(), rbits, first.as<int64_t>(),
                                                 S.piece_entry.as<int64_t>(), S.ent.as<uint32_t>(), vsrc.as<uint32_t>(),
                                                 S.val.as<uint8_t>());
        });
    }
    if constexpr (CV == 8) {
        S.val = Buffer(&be, (size_t)S.entries * 8);
        gather_values(be, S.entries, vsrc.as<uint32_t>(), src.val.get(), S.val.get(), 8);
    }
    return pkey;
}

}  // namespace

StreamPlan build_stream_plan(CudaBackend &be, const CudaMatrix &M, const Policy &p, size_t vb, const CudaMatrix *transposed_from,
                             bool with_values) {
    cudaStream_t st = be.stream();
    const int64_t nnz = M.nvals, nrows = M.nrows, ncols = M.ncols;
    const int64_t *rp = M.row_ptr.as<int64_t>();
    if (nnz == 0 || nrows == 0 || ncols == 0) fail(PSV_ERROR_INVALID_VALUE, "the streamed product needs a matrix with entries");
    const CudaMatrix &src = transposed_from ? *transposed_from : M;
    if (src.nvals != nnz || (transposed_from && (src.nrows != ncols || src.ncols != nrows)))
        fail(PSV_ERROR_INVALID_VALUE, "the streamed plan of a transpose reads a matrix of the transposed shape");
    StreamPlan S;
    S.vb = vb;
    const Policy::StreamShape shape = p.stream_shape(nrows, vb);
    S.rows = shape.rows;
    S.slots = shape.slots;
    if (S.rows < 256 || S.slots < 1024)
        fail(PSV_ERROR_INVALID_VALUE, "the streamed product needs shared memory for 256 rows and 1024 slots per block");
    S.parts = (nrows + S.rows - 1) / S.rows;
    const int cbits = std::max(1, bits_for((uint64_t)(ncols - 1)));
    const int kbits = std::max(1, bits_for((uint64_t)(S.parts - 1)));
    const int rbits = bits_for((uint64_t)(S.rows - 1));
    const uint64_t cmask = (1ull << cbits) - 1;
    // the pieces are at most one per slots pairs of a partition, and a partition's pairs at most its entries
    const int64_t max_pieces = S.parts + nnz / S.slots + 1;
    const bool key32 = std::max(1, bits_for((uint64_t)max_pieces)) + rbits <= 32;
    // what an entry carries through the sorts: its row, and its value (at most 4 bytes) or the
    // value's place (8 bytes); its row alone where the plan holds no values
    const int cv = M.pattern || !with_values ? 0 : (int)type_size(M.type);
    auto entries = [&](auto tr, auto k) -> Buffer {
        constexpr bool TR = decltype(tr)::value;
        using K = decltype(k);
        switch (cv) {
        case 0: return build_entries<TR, 0, K>(be, src, p, S, cbits, kbits, rbits);
        case 1: return build_entries<TR, 1, K>(be, src, p, S, cbits, kbits, rbits);
        case 4: return build_entries<TR, 4, K>(be, src, p, S, cbits, kbits, rbits);
        default: return build_entries<TR, 8, K>(be, src, p, S, cbits, kbits, rbits);
        }
    };
    auto by_key = [&](auto tr) { return key32 ? entries(tr, uint32_t{}) : entries(tr, uint64_t{}); };
    Buffer pkey = transposed_from ? by_key(std::true_type{}) : by_key(std::false_type{});

    // ---- the launch order (partitions by entries, most first) and the rows' flags ----
    S.order = Buffer(&be, (size_t)S.parts * 4);
    {
        Buffer n(&be, (size_t)S.parts * 8), id(&be, (size_t)S.parts * 4), sn(&be, (size_t)S.parts * 8);
        launch(be, S.parts, [&](unsigned g, int b) {
            part_entries_kernel<<<g, b, 0, st>>>(S.parts, S.part_piece.as<int32_t>(), S.piece_entry.as<int64_t>(), n.as<uint64_t>(),
                                                 id.as<int32_t>());
        });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairsDescending(tmp, bytes, n.as<uint64_t>(), sn.as<uint64_t>(), id.as<int32_t>(),
                                                               S.order.as<int32_t>(), S.parts, 0, 64, st);
        });
        be.download(&S.max_part_entries, sn.get(), 8);
    }
    S.nonempty = Buffer(&be, (size_t)((nrows + 31) / 32) * 4);
    launch(be, (nrows + 31) / 32, [&](unsigned g, int b) { nonempty_kernel<<<g, b, 0, st>>>(nrows, rp, S.nonempty.as<uint32_t>()); });

    // ---- the scatter's items and their runs, in (column block, partition, column) order ----
    S.column_block = p.stream_column_block(vb);
    if (S.column_block < 32)
        fail(PSV_ERROR_INVALID_VALUE, "the streamed product's scatter needs shared memory for a window of 32 columns");
    S.column_blocks = (ncols + S.column_block - 1) / S.column_block;
    S.window_run = Buffer(&be, (size_t)(S.column_blocks + 1) * 4);
    S.item_col = Buffer(&be, (size_t)(S.pairs + 3) / 4 * 8);  // read in aligned groups of 4: the last one's tail zeroed
    be.set_bytes(S.item_col.as<uint16_t>() + S.pairs, 0, S.item_col.size() - (size_t)S.pairs * 2);
    {
        // the items and runs in pair order, then the runs (few: at most partitions x windows) sorted
        // stably by window
        const int64_t np = S.pairs;
        Buffer rflag(&be, (size_t)np * 4), rid1(&be, (size_t)np * 4);
        launch(be, np, [&](unsigned g, int b) {
            items_kernel<<<g, b, 0, st>>>(np, pkey.as<uint64_t>(), cbits, cmask, S.column_block, S.item_col.as<uint16_t>(),
                                          rflag.as<uint32_t>());
        });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::InclusiveSum(tmp, bytes, rflag.as<uint32_t>(), rid1.as<uint32_t>(), np, st);
        });
        S.runs = (int64_t)last_of<uint32_t>(be, rid1, np);
        const int64_t nr = S.runs;
        Buffer wk(&be, (size_t)nr * 4), first(&be, (size_t)nr * 4), id(&be, (size_t)nr * 4), swk(&be, (size_t)nr * 4),
            sid(&be, (size_t)nr * 4), len(&be, (size_t)(nr + 1) * 4);
        launch(be, np, [&](unsigned g, int b) {
            run_starts_kernel<<<g, b, 0, st>>>(np, rflag.as<uint32_t>(), rid1.as<uint32_t>(), pkey.as<uint64_t>(), cmask,
                                               S.column_block, wk.as<uint32_t>(), first.as<uint32_t>());
        });
        rflag = Buffer();
        rid1 = Buffer();
        launch(be, nr, [&](unsigned g, int b) { iota_kernel<<<g, b, 0, st>>>(nr, id.as<uint32_t>()); });
        const int wbits = std::max(1, bits_for((uint64_t)(S.column_blocks - 1)));
        be.cub_call([&](void *tmp, size_t &bytes) {  // stable: partition order kept per window
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, wk.as<uint32_t>(), swk.as<uint32_t>(), id.as<uint32_t>(),
                                                     sid.as<uint32_t>(), nr, 0, wbits, st);
        });
        S.run_item = Buffer(&be, (size_t)(nr + 1) * 4);
        S.run_dest = Buffer(&be, (size_t)std::max<int64_t>(nr, 1) * 4);
        launch(be, nr + 1, [&](unsigned g, int b) {
            run_order_kernel<<<g, b, 0, st>>>(nr, np, sid.as<uint32_t>(), first.as<uint32_t>(), S.run_dest.as<uint32_t>(),
                                              len.as<uint32_t>());
        });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::ExclusiveSum(tmp, bytes, len.as<uint32_t>(), S.run_item.as<uint32_t>(), nr + 1, st);
        });
        launch(be, S.column_blocks + 1, [&](unsigned g, int b) {
            window_run_kernel<<<g, b, 0, st>>>(S.column_blocks, nr, swk.as<uint32_t>(), S.window_run.as<uint32_t>());
        });
    }
    pkey = Buffer();
    // the scatter's blocks: splits of each window, enough for stream_scatter_waves waves of SMs,
    // at most 32, where a block keeps stream_scatter_block_runs runs (on average) of one vector
    // staged (splits_for: fewer for a source that stages more)
    const int64_t waves = (int64_t)p.stream_scatter_waves * p.sms;
    S.splits = std::min<int64_t>(32, (waves + S.column_blocks - 1) / S.column_blocks);
    S.splits = S.splits_for(1, p.stream_scatter_block_runs);

    // ---- a product's workspace (read in 16-byte pieces up to the boundary past the last value) ----
    S.pv = Buffer(&be, ((size_t)S.pairs * vb + 15) / 16 * 16 + 16);
    be.sync();
    return S;
}

int64_t StreamPlan::device_bytes() const {
    int64_t n = (int64_t)pv.size();
    for (const Buffer *b : arrays()) n += (int64_t)b->size();
    return n;
}

std::string StreamPlan::describe() const {
    char b[256];
    std::snprintf(b, sizeof b,
                  "streamed: %lld partitions of %lld rows, %lld pieces of at most %lld slots, %lld pairs, %lld runs, "
                  "column block %lld x %lld",
                  (long long)parts, (long long)rows, (long long)pieces, (long long)slots, (long long)pairs, (long long)runs,
                  (long long)column_block, (long long)splits);
    return b;
}

}  // namespace cuda
}  // namespace psv
