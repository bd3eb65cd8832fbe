// The streamed product's plan (StreamPlan, matrix.cuh), built on the device from the CSR and the
// column ranking: the hot columns, the partitions, the (partition, column) pairs by two radix
// sorts, each entry's slot, and the scatter pass's runs.
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

// count = the ranks whose key (~length) is at most key: the columns of at least that length
__global__ void ranks_at_most_kernel(int64_t n, const uint32_t *keys, uint32_t key, int64_t *count) {
    *count = upper_bound_d<uint32_t>(keys, n, key);
}

// f[e] = 1 for an entry of a column that is not hot; a hot entry's slot is its rank
__global__ void entry_class_kernel(int64_t nnz, const int32_t *col, const int32_t *rank_of, int64_t hot, uint32_t *f,
                                   uint16_t *lidx) {
    PSV_GRID_LOOP(e, nnz) {
        const int32_t r = rank_of[col[e]];
        const bool h = r < hot;
        f[e] = h ? 0u : 1u;
        if (h) lidx[e] = (uint16_t)r;
    }
}

// partition k: entries from the first whose count of earlier non-hot entries reaches k w; the
// row holding it (0 for the first, nrows past the last)
__global__ void part_bounds_kernel(int64_t parts, int64_t nnz, int64_t nrows, const uint32_t *excl, int64_t w,
                                   const int64_t *rp, int64_t *pe, int32_t *pr) {
    PSV_GRID_LOOP(k, parts + 1) {
        if (k == 0) {
            pe[0] = 0;
            pr[0] = 0;
        } else if (k == parts) {
            pe[k] = nnz;
            pr[k] = (int32_t)nrows;
        } else {
            const int64_t e = lower_bound_d<uint32_t>(excl, nnz, (uint32_t)(k * w));
            pe[k] = e;
            pr[k] = (int32_t)(upper_bound_d<int64_t>(rp, nrows + 1, e) - 1);
        }
    }
}

__global__ void pair_keys_kernel(int64_t nnz, const uint32_t *f, const uint32_t *excl, const int32_t *col, int64_t w,
                                 int64_t parts, int cbits, uint64_t *key, uint32_t *val) {
    PSV_GRID_LOOP(e, nnz) {
        if (!f[e]) continue;
        const uint32_t i = excl[e];
        const uint64_t k = (uint64_t)min((int64_t)i / w, parts - 1);
        key[i] = (k << cbits) | (uint64_t)(uint32_t)col[e];
        val[i] = (uint32_t)e;
    }
}

__global__ void first_flags_kernel(int64_t n, const uint64_t *key, uint32_t *flag) {
    PSV_GRID_LOOP(i, n) flag[i] = (i == 0 || key[i] != key[i - 1]) ? 1u : 0u;
}

__global__ void pair_write_kernel(int64_t n, const uint64_t *key, const uint32_t *flag, const uint32_t *pid1,
                                  uint64_t *pkey) {
    PSV_GRID_LOOP(i, n) if (flag[i]) pkey[pid1[i] - 1] = key[i];
}

__global__ void part_pair_kernel(int64_t parts, int64_t npairs, const uint64_t *pkey, int cbits, uint32_t *pp) {
    PSV_GRID_LOOP(k, parts + 1) pp[k] = (uint32_t)lower_bound_d<uint64_t>(pkey, npairs, (uint64_t)k << cbits);
}

__global__ void slot_kernel(int64_t n, const uint64_t *key, const uint32_t *val, const uint32_t *pid1, int cbits,
                            const uint32_t *pp, int64_t hot, uint16_t *lidx) {
    PSV_GRID_LOOP(i, n) {
        const uint64_t k = key[i] >> cbits;
        lidx[val[i]] = (uint16_t)(hot + (int64_t)(pid1[i] - 1) - (int64_t)pp[k]);
    }
}

__global__ void window_keys_kernel(int64_t npairs, const uint64_t *pkey, uint64_t cmask, int64_t cblock, uint32_t *wk,
                                   uint32_t *id) {
    PSV_GRID_LOOP(p, npairs) {
        wk[p] = (uint32_t)((int64_t)(pkey[p] & cmask) / cblock);
        id[p] = (uint32_t)p;
    }
}

