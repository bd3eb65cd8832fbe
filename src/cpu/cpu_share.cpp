// A CPU part's side of a partitioned matrix built from delivered chunks (ShareBuilder,
// src/core/backend.hpp): the same steps as the CUDA part's (cuda/build/share.cu) in host memory,
// so that CI runs the driver (src/dist/build.cpp) over CPU parts.
#include <algorithm>
#include <cstring>

#include "core/csr_build.hpp"
#include "core/ops.hpp"
#include "cpu/cpu_backend.hpp"

namespace psv {
namespace cpu {

namespace {

class CpuShareBuilder final : public ShareBuilder {
public:
    CpuShareBuilder(CpuBackend &be, int64_t nrows, int64_t ncols, psv_type type, bool pattern, int32_t nparts,
                    int64_t count)
        : be_(be), nrows_(nrows), ncols_(ncols), type_(type), pattern_(pattern), nparts_(nparts),
          vs_(pattern ? 0 : type_size(type)) {
        record_bytes = 8 + (vs_ + 3) / 4 * 4;
        chunk = std::max<int64_t>(1, std::min<int64_t>((int64_t)1 << 16, count));
        rows_.resize((size_t)chunk);
        cols_.resize((size_t)chunk);
        vals_.resize((size_t)chunk * vs_);
        rows = rows_.data();
        cols = cols_.data();
        values = vs_ ? vals_.data() : nullptr;
        count_.assign((size_t)nrows, 0);
    }

    void count(int64_t first, int64_t n) override {
        for (int64_t q = 0; q < n; ++q) {
            const int32_t r = rows[q], c = cols[q];
            if (r < 0) continue;
            if (r >= nrows_ || c < 0 || c >= ncols_)
                fail(PSV_ERROR_INVALID_INDEX, format("tuple %lld of this part's share has an index outside the %lld x "
                                                     "%lld matrix",
                                                     (long long)(first + q), (long long)nrows_, (long long)ncols_));
        }
        for (int64_t q = 0; q < n; ++q)
            if (rows[q] >= 0) ++count_[rows[q]];
    }

    void counts(int64_t *host) override {
        if (nrows_) std::memcpy(host, count_.data(), (size_t)nrows_ * 8);
    }

    void set_layout(const int32_t *row_position, const int32_t *col_position,
                    const std::vector<int64_t> &row_offset) override {
        count_ = std::vector<int64_t>();
        row_pos_ = row_position;  // the driver keeps the layouts until build returns
        col_pos_ = col_position;
        offset_ = row_offset;
        send_.resize((size_t)chunk * record_bytes);
    }

    void route(int64_t n, std::vector<int64_t> &per_part) override {
        per_part.assign((size_t)nparts_, 0);
        owner_.resize((size_t)n);
        for (int64_t q = 0; q < n; ++q) {
            const int32_t r = rows[q];
            if (r < 0) {
                owner_[q] = -1;
                continue;
            }
            const int64_t pos = row_pos_ ? row_pos_[r] : r;
            owner_[q] = (int32_t)(std::upper_bound(offset_.begin(), offset_.end(), pos) - offset_.begin()) - 1;
            ++per_part[owner_[q]];
        }
        std::vector<int64_t> next((size_t)nparts_, 0);
        for (int32_t p = 1; p < nparts_; ++p) next[p] = next[p - 1] + per_part[p - 1];
        for (int64_t q = 0; q < n; ++q) {  // in delivery order: each part's records keep it
            const int32_t o = owner_[q];
            if (o < 0) continue;
            uint8_t *rec = send_.data() + (size_t)next[o]++ * record_bytes;
            const int32_t r = rows[q], c = cols[q];
            const int32_t k = (int32_t)((row_pos_ ? row_pos_[r] : r) - offset_[o]), cp = col_pos_ ? col_pos_[c] : c;
            std::memcpy(rec, &k, 4);
            std::memcpy(rec + 4, &cp, 4);
            if (vs_) std::memcpy(rec + 8, &vals_[(size_t)q * vs_], vs_);
        }
    }

    const void *send() const override { return send_.data(); }

    void *receive(int64_t total) override {
        recv_.resize((size_t)std::max<int64_t>(total, 1) * record_bytes);
        return recv_.data();
    }

    Blocks build(const std::vector<std::pair<int64_t, int64_t>> &pieces, int64_t m, int64_t c0, int64_t cm,
                 const FormatOptions &opt) override {
        rows_ = {}, cols_ = {}, vals_ = {}, send_ = {}, owner_ = {};
        rows = cols = nullptr;
        values = nullptr;
        std::vector<int64_t> lr, lc, rr, rc;
        std::vector<uint8_t> lv, rv;
        for (const auto &pc : pieces)
            for (int64_t e = pc.first; e < pc.first + pc.second; ++e) {
                const uint8_t *rec = recv_.data() + (size_t)e * record_bytes;
                int32_t k, c;
                std::memcpy(&k, rec, 4);
                std::memcpy(&c, rec + 4, 4);
                const bool local = c >= c0 && c < c0 + cm;
                (local ? lr : rr).push_back(k);
                (local ? lc : rc).push_back(local ? c - c0 : c);
                if (vs_) (local ? lv : rv).insert((local ? lv : rv).end(), rec + 8, rec + 8 + vs_);
            }
        recv_ = {};
        // of records with one (row, column) the first read is kept
        CsrHost L = build_csr(m, cm, (int64_t)lr.size(), lr.data(), lc.data(), vs_ ? lv.data() : nullptr, type_, PSV_FIRST);
        lr = {}, lc = {}, lv = {};
        CsrHost R = build_csr(m, ncols_, (int64_t)rr.size(), rr.data(), rc.data(), vs_ ? rv.data() : nullptr, type_,
                              PSV_FIRST);
        rr = {}, rc = {}, rv = {};
        L.pattern = R.pattern = pattern_;
        Blocks out;
        out.row_length.resize((size_t)m);
        for (int64_t i = 0; i < m; ++i)
            out.row_length[i] = L.row_ptr[i + 1] - L.row_ptr[i] + R.row_ptr[i + 1] - R.row_ptr[i];
        out.local = be_.build_matrix(std::move(L), opt);
        out.remote = be_.build_matrix(std::move(R), opt);
        return out;
    }

private:
    CpuBackend &be_;
    int64_t nrows_, ncols_;
    psv_type type_;
    bool pattern_;
    int32_t nparts_;
    size_t vs_;
    std::vector<int32_t> rows_, cols_, owner_;
    std::vector<uint8_t> vals_, send_, recv_;
    std::vector<int64_t> count_, offset_;
    const int32_t *row_pos_ = nullptr, *col_pos_ = nullptr;
};

}  // namespace

std::unique_ptr<ShareBuilder> CpuBackend::share_builder(int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                        int32_t nparts, int64_t count) {
    return std::make_unique<CpuShareBuilder>(*this, nrows, ncols, type, pattern, nparts, count);
}

}  // namespace cpu
}  // namespace psv
