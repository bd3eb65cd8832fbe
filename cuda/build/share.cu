// A CUDA part's side of a partitioned matrix built from tuples delivered on its device
// (ShareBuilder, src/core/backend.hpp; dist::build_from_chunks drives the parts in step):
//  1. count: each chunk's tuples checked and counted per row (integer atomics);
//  2. route: each chunk sorted by the part owning its row (a stable radix sort of the owner, so
//     each part's records keep delivery order) and written as records (row in the owner's
//     piece, column position, value) into the send buffer;
//  3. build: the received records read in the driver's piece order by two streamed
//     constructions (assemble_csr), one for the local columns and one for the remote ones.
// Nothing goes through the host but the row counts, the layout and the per-part counts.
#include <cub/cub.cuh>

#include <algorithm>

#include "cuda/build/build.cuh"
#include "cuda/build/common.cuh"

namespace cubns = CUB_NS_QUALIFIER;

namespace psv {
namespace cuda {

namespace {

size_t record_size(size_t vs) { return 8 + (vs + 3) / 4 * 4; }

// key[q] = the part owning tuple q's row (nparts for a dropped tuple: sorted last), idx[q] = q.
__global__ void owner_keys_kernel(int64_t n, const int32_t *rows, const int32_t *row_pos, const int64_t *offset,
                                  int32_t nparts, uint32_t *key, uint32_t *idx) {
    PSV_GRID_LOOP(q, n) {
        const int32_t r = rows[q];
        uint32_t k = (uint32_t)nparts;
        if (r >= 0) {
            const int64_t pos = row_pos ? row_pos[r] : r;
            k = (uint32_t)(upper_bound_d<int64_t>(offset, nparts + 1, pos) - 1);
        }
        key[q] = k;
        idx[q] = (uint32_t)q;
    }
}

// first[k] = the first sorted position whose key is >= k, for k = 0 .. nparts.
__global__ void key_starts_kernel(int64_t n, const uint32_t *skey, int32_t nparts, int64_t *first) {
    PSV_GRID_LOOP(k, (int64_t)nparts + 1) first[k] = lower_bound_d<uint32_t>(skey, n, (uint32_t)k);
}

// Record q of the send buffer from the sorted tuple q (q below the kept count).
template <int VS>
__global__ void records_kernel(int64_t n, const uint32_t *skey, const uint32_t *sidx, const int32_t *rows,
                               const int32_t *cols, const uint8_t *vals, const int32_t *row_pos, const int32_t *col_pos,
                               const int64_t *offset, size_t rb, uint8_t *out) {
    PSV_GRID_LOOP(q, n) {
        const uint32_t s = sidx[q];
        const int32_t r = rows[s], c = cols[s];
        const int64_t pos = row_pos ? row_pos[r] : r;
        uint8_t *rec = out + (size_t)q * rb;
        reinterpret_cast<int32_t *>(rec)[0] = (int32_t)(pos - offset[skey[q]]);
        reinterpret_cast<int32_t *>(rec)[1] = col_pos ? col_pos[c] : c;
        if (VS == 1) rec[8] = vals[s];
        else if (VS == 4) reinterpret_cast<uint32_t *>(rec)[2] = reinterpret_cast<const uint32_t *>(vals)[s];
        else if (VS == 8) reinterpret_cast<uint64_t *>(rec)[1] = reinterpret_cast<const uint64_t *>(vals)[s];
    }
}

// Records first .. first + n - 1 as tuples of one block: a record whose column falls in the
// block (local: c0 .. c0 + cm - 1, renumbered from 0; remote: outside it) keeps its row, the
// others get row -1 (dropped).
template <int VS>
__global__ void unpack_kernel(int64_t n, const uint8_t *recs, size_t rb, bool local, int64_t c0, int64_t cm,
                              int32_t *rows, int32_t *cols, uint8_t *vals) {
    PSV_GRID_LOOP(q, n) {
        const uint8_t *rec = recs + (size_t)q * rb;
        const int32_t r = reinterpret_cast<const int32_t *>(rec)[0], c = reinterpret_cast<const int32_t *>(rec)[1];
        const bool in = c >= c0 && c < c0 + cm;
        rows[q] = in == local ? r : -1;
        cols[q] = local && in ? (int32_t)(c - c0) : c;
        if (VS == 1) vals[q] = rec[8];
        else if (VS == 4) reinterpret_cast<uint32_t *>(vals)[q] = reinterpret_cast<const uint32_t *>(rec)[2];
        else if (VS == 8) reinterpret_cast<uint64_t *>(vals)[q] = reinterpret_cast<const uint64_t *>(rec)[1];
    }
}

// row_length[i] = the row's entries in both blocks.
__global__ void both_lengths_kernel(int64_t m, const int64_t *a, const int64_t *b, int64_t *len) {
    PSV_GRID_LOOP(i, m) len[i] = a[i + 1] - a[i] + b[i + 1] - b[i];
}

template <class F> void by_vs(size_t vs, F &&f) {
    if (vs == 0) f(std::integral_constant<int, 0>{});
    else if (vs == 1) f(std::integral_constant<int, 1>{});
    else if (vs == 4) f(std::integral_constant<int, 4>{});
    else f(std::integral_constant<int, 8>{});
}

class CudaShareBuilder final : public ShareBuilder {
public:
    CudaShareBuilder(CudaBackend &be, int64_t nrows, int64_t ncols, psv_type type, bool pattern, int32_t nparts,
                     int64_t count)
        : be_(be), nrows_(nrows), ncols_(ncols), type_(type), pattern_(pattern), nparts_(nparts),
          vs_(pattern ? 0 : type_size(type)) {
        be_.activate();
        if (nrows < 0 || ncols < 0 || nrows >= (int64_t)INT32_MAX || ncols > (int64_t)INT32_MAX)
            fail(PSV_ERROR_INVALID_VALUE, format("a CUDA matrix has fewer than 2^31 - 1 rows and at most 2^31 - 1 "
                                                 "columns (32-bit indices); asked for %lld x %lld",
                                                 (long long)nrows, (long long)ncols));
        record_bytes = record_size(vs_);
        // A chunk costs its tuples, the sort's keys and places (twice, with CUB's scratch) and its
        // records: at most the policy's chunk, a sixteenth of free memory after the counts, and a
        // sixteenth of the share (at least 2^22 tuples, at most the share): its buffers stay a
        // small part of what the part receives.
        const size_t per_tuple = 8 + vs_ + 24 + record_bytes;
        const size_t free_b = device_free_bytes(be_);
        const size_t counts_b = (size_t)(nrows + 1) * 8;
        const int64_t fit = free_b > counts_b ? (int64_t)((free_b - counts_b) / 16 / per_tuple) : 0;
        const int64_t share = std::max<int64_t>((int64_t)1 << 22, (count + 15) / 16);
        chunk = std::max<int64_t>(1, std::min<int64_t>({be_.policy().assemble_chunk, fit, share, std::max<int64_t>(count, 1)}));
        count_ = Buffer(&be_, counts_b);
        bad_ = Buffer(&be_, 8);
        be_.set_bytes(count_.get(), 0, counts_b);
        be_.set_bytes(bad_.get(), 0xff, 8);
        rows_ = Buffer(&be_, (size_t)chunk * 4);
        cols_ = Buffer(&be_, (size_t)chunk * 4);
        vals_ = Buffer(&be_, (size_t)chunk * vs_);
        rows = rows_.as<int32_t>();
        cols = cols_.as<int32_t>();
        values = vs_ ? vals_.get() : nullptr;
    }

