// Construction of a partitioned matrix from tuples delivered in each part's memory (chunks.hpp):
// the driver of the parts' ShareBuilders. Every process runs the same steps in step with the
// others; each step that can fail on one rank alone runs under agree.
//  1. count: each part delivers its share chunk by chunk and counts it per row;
//  2. lay out: the counts summed over the parts (Comm::sum_counts) give the bitonic row layout,
//     the same on every process, and each part's number of records to receive;
//  3. route: in rounds, each part delivers its next chunk again and sorts it into records by
//     owner; the per-part counts are gathered and the records exchanged (Comm::exchange),
//     appended to each owner's receive buffer (round by round, parts in order within a round);
//  4. build: each part reads its records part by part (a part's rounds in order) into its local
//     and remote blocks, so the lowest part's tuple wins where two parts give one entry.
#include <algorithm>
#include <cstring>

#include "dist/chunks.hpp"
#include "core/ops.hpp"
#include "dist/comm.hpp"

namespace psv {
namespace dist {

DeliverTuples deliver_csr(Backend &be, const CsrHost &share) {
    return [&be, &share](int64_t first, int64_t n, int32_t *rows, int32_t *cols, void *vals) {
        std::vector<int32_t> r((size_t)n);
        int64_t i = std::upper_bound(share.row_ptr.begin(), share.row_ptr.end(), first) - share.row_ptr.begin() - 1;
        for (int64_t e = first; e < first + n; ++e) {
            while (share.row_ptr[(size_t)i + 1] <= e) ++i;
            r[(size_t)(e - first)] = (int32_t)i;
        }
        be.upload(rows, r.data(), (size_t)n * 4);
        be.upload(cols, share.col.data() + first, (size_t)n * 4);
        const size_t vs = share.pattern ? 0 : type_size(share.type);
        if (vals && vs) be.upload(vals, share.values.data() + (size_t)first * vs, (size_t)n * vs);
    };
}

DeliverTuples deliver_tuples(Backend &be, const std::vector<int64_t> &rows, const std::vector<int64_t> &cols,
                            const std::vector<uint8_t> &values, size_t vs) {
    return [&be, &rows, &cols, &values, vs](int64_t first, int64_t n, int32_t *r, int32_t *c, void *v) {
        std::vector<int32_t> t((size_t)n);
        for (int64_t e = 0; e < n; ++e) t[(size_t)e] = (int32_t)rows[(size_t)(first + e)];
        be.upload(r, t.data(), (size_t)n * 4);
        for (int64_t e = 0; e < n; ++e) t[(size_t)e] = (int32_t)cols[(size_t)(first + e)];
        be.upload(c, t.data(), (size_t)n * 4);
        if (v && vs) be.upload(v, values.data() + (size_t)first * vs, (size_t)n * vs);
    };
}

bool routes_on_devices(const PartSet &parts, bool pattern, psv_op dup) {
    std::vector<int64_t> cuda((size_t)parts.size(), 1);
    for (int32_t p = 0; p < (int32_t)parts.size(); ++p)
        if (parts.holds(p)) cuda[p] = parts[p].backend->kind() == PSV_BACKEND_CUDA;
    int64_t all = 1;
    for (int64_t c : parts.comm->each(parts, cuda)) all &= c;
    return all && (pattern || dup == PSV_FIRST);
}

std::unique_ptr<PartitionedStore> build_from_chunks(const PartSet &parts, int64_t nrows, int64_t ncols, psv_type type,
                                                    bool pattern, const std::vector<ChunkSource> &sources,
                                                    const FormatOptions &opt, LayoutPtr rows, LayoutPtr cols) {
    const int32_t P = (int32_t)parts.size();
    Comm &comm = *parts.comm;
    std::vector<std::unique_ptr<ShareBuilder>> b((size_t)P);
    std::vector<int64_t> my_chunks((size_t)P, 0);
    // 1. count
    std::vector<std::vector<int64_t>> counts((size_t)P);
    agree(parts, [&] {
        for (int32_t p = 0; p < P; ++p) {
            if (!parts.holds(p)) continue;
            const ChunkSource &src = sources[p];
            if (src.count < 0) fail(PSV_ERROR_INVALID_VALUE, "a share's count is negative");
            if (src.count > 0 && !src.deliver) fail(PSV_ERROR_NULL_POINTER, "a share of tuples without a deliver");
            b[p] = parts[p].backend->share_builder(nrows, ncols, type, pattern, P, src.count);
            ShareBuilder &sb = *b[p];
            for (int64_t f = 0; f < src.count; f += sb.chunk) {
                const int64_t n = std::min(sb.chunk, src.count - f);
                src.deliver(f, n, sb.rows, sb.cols, sb.values);
                sb.count(f, n);
            }
            counts[p].resize((size_t)nrows);
            sb.counts(counts[p].data());
            my_chunks[p] = (src.count + sb.chunk - 1) / sb.chunk;
        }
    });
    const std::vector<int64_t> chunks = comm.each(parts, my_chunks);
    const int64_t rounds = *std::max_element(chunks.begin(), chunks.end());
    // 2. lay out
    std::vector<int64_t> total((size_t)P, 0);  // records each part receives
    {
        std::vector<int64_t> len = comm.sum_counts(parts, counts, (size_t)nrows);
        counts.clear();
        if (!rows) rows = bitonic_layout(len, P);
        for (int64_t i = 0; i < nrows; ++i) total[rows->owner_of_position(rows->position_of(i))] += len[i];
    }
    if (!cols) cols = nrows == ncols ? rows : block_layout(ncols, P);
    std::vector<void *> base((size_t)P, nullptr);
    agree(parts, [&] {
        for (int32_t q = 0; q < P; ++q) {
            if (!parts.holds(q)) continue;
            b[q]->set_layout(rows->position.empty() ? nullptr : rows->position.data(),
                             cols->position.empty() ? nullptr : cols->position.data(), rows->offset);
            base[q] = b[q]->receive(total[q]);
        }
    });
    // 3. route, round by round
    const size_t rb = [&] {
        for (int32_t p = 0; p < P; ++p)
            if (parts.holds(p)) return b[p]->record_bytes;
        return (size_t)0;
    }();
    struct Piece {
        int32_t from;
        int64_t first, count;
    };
    std::vector<std::vector<Piece>> pieces((size_t)P);
    std::vector<int64_t> filled((size_t)P, 0);
    auto received_wrong = [&](int32_t q) {
        fail(PSV_ERROR_PANIC, format("part %d received %lld records, %lld counted", (int)q, (long long)filled[q],
                                     (long long)total[q]));
    };
    for (int64_t round = 0; round < rounds; ++round) {
        std::vector<std::vector<int64_t>> per((size_t)P);
        agree(parts, [&] {
            for (int32_t p = 0; p < P; ++p) {
                if (!parts.holds(p)) continue;
                ShareBuilder &sb = *b[p];
                const int64_t f = round * sb.chunk, n = std::max<int64_t>(0, std::min(sb.chunk, sources[p].count - f));
                if (n > 0) sources[p].deliver(f, n, sb.rows, sb.cols, sb.values);
                sb.route(n, per[p]);
            }
        });
        std::vector<Bytes> blocks((size_t)P);
        for (int32_t p = 0; p < P; ++p)
            if (parts.holds(p)) {
                blocks[p].resize((size_t)P * 8);
                std::memcpy(blocks[p].data(), per[p].data(), (size_t)P * 8);
            }
        comm.all_gather(blocks);
        std::vector<std::vector<size_t>> bytes((size_t)P, std::vector<size_t>((size_t)P));
        std::vector<std::vector<int64_t>> n((size_t)P, std::vector<int64_t>((size_t)P));
        for (int32_t p = 0; p < P; ++p) {
            std::memcpy(n[p].data(), blocks[p].data(), (size_t)P * 8);
            for (int32_t q = 0; q < P; ++q) bytes[p][q] = (size_t)n[p][q] * rb;
        }
        std::vector<const void *> send((size_t)P, nullptr);
        std::vector<void *> recv((size_t)P, nullptr);
        for (int32_t q = 0; q < P; ++q) {
            if (!parts.holds(q)) continue;
            send[q] = b[q]->send();
            recv[q] = static_cast<uint8_t *>(base[q]) + (size_t)filled[q] * rb;
            for (int32_t p = 0; p < P; ++p) {
                if (n[p][q]) pieces[q].push_back({p, filled[q], n[p][q]});
                filled[q] += n[p][q];
            }
            if (filled[q] > total[q]) received_wrong(q);  // before anything is written past the buffer
        }
        comm.exchange(parts, bytes, send, recv);
    }
    // 4. build, each part's records read part by part
    auto S = empty_store(parts, rows, cols, nrows, ncols, type, pattern, opt);
    agree(parts, [&] {
        for (int32_t q = 0; q < P; ++q) {
            if (!parts.holds(q)) continue;
            if (filled[q] != total[q]) received_wrong(q);
            std::stable_sort(pieces[q].begin(), pieces[q].end(), [](const Piece &x, const Piece &y) { return x.from < y.from; });
            std::vector<std::pair<int64_t, int64_t>> order;
            for (const Piece &pc : pieces[q]) order.emplace_back(pc.first, pc.count);
            ShareBuilder::Blocks built = b[q]->build(order, rows->size(q), cols->offset[q], cols->size(q), opt);
            b[q].reset();
            PartBlock &blk = S->blocks[q];
            blk.local = std::move(built.local);
            blk.remote = std::move(built.remote);
            blk.row_length = std::move(built.row_length);
        }
    });
    sum_block_totals(*S);
    return S;
}

}  // namespace dist
}  // namespace psv
