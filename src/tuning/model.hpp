// The measured performance model (the seed paper's section 3.3): a per-device table of
// coefficients fitted to microbenchmarks (psv_context_tune, cuda/tuning/tune.cu), and the online
// half that predicts a candidate plan's time from the matrix's statistics (gathered while its
// columns are ranked, no extra pass over the entries) and picks the fastest. Plain C++, no CUDA:
// the CPU build and its tests use it too. docs/design.md section 6 gives the features' physics.
#pragma once
#include <array>
#include <map>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace psv {
namespace tuning {

// ---- what the model reads of a matrix ------------------------------------------------------------

struct MatrixStats {
    int64_t nrows = 0, ncols = 0, nnz = 0;
    int32_t value_bytes = 4;  // bytes of one value of x and y in the product the plan is for
    bool weighted = true;     // the matrix's values are read (false: a pattern)
    int64_t max_row_length = 0;
    // entries whose column lies within kNearBand columns of its row's position scaled to the
    // columns (row * ncols / nrows): banded matrices read x through a narrow window that stays
    // cached whatever its size
    int64_t near_entries = 0;
    // the column-length profile: (length, columns of that length), lengths descending, every
    // column once (zero-length columns included)
    std::vector<std::pair<int64_t, int64_t>> col_lengths;