    void count(int64_t first, int64_t n) override {
        be_.activate();
        count_tuples(be_, n, first, rows, cols, nrows_, ncols_, count_.as<unsigned long long>(),
                     bad_.as<unsigned long long>());
        uint64_t bad_h = 0;
        be_.download(&bad_h, bad_.get(), 8);
        if (bad_h != ~0ull)
            fail(PSV_ERROR_INVALID_INDEX, format("tuple %llu of this part's share has an index outside the %lld x %lld "
                                                 "matrix",
                                                 (unsigned long long)(bad_h - 1), (long long)nrows_, (long long)ncols_));
    }

    void counts(int64_t *host) override {
        be_.activate();
        if (nrows_) be_.download(host, count_.get(), (size_t)nrows_ * 8);
    }

    void set_layout(const int32_t *row_position, const int32_t *col_position,
                    const std::vector<int64_t> &row_offset) override {
        be_.activate();
        count_ = Buffer();
        bad_ = Buffer();
        if (row_position) {
            row_pos_ = Buffer(&be_, (size_t)std::max<int64_t>(nrows_, 1) * 4);
            if (nrows_) be_.upload(row_pos_.get(), row_position, (size_t)nrows_ * 4);
        }
        if (col_position && col_position != row_position) {
            col_pos_ = Buffer(&be_, (size_t)std::max<int64_t>(ncols_, 1) * 4);
            if (ncols_) be_.upload(col_pos_.get(), col_position, (size_t)ncols_ * 4);
        }
        same_positions_ = col_position && col_position == row_position;
        offset_ = Buffer(&be_, row_offset.size() * 8);
        be_.upload(offset_.get(), row_offset.data(), row_offset.size() * 8);
        key_ = Buffer(&be_, (size_t)chunk * 4);
        skey_ = Buffer(&be_, (size_t)chunk * 4);
        idx_ = Buffer(&be_, (size_t)chunk * 4);
        sidx_ = Buffer(&be_, (size_t)chunk * 4);
        send_ = Buffer(&be_, (size_t)chunk * record_bytes);
        first_ = Buffer(&be_, (size_t)(nparts_ + 1) * 8);
    }

