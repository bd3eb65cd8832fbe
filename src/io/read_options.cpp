// The read options: ids compacted through an open-addressing hash table (sized by the distinct
// ids, never by their values), and the undirected form by merging A with its transpose.
#include "io/read_options.hpp"

#include <cstring>

#include "core/error.hpp"
#include "core/ops.hpp"
#include "io/formats.hpp"

namespace psv::io {
namespace {

// splitmix64's finalizer: consecutive and hashed ids alike spread over the table.
inline uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// id -> new id, for ids 0 .. 2^63-1 (the empty slot is a key no id has).
class IdTable {
public:
    IdTable() : keys_(kMinSlots, kEmpty), vals_(kMinSlots) {}

    // The new id of `id`, giving it the next one when it is seen for the first time.
    int64_t get_or_add(int64_t id) {
        const uint64_t key = static_cast<uint64_t>(id);
        size_t mask = keys_.size() - 1;
        for (size_t s = mix(key) & mask;; s = (s + 1) & mask) {
            if (keys_[s] == key) return vals_[s];
            if (keys_[s] == kEmpty) {
                if (2 * (ids_.size() + 1) > keys_.size()) {  // at most half full
                    grow();
                    return get_or_add(id);
                }
                keys_[s] = key;
                vals_[s] = static_cast<int64_t>(ids_.size());
                ids_.push_back(id);
                return vals_[s];
            }
        }
    }
    // The ids in the order they were added: ids()[new id] = id.
    std::vector<int64_t> &ids() { return ids_; }

private:
    static constexpr uint64_t kEmpty = ~uint64_t(0);
    static constexpr size_t kMinSlots = 1024;

    void grow() {
        std::vector<uint64_t> keys(keys_.size() * 2, kEmpty);
        std::vector<int64_t> vals(keys.size());
        const size_t mask = keys.size() - 1;
        for (size_t k = 0; k < keys_.size(); ++k) {
            if (keys_[k] == kEmpty) continue;
            size_t s = mix(keys_[k]) & mask;
            while (keys[s] != kEmpty) s = (s + 1) & mask;
            keys[s] = keys_[k];
            vals[s] = vals_[k];
        }
        keys_.swap(keys);
        vals_.swap(vals);
    }

    std::vector<uint64_t> keys_;
    std::vector<int64_t> vals_;
    std::vector<int64_t> ids_;
};

}  // namespace

std::vector<int64_t> relabel(Coo &c) {
    IdTable t;
    const size_t m = c.rows.size();
    for (size_t k = 0; k < m; ++k) {
        c.rows[k] = t.get_or_add(c.rows[k]);
        c.cols[k] = t.get_or_add(c.cols[k]);
    }
    std::vector<int64_t> labels = std::move(t.ids());
    if (static_cast<int64_t>(labels.size()) > detail::kMaxDim)
        fail(PSV_ERROR_INVALID_VALUE,
             format("%zu distinct ids: more than the 2^31-1 vertices a matrix holds",
                    labels.size()));
    for (int64_t &id : labels) id += c.index_base;
    c.nrows = c.ncols = static_cast<int64_t>(labels.size());
    c.index_base = 0;
    return labels;
}

Coo coo_of(const CsrHost &a, int32_t index_base) {
    Coo c;
    c.nrows = a.nrows;
    c.ncols = a.ncols;
    c.type = a.type;
    c.pattern = a.pattern;
    c.index_base = index_base;
    const int64_t n = a.nvals();
    c.rows.resize(static_cast<size_t>(n));
    c.cols.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < a.nrows; ++i)
        for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            c.rows[k] = i;
            c.cols[k] = a.col[k];
        }
    return c;
}

CsrHost undirected(const CsrHost &a) {
    if (a.nrows != a.ncols)
        fail(PSV_ERROR_DIMENSION_MISMATCH,
             format("an undirected read needs a square matrix, not %lld x %lld",
                    static_cast<long long>(a.nrows), static_cast<long long>(a.ncols)));
    const int64_t n = a.nrows;
    const size_t ts = a.pattern ? 0 : type_size(a.type);
    const CsrHost t = transpose(a);  // row j lists the rows i of A(i,j), ascending, with values
    // Row i of the result: row i of A merged with row i of A' (A's entry where both have one).
    CsrHost u;
    u.nrows = u.ncols = n;
    u.type = a.type;
    u.pattern = a.pattern;
    u.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
        int64_t d = 0;
        for (int64_t i = 0; i < n; ++i) {
            int64_t p = a.row_ptr[i], pe = a.row_ptr[i + 1], q = t.row_ptr[i], qe = t.row_ptr[i + 1];
            while (p < pe || q < qe) {
                const uint8_t *src;
                int32_t j;
                if (q == qe || (p < pe && a.col[p] <= t.col[q])) {
                    j = a.col[p];
                    src = ts ? &a.values[p * ts] : nullptr;
                    if (q < qe && t.col[q] == j) ++q;
                    ++p;
                } else {
                    j = t.col[q];
                    src = ts ? &t.values[q * ts] : nullptr;
                    ++q;
                }
                if (pass == 1) {
                    u.col[d] = j;
                    if (ts) std::memcpy(&u.values[d * ts], src, ts);
                }
                ++d;
            }
            if (pass == 0) u.row_ptr[i + 1] = d;
        }
        if (pass == 0) {
            u.col.resize(static_cast<size_t>(d));
            u.values.resize(static_cast<size_t>(d) * ts);
        }
    }
    return u;
}

}  // namespace psv::io