    // Entries in the k longest columns (k may be fractional, then interpolated).
    double top_entries(double k) const;
    // Columns of length >= len.
    int64_t columns_at_least(int64_t len) const;
    // The streamed plan's expected (partition, column) pairs over `parts` partitions: each column
    // of length L outside the `hot` longest lands in parts (1 - (1 - 1/parts)^L) of them (rows
    // placed at random, as after a random relabelling).
    double expected_pairs(int64_t parts, int64_t hot) const;
};
constexpr int64_t kNearBand = 65536;

// ---- the device the table is for, and what the features read of it --------------------------------

struct DeviceShape {
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sms = 0;
    int64_t l2_bytes = 0;
    int64_t smem_per_sm = 0;
};

// ---- plans ------------------------------------------------------------------------------------------

// The kernel families the model prices, one row each in families.def.
enum class Family : int32_t {
#define PSV_FAMILY(id, name, kernel, nfeat, text) id,
#include "tuning/families.def"
#undef PSV_FAMILY
};
constexpr int kFamilies = 0
#define PSV_FAMILY(id, name, kernel, nfeat, text) +1
#include "tuning/families.def"
#undef PSV_FAMILY
    ;
const char *family_name(Family f);     // the table's key ("chunk", "hot", ...)
const char *family_text(Family f);     // in words
int32_t family_kernel(Family f);       // the PSV_KERNEL_* it runs
int family_features(Family f);         // how many features (and coefficients)
bool family_from_name(const std::string &s, Family &f);

// One candidate: a family and its parameters. The CUDA backend's plan builders read them.
struct Plan {
    Family family = Family::Chunk;
    int64_t hot = 0;            // hot columns in shared memory (Hot)
    bool ranked = false;        // x read in column rank order (Chunk, Hot)
    int64_t prefix = 0;         // ranks kept by a ranked plan (the rest read x in plain order)
    int64_t max_tiles = 0;      // dense column tiles (Tile): -1 Algorithm 1's rule
    int64_t tile_width = 0;     // columns per dense tile (Tile, TileCoo)
    int64_t workload_size = 0;  // Tile: 0 autotuned per tile (Algorithm 3)
    std::string describe() const;
    // A compact key, one token ("hot:8192:r7864320", "tile:28672:-1:0"), and back.
    std::string key() const;
    static bool from_key(const std::string &k, Plan &p);
    bool operator==(const Plan &o) const;
};

// What the features read of the backend besides the device (shapes fixed at compile time).
struct KernelShape {
    int64_t chunk_entries = 2048;     // CSR chunk kernel: entries per chunk
    int64_t chunk_smem_per_sm = 0;    // ... its shared memory per SM (the rest of l1_total is L1)
    int hot_blocks = 264;             // hot kernel: persistent blocks (each copies the hot values)
    int hot_blocks_per_sm = 2;
    int64_t hot_fixed_smem = 0;       // ... shared memory per block besides the hot values
    int64_t l1_total = 256 * 1024;    // L1 and shared memory per SM
    int64_t stream_rows = 16384;      // streamed plan: rows per partition, at most
    int64_t stream_parts_per_sm = 2;  // ... fewer rows where there would be fewer partitions per SM
    int64_t stream_slots = 24608;     // ... pair slots per piece (fp32)
};

// The streamed plan's rows per partition (Policy::stream_shape starts from it; the model prices
// it): rows_cap, fewer where nrows would give fewer than parts_per_sm partitions per SM; a
// multiple of 256 from 256 to 32768.
inline int64_t stream_partition_rows(int64_t nrows, int64_t sms, int64_t rows_cap, int64_t parts_per_sm) {
    const int64_t per = (parts_per_sm > 0 ? parts_per_sm : 1) * (sms > 0 ? sms : 1);
    int64_t r = ((nrows + per - 1) / per + 255) / 256 * 256;
    if (r > rows_cap) r = rows_cap;
    if (r > 32768) r = 32768;
    return r < 256 ? 256 : r;
}

// The bytes one streamed product moves by the byte model (values of vb bytes): x read once by the
// scatter, its items (2 bytes each) and runs (8 each) read, each pair written and read, each
// entry's row and slot (4) [and value] read, the row flags and t written. The plan counts its
// runs and padded entries (StreamPlan::model_bytes); the model, before a plan exists, leaves the
// runs out and counts the entries unpadded.
inline double stream_model_bytes(double nrows, double ncols, double pairs, double runs, double entries, double vb,
                                 bool weighted) {
    return ncols * vb + 2.0 * pairs + 8.0 * runs + 2.0 * pairs * vb + 4.0 * entries + (weighted ? entries * vb : 0.0) +
           nrows / 8.0 + nrows * vb;
}

constexpr int kMaxFeatures = 12;
using Features = std::array<double, kMaxFeatures>;
// The features of `plan` on a matrix (stats) on a device: counts in millions, bytes in MB; the
// predicted time in ms is their dot product with the family's coefficients. Names for the table.
Features features(const MatrixStats &s, const Plan &plan, const DeviceShape &d, const KernelShape &k);
const char *feature_name(Family f, int i);

// ---- the table ----------------------------------------------------------------------------------------

// One microbenchmark: a plan on a synthetic matrix, a weighted or pattern product, its features
// and the measured time.
struct Sample {
    std::string matrix;  // the synthetic matrix's name, e.g. "rmat:20:16:g500"
    Plan plan;
    bool weighted = true;
    Features f{};
    double ms = 0;
    Family family() const { return plan.family; }
};

struct Table {
    DeviceShape device;
    KernelShape kernels;                              // the shapes the samples ran with
    // The coefficient sets, by variant (coef_key: a family, the hot-column kernel per hot count)
    std::map<std::string, std::vector<double>> coef;
    std::vector<Sample> samples;                      // kept so that a table can be refitted
    std::vector<std::pair<std::string, MatrixStats>> matrices;  // the samples' matrices
    // Whether some variant of family f was measured.
    bool has(Family f) const;
    // The coefficients for plan p: its variant's, else (a hot count not measured) the set of the
    // nearest hot count measured, else the family's one set ("hot"); nullptr where the family was
    // not measured.
    const std::vector<double> *coefficients(const Plan &p) const;
    // The samples' features computed again from their matrices' statistics (after a change of the
    // features; a table written by an older psv), then fit() again.
    void refeature();
};
// One line of a matrix's statistics ("stats NAME nrows ncols nnz max_row near L C L C ..."),
// and back: the table keeps its samples' matrices, the bench prints the ones it measures.
std::string stats_line(const std::string &name, const MatrixStats &s);
bool parse_stats_line(const std::string &line, std::string &name, MatrixStats &s);

// Text form (versioned; docs/design.md section 6): read back exactly what was written. parse
// returns false with a message (line number and what is wrong) on a malformed text.
std::string to_text(const Table &t);
bool parse(const std::string &text, Table &t, std::string &error);

// The coefficient set a plan is priced with: its family's name, and for the hot-column kernel
// its hot count ("hot:8192"): each hot count has its own set (their L1 and shared memory differ).
std::string coef_key(const Plan &p);
// Fit every variant with samples: non-negative least squares of the relative error (each sample
// weighted by 1 / its time, so that microsecond and second products count alike, and by
// kLargeWeight where its matrix has at least kLargeEntries entries: the regime the choice
// matters in, where launch latency no longer blurs the costs).
constexpr int64_t kLargeEntries = 10000000;
constexpr double kLargeWeight = 3.0;
void fit(Table &t);
// Non-negative least squares (Lawson and Hanson): argmin |A c - b| over c >= 0; A is rows x cols
// row-major. Exposed for the tests.
std::vector<double> nnls(const std::vector<double> &A, const std::vector<double> &b, int rows, int cols);

// Predicted ms of a plan on device d (the device the matrix is on: its cache sizes; the table
// may be another's, the nearest architecture's); negative where the table lacks its family.
double predict(const Table &t, const MatrixStats &s, const Plan &plan, const KernelShape &k, const DeviceShape &d);

// The candidates ranked by predicted time (ties: the earlier candidate): the first is the choice,
// the second the runner-up. Candidates of a family the table lacks are left out.
struct Ranked {
    Plan plan;
    double ms = 0;
};
std::vector<Ranked> rank_plans(const Table &t, const MatrixStats &s, const std::vector<Plan> &candidates,
                               const KernelShape &k, const DeviceShape &d);

// ---- where tables come from ---------------------------------------------------------------------------

// The tables compiled into the library (data/tuning/*.tbl), as texts.
const std::vector<std::pair<std::string, std::string>> &shipped_tables();  // (file name, text)
// The file name of a device's table: its name in lower case, runs of other characters as '-',
// and its compute capability ("nvidia-h200-sm90.tbl").
std::string table_file_name(const DeviceShape &d);
// The user's cache folder for tables: $XDG_CACHE_HOME/psv/tuning, else $HOME/.cache/psv/tuning;
// "" where neither is set.
std::string user_table_dir();

enum class Source : int32_t { None = 0, User = 1, Shipped = 2, Nearest = 3 };
struct Loaded {
    Table table;
    Source source = Source::None;
    std::string path;  // the user's file, or the shipped file's name
};
// The table for device d: the user's cached one for it, else the one shipped for it (same name
// and compute capability), else the shipped one of the nearest architecture (same major compute
// capability first, then the closest), else none. A cached file that does not parse is skipped.
Loaded load_table(const DeviceShape &d);
// Write t to path (its folder made where missing), atomically (a temporary renamed): false and a
// message on failure, nothing half-written left.
bool save_table(const Table &t, const std::string &path, std::string &error);

}  // namespace tuning
}  // namespace psv