    void route(int64_t n, std::vector<int64_t> &per_part) override {
        be_.activate();
        cudaStream_t st = be_.stream();
        const int32_t *rp = row_pos_.as<int32_t>();
        const int32_t *cp = same_positions_ ? rp : col_pos_.as<int32_t>();
        per_part.assign((size_t)nparts_, 0);
        if (n <= 0) return;
        launch(be_, n, [&](unsigned g, int b) {
            owner_keys_kernel<<<g, b, 0, st>>>(n, rows, rp, offset_.as<int64_t>(), nparts_, key_.as<uint32_t>(),
                                               idx_.as<uint32_t>());
        });
        const int kb = std::max(1, bits_for((uint64_t)nparts_));
        be_.cub_call([&](void *tmp, size_t &bytes) {
            return cubns::DeviceRadixSort::SortPairs(tmp, bytes, key_.as<uint32_t>(), skey_.as<uint32_t>(), idx_.as<uint32_t>(),
                                                     sidx_.as<uint32_t>(), n, 0, kb, st);
        });
        launch(be_, nparts_ + 1, [&](unsigned g, int b) {
            key_starts_kernel<<<g, b, 0, st>>>(n, skey_.as<uint32_t>(), nparts_, first_.as<int64_t>());
        });
        std::vector<int64_t> first((size_t)nparts_ + 1);
        be_.download(first.data(), first_.get(), first.size() * 8);
        const int64_t kept = first[nparts_];
        for (int32_t q = 0; q < nparts_; ++q) per_part[q] = first[q + 1] - first[q];
        by_vs(vs_, [&](auto v) {
            constexpr int VS = decltype(v)::value;
            launch(be_, kept, [&](unsigned g, int b) {
                records_kernel<VS><<<g, b, 0, st>>>(kept, skey_.as<uint32_t>(), sidx_.as<uint32_t>(), rows, cols,
                                                    static_cast<const uint8_t *>(values), rp, cp, offset_.as<int64_t>(),
                                                    record_bytes, send_.as<uint8_t>());
            });
        });
    }

    const void *send() const override { return send_.get(); }

