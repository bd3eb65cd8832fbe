// Streamed construction: a CSR assembled on the device from tuples delivered in chunks (a device
// generator, slices of device COO arrays, the entries of another CSR read transposed), in two
// passes over them, so that the peak stays near the final size (docs/design.md, "Device memory").
//  1. count: every chunk's tuples counted per row (integer atomics) -> the row pointer;
//  2. place: every chunk again, sorted by row (a stable radix sort of the chunk) and copied to
//     its rows' next free positions: each row receives its tuples in delivery order, whatever
//     the chunk size;
//  3. sort and de-duplicate within rows, a piece of whole rows at a time (a stable segmented sort
//     of the piece into scratch of the piece's size, then compacted back in place): of tuples
//     with one (row, column) the first delivered is kept.
// The result does not depend on the chunk or piece sizes: the same tuples give the same CSR.
#include <cub/cub.cuh>

#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

// count[row] += 1 for each delivered tuple; a row < 0 is dropped, an index outside the matrix
// sets *bad (the first such tuple's position + 1).
__global__ void count_rows_kernel(int64_t n, int64_t first, const int32_t *rows, const int32_t *cols, int64_t nrows,
                                  int64_t ncols, unsigned long long *count, unsigned long long *bad) {
    PSV_GRID_LOOP(q, n) {
        const int32_t r = rows[q], c = cols[q];
        if (r < 0) continue;
        if (r >= nrows || c < 0 || c >= ncols) {
            atomicMin(bad, (unsigned long long)(first + q + 1));
            continue;
        }
        atomicAdd(&count[r], 1ull);
    }
}

// The chunk's sort keys: the row (nrows for a dropped tuple: sorted last) and the tuple's place.
__global__ void row_keys_kernel(int64_t n, const int32_t *rows, int64_t nrows, uint32_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(q, n) {
        const int32_t r = rows[q];
        key[q] = r < 0 ? (uint32_t)nrows : (uint32_t)r;
        idx[q] = (uint32_t)q;
    }
}

// The first and one past the last position of the run of key r holding position q of the sorted
// keys k[0 .. n): a galloping search from q (most runs of a chunk are short), then a binary one.
__device__ __forceinline__ int64_t run_begin(const uint32_t *k, int64_t q, uint32_t r) {
    int64_t hi = q, step = 1;  // k[hi] == r
    while (true) {
        const int64_t lo = hi - step;
        if (lo < 0) return lower_bound_d<uint32_t>(k, hi, r);
        if (k[lo] != r) return lo + 1 + lower_bound_d<uint32_t>(k + lo + 1, hi - lo - 1, r);
        hi = lo;
        step *= 2;
    }
}
__device__ __forceinline__ int64_t run_end(const uint32_t *k, int64_t n, int64_t q, uint32_t r) {
    int64_t lo = q, step = 1;  // k[lo] == r
    while (true) {
        const int64_t hi = lo + step;
        if (hi >= n) return lo + 1 + upper_bound_d<uint32_t>(k + lo + 1, n - lo - 1, r);
        if (k[hi] != r) return lo + 1 + upper_bound_d<uint32_t>(k + lo + 1, hi - lo - 1, r);
        lo = hi;
        step *= 2;
    }
}

// Sorted position q of the chunk goes to its row's next free place: rp[r] + fill[r] + its place
// within the row's run of the sorted chunk (runs keep delivery order: a stable sort).
template <int VS>
__global__ void place_kernel(int64_t n, const uint32_t *skey, const uint32_t *sidx, uint32_t drop, const int32_t *cols,
                             const uint8_t *vals, const int64_t *rp, const int64_t *fill, int32_t *col, uint8_t *val) {
    PSV_GRID_LOOP(q, n) {
        const uint32_t r = skey[q];
        if (r == drop) continue;
        const int64_t run = q > 0 && skey[q - 1] == r ? run_begin(skey, q, r) : q;
        const int64_t pos = rp[r] + fill[r] + (q - run);
        const uint32_t src = sidx[q];
        col[pos] = cols[src];
        if (VS == 1) val[pos] = vals[src];
        else if (VS == 4) reinterpret_cast<uint32_t *>(val)[pos] = reinterpret_cast<const uint32_t *>(vals)[src];
        else if (VS == 8) reinterpret_cast<uint64_t *>(val)[pos] = reinterpret_cast<const uint64_t *>(vals)[src];
    }
}

// After place_kernel: each run's row advances by the run's length.
__global__ void advance_kernel(int64_t n, const uint32_t *skey, uint32_t drop, int64_t *fill) {
    PSV_GRID_LOOP(q, n) {
        const uint32_t r = skey[q];
        if (r == drop || (q > 0 && skey[q - 1] == r)) continue;
        fill[r] += (q + 1 < n && skey[q + 1] == r ? run_end(skey, n, q, r) : q + 1) - q;
    }
}

