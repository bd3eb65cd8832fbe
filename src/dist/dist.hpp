// The partitioned layer: matrices and vectors of a multi-part context (psv_context_create_multi)
// split over its parts, each part a Backend of its own (src/cpu or cuda/). Written over the
// Backend and AlgoSteps interfaces only, so the same code runs P parts of the CPU backend in one
// process (CI) and P CUDA parts; the exchange between parts is a copy (Backend::copy within one
// memory space, staged through the host otherwise) within a process, and through a Comm
// (comm.hpp: sockets, NCCL) between the ranks of psv_context_create_rank, where each process
// holds one part: loops run over the parts this process holds, and every step that spans parts
// is a collective of the Comm.
//
//  - layout.cpp:  which part owns each index, and the order of each part's piece.
//  - matrix.cpp:  PartitionedStore, a MatrixStore whose rows are split by the bitonic layout,
//                 each part's rows held as a local and a remote column block.
//  - vector.cpp:  pieces of vectors: allocation, copies between parts, host gathers/scatters,
//                 redistribution from one layout to another.
//  - product.cpp: the product (local block, all-gather of x, remote block) and psv_mxv's
//                 partitioned form.
//  - algorithms.cpp: PageRank, HITS and random walk with restart over the parts.
//  - build.cpp:   a matrix built from chunks delivered in each part's memory (chunks.hpp).
//  - stages.hpp:  the product's stages run alone (the benchmark's time split).
//  - comm.cpp, socket.cpp: the exchanges between parts and between ranks.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/objects.hpp"

namespace psv {
namespace dist {

// A partition of the indices 0 .. n-1 over nparts parts. The gathered order is the pieces
// concatenated in part order: piece p holds the gathered positions offset[p] .. offset[p+1]-1,
// position k being the global index global[k]. An empty `global` means the identity (contiguous
// blocks).
struct Layout {
    int64_t n = 0;
    int32_t nparts = 1;
    std::vector<int64_t> offset;    // nparts + 1
    std::vector<int32_t> global;    // gathered position -> global index (empty: identity)
    std::vector<int32_t> position;  // global index -> gathered position (empty: identity)

    int64_t size(int32_t p) const { return offset[p + 1] - offset[p]; }
    int64_t global_of(int64_t pos) const { return global.empty() ? pos : global[pos]; }
    int64_t position_of(int64_t g) const { return position.empty() ? g : position[g]; }
    int32_t owner_of_position(int64_t pos) const;
    bool same(const Layout &o) const;
};
using LayoutPtr = std::shared_ptr<const Layout>;

// Contiguous, equal blocks (the first n % nparts parts one index longer): user vectors' layout.
LayoutPtr block_layout(int64_t n, int32_t nparts);
// The seed paper's bitonic partition of rows by their lengths: rows sorted by length (longest
// first, ties by index), dealt nparts at a time, the direction reversing every round, so every
// part has n / nparts rows (+1) and near-equal entries. Each piece is in ascending index order.
LayoutPtr bitonic_layout(const std::vector<int64_t> &row_length, int32_t nparts);

// ---- copies between parts (the exchange) ----
// bytes from src (in src_be's memory) to dst (in dst_be's memory).
void copy_between(Backend &dst_be, void *dst, Backend &src_be, const void *src, size_t bytes);

// ---- vectors ----
// The pieces of a vector of `type` in layout L: values and presence (nothing present).
void allocate_pieces(const PartSet &parts, const Layout &L, psv_type type,
                     std::vector<Buffer> &values, std::vector<Buffer> &present);
// The whole vector on the host in global order: values (n * type size) and, where the vector is
// not full, presence (n bytes; else left empty).
void gather_host(const PartSet &parts, const psv_vector &v, std::vector<uint8_t> &values,
                 std::vector<uint8_t> &present);
// Host arrays in global order into pieces of layout L (present may be nullptr: not written).
void scatter_host(const PartSet &parts, const Layout &L, psv_type type, const uint8_t *values,
                  const uint8_t *present, std::vector<Buffer> &piece_values, std::vector<Buffer> &piece_present);
// v's values and presence in layout L: v's own buffers where v has that layout already (then
// `values`/`present` stay empty), else copies (staged through the host) kept in them. The
// pointers to use are returned in vals/pres (pres entries nullptr where v is full).
void pieces_in(const PartSet &parts, const psv_vector &v, const LayoutPtr &L,
               std::vector<Buffer> &values, std::vector<Buffer> &present, std::vector<const void *> &vals,
               std::vector<const uint8_t *> &pres);
// Element i (global) of a partitioned vector: its part and position in that part's piece.
void locate(const psv_vector &v, int64_t i, int32_t &part, int64_t &local);

// ---- matrices ----
// Per part: its rows (the row layout's piece, in that order) as two stores of the part's
// backend: `local`, the entries whose columns the part owns in the column layout (columns
// renumbered to positions in the part's piece of x), and `remote`, the others (columns
// renumbered to positions in the gathered x of every part).
struct PartBlock {
    std::unique_ptr<MatrixStore> local, remote;
    std::vector<int64_t> row_length;  // per row of the piece: its entries, both blocks
};

class PartitionedStore : public MatrixStore {
public:
    PartSet parts;
    LayoutPtr rows, cols;  // row layout (bitonic) and column layout (that of x in A x)
    std::vector<PartBlock> blocks;  // empty blocks for the parts other ranks hold
    bool exchanges = false;         // some part (of any rank) has a remote block

    void rebuild(const FormatOptions &opt) override;
    void info(psv_matrix_info &out) const override;
    int64_t device_bytes() const override;
    int32_t tile_count() const override;
    void tile_info(int32_t tile, psv_tile_info &out) const override;
    void extract_tuples(int64_t *rows_host, int64_t *cols_host, void *values_host) const override;
    // Into part 0's memory, in global row order.
    void inverse_row_lengths(float *out) const override;
    std::unique_ptr<MatrixStore> transposed() const override;
    std::unique_ptr<MatrixStore> symmetric_pattern() const override;