// the scatter's items in (window, partition, column) order: each item's column in its window,
// and a flag where a run (window, partition) starts
__global__ void items_kernel(int64_t npairs, const uint32_t *swk, const uint32_t *order, const uint64_t *pkey, int cbits,
                             uint64_t cmask, int64_t cblock, uint16_t *item_col, uint32_t *rflag) {
    PSV_GRID_LOOP(q, npairs) {
        const uint64_t kq = pkey[order[q]];
        item_col[q] = (uint16_t)((int64_t)(kq & cmask) % cblock);
        rflag[q] = (q == 0 || swk[q] != swk[q - 1] || (pkey[order[q - 1]] >> cbits) != (kq >> cbits)) ? 1u : 0u;
    }
}

__global__ void window_item_kernel(int64_t windows, int64_t npairs, const uint32_t *swk, uint32_t *wi) {
    PSV_GRID_LOOP(b, windows + 1) wi[b] = (uint32_t)lower_bound_d<uint32_t>(swk, npairs, (uint32_t)b);
}

__global__ void gather_row_start_kernel(int64_t n, const int32_t *pr, const int64_t *rp, int64_t *out) {
    PSV_GRID_LOOP(k, n) out[k] = rp[pr[k]];
}

template <class T> T last_of(CudaBackend &be, const Buffer &b, int64_t n) {
    T v{};
    if (n > 0) be.download(&v, b.as<uint8_t>() + (size_t)(n - 1) * sizeof(T), sizeof(T));
    return v;
}

}  // namespace