// Piece k starts at the row holding entry k * P (rows of more than P entries make pieces empty).
__global__ void piece_rows_kernel(int64_t K, int64_t P, int64_t nrows, const int64_t *rp, int64_t *first_row) {
    PSV_GRID_LOOP(k, K + 1) {
        if (k == K) first_row[k] = nrows;
        else if (k == 0) first_row[k] = 0;
        else first_row[k] = upper_bound_d<int64_t>(rp, nrows + 1, k * P) - 1;  // rp[r] <= k P < rp[r + 1]
    }
}

// The piece's segment offsets, relative to its first entry.
__global__ void piece_offsets_kernel(int64_t rows, const int64_t *rp, int64_t base, int64_t *off) {
    PSV_GRID_LOOP(i, rows + 1) off[i] = rp[i] - base;
}

// keep[q] = 1 where entry q of the sorted piece starts its row or differs from the one before.
__global__ void mark_row_starts_kernel(int64_t rows, const int64_t *off, uint32_t *keep) {
    PSV_GRID_LOOP(i, rows) {
        if (off[i + 1] > off[i]) keep[off[i]] = 1;
    }
}
__global__ void keep_kernel(int64_t m, const int32_t *key, uint32_t *keep) {
    PSV_GRID_LOOP(q, m) {
        if (q > 0 && key[q] != key[q - 1]) keep[q] = 1;
    }
}

// The kept entries of the piece go to col[out + pos[q]] (out <= the piece's first entry, and the
// sorted piece lies in scratch: nothing not yet read is overwritten).
template <int VS>
__global__ void compact_piece_kernel(int64_t m, const uint32_t *keep, const uint32_t *pos, const int32_t *key,
                                     const uint8_t *v, int64_t out, int32_t *col, uint8_t *val) {
    PSV_GRID_LOOP(q, m) {
        if (!keep[q]) continue;
        const int64_t d = out + pos[q];
        col[d] = key[q];
        if (VS == 1) val[d] = v[q];
        else if (VS == 4) reinterpret_cast<uint32_t *>(val)[d] = reinterpret_cast<const uint32_t *>(v)[q];
        else if (VS == 8) reinterpret_cast<uint64_t *>(val)[d] = reinterpret_cast<const uint64_t *>(v)[q];
    }
}

// The piece's rows' new starts (pos nullptr: a piece without entries).
__global__ void new_starts_kernel(int64_t rows, const int64_t *off, const uint32_t *pos, int64_t out, int64_t *rp) {
    PSV_GRID_LOOP(i, rows) rp[i] = out + (pos ? pos[off[i]] : 0);
}

template <template <int> class K, class F> void by_value_size(size_t vs, F &&f) {
    if (vs == 0) f(K<0>{});
    else if (vs == 1) f(K<1>{});
    else if (vs == 4) f(K<4>{});
    else f(K<8>{});
}
template <int VS> struct Vs { static constexpr int value = VS; };

int64_t clamp_size(int64_t want, int64_t lo, int64_t hi) { return std::max<int64_t>(lo, std::min<int64_t>(want, hi)); }

}  // namespace

void count_tuples(CudaBackend &be, int64_t n, int64_t first, const int32_t *rows, const int32_t *cols, int64_t nrows,
                  int64_t ncols, unsigned long long *count, unsigned long long *bad) {
    launch(be, n, [&](unsigned g, int b) {
        count_rows_kernel<<<g, b, 0, be.stream()>>>(n, first, rows, cols, nrows, ncols, count, bad);
    });
}

size_t device_free_bytes(CudaBackend &be) {
    be.activate();
    size_t free_b = 0, total_b = 0;
    PSV_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    return free_b + be.pool().cached_bytes();
}

