// A partitioned matrix built from tuples produced in each part's own memory, a chunk at a time
// (a device generator on each GPU): the internal entry of the benchmark and the tests (not API).
// Each part's tuples are counted, the rows laid out (the bitonic layout of the summed counts),
// and each chunk routed to its rows' owners part to part (Comm::exchange: NCCL between the
// ranks' GPUs, copies within a process), where each part builds its blocks on its own backend
// (ShareBuilder: cuda/build/share.cu, src/cpu/cpu_share.cpp). No tuple passes through the host
// on CUDA parts joined by NCCL; the host holds the row counts and the layout.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "dist/dist.hpp"

namespace psv {
namespace dist {

// One part's share: `count` tuples delivered in its memory (DeliverTuples, core/backend.hpp).
struct ChunkSource {
    int64_t count = 0;
    DeliverTuples deliver;
};

// The partitioned matrix of the shares sources[p] (held p): a negative row drops a tuple, any
// other index outside the matrix is PSV_ERROR_INVALID_INDEX (on every rank); of tuples with one
// (row, column) the one of the lowest part is kept, within a part the first delivered. Rows by
// `rows`, or (nullptr) the bitonic layout of the shares' summed row lengths (dropped tuples not
// counted); columns by `cols`, or (nullptr) the row layout (square) or equal blocks.
std::unique_ptr<PartitionedStore> build_from_chunks(const PartSet &parts, int64_t nrows, int64_t ncols, psv_type type,
                                                    bool pattern, const std::vector<ChunkSource> &sources,
                                                    const FormatOptions &opt, LayoutPtr rows = nullptr,
                                                    LayoutPtr cols = nullptr);

// A host CSR share delivered in chunks into be's memory (valid while share lives).
DeliverTuples deliver_csr(Backend &be, const CsrHost &share);
// Tuples in host arrays (indices below 2^31, values of vs bytes each or none) delivered in chunks
// into be's memory (valid while the arrays live).
DeliverTuples deliver_tuples(Backend &be, const std::vector<int64_t> &rows, const std::vector<int64_t> &cols,
                            const std::vector<uint8_t> &values, size_t vs);
// Whether partition_shares builds on the devices (build_from_chunks) rather than on the host:
// every part (of every rank) is a CUDA one and keeping the lowest part's tuple is what the build
// asks for (a pattern, or dup PSV_FIRST). Collective.
bool routes_on_devices(const PartSet &parts, bool pattern, psv_op dup);

// The same on any context (sources[p] for each part p this process holds, sources sized to the
// parts: one for a one-part context, whose matrix is then an ordinary one), wrapped in a handle
// (psv_matrix_free frees it): a status, as a psv_ call returns it (the message in
// psv_context_error).
psv_status matrix_from_chunks(psv_context *ctx, psv_type type, int64_t nrows, int64_t ncols, bool pattern,
                              const std::vector<ChunkSource> &sources, psv_matrix **A);

}  // namespace dist
}  // namespace psv