    void *receive(int64_t total) override {
        be_.activate();
        // the route's buffers are done with (the driver receives after the last round)
        recv_ = Buffer(&be_, (size_t)std::max<int64_t>(total, 1) * record_bytes);
        return recv_.get();
    }

    Blocks build(const std::vector<std::pair<int64_t, int64_t>> &pieces, int64_t m, int64_t c0, int64_t cm,
                 const FormatOptions &opt) override {
        be_.activate();
        cudaStream_t st = be_.stream();
        // everything but the received records goes first
        rows_ = Buffer(), cols_ = Buffer(), vals_ = Buffer(), key_ = Buffer(), skey_ = Buffer(), idx_ = Buffer(),
        sidx_ = Buffer(), send_ = Buffer(), row_pos_ = Buffer(), col_pos_ = Buffer();
        rows = cols = nullptr;
        values = nullptr;
        std::vector<int64_t> start(pieces.size() + 1, 0);  // each piece's place in the read order
        for (size_t k = 0; k < pieces.size(); ++k) start[k + 1] = start[k] + pieces[k].second;
        const uint8_t *recs = recv_.as<uint8_t>();
        const size_t rb = record_bytes, vs = vs_;
        auto block = [&](bool local) {
            TupleChunks src;
            src.count = start.back();
            src.deliver = [&, local](int64_t f, int64_t n, int32_t *r, int32_t *c, void *v) {
                // the pieces overlapping f .. f + n - 1, each unpacked at its place in the chunk
                size_t k = (size_t)(std::upper_bound(start.begin(), start.end(), f) - start.begin()) - 1;
                for (int64_t at = f; at < f + n; ++k) {
                    const int64_t in_piece = at - start[k], len = std::min(pieces[k].second - in_piece, f + n - at);
                    if (len <= 0) continue;
                    const uint8_t *from = recs + (size_t)(pieces[k].first + in_piece) * rb;
                    const int64_t to = at - f;
                    by_vs(vs, [&](auto vv) {
                        constexpr int VS = decltype(vv)::value;
                        launch(be_, len, [&](unsigned g, int b) {
                            unpack_kernel<VS><<<g, b, 0, st>>>(len, from, rb, local, c0, cm, r + to, c + to,
                                                               v ? static_cast<uint8_t *>(v) + (size_t)to * vs : nullptr);
                        });
                    });
                    at += len;
                }
            };
            auto M = std::make_unique<CudaMatrix>(&be_);
            M->type = type_;
            M->pattern = pattern_;
            assemble_csr(be_, m, local ? cm : ncols_, vs, src, *M);
            return M;
        };
        std::unique_ptr<CudaMatrix> L = block(true), R = block(false);
        recv_ = Buffer();
        Blocks out;
        out.row_length.resize((size_t)m);
        if (m > 0) {
            Buffer len(&be_, (size_t)m * 8);
            launch(be_, m, [&](unsigned g, int b) {
                both_lengths_kernel<<<g, b, 0, st>>>(m, L->row_ptr.as<int64_t>(), R->row_ptr.as<int64_t>(), len.as<int64_t>());
            });
            be_.download(out.row_length.data(), len.get(), (size_t)m * 8);
        }
        finish_matrix(be_, *L, opt);
        finish_matrix(be_, *R, opt);
        out.local = std::move(L);
        out.remote = std::move(R);
        return out;
    }

private:
    CudaBackend &be_;
    int64_t nrows_, ncols_;
    psv_type type_;
    bool pattern_;
    int32_t nparts_;
    size_t vs_;
    bool same_positions_ = false;
    Buffer count_, bad_, rows_, cols_, vals_, row_pos_, col_pos_, offset_, key_, skey_, idx_, sidx_, send_, first_, recv_;
};

}  // namespace

std::unique_ptr<ShareBuilder> CudaBackend::share_builder(int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                         int32_t nparts, int64_t count) {
    return std::make_unique<CudaShareBuilder>(*this, nrows, ncols, type, pattern, nparts, count);
}

}  // namespace cuda
}  // namespace psv