void assemble_csr(CudaBackend &be, int64_t nrows, int64_t ncols, size_t vs, const TupleChunks &src, CudaMatrix &M) {
    be.activate();
    cudaStream_t st = be.stream();
    const Policy &p = be.policy();
    if (nrows < 0 || ncols < 0 || nrows >= (int64_t)INT32_MAX || ncols > (int64_t)INT32_MAX)
        fail(PSV_ERROR_INVALID_VALUE, format("a CUDA matrix has fewer than 2^31 - 1 rows and at most 2^31 - 1 columns "
                                             "(32-bit indices); asked for %lld x %lld",
                                             (long long)nrows, (long long)ncols));
    const int64_t count = src.count;
    // Chunk: what the policy allows, at most a sixteenth of the tuples (at least 2^22), less where
    // free memory is short (a chunk costs 24 + 2 vs bytes per tuple with CUB's scratch): its
    // scratch stays a small share of the result, which does not depend on it.
    const size_t per_tuple = 24 + 2 * vs;
    const int64_t fit = (int64_t)(device_free_bytes(be) / 4 / per_tuple);
    const int64_t share = std::max<int64_t>((int64_t)1 << 22, (count + 15) / 16);
    const int64_t chunk = clamp_size(std::min<int64_t>({p.assemble_chunk, fit, share}), 1, std::max<int64_t>(1, count));
    Buffer rp(&be, (size_t)(nrows + 1) * 8), cursor(&be, (size_t)(nrows + 1) * 8), bad(&be, 8);
    be.set_bytes(cursor.get(), 0, (size_t)(nrows + 1) * 8);
    be.set_bytes(bad.get(), 0xff, 8);
    Buffer rows(&be, (size_t)chunk * 4), cols(&be, (size_t)chunk * 4), vals(&be, (size_t)chunk * vs);
    // 1. count
    for (int64_t f = 0; f < count; f += chunk) {
        const int64_t n = std::min(chunk, count - f);
        src.deliver(f, n, rows.as<int32_t>(), cols.as<int32_t>(), vs ? vals.get() : nullptr);
        count_tuples(be, n, f, rows.as<int32_t>(), cols.as<int32_t>(), nrows, ncols, cursor.as<unsigned long long>(),
                     bad.as<unsigned long long>());
    }
    uint64_t bad_h = 0;
    be.download(&bad_h, bad.get(), 8);
    if (bad_h != ~0ull)
        fail(PSV_ERROR_INVALID_INDEX, format("tuple %llu has an index outside the %lld x %lld matrix",
                                             (unsigned long long)(bad_h - 1), (long long)nrows, (long long)ncols));
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceScan::ExclusiveSum(tmp, bytes, cursor.as<int64_t>(), rp.as<int64_t>(), nrows + 1, st);
    });
    int64_t placed = 0;
    be.download(&placed, rp.as<int64_t>() + nrows, 8);
    // 2. place (cursor now counts each row's tuples placed so far)
    be.set_bytes(cursor.get(), 0, (size_t)(nrows + 1) * 8);
    Buffer col(&be, (size_t)placed * 4), val(&be, (size_t)placed * vs);
    if (placed > 0) {
        Buffer key(&be, (size_t)chunk * 4), skey(&be, (size_t)chunk * 4), idx(&be, (size_t)chunk * 4),
            sidx(&be, (size_t)chunk * 4);
        const int kb = bits_for((uint64_t)nrows);  // the drop key nrows included
        for (int64_t f = 0; f < count; f += chunk) {
            const int64_t n = std::min(chunk, count - f);
            src.deliver(f, n, rows.as<int32_t>(), cols.as<int32_t>(), vs ? vals.get() : nullptr);
            launch(be, n, [&](unsigned g, int b) {
                row_keys_kernel<<<g, b, 0, st>>>(n, rows.as<int32_t>(), nrows, key.as<uint32_t>(), idx.as<uint32_t>());
            });
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint32_t>(), skey.as<uint32_t>(),
                                                         idx.as<uint32_t>(), sidx.as<uint32_t>(), n, 0, std::max(1, kb), st);
            });
            by_value_size<Vs>(vs, [&](auto v) {
                constexpr int VS = decltype(v)::value;
                launch(be, n, [&](unsigned g, int b) {
                    place_kernel<VS><<<g, b, 0, st>>>(n, skey.as<uint32_t>(), sidx.as<uint32_t>(), (uint32_t)nrows,
                                                      cols.as<int32_t>(), vals.as<uint8_t>(), rp.as<int64_t>(),
                                                      cursor.as<int64_t>(), col.as<int32_t>(), val.as<uint8_t>());
                });
            });
            launch(be, n, [&](unsigned g, int b) {
                advance_kernel<<<g, b, 0, st>>>(n, skey.as<uint32_t>(), (uint32_t)nrows, cursor.as<int64_t>());
            });
        }
    }
    rows = Buffer(), cols = Buffer(), vals = Buffer(), cursor = Buffer();
    // 3. sort and de-duplicate within rows, a piece of whole rows at a time
    int64_t kept = src.rows_in_order ? placed : 0;
    if (placed > 0 && !src.rows_in_order) {
        const int64_t piece_fit = (int64_t)(device_free_bytes(be) / 4 / (20 + vs));
        const int64_t piece_share = std::max<int64_t>((int64_t)1 << 22, (placed + 15) / 16);
        const int64_t P = clamp_size(std::min<int64_t>({p.assemble_piece, piece_fit, piece_share, (int64_t)1 << 30}), 1, placed);
        const int64_t K = (placed + P - 1) / P;
        Buffer firsts(&be, (size_t)(K + 1) * 8);
        launch(be, K + 1, [&](unsigned g, int b) {
            piece_rows_kernel<<<g, b, 0, st>>>(K, P, nrows, rp.as<int64_t>(), firsts.as<int64_t>());
        });
        std::vector<int64_t> first_row((size_t)K + 1);
        be.download(first_row.data(), firsts.get(), first_row.size() * 8);
        for (int64_t k = 0; k < K; ++k) {
            const int64_t r0 = first_row[k], r1 = first_row[k + 1];
            if (r1 <= r0) continue;
            int64_t span[2];
            be.download(&span[0], rp.as<int64_t>() + r0, 8);
            be.download(&span[1], rp.as<int64_t>() + r1, 8);
            const int64_t a = span[0], m = span[1] - span[0], R = r1 - r0;
            Buffer off(&be, (size_t)(R + 1) * 8);
            launch(be, R + 1, [&](unsigned g, int b) {
                piece_offsets_kernel<<<g, b, 0, st>>>(R, rp.as<int64_t>() + r0, a, off.as<int64_t>());
            });
            if (m == 0) {  // rows without entries: they start where the kept entries end
                launch(be, R, [&](unsigned g, int b) {
                    new_starts_kernel<<<g, b, 0, st>>>(R, off.as<int64_t>(), nullptr, kept, rp.as<int64_t>() + r0);
                });
                continue;
            }
            Buffer skey(&be, (size_t)m * 4), sval(&be, (size_t)m * vs), keep(&be, (size_t)(m + 1) * 4),
                pos(&be, (size_t)(m + 1) * 4);
            const int64_t *ob = off.as<int64_t>(), *oe = off.as<int64_t>() + 1;
            if (vs == 0) {
                be.cub_call([&](void *tmp, size_t &bytes) {
                    return cubns::DeviceSegmentedSort::SortKeys(tmp, bytes, col.as<int32_t>() + a, skey.as<int32_t>(), m, R,
                                                                ob, oe, st);
                });
            } else {
                by_value_size<Vs>(vs, [&](auto v) {
                    constexpr int VS = decltype(v)::value;
                    using V = typename std::conditional<VS == 1, uint8_t,
                                                        typename std::conditional<VS == 4, uint32_t, uint64_t>::type>::type;
                    be.cub_call([&](void *tmp, size_t &bytes) {
                        return cubns::DeviceSegmentedSort::StableSortPairs(
                            tmp, bytes, col.as<int32_t>() + a, skey.as<int32_t>(), val.as<V>() + a, sval.as<V>(), m, R, ob, oe, st);
                    });
                });
            }
            be.set_bytes(keep.get(), 0, (size_t)(m + 1) * 4);
            launch(be, R, [&](unsigned g, int b) { mark_row_starts_kernel<<<g, b, 0, st>>>(R, ob, keep.as<uint32_t>()); });
            launch(be, m, [&](unsigned g, int b) { keep_kernel<<<g, b, 0, st>>>(m, skey.as<int32_t>(), keep.as<uint32_t>()); });
            be.cub_call([&](void *tmp, size_t &bytes) {
                return cubns::DeviceScan::ExclusiveSum(tmp, bytes, keep.as<uint32_t>(), pos.as<uint32_t>(), m + 1, st);
            });
            by_value_size<Vs>(vs, [&](auto v) {
                constexpr int VS = decltype(v)::value;
                launch(be, m, [&](unsigned g, int b) {
                    compact_piece_kernel<VS><<<g, b, 0, st>>>(m, keep.as<uint32_t>(), pos.as<uint32_t>(), skey.as<int32_t>(),
                                                              sval.as<uint8_t>(), kept, col.as<int32_t>(), val.as<uint8_t>());
                });
            });
            launch(be, R, [&](unsigned g, int b) {
                new_starts_kernel<<<g, b, 0, st>>>(R, ob, pos.as<uint32_t>(), kept, rp.as<int64_t>() + r0);
            });
            uint32_t piece_kept = 0;
            be.download(&piece_kept, pos.as<uint32_t>() + m, 4);
            kept += piece_kept;
        }
    }
    be.upload(rp.as<int64_t>() + nrows, &kept, 8);
    // duplicates dropped: the arrays shrink to the kept entries where that saves more than 1/32
    if (kept < placed - placed / 32) {
        Buffer c2(&be, (size_t)kept * 4);
        be.copy(c2.get(), col.get(), (size_t)kept * 4);
        col = std::move(c2);
        if (vs) {
            Buffer v2(&be, (size_t)kept * vs);
            be.copy(v2.get(), val.get(), (size_t)kept * vs);
            val = std::move(v2);
        }
    }
    be.sync();
    M.nrows = nrows;
    M.ncols = ncols;
    M.nvals = kept;
    M.row_ptr = std::move(rp);
    M.col = std::move(col);
    M.val = std::move(val);
}

}  // namespace cuda
}  // namespace psv