    // 1 / (row length) for every row (0 for an empty one), host array in global row order.
    std::vector<float> inverse_row_lengths_host() const;
    // Per part p, 1 / (row length) in row layout L (a layout of this matrix's rows, 0 for an
    // empty row), in part p's memory.
    // Computed once per layout and kept (the matrix does not change): PageRank and RWR call it
    // every time, and making it gathers every row length.
    std::shared_ptr<const std::vector<Buffer>> inverse_row_lengths_in(const LayoutPtr &L) const;

private:
    mutable std::vector<std::pair<LayoutPtr, std::shared_ptr<const std::vector<Buffer>>>> inverse_cache_;

public:
};

// The partitioned form of a matrix from shares of its entries: shares[p] (held p) a CSR of the
// whole shape in global indices, any split (an entry in two shares combines by dup, in part
// order). Rows by `rows`, or (nullptr) the bitonic layout of the shares' summed row lengths;
// columns by `cols`, or (nullptr) the row layout for a square matrix and equal blocks otherwise.
// Each share's tuples go to the parts owning their rows (Comm::all_to_all), where the blocks are
// built.
std::unique_ptr<PartitionedStore> partition_shares(const PartSet &parts, std::vector<CsrHost> &&shares,
                                                   int64_t nrows, int64_t ncols, psv_type type, bool pattern,
                                                   const FormatOptions &opt, LayoutPtr cols, psv_op dup,
                                                   LayoutPtr rows = nullptr);
// The whole matrix in this process (a multi-part context, or every rank reading one file): each
// held part takes an equal run of its entries as its share.
std::unique_ptr<PartitionedStore> partition(const PartSet &parts, CsrHost &&csr, const FormatOptions &opt,
                                            LayoutPtr cols = nullptr);
// This rank's share (a rank context's psv_matrix_build).
std::unique_ptr<PartitionedStore> partition_share(const PartSet &parts, CsrHost &&mine, const FormatOptions &opt,
                                                  psv_op dup);
// A store of these layouts and shape whose blocks (one per part) are still to be built.
std::unique_ptr<PartitionedStore> empty_store(const PartSet &parts, LayoutPtr rows, LayoutPtr cols, int64_t nrows,
                                              int64_t ncols, psv_type type, bool pattern, const FormatOptions &opt);
// S's entries, empty rows and whether any part exchanges, summed over every rank's blocks.
void sum_block_totals(PartitionedStore &S);
// The same matrix with its columns laid out by `cols` (x in that layout needs no
// redistribution); the rows keep their bitonic layout.
std::unique_ptr<PartitionedStore> with_columns(const PartitionedStore &M, LayoutPtr cols);
// Part p's entries (held p) in global indices, values too where v is given (1s for a pattern).
void own_tuples(const PartitionedStore &M, int32_t p, std::vector<int64_t> &r, std::vector<int64_t> &c,
                std::vector<uint8_t> *v);
// Run f, this process's part of a step that may fail on one rank alone; then every rank fails
// alike where any did (the first failing part's status and message), so none waits on a
// collective the failed one never reaches.
void agree(const PartSet &parts, const std::function<void()> &f);
inline const PartitionedStore *as_partitioned(const MatrixStore &M) {
    return dynamic_cast<const PartitionedStore *>(&M);
}

// ---- products ----
// t = M (+).(x) x over the parts: x's pieces in M.cols layout, t's in M.rows layout; per part
// the local block's product, the exchange (all-gather of x into a full-length buffer), the
// remote block's product, combined with the add. a.A, a.u*, a.t* are ignored (per part below);
// t_present empty: x is full and absent entries of t hold the add identity.
void product(const PartitionedStore &M, const SpmvArgs &a, const std::vector<const void *> &x,
             const std::vector<const uint8_t *> &x_present, const std::vector<void *> &t,
             const std::vector<uint8_t *> &t_present);
// T = M (+).(second) U for k fp32 vectors at once (n x k blocks, row-major, per part).
void product_pattern_k(const PartitionedStore &M, int32_t k, const std::vector<const float *> &U,
                       const std::vector<float *> &T);

// psv_mxv on a multi-part context (arguments checked by the shim): w adopts M's row layout.
struct MxvArgs {
    psv_op add = PSV_PLUS, mul = PSV_TIMES, accum = PSV_NOOP;  // canonical
    psv_type type = PSV_FP32;
    bool complement = false, structure = false, replace = false;
};
void mxv(psv_vector *w, const psv_vector *mask, const MxvArgs &m, const PartitionedStore &M, const psv_vector *u);

// ---- algorithms (results: pieces in `layout`) ----
struct Result {
    LayoutPtr layout;
    std::vector<Buffer> pieces;
};
// personal: n fp32 host values summing to 1, or nullptr (uniform).
bool pagerank(const PartitionedStore &A, const PartitionedStore &AT, double damping, double tolerance,
              int32_t max_iterations, const float *personal, Result &rank, int32_t &iterations);
bool hits(const PartitionedStore &A, const PartitionedStore &AT, double tolerance, int32_t max_iterations,
          Result &hubs, Result &authorities, int32_t &iterations);
// k queries on S (the symmetric pattern, partitioned): relevance_host n x k (row-major) and
// iterations[j] as rwr_device gives them.
bool rwr(const PartitionedStore &S, const int64_t *queries, int32_t k, double c, double tolerance,
         int32_t max_iterations, std::vector<float> &relevance_host, int32_t *iterations);

}  // namespace dist
}  // namespace psv
