// PartitionedStore: a matrix split over the parts of a multi-part context by the bitonic row
// layout, each part's rows held as its local column block and its remote column block.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/csr_build.hpp"
#include "core/ops.hpp"
#include "dist/chunks.hpp"
#include "dist/comm.hpp"
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

CsrHost block_csr(int64_t nrows, int64_t ncols, Tuples &&t, psv_type type, bool pattern, psv_op dup) {
    CsrHost csr = build_csr(nrows, ncols, (int64_t)t.rows.size(), t.rows.data(), t.cols.data(),
                            pattern ? nullptr : t.values.data(), type, dup);
    t = Tuples();
    return csr;
}

// A routed tuple's bytes: row, column (global, int64 each), then the value.
size_t record_bytes(size_t vs) { return 16 + vs; }

// The entries first .. last - 1 (in CSR order) of csr as a share: a CSR of the same shape.
CsrHost share_of(const CsrHost &csr, int64_t first, int64_t last) {
    CsrHost s;
    s.nrows = csr.nrows;
    s.ncols = csr.ncols;
    s.type = csr.type;
    s.pattern = csr.pattern;
    s.row_ptr.resize((size_t)csr.nrows + 1);
    for (int64_t i = 0; i <= csr.nrows; ++i) s.row_ptr[i] = std::min(std::max(csr.row_ptr[i], first), last) - first;
    s.col.assign(csr.col.begin() + first, csr.col.begin() + last);
    const size_t vs = csr.pattern ? 0 : type_size(csr.type);
    if (vs) s.values.assign(csr.values.begin() + (size_t)first * vs, csr.values.begin() + (size_t)last * vs);
    return s;
}

}  // namespace

namespace {

// partition_shares on the host: routed by Comm::all_to_all, each block built from a host CSR.
std::unique_ptr<PartitionedStore> route_on_host(const PartSet &parts, std::vector<CsrHost> &&shares, int64_t nrows,
                                                int64_t ncols, psv_type type, bool pattern, const FormatOptions &opt,
                                                LayoutPtr cols, psv_op dup, LayoutPtr rows) {
    const int32_t P = (int32_t)parts.size();
    Comm &comm = *parts.comm;
    const size_t vs = pattern ? 0 : type_size(type);
    // 1. Unless given, the bitonic layout of the rows' lengths summed over the shares (an entry
    //    in two shares counted twice: a layout rule, the same on every rank).
    if (!rows) {
        std::vector<std::vector<int64_t>> counts((size_t)P);
        for (int32_t p = 0; p < P; ++p) {
            if (!parts.holds(p)) continue;
            counts[p].resize((size_t)nrows);
            for (int64_t i = 0; i < nrows; ++i) counts[p][i] = shares[p].row_ptr[i + 1] - shares[p].row_ptr[i];
        }
        rows = bitonic_layout(comm.sum_counts(parts, counts, (size_t)nrows), P);
    }
    if (!cols) cols = nrows == ncols ? rows : block_layout(ncols, P);
    // 2. Route every share's tuples to the parts owning their rows, in share order.
    std::vector<std::vector<Bytes>> send((size_t)P, std::vector<Bytes>((size_t)P)), recv;
    for (int32_t p = 0; p < P; ++p) {
        if (!parts.holds(p)) continue;
        const CsrHost &sh = shares[p];
        std::vector<int64_t> per((size_t)P, 0);
        for (int64_t i = 0; i < nrows; ++i)
            per[rows->owner_of_position(rows->position_of(i))] += sh.row_ptr[i + 1] - sh.row_ptr[i];
        for (int32_t q = 0; q < P; ++q) send[p][q].reserve((size_t)per[q] * record_bytes(vs));
        for (int64_t i = 0; i < nrows; ++i) {
            if (sh.row_ptr[i] == sh.row_ptr[i + 1]) continue;
            Bytes &out = send[p][rows->owner_of_position(rows->position_of(i))];
            for (int64_t e = sh.row_ptr[i]; e < sh.row_ptr[i + 1]; ++e) {
                const size_t at = out.size();
                out.resize(at + record_bytes(vs));
                const int64_t c = sh.col[e];
                std::memcpy(&out[at], &i, 8);
                std::memcpy(&out[at + 8], &c, 8);
                if (vs) std::memcpy(&out[at + 16], &sh.values[(size_t)e * vs], vs);
            }
        }
        shares[p] = CsrHost();
    }
    comm.all_to_all(send, recv);
    send.clear();
    // 3. Each held part builds its local and remote blocks from what it received, in part order
    //    (duplicates across shares combine by dup in that order). A failure on one rank fails all.
    auto S = empty_store(parts, rows, cols, nrows, ncols, type, pattern, opt);
    agree(parts, [&] {
        for (int32_t q = 0; q < P; ++q) {
            if (!parts.holds(q)) continue;
            const int64_t m = rows->size(q), c0 = cols->offset[q], cm = cols->size(q);
            Tuples loc, rem;
            for (int32_t p = 0; p < P; ++p) {
                const Bytes &in = recv[q][p];
                for (size_t at = 0; at < in.size(); at += record_bytes(vs)) {
                    int64_t r, c;
                    std::memcpy(&r, &in[at], 8);
                    std::memcpy(&c, &in[at + 8], 8);
                    const int64_t k = rows->position_of(r) - rows->offset[q], pos = cols->position_of(c);
                    const uint8_t *v = vs ? &in[at + 16] : nullptr;
                    if (pos >= c0 && pos < c0 + cm) loc.add(k, pos - c0, v, vs);
                    else rem.add(k, pos, v, vs);
                }
                recv[q][p] = Bytes();
            }
            CsrHost lc = block_csr(m, cm, std::move(loc), type, pattern, dup);
            CsrHost rc = block_csr(m, ncols, std::move(rem), type, pattern, dup);
            PartBlock &b = S->blocks[q];
            b.row_length.resize((size_t)m);
            for (int64_t k = 0; k < m; ++k)
                b.row_length[k] = lc.row_ptr[k + 1] - lc.row_ptr[k] + rc.row_ptr[k + 1] - rc.row_ptr[k];
            b.local = parts[q].backend->build_matrix(std::move(lc), opt);
            b.remote = parts[q].backend->build_matrix(std::move(rc), opt);
        }
    });
    sum_block_totals(*S);
    return S;
}

}  // namespace

