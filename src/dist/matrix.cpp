// PartitionedStore: a matrix split over the parts of a multi-part context by the bitonic row
// layout, each part's rows held as its local column block and its remote column block.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/csr_build.hpp"
#include "core/ops.hpp"
#include "dist/dist.hpp"

namespace psv {
namespace dist {

namespace {

// One block's tuples: rows (positions in the part's piece), renumbered columns, values.
struct Tuples {
    std::vector<int64_t> rows, cols;
    std::vector<uint8_t> values;
    void add(int64_t r, int64_t c, const uint8_t *v, size_t vs) {
        rows.push_back(r);
        cols.push_back(c);
        if (vs) values.insert(values.end(), v, v + vs);
    }
};

std::unique_ptr<MatrixStore> build_block(Backend &be, int64_t nrows, int64_t ncols, Tuples &&t, psv_type type,
                                         bool pattern, const FormatOptions &opt) {
    CsrHost csr = build_csr(nrows, ncols, (int64_t)t.rows.size(), t.rows.data(), t.cols.data(),
                            pattern ? nullptr : t.values.data(), type, PSV_NOOP);
    t = Tuples();
    return be.build_matrix(std::move(csr), opt);
}

}  // namespace

std::unique_ptr<PartitionedStore> partition(const std::vector<Part> &parts, CsrHost &&csr, const FormatOptions &opt,
                                            LayoutPtr cols) {
    const int32_t P = (int32_t)parts.size();
    const int64_t n = csr.nrows;
    std::vector<int64_t> len((size_t)n);
    for (int64_t i = 0; i < n; ++i) len[i] = csr.row_ptr[i + 1] - csr.row_ptr[i];
    LayoutPtr rows = bitonic_layout(len, P);
    if (!cols) cols = csr.nrows == csr.ncols ? rows : block_layout(csr.ncols, P);
    auto S = std::make_unique<PartitionedStore>();
    S->parts = parts;
    S->rows = rows;
    S->cols = cols;
    S->nrows = csr.nrows;
    S->ncols = csr.ncols;
    S->nvals = csr.nvals();
    S->type = csr.type;
    S->pattern = csr.pattern;
    S->options = opt;
    S->empty_rows = std::count(len.begin(), len.end(), (int64_t)0);
    const size_t vs = csr.pattern ? 0 : type_size(csr.type);
    for (int32_t p = 0; p < P; ++p) {
        const int64_t m = rows->size(p), c0 = cols->offset[p], cm = cols->size(p);
        Tuples loc, rem;
        PartBlock b;
        b.row_length.resize((size_t)m);
        for (int64_t k = 0; k < m; ++k) {
            const int64_t g = rows->global_of(rows->offset[p] + k);
            b.row_length[k] = len[g];
            for (int64_t e = csr.row_ptr[g]; e < csr.row_ptr[g + 1]; ++e) {
                const int64_t pos = cols->position_of(csr.col[e]);
                const uint8_t *v = vs ? &csr.values[(size_t)e * vs] : nullptr;
                if (pos >= c0 && pos < c0 + cm) loc.add(k, pos - c0, v, vs);
                else rem.add(k, pos, v, vs);
            }
        }
        b.local = build_block(*parts[p].backend, m, cm, std::move(loc), csr.type, csr.pattern, opt);
        b.remote = build_block(*parts[p].backend, m, csr.ncols, std::move(rem), csr.type, csr.pattern, opt);
        S->blocks.push_back(std::move(b));
    }
    return S;
}

void PartitionedStore::rebuild(const FormatOptions &opt) {
    for (PartBlock &b : blocks) {
        b.local->rebuild(opt);
        b.remote->rebuild(opt);
    }
    options = opt;
}

void PartitionedStore::info(psv_matrix_info &out) const {
    psv_matrix_info sum;
    std::memset(&sum, 0, sizeof sum);
    bool first = true;
    for (const PartBlock &b : blocks) {
        for (const MatrixStore *s : {b.local.get(), b.remote.get()}) {
            psv_matrix_info i;
            s->info(i);
            if (first) {
                sum = i;  // tile width, workload size, kernel and backend of the first block
                first = false;
            } else {
                sum.dense_tiles += i.dense_tiles;
                sum.sparse_tile = std::max(sum.sparse_tile, i.sparse_tile);
                sum.dense_columns += i.dense_columns;
                sum.dense_nvals += i.dense_nvals;
                sum.workloads += i.workloads;
                sum.row_major_workloads += i.row_major_workloads;
                sum.stored_entries += i.stored_entries;
                sum.bytes += i.bytes;
                sum.build_seconds += i.build_seconds;
                sum.device_bytes += i.device_bytes;
            }
        }
    }
    sum.nrows = nrows;
    sum.ncols = ncols;
    sum.nvals = nvals;
    sum.padding_ratio = nvals ? (double)sum.stored_entries / (double)nvals : 1.0;
    int64_t longest = 0;
    for (const PartBlock &b : blocks)
        for (int64_t l : b.row_length) longest = std::max(longest, l);
    sum.max_row_length = (int32_t)longest;
    // a column's entries are spread over the parts: counted from the tuples
    std::vector<int64_t> cols_host((size_t)nvals);
    extract_tuples(nullptr, cols_host.data(), nullptr);
    std::vector<int32_t> col_len((size_t)ncols, 0);
    int32_t longest_col = 0;
    for (int64_t c : cols_host) longest_col = std::max(longest_col, ++col_len[(size_t)c]);
    sum.max_col_length = longest_col;
    out = sum;
}

int64_t PartitionedStore::device_bytes() const {
    int64_t total = 0;
    for (const PartBlock &b : blocks) total += b.local->device_bytes() + b.remote->device_bytes();
    return total;
}

int32_t PartitionedStore::tile_count() const {
    int32_t total = 0;
    for (const PartBlock &b : blocks) total += b.local->tile_count() + b.remote->tile_count();
    return total;
}

void PartitionedStore::tile_info(int32_t tile, psv_tile_info &out) const {
    // tiles numbered block by block: part 0's local, part 0's remote, part 1's local, ...
    for (const PartBlock &b : blocks) {
        for (const MatrixStore *s : {b.local.get(), b.remote.get()}) {
            if (tile < s->tile_count()) {
                s->tile_info(tile, out);
                return;
            }
            tile -= s->tile_count();
        }
    }
    fail(PSV_ERROR_INVALID_INDEX, "tile out of range");
}

void PartitionedStore::extract_tuples(int64_t *rows_host, int64_t *cols_host, void *values_host) const {
    const size_t vs = pattern ? 0 : type_size(type);
    std::vector<int64_t> r((size_t)nvals), c((size_t)nvals);
    std::vector<uint8_t> v(values_host ? (size_t)nvals * vs : 0);
    int64_t at = 0;
    for (int32_t p = 0; p < (int32_t)blocks.size(); ++p) {
        const PartBlock &b = blocks[p];
        for (int which = 0; which < 2; ++which) {
            const MatrixStore &s = which == 0 ? *b.local : *b.remote;
            s.extract_tuples(r.data() + at, c.data() + at, v.empty() ? nullptr : v.data() + (size_t)at * vs);
            for (int64_t e = at; e < at + s.nvals; ++e) {
                r[e] = rows->global_of(rows->offset[p] + r[e]);
                c[e] = cols->global_of(which == 0 ? cols->offset[p] + c[e] : c[e]);
            }
            at += s.nvals;
        }
    }
    std::vector<int64_t> order((size_t)nvals);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return r[a] != r[b] ? r[a] < r[b] : c[a] < c[b]; });
    for (int64_t e = 0; e < nvals; ++e) {
        const int64_t k = order[e];
        if (rows_host) rows_host[e] = r[k];
        if (cols_host) cols_host[e] = c[k];
        if (values_host && vs) std::memcpy(static_cast<uint8_t *>(values_host) + (size_t)e * vs, &v[(size_t)k * vs], vs);
    }
}