StreamPlan build_stream_plan(CudaBackend &be, const CudaMatrix &M, const Policy &p, size_t vb, const Buffer &order,
                             const Buffer &rank_of, const Buffer &ranked_keys) {
    cudaStream_t st = be.stream();
    const int64_t nnz = M.nvals, nrows = M.nrows, ncols = M.ncols;
    const int32_t *col = M.col.as<int32_t>();
    const int64_t *rp = M.row_ptr.as<int64_t>();
    StreamPlan S;
    S.vb = vb;
    S.slots = p.stream_slots(vb);
    if (S.slots < 1024) fail(PSV_ERROR_INVALID_VALUE, "the streamed product needs shared memory for 1024 slots per block");
    if (nnz == 0 || nrows == 0 || ncols == 0) fail(PSV_ERROR_INVALID_VALUE, "the streamed product needs a matrix with entries");
    const double mean = (double)nnz / (double)nrows;
    S.lanes = mean < 16.0 ? 4 : 16;

    // ---- hot columns: those in at least stream_hot_parts of the partitions one would expect ----
    {
        Buffer cnt(&be, 8);
        const double parts_est = std::ceil((double)nnz / (double)S.slots);
        const uint32_t thr = (uint32_t)std::max(2.0, std::ceil(p.stream_hot_parts * parts_est));
        ranks_at_most_kernel<<<1, 1, 0, st>>>(ncols, ranked_keys.as<uint32_t>(), ~thr, cnt.as<int64_t>());
        PSV_CUDA_LAUNCH_CHECK();
        int64_t h = 0;
        be.download(&h, cnt.get(), 8);
        S.hot = std::min<int64_t>(h, (int64_t)(p.stream_hot_share * (double)S.slots));
        S.hot = std::min<int64_t>(S.hot, ncols);
    }
    S.hot_cols = Buffer(&be, (size_t)std::max<int64_t>(S.hot, 1) * 4);
    if (S.hot > 0) be.copy(S.hot_cols.get(), order.get(), (size_t)S.hot * 4);

    // ---- partitions: at most w = slots - hot non-hot entries each ----
    const int64_t w = S.slots - S.hot;
    S.lidx = Buffer(&be, (size_t)nnz * 2);
    Buffer f(&be, (size_t)nnz * 4), excl(&be, (size_t)nnz * 4);
    launch(be, nnz, [&](unsigned g, int b) {
        entry_class_kernel<<<g, b, 0, st>>>(nnz, col, rank_of.as<int32_t>(), S.hot, f.as<uint32_t>(), S.lidx.as<uint16_t>());
    });
    be.cub_call([&](void *tmp, size_t &bytes) {
        return cubns::DeviceScan::ExclusiveSum(tmp, bytes, f.as<uint32_t>(), excl.as<uint32_t>(), nnz, st);
    });
    const int64_t nonhot = (int64_t)last_of<uint32_t>(be, excl, nnz) + (int64_t)last_of<uint32_t>(be, f, nnz);
    S.parts = std::max<int64_t>(1, (nonhot + w - 1) / w);
    S.part_entry = Buffer(&be, (size_t)(S.parts + 1) * 8);
    S.part_row = Buffer(&be, (size_t)(S.parts + 1) * 4);
    launch(be, S.parts + 1, [&](unsigned g, int b) {
        part_bounds_kernel<<<g, b, 0, st>>>(S.parts, nnz, nrows, excl.as<uint32_t>(), w, rp, S.part_entry.as<int64_t>(),
                                            S.part_row.as<int32_t>());
    });

    // ---- pairs: the non-hot entries sorted by (partition, column), one pair per distinct key ----
    const int cbits = std::max(1, bits_for((uint64_t)(ncols - 1)));
    const int kbits = std::max(1, bits_for((uint64_t)(S.parts - 1)));
    const uint64_t cmask = (cbits >= 64) ? ~0ull : ((1ull << cbits) - 1);
    Buffer pkey;
    S.part_pair = Buffer(&be, (size_t)(S.parts + 1) * 4);
    if (nonhot > 0) {
        Buffer key(&be, (size_t)nonhot * 8), val(&be, (size_t)nonhot * 4);
        launch(be, nnz, [&](unsigned g, int b) {
            pair_keys_kernel<<<g, b, 0, st>>>(nnz, f.as<uint32_t>(), excl.as<uint32_t>(), col, w, S.parts, cbits,
                                              key.as<uint64_t>(), val.as<uint32_t>());
        });
        f = Buffer();
        excl = Buffer();
        Buffer skey(&be, (size_t)nonhot * 8), sval(&be, (size_t)nonhot * 4);
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key.as<uint64_t>(), skey.as<uint64_t>(), val.as<uint32_t>(),
                                                     sval.as<uint32_t>(), nonhot, 0, cbits + kbits, st);
        });
        key = Buffer();
        val = Buffer();
        Buffer flag(&be, (size_t)nonhot * 4), pid1(&be, (size_t)nonhot * 4);
        launch(be, nonhot, [&](unsigned g, int b) { first_flags_kernel<<<g, b, 0, st>>>(nonhot, skey.as<uint64_t>(), flag.as<uint32_t>()); });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceScan::InclusiveSum(tmp, bytes, flag.as<uint32_t>(), pid1.as<uint32_t>(), nonhot, st);
        });
        S.pairs = (int64_t)last_of<uint32_t>(be, pid1, nonhot);
        pkey = Buffer(&be, (size_t)S.pairs * 8);
        launch(be, nonhot, [&](unsigned g, int b) {
            pair_write_kernel<<<g, b, 0, st>>>(nonhot, skey.as<uint64_t>(), flag.as<uint32_t>(), pid1.as<uint32_t>(), pkey.as<uint64_t>());
        });
        launch(be, S.parts + 1, [&](unsigned g, int b) {
            part_pair_kernel<<<g, b, 0, st>>>(S.parts, S.pairs, pkey.as<uint64_t>(), cbits, S.part_pair.as<uint32_t>());
        });
        launch(be, nonhot, [&](unsigned g, int b) {
            slot_kernel<<<g, b, 0, st>>>(nonhot, skey.as<uint64_t>(), sval.as<uint32_t>(), pid1.as<uint32_t>(), cbits,
                                         S.part_pair.as<uint32_t>(), S.hot, S.lidx.as<uint16_t>());
        });
    } else {
        be.set_bytes(S.part_pair.get(), 0, (size_t)(S.parts + 1) * 4);
    }
    f = Buffer();
    excl = Buffer();

    // ---- the scatter's items: the pairs by (column block, partition, column) ----
    S.column_block = p.stream_column_block(vb);
    S.column_blocks = (ncols + S.column_block - 1) / S.column_block;
    S.window_item = Buffer(&be, (size_t)(S.column_blocks + 1) * 4);
    S.item_col = Buffer(&be, (size_t)std::max<int64_t>(S.pairs, 1) * 2);
    if (S.pairs > 0) {
        const int64_t np = S.pairs;
        Buffer wk(&be, (size_t)np * 4), id(&be, (size_t)np * 4), swk(&be, (size_t)np * 4), ord(&be, (size_t)np * 4);
        launch(be, np, [&](unsigned g, int b) {
            window_keys_kernel<<<g, b, 0, st>>>(np, pkey.as<uint64_t>(), cmask, S.column_block, wk.as<uint32_t>(), id.as<uint32_t>());
        });
        const int wbits = std::max(1, bits_for((uint64_t)(S.column_blocks - 1)));
        be.cub_call([&](void *tmp, size_t &bytes) {  // stable: (partition, column) order kept per window
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, wk.as<uint32_t>(), swk.as<uint32_t>(), id.as<uint32_t>(),
                                                     ord.as<uint32_t>(), np, 0, wbits, st);
        });
        wk = Buffer();
        id = Buffer();
        Buffer rflag(&be, (size_t)np * 4), nruns(&be, 4);
        launch(be, np, [&](unsigned g, int b) {
            items_kernel<<<g, b, 0, st>>>(np, swk.as<uint32_t>(), ord.as<uint32_t>(), pkey.as<uint64_t>(), cbits, cmask,
                                          S.column_block, S.item_col.as<uint16_t>(), rflag.as<uint32_t>());
        });
        be.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceReduce::Sum(tmp, bytes, rflag.as<uint32_t>(), nruns.as<uint32_t>(), np, st);
        });
        S.runs = (int64_t)last_of<uint32_t>(be, nruns, 1);
        launch(be, S.column_blocks + 1, [&](unsigned g, int b) {
            window_item_kernel<<<g, b, 0, st>>>(S.column_blocks, np, swk.as<uint32_t>(), S.window_item.as<uint32_t>());
        });
        S.item_dest = std::move(ord);
    } else {
        S.item_dest = Buffer(&be, 4);
        be.set_bytes(S.window_item.get(), 0, (size_t)(S.column_blocks + 1) * 4);
    }
    pkey = Buffer();
    const int64_t waves = (int64_t)p.stream_scatter_waves * p.sms;
    S.splits = std::max<int64_t>(1, std::min<int64_t>(32, (waves + S.column_blocks - 1) / S.column_blocks));

    // ---- on the host: the most pairs of a partition, and the rows cut by a boundary ----
    std::vector<uint32_t> pp((size_t)S.parts + 1);
    be.download(pp.data(), S.part_pair.get(), pp.size() * 4);
    for (int64_t k = 0; k < S.parts; ++k) S.max_pairs = std::max<int64_t>(S.max_pairs, (int64_t)(pp[k + 1] - pp[k]));
    if (S.hot + S.max_pairs > S.slots) fail(PSV_ERROR_PANIC, "a streamed partition holds more columns than its slots");
    std::vector<int64_t> pe((size_t)S.parts + 1), start((size_t)S.parts + 1);
    std::vector<int32_t> pr((size_t)S.parts + 1);
    be.download(pe.data(), S.part_entry.get(), pe.size() * 8);
    be.download(pr.data(), S.part_row.get(), pr.size() * 4);
    {
        Buffer rs(&be, (size_t)S.parts * 8);
        launch(be, S.parts, [&](unsigned g, int b) { gather_row_start_kernel<<<g, b, 0, st>>>(S.parts, S.part_row.as<int32_t>(), rp, rs.as<int64_t>()); });
        be.download(start.data(), rs.get(), (size_t)S.parts * 8);
    }
    std::vector<int32_t> split;  // row, first boundary, last boundary
    for (int64_t k = 1; k < S.parts; ++k) {
        if (start[k] >= pe[k]) continue;  // row pr[k] starts at the boundary: not cut there
        if (!split.empty() && split[split.size() - 3] == pr[k] && split.back() == (int32_t)k - 1) split.back() = (int32_t)k;
        else split.insert(split.end(), {pr[k], (int32_t)k, (int32_t)k});
    }
    S.nsplit = (int64_t)split.size() / 3;
    S.split = Buffer(&be, std::max<size_t>(split.size(), 1) * 4);
    if (!split.empty()) be.upload(S.split.get(), split.data(), split.size() * 4);

    // ---- a product's workspace ----
    // (read in 16-byte pieces up to the boundary past the last value)
    S.pv = Buffer(&be, ((size_t)S.pairs * vb + 15) / 16 * 16 + 16);
    S.xh = Buffer(&be, ((size_t)S.hot * vb + 15) / 16 * 16 + 16);
    S.partial = Buffer(&be, (size_t)S.parts * 16);
    be.sync();
    return S;
}

int64_t StreamPlan::device_bytes() const {
    int64_t n = 0;
    for (const Buffer *b : {&part_entry, &part_row, &part_pair, &lidx, &hot_cols, &window_item, &item_dest, &item_col,
                            &split, &pv, &xh, &partial})
        n += (int64_t)b->size();
    return n;
}

std::string StreamPlan::describe() const {
    char b[256];
    std::snprintf(b, sizeof b,
                  "streamed: %lld partitions of %lld slots (%lld hot, at most %lld pairs), %lld pairs, %lld runs, "
                  "column block %lld x %lld, %lld cut rows",
                  (long long)parts, (long long)slots, (long long)hot, (long long)max_pairs, (long long)pairs, (long long)runs,
                  (long long)column_block, (long long)splits, (long long)nsplit);
    return b;
}

}  // namespace cuda
}  // namespace psv