std::unique_ptr<PartitionedStore> partition_shares(const PartSet &parts, std::vector<CsrHost> &&shares,
                                                   int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                   const FormatOptions &opt, LayoutPtr cols, psv_op dup, LayoutPtr rows) {
    if (!routes_on_devices(parts, pattern, dup))
        return route_on_host(parts, std::move(shares), nrows, ncols, type, pattern, opt, std::move(cols), dup, std::move(rows));
    // CUDA parts: the shares uploaded in chunks, routed and built there
    std::vector<ChunkSource> src(parts.size());
    for (int32_t p = 0; p < (int32_t)parts.size(); ++p)
        if (parts.holds(p)) {
            src[p].count = shares[p].nvals();
            src[p].deliver = deliver_csr(*parts[p].backend, shares[p]);
        }
    return build_from_chunks(parts, nrows, ncols, type, pattern, src, opt, std::move(rows), std::move(cols));
}

std::unique_ptr<PartitionedStore> empty_store(const PartSet &parts, LayoutPtr rows, LayoutPtr cols, int64_t nrows,
                                              int64_t ncols, psv_type type, bool pattern, const FormatOptions &opt) {
    auto S = std::make_unique<PartitionedStore>();
    S->parts = parts;
    S->rows = std::move(rows);
    S->cols = std::move(cols);
    S->nrows = nrows;
    S->ncols = ncols;
    S->type = type;
    S->pattern = pattern;
    S->options = opt;
    S->blocks.resize(parts.size());
    return S;
}