std::vector<float> PartitionedStore::inverse_row_lengths_host() const {
    std::vector<float> inv((size_t)nrows);
    for (int32_t p = 0; p < (int32_t)blocks.size(); ++p) {
        const std::vector<int64_t> &len = blocks[p].row_length;
        for (size_t k = 0; k < len.size(); ++k)
            inv[(size_t)rows->global_of(rows->offset[p] + (int64_t)k)] = len[k] ? 1.0f / (float)len[k] : 0.0f;
    }
    return inv;
}

void PartitionedStore::inverse_row_lengths(float *out) const {
    const std::vector<float> inv = inverse_row_lengths_host();
    parts[0].backend->upload(out, inv.data(), inv.size() * sizeof(float));
}

std::vector<Buffer> PartitionedStore::inverse_row_lengths_in(const Layout &L) const {
    const std::vector<float> inv = inverse_row_lengths_host();
    std::vector<Buffer> out;
    std::vector<float> piece;
    for (int32_t p = 0; p < L.nparts; ++p) {
        const int64_t m = L.size(p);
        out.emplace_back(parts[p].backend, (size_t)m * sizeof(float));
        piece.resize((size_t)m);
        for (int64_t k = 0; k < m; ++k) piece[k] = inv[(size_t)L.global_of(L.offset[p] + k)];
        if (m) parts[p].backend->upload(out.back().get(), piece.data(), (size_t)m * sizeof(float));
    }
    return out;
}

namespace {
// M (or M') as a host CSR, from its tuples.
CsrHost csr_of(const PartitionedStore &M, bool transpose) {
    const size_t vs = M.pattern ? 0 : type_size(M.type);
    std::vector<int64_t> r((size_t)M.nvals), c((size_t)M.nvals);
    std::vector<uint8_t> v((size_t)M.nvals * vs);
    M.extract_tuples(r.data(), c.data(), vs ? v.data() : nullptr);
    if (transpose) return build_csr(M.ncols, M.nrows, M.nvals, c.data(), r.data(), vs ? v.data() : nullptr, M.type, PSV_NOOP);
    return build_csr(M.nrows, M.ncols, M.nvals, r.data(), c.data(), vs ? v.data() : nullptr, M.type, PSV_NOOP);
}
}  // namespace

std::unique_ptr<MatrixStore> PartitionedStore::transposed() const {
    return partition(parts, csr_of(*this, true), options);
}

std::unique_ptr<PartitionedStore> with_columns(const PartitionedStore &M, LayoutPtr cols) {
    return partition(M.parts, csr_of(M, false), M.options, std::move(cols));
}

std::unique_ptr<MatrixStore> PartitionedStore::symmetric_pattern() const {
    std::vector<int64_t> r((size_t)(2 * nvals)), c((size_t)(2 * nvals));
    extract_tuples(r.data(), c.data(), nullptr);
    std::copy(r.begin(), r.begin() + nvals, c.begin() + nvals);  // the A' half
    // the A' half's columns are A's rows; its rows A's columns (c's first half)
    std::copy(c.begin(), c.begin() + nvals, r.begin() + nvals);
    CsrHost s = build_csr(nrows, ncols, 2 * nvals, r.data(), c.data(), nullptr, type, PSV_NOOP);
    return partition(parts, std::move(s), options);
}

}  // namespace dist
}  // namespace psv