void sum_block_totals(PartitionedStore &S) {
    const PartSet &parts = S.parts;
    std::vector<std::vector<int64_t>> totals(parts.size(), std::vector<int64_t>(3, 0));  // entries, empty rows, remote
    for (int32_t q = 0; q < (int32_t)parts.size(); ++q) {
        if (!parts.holds(q)) continue;
        const PartBlock &b = S.blocks[q];
        totals[q][0] = b.local->nvals + b.remote->nvals;
        totals[q][1] = std::count(b.row_length.begin(), b.row_length.end(), (int64_t)0);
        totals[q][2] = b.remote->nvals;
    }
    const std::vector<int64_t> sum = parts.comm->sum_counts(parts, totals, 3);
    S.nvals = sum[0];
    S.empty_rows = sum[1];
    S.exchanges = sum[2] > 0;
}

std::unique_ptr<PartitionedStore> partition(const PartSet &parts, CsrHost &&csr, const FormatOptions &opt,
                                            LayoutPtr cols) {
    // The whole matrix is here: part p takes the p-th of P equal runs of its entries.
    const int32_t P = (int32_t)parts.size();
    const int64_t nnz = csr.nvals();
    std::vector<CsrHost> shares((size_t)P);
    for (int32_t p = 0; p < P; ++p)
        if (parts.holds(p)) shares[p] = share_of(csr, nnz * p / P, nnz * (p + 1) / P);
    const int64_t nrows = csr.nrows, ncols = csr.ncols;
    const psv_type type = csr.type;
    const bool pattern = csr.pattern;
    csr = CsrHost();
    // runs of one CSR share no entry: PSV_FIRST keeps each as it is (and lets CUDA parts route on the devices)
    return partition_shares(parts, std::move(shares), nrows, ncols, type, pattern, opt, std::move(cols), PSV_FIRST);
}

std::unique_ptr<PartitionedStore> partition_share(const PartSet &parts, CsrHost &&mine, const FormatOptions &opt,
                                                  psv_op dup) {
    std::vector<CsrHost> shares(parts.size());
    const int64_t nrows = mine.nrows, ncols = mine.ncols;
    const psv_type type = mine.type;
    const bool pattern = mine.pattern;
    for (int32_t p = 0; p < (int32_t)parts.size(); ++p)
        if (parts.holds(p)) {
            shares[p] = std::move(mine);
            break;
        }
    return partition_shares(parts, std::move(shares), nrows, ncols, type, pattern, opt, nullptr, dup);
}

void PartitionedStore::rebuild(const FormatOptions &opt) {
    agree(parts, [&] {
        for (int32_t p = 0; p < (int32_t)blocks.size(); ++p) {
            if (!parts.holds(p)) continue;
            blocks[p].local->rebuild(opt);
            blocks[p].remote->rebuild(opt);
        }
    });
    options = opt;
}

namespace {
// Every part's blocks' infos (local, remote), on every rank, in part order.
std::vector<psv_matrix_info> block_infos(const PartitionedStore &M) {
    const int32_t P = (int32_t)M.blocks.size();
    std::vector<Bytes> b((size_t)P);
    for (int32_t p = 0; p < P; ++p) {
        if (!M.parts.holds(p)) continue;
        b[p].resize(2 * sizeof(psv_matrix_info));
        psv_matrix_info i[2];
        M.blocks[p].local->info(i[0]);
        M.blocks[p].remote->info(i[1]);
        std::memcpy(b[p].data(), i, sizeof i);
    }
    M.parts.comm->all_gather(b);
    std::vector<psv_matrix_info> out((size_t)2 * P);
    for (int32_t p = 0; p < P; ++p) std::memcpy(&out[(size_t)2 * p], b[p].data(), 2 * sizeof(psv_matrix_info));
    return out;
}
}  // namespace

void PartitionedStore::info(psv_matrix_info &out) const {
    psv_matrix_info sum;
    std::memset(&sum, 0, sizeof sum);
    bool first = true;
    for (const psv_matrix_info &i : block_infos(*this)) {
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
    sum.nrows = nrows;
    sum.ncols = ncols;
    sum.nvals = nvals;
    sum.padding_ratio = nvals ? (double)sum.stored_entries / (double)nvals : 1.0;
    // the longest row and column: rows are whole in their part, a column's entries spread over
    // the parts (counted per part, summed)
    const int32_t P = (int32_t)blocks.size();
    std::vector<std::vector<int64_t>> col_len((size_t)P);
    std::vector<int64_t> longest((size_t)P, 0);
    for (int32_t p = 0; p < P; ++p) {
        if (!parts.holds(p)) continue;
        for (int64_t l : blocks[p].row_length) longest[p] = std::max(longest[p], l);
        col_len[p].assign((size_t)ncols, 0);
        std::vector<int64_t> r, c;
        own_tuples(*this, p, r, c, nullptr);
        for (int64_t x : c) ++col_len[p][(size_t)x];
    }
    int64_t longest_row = 0;
    for (int64_t l : parts.comm->each(parts, longest)) longest_row = std::max(longest_row, l);
    sum.max_row_length = (int32_t)longest_row;
    int64_t longest_col = 0;
    for (int64_t l : parts.comm->sum_counts(parts, col_len, (size_t)ncols)) longest_col = std::max(longest_col, l);
    sum.max_col_length = (int32_t)longest_col;
    out = sum;
}

int64_t PartitionedStore::device_bytes() const {
    const int32_t P = (int32_t)blocks.size();
    std::vector<int64_t> mine((size_t)P, 0);
    for (int32_t p = 0; p < P; ++p)
        if (parts.holds(p)) mine[p] = blocks[p].local->device_bytes() + blocks[p].remote->device_bytes();
    return parts.comm->sum(parts, mine);
}

namespace {
// Every block's tile count, in the order tiles are numbered: part 0's local, part 0's remote, ...
std::vector<int64_t> tile_counts(const PartitionedStore &M) {
    const int32_t P = (int32_t)M.blocks.size();
    std::vector<std::vector<int64_t>> mine((size_t)P, std::vector<int64_t>((size_t)2 * P, 0));
    for (int32_t p = 0; p < P; ++p)
        if (M.parts.holds(p)) {
            mine[p][(size_t)2 * p] = M.blocks[p].local->tile_count();
            mine[p][(size_t)2 * p + 1] = M.blocks[p].remote->tile_count();
        }
    return M.parts.comm->sum_counts(M.parts, mine, (size_t)2 * P);
}
}  // namespace

int32_t PartitionedStore::tile_count() const {
    int64_t total = 0;
    for (int64_t c : tile_counts(*this)) total += c;
    return (int32_t)total;
}

void PartitionedStore::tile_info(int32_t tile, psv_tile_info &out) const {
    const std::vector<int64_t> counts = tile_counts(*this);
    const int32_t P = (int32_t)blocks.size();
    int32_t owner = -1, which = 0;
    for (size_t b = 0; b < counts.size() && owner < 0; ++b) {
        if (tile < counts[b]) {
            owner = (int32_t)(b / 2);
            which = (int32_t)(b % 2);
        } else {
            tile -= (int32_t)counts[b];
        }
    }
    if (owner < 0) fail(PSV_ERROR_INVALID_INDEX, "tile out of range");
    std::vector<Bytes> b((size_t)P);
    if (parts.holds(owner)) {
        psv_tile_info t;
        (which == 0 ? *blocks[owner].local : *blocks[owner].remote).tile_info(tile, t);
        b[owner].assign(reinterpret_cast<uint8_t *>(&t), reinterpret_cast<uint8_t *>(&t) + sizeof t);
    }
    parts.comm->all_gather(b);
    std::memcpy(&out, b[owner].data(), sizeof out);
}

void own_tuples(const PartitionedStore &M, int32_t p, std::vector<int64_t> &r, std::vector<int64_t> &c,
                std::vector<uint8_t> *v) {
    const PartBlock &b = M.blocks[p];
    const size_t vs = type_size(M.type);  // a pattern's blocks give 1s
    const int64_t n = b.local->nvals + b.remote->nvals;
    r.resize((size_t)n);
    c.resize((size_t)n);
    if (v) v->resize((size_t)n * vs);
    int64_t at = 0;
    for (int which = 0; which < 2; ++which) {
        const MatrixStore &s = which == 0 ? *b.local : *b.remote;
        s.extract_tuples(r.data() + at, c.data() + at, v && vs ? v->data() + (size_t)at * vs : nullptr);
        for (int64_t e = at; e < at + s.nvals; ++e) {
            r[e] = M.rows->global_of(M.rows->offset[p] + r[e]);
            c[e] = M.cols->global_of(which == 0 ? M.cols->offset[p] + c[e] : c[e]);
        }
        at += s.nvals;
    }
}

void PartitionedStore::extract_tuples(int64_t *rows_host, int64_t *cols_host, void *values_host) const {
    const size_t vs = type_size(type);  // the same on every rank; a pattern gives 1s
    const int32_t P = (int32_t)blocks.size();
    // every part's tuples (row, column, value records), everywhere
    std::vector<Bytes> b((size_t)P);
    for (int32_t p = 0; p < P; ++p) {
        if (!parts.holds(p)) continue;
        std::vector<int64_t> r, c;
        std::vector<uint8_t> v;
        own_tuples(*this, p, r, c, &v);
        b[p].resize(r.size() * (16 + vs));
        for (size_t e = 0; e < r.size(); ++e) {
            uint8_t *at = &b[p][e * (16 + vs)];
            std::memcpy(at, &r[e], 8);
            std::memcpy(at + 8, &c[e], 8);
            if (vs) std::memcpy(at + 16, &v[e * vs], vs);
        }
    }
    parts.comm->all_gather(b);
    std::vector<const uint8_t *> rec;
    rec.reserve((size_t)nvals);
    for (int32_t p = 0; p < P; ++p)
        for (size_t at = 0; at < b[p].size(); at += 16 + vs) rec.push_back(&b[p][at]);
    auto row = [](const uint8_t *x) { int64_t v; std::memcpy(&v, x, 8); return v; };
    auto col = [](const uint8_t *x) { int64_t v; std::memcpy(&v, x + 8, 8); return v; };
    std::sort(rec.begin(), rec.end(), [&](const uint8_t *a, const uint8_t *z) {
        return row(a) != row(z) ? row(a) < row(z) : col(a) < col(z);
    });
    for (size_t e = 0; e < rec.size(); ++e) {
        if (rows_host) rows_host[e] = row(rec[e]);
        if (cols_host) cols_host[e] = col(rec[e]);
        if (values_host && vs) std::memcpy(static_cast<uint8_t *>(values_host) + e * vs, rec[e] + 16, vs);
    }
}

std::vector<float> PartitionedStore::inverse_row_lengths_host() const {
    const int32_t P = (int32_t)blocks.size();
    std::vector<Bytes> b((size_t)P);
    for (int32_t p = 0; p < P; ++p) {
        if (!parts.holds(p)) continue;
        const std::vector<int64_t> &len = blocks[p].row_length;
        b[p].resize(len.size() * sizeof(float));
        float *f = reinterpret_cast<float *>(b[p].data());
        for (size_t k = 0; k < len.size(); ++k) f[k] = len[k] ? 1.0f / (float)len[k] : 0.0f;
    }
    parts.comm->all_gather(b);
    std::vector<float> inv((size_t)nrows);
    for (int32_t p = 0; p < P; ++p) {
        const float *f = reinterpret_cast<const float *>(b[p].data());
        for (int64_t k = 0; k < rows->size(p); ++k) inv[(size_t)rows->global_of(rows->offset[p] + k)] = f[k];
    }
    return inv;
}

void PartitionedStore::inverse_row_lengths(float *out) const {
    if (!parts.holds(0)) fail(PSV_ERROR_NOT_IMPLEMENTED, "a whole vector in part 0's memory on a rank that does not hold it");
    const std::vector<float> inv = inverse_row_lengths_host();
    parts[0].backend->upload(out, inv.data(), inv.size() * sizeof(float));
}

std::shared_ptr<const std::vector<Buffer>> PartitionedStore::inverse_row_lengths_in(const LayoutPtr &layout) const {
    for (const auto &c : inverse_cache_)
        if (c.first == layout || c.first->same(*layout)) return c.second;
    const Layout &L = *layout;
    const std::vector<float> inv = inverse_row_lengths_host();
    std::vector<Buffer> out;
    std::vector<float> piece;
    for (int32_t p = 0; p < L.nparts; ++p) {
        const int64_t m = L.size(p);
        if (!parts.holds(p)) {
            out.emplace_back();
            continue;
        }
        out.emplace_back(parts[p].backend, (size_t)m * sizeof(float));
        piece.resize((size_t)m);
        for (int64_t k = 0; k < m; ++k) piece[k] = inv[(size_t)L.global_of(L.offset[p] + k)];
        if (m) parts[p].backend->upload(out.back().get(), piece.data(), (size_t)m * sizeof(float));
    }
    auto kept = std::make_shared<const std::vector<Buffer>>(std::move(out));
    inverse_cache_.emplace_back(layout, kept);
    return kept;
}

namespace {
// M's own entries of each held part as that part's share of a new matrix: as they are, swapped
// (M'), or both (the symmetric pattern), then partitioned anew.
enum class Derive { Same, Transpose, Symmetric };
std::unique_ptr<PartitionedStore> derive(const PartitionedStore &M, Derive how, LayoutPtr cols) {
    const int32_t P = (int32_t)M.blocks.size();
    const bool pattern = M.pattern || how == Derive::Symmetric;
    const int64_t nrows = how == Derive::Transpose ? M.ncols : M.nrows, ncols = how == Derive::Transpose ? M.nrows : M.ncols;
    // the same rows keep their layout (a vector in it needs no redistribution); the parts' entries
    // are disjoint, so PSV_FIRST keeps each as it is
    LayoutPtr rows = how == Derive::Same ? M.rows : nullptr;
    const bool on_devices = routes_on_devices(M.parts, pattern, PSV_FIRST);
    std::vector<std::vector<int64_t>> r((size_t)P), c((size_t)P);
    std::vector<std::vector<uint8_t>> v((size_t)P);
    std::vector<CsrHost> shares((size_t)P);
    agree(M.parts, [&] {
        for (int32_t p = 0; p < P; ++p) {
            if (!M.parts.holds(p)) continue;
            own_tuples(M, p, r[p], c[p], pattern ? nullptr : &v[p]);
            if (how == Derive::Transpose) std::swap(r[p], c[p]);
            if (how == Derive::Symmetric) {  // the A' half's rows are A's columns and its columns A's rows
                const size_t n = r[p].size();
                r[p].insert(r[p].end(), c[p].begin(), c[p].begin() + (ptrdiff_t)n);
                c[p].insert(c[p].end(), r[p].begin(), r[p].begin() + (ptrdiff_t)n);
            }
            if (on_devices) continue;  // delivered from the tuples as they are
            shares[p] = build_csr(nrows, ncols, (int64_t)r[p].size(), r[p].data(), c[p].data(),
                                  pattern ? nullptr : v[p].data(), M.type, PSV_NOOP);
            r[p] = {}, c[p] = {}, v[p] = {};
        }
    });
    if (on_devices) {
        std::vector<ChunkSource> src((size_t)P);
        for (int32_t p = 0; p < P; ++p)
            if (M.parts.holds(p)) {
                src[p].count = (int64_t)r[p].size();
                src[p].deliver = deliver_tuples(*M.parts[p].backend, r[p], c[p], v[p], pattern ? 0 : type_size(M.type));
            }
        return build_from_chunks(M.parts, nrows, ncols, M.type, pattern, src, M.options, std::move(rows), std::move(cols));
    }
    return route_on_host(M.parts, std::move(shares), nrows, ncols, M.type, pattern, M.options, std::move(cols), PSV_FIRST,
                         std::move(rows));
}
}  // namespace

std::unique_ptr<MatrixStore> PartitionedStore::transposed() const { return derive(*this, Derive::Transpose, nullptr); }

std::unique_ptr<PartitionedStore> with_columns(const PartitionedStore &M, LayoutPtr cols) {
    return derive(M, Derive::Same, std::move(cols));
}

std::unique_ptr<MatrixStore> PartitionedStore::symmetric_pattern() const { return derive(*this, Derive::Symmetric, nullptr); }

}  // namespace dist
}  // namespace psv
