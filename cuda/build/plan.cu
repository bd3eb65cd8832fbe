// CudaMatrix::rebuild: the kernel's plan chosen by the rules of the matrix's tuning policy, and
// built. PSV_KERNEL_AUTO runs the CSR chunk kernel everywhere (it is ahead of the tile-composite
// one on every matrix of the benchmark set), over rank-ordered columns and with hot columns of x
// in shared memory where the rules below pick them; the tile kernels get the padded form.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/clock.hpp"
#include "cuda/build/build.cuh"

namespace psv {
namespace cuda {

namespace {

// The columns follow a power law: the longest at least power_law_ratio times the mean (a few
// columns carry most entries).
bool power_law(const CudaMatrix &M, const ColumnStats &cs, const Policy &p) {
    if (M.nvals == 0 || M.ncols == 0) return false;
    const double mean = (double)M.nvals / (double)M.ncols;
    return (double)cs.max_col_length >= p.power_law_ratio * mean;
}
// Column rank order pays where the columns follow a power law and x is too large for the L2
// cache to hold it while the entries stream past (more than `share` of L2): gathered in rank
// order, the hot part of x shares cache lines. The rule, for an input of x_bytes.
bool rank_order_pays(const CudaMatrix &M, const ColumnStats &cs, const Policy &p, double x_bytes, double share) {
    return power_law(M, cs, p) && x_bytes > share * (double)p.l2_bytes;
}

// PSV_KERNEL_AUTO's column order: ranked where x exceeds rank_order_l2_share of L2, or
// rank_order_l2_share_hot under the hot-column kernel (hot > 0), where the columns follow a power
// law; the policy's rank_order_always ranks every matrix with entries.
bool auto_ranked(const CudaMatrix &M, const ColumnStats &cs, const Policy &p, int64_t hot) {
    if (p.rank_order_always) return M.nvals > 0 && M.ncols > 0;
    const double x_bytes = (double)M.ncols * (double)(M.pattern ? 4 : type_size(M.type));
    return rank_order_pays(M, cs, p, x_bytes, hot > 0 ? p.rank_order_l2_share_hot : p.rank_order_l2_share);
}

// How many of a ranked plan's columns keep their rank (ChunkPlan::ranked_prefix): all of them for
// the plain chunk kernel; under the hot kernel those whose x, in rank order, fits in 1 /
// ranked_prefix_l2_parts of L2 (at least the hot ones). The tail of a power-law matrix's columns
// (length 1-2, most of R-MAT's) gets no reuse from rank order, while gathering it costs each
// product a random read per column: those entries read x from u itself.
int64_t auto_ranked_prefix(const CudaMatrix &M, const Policy &p, int64_t hot, size_t vb) {
    if (hot == 0) return M.ncols;
    if (p.ranked_prefix >= 0) return std::max<int64_t>(hot, p.ranked_prefix);
    return std::max<int64_t>(hot, (int64_t)(p.l2_bytes / (p.ranked_prefix_l2_parts * vb)));
}

// PSV_KERNEL_AUTO's hot columns (csr_hot_kernel: x at those columns read from shared memory): on
// a power-law matrix of values of at most hot_max_value_bytes with at least hot_chunks_per_block
// chunks per hot-kernel block (its copy of the hot values, once per block and product, must be
// spread over enough entries), the columns of length >= hot_min_length, at most hot_max (a larger
// set takes L1 space the next-warmest columns of x use). The policy's hot_columns forces a count.
int64_t auto_hot(const CudaMatrix &M, const ColumnStats &cs, const Policy &p, size_t vb) {
    const int64_t cap = std::min<int64_t>(M.ncols, p.hot_capacity(vb));
    if (M.nvals == 0) return 0;
    if (p.hot_columns >= 0) return std::min<int64_t>(cap, p.hot_columns);
    const int64_t chunks = (M.nvals + kChunkEntries - 1) / kChunkEntries;
    if (!power_law(M, cs, p) || vb > (size_t)p.hot_max_value_bytes ||
        chunks < p.hot_chunks_per_block * (int64_t)kHotBlocksPerSm * p.sms)
        return 0;
    const int64_t h = std::min<int64_t>({cap, p.hot_max, cs.hot_columns});
    return h >= 32 ? h : 0;
}

// PSV_KERNEL_AUTO streams (PSV_KERNEL_STREAM), where the policy lets it (stream_auto), a
// power-law matrix of at least stream_min_entries entries of values of at most
// stream_max_value_bytes whose x exceeds stream_l2_share of L2 (the device policy: any x): the
// chunk kernels' random reads of x are bound by the L2's random-read rate, and on power-law
// graphs of that size the streamed product's bytes cost less than those reads even where x fits
// in L2.
// The rule's bounds on the size alone (may_stream reads them without the column statistics).
bool stream_sized(const CudaMatrix &M, const Policy &p) {
    return p.stream_auto && M.nvals >= p.stream_min_entries && M.nvals <= (int64_t)UINT32_MAX;
}
bool auto_stream(const CudaMatrix &M, const ColumnStats &cs, const Policy &p, size_t vb) {
    const double x_bytes = (double)M.ncols * (double)vb;
    return stream_sized(M, p) && power_law(M, cs, p) && (int64_t)vb <= p.stream_max_value_bytes &&
           x_bytes > p.stream_l2_share * (double)p.l2_bytes;
}

// The CSR's bytes (row pointer, columns and values of vb bytes unless a pattern).
double csr_bytes(const CudaMatrix &M, size_t vb) {
    return 8.0 * (double)(M.nrows + 1) + (4.0 + (M.pattern ? 0.0 : (double)vb)) * (double)M.nvals;
}

// AUTO's ranked and hot plans store a 4-byte column code per entry beside the CSR: only where
// the CSR with it and an algorithm's working set beside them (kWorkingBytesPerRow: PageRank's
// four vectors and the push product's sums) stay within plan_memory_share of the device's
// memory (a constant of the device, so the plan, and with it every result, is the same run to
// run); beyond, the plain plan reads the CSR's own columns and the matrix keeps its lean
// footprint. The push product reads the CSR's columns either way.
constexpr double kWorkingBytesPerRow = 24.0;
// A plan of `extra` bytes beside the CSR and that working set within plan_memory_share.
bool fits_beside_csr(const CudaMatrix &M, const Policy &p, size_t vb, double extra) {
    const double working = kWorkingBytesPerRow * (double)std::max(M.nrows, M.ncols);
    return csr_bytes(M, vb) + extra + working <= p.plan_memory_share * (double)p.global_bytes;
}
bool encoded_columns_fit(const CudaMatrix &M, const Policy &p, size_t vb) {
    return fits_beside_csr(M, p, vb, 4.0 * (double)M.nvals);
}

// PSV_KERNEL_AUTO's SELL-32 rule (Policy::sell_auto and below): where its size bounds hold and
// the columns follow no power law, the slots are counted (one pass over the row pointer), and
// AUTO takes SELL where they pad the entries by at most sell_max_padding and fit.
bool sell_sized(const CudaMatrix &M, const Policy &p) {
    return p.sell_auto && M.nvals >= p.sell_min_entries && (double)M.nvals >= p.sell_min_row_mean * (double)M.nrows;
}
// Slots at most sell_max_padding x the entries, the plan (each slot's column and value, each
// slice's group offset) fitting beside the CSR.
bool sell_pads_little(const CudaMatrix &M, const Policy &p, size_t vb, int64_t slots) {
    return slots >= 0 && (double)slots <= p.sell_max_padding * (double)M.nvals &&
           fits_beside_csr(M, p, vb, (double)SellPlan::held_bytes(M.nrows, slots, M.pattern ? 0 : vb));
}

// Lanes per row for the CSR (vector) kernel: about csr_entries_per_lane entries per lane for a
// row of mean length, a power of two from 2 to 32.
int32_t csr_lanes_for(const Policy &p, int64_t nvals, int64_t nrows) {
    const double mean = nrows > 0 ? (double)nvals / (double)nrows : 0.0;
    int32_t g = 2;
    while (g < 32 && (double)p.csr_entries_per_lane * g < mean) g *= 2;
    return g;
}

// The tile-composite form fits beside the matrix (as summary() asks of a described form).
bool form_fits(const CudaMatrix &M, const Policy &p, size_t vb) {
    return M.nvals <= (int64_t)UINT32_MAX && csr_bytes(M, vb) + M.form_construction_bytes() <= p.plan_memory_share * (double)p.global_bytes;
}

// The hot count a plan holds: at most what shared memory holds and the matrix's columns.
int64_t hot_cap(const CudaMatrix &M, const Policy &p, size_t vb) {
    return std::min<int64_t>(M.ncols, p.hot_capacity(vb)) / 32 * 32;
}

// The chunk-plan candidate of `hot` hot columns, ranked or not (the ranked prefix as AUTO's rule
// keeps it).
tuning::Plan chunk_candidate(const CudaMatrix &M, const Policy &p, size_t vb, int64_t hot, bool ranked) {
    tuning::Plan c;
    c.family = hot > 0 ? tuning::Family::Hot : tuning::Family::Chunk;
    c.hot = hot;
    c.ranked = ranked;
    if (ranked) {
        Policy q = p;
        q.ranked_prefix = -1;
        c.prefix = std::min<int64_t>(M.ncols, auto_ranked_prefix(M, q, hot, vb));
    }
    return c;
}

}  // namespace

bool may_stream(const CudaMatrix &M, const FormatOptions &opt, const Policy &p) {
    if (M.nvals <= 0 || M.nvals > (int64_t)UINT32_MAX) return false;
    return opt.kernel == PSV_KERNEL_STREAM || (opt.kernel == PSV_KERNEL_AUTO && (stream_sized(M, p) || p.stream_in_model));
}

tuning::DeviceShape device_shape(const CudaBackend &be) {
    const DeviceTraits &t = be.traits();
    tuning::DeviceShape d;
    d.name = t.name;
    d.cc_major = t.cc_major;
    d.cc_minor = t.cc_minor;
    d.sms = t.sms;
    d.l2_bytes = (int64_t)t.l2_bytes;
    d.smem_per_sm = (int64_t)t.smem_per_sm;
    return d;
}

tuning::KernelShape kernel_shape(const Policy &p) {
    tuning::KernelShape k;
    k.chunk_entries = kChunkEntries;
    k.chunk_smem_per_sm = (int64_t)kChunkBlocksManyWaves * ((int64_t)(kChunkCap + 4) * 4 + kChunkDeferredMax * 4 + 4);
    k.hot_blocks = kHotBlocksPerSm * p.sms;
    k.hot_blocks_per_sm = kHotBlocksPerSm;
    k.hot_fixed_smem = (int64_t)kHotGroups * ((int64_t)kChunkCap * 4 + kChunkDeferredMax * 4 + 4) + (int64_t)p.hot_smem_reserve;
    k.l1_total = (int64_t)p.smem_per_sm + 28 * 1024;  // Hopper: 256 KB of L1 and shared memory per SM
    k.stream_rows = p.stream_rows;
    k.stream_parts_per_sm = p.stream_parts_per_sm;
    k.stream_slots = p.stream_shape(INT32_MAX, 4).slots;
    return k;
}

tuning::MatrixStats model_stats(const CudaMatrix &M, const ColumnStats &cs, size_t vb) {
    tuning::MatrixStats s;
    s.nrows = M.nrows;
    s.ncols = M.ncols;
    s.nnz = M.nvals;
    s.value_bytes = (int32_t)vb;
    s.weighted = !M.pattern;
    s.max_row_length = M.max_row_length;
    s.near_entries = cs.near_entries;
    s.col_lengths = cs.profile;
    return s;
}

std::vector<tuning::Plan> auto_candidates(const CudaMatrix &M, const Policy &p, size_t vb, const FormatOptions &opt,
                                          int64_t sell_slots) {
    std::vector<tuning::Plan> c;
    auto add = [&](const tuning::Plan &x) {
        if (opt.hot_columns >= 0 && x.hot != std::min(opt.hot_columns, hot_cap(M, p, vb))) return;
        if (opt.rank_order >= 0 && (x.family != tuning::Family::Chunk && x.family != tuning::Family::Hot)) return;
        if (opt.hot_columns >= 0 && (x.family != tuning::Family::Chunk && x.family != tuning::Family::Hot)) return;
        if (opt.rank_order >= 0 && x.ranked != (opt.rank_order == 1)) return;
        for (const tuning::Plan &y : c)
            if (y == x) return;
        c.push_back(x);
    };
    if (M.nvals == 0) return c;
    const bool enc = encoded_columns_fit(M, p, vb);
    add(chunk_candidate(M, p, vb, 0, false));
    if (enc || opt.rank_order == 1) add(chunk_candidate(M, p, vb, 0, true));
    const int64_t cap = hot_cap(M, p, vb);
    if ((enc && (int64_t)vb <= p.hot_max_value_bytes && cap >= 32) || opt.hot_columns > 0) {
        std::vector<int64_t> hs;
        for (int i = 0; i < p.hot_candidate_steps; ++i) hs.push_back(std::min(cap, p.hot_candidate_min << i));
        if (opt.hot_columns > 0) hs.push_back(std::min(cap, opt.hot_columns));
        for (int64_t h : hs) {
            if (h < 32) continue;
            add(chunk_candidate(M, p, vb, h, false));
            add(chunk_candidate(M, p, vb, h, true));
        }
    }
    // the streamed product where the policy lets the model choose it (stream_in_model: off, the
    // rule auto_stream chooses it; the tuner measures it everywhere)
    if (p.stream_in_model && M.nvals <= (int64_t)UINT32_MAX && (int64_t)vb <= p.stream_max_value_bytes &&
        p.stream_shape(M.nrows, vb).slots >= 1024) {
        tuning::Plan x;
        x.family = tuning::Family::Stream;
        add(x);
    }
    if (sell_pads_little(M, p, vb, sell_slots)) {
        tuning::Plan x;
        x.family = tuning::Family::Sell;
        add(x);
    }
    if (form_fits(M, p, vb)) {
        const FormParams fp = form_params(opt, p, vb, false);
        for (int64_t mt : {(int64_t)0, (int64_t)-1}) {
            tuning::Plan x;
            x.family = tuning::Family::Tile;
            x.tile_width = fp.tile_width;
            x.max_tiles = mt;
            x.workload_size = opt.workload_size;
            add(x);
        }
        tuning::Plan x;
        x.family = tuning::Family::TileCoo;
        x.tile_width = fp.tile_width;
        add(x);
    }
    return c;
}

FormatOptions options_for(const tuning::Plan &plan) {
    FormatOptions o;
    switch (plan.family) {
    case tuning::Family::Chunk:
    case tuning::Family::Hot:
        o.kernel = PSV_KERNEL_AUTO;
        o.hot_columns = plan.hot;
        o.rank_order = plan.ranked ? 1 : 0;
        break;
    case tuning::Family::Stream: o.kernel = PSV_KERNEL_STREAM; break;
    case tuning::Family::Tile:
        o.kernel = PSV_KERNEL_TILE_COMPOSITE;
        o.max_tiles = plan.max_tiles;
        o.tile_width = plan.tile_width;
        o.workload_size = plan.workload_size;
        break;
    case tuning::Family::TileCoo:
        o.kernel = PSV_KERNEL_TILE_COO;
        o.tile_width = plan.tile_width;
        break;
    case tuning::Family::Sell: o.kernel = PSV_KERNEL_SELL; break;
    }
    return o;
}

FormParams form_params(const FormatOptions &opt, const Policy &p, size_t vb, bool want_coo) {
    FormParams f;
    f.tile_width = opt.tile_width > 0 ? opt.tile_width : p.tile_width_for(vb);
    f.max_tiles = (opt.max_tiles < 0 && opt.tile_width <= 0) ? p.default_max_tiles : opt.max_tiles;
    f.workload_size = opt.workload_size;
    f.want_coo = want_coo;
    return f;
}

// Everything is built into locals and committed at the end: on failure the old plan and form
// stay.
void CudaMatrix::rebuild_from(const FormatOptions &opt, const CudaMatrix *transposed_from) {
    be_->activate();
    if (!transposed_from) need_csr();  // a plan of its own reads its own entries
    auto t0 = std::chrono::steady_clock::now();
    const Policy p = be_->policy();
    const size_t vb = pattern ? 4 : type_size(type);
    const FormParams fp = form_params(opt, p, vb, opt.kernel == PSV_KERNEL_TILE_COO);
    if (fp.tile_width <= 0) fail(PSV_ERROR_INVALID_VALUE, "tile width must be positive");
    psv_kernel k = opt.kernel;
    {
        const bool tiles = k == PSV_KERNEL_TILE_COMPOSITE || k == PSV_KERNEL_TILE_COO;
        if ((tiles || k == PSV_KERNEL_STREAM) && nvals > (int64_t)UINT32_MAX)
            fail(PSV_ERROR_NOT_IMPLEMENTED, format("the %s holds at most 2^32 - 1 entries (32-bit entry indices); this "
                                                   "matrix has %lld: PSV_KERNEL_AUTO or PSV_KERNEL_CSR serve it",
                                                   tiles ? "tile-composite form" : "streamed plan", (long long)nvals));
        if (opt.progress && nvals > p.progress_min_entries)
            std::fprintf(stderr, "psv: building the %s of %lld entries on the GPU...\n",
                         tiles ? "tile-composite form" : "SpMV plan", (long long)nvals);
    }
    const tuning::Table *table = be_->tuning_table();
    const tuning::KernelShape kshape = kernel_shape(p);
    const tuning::DeviceShape dshape = device_shape(*be_);
    // the column ranking: its statistics are the model's input (every kernel), and AUTO's plans
    // read it
    ColumnStats cs;
    Buffer order, lengths;
    if (nvals > 0 && (k == PSV_KERNEL_AUTO || table))
        cs = rank_columns(*be_, *this, p.hot_min_length, order, nullptr, nullptr, transposed_from, !csr_pending(), &lengths);
    const auto t_model = std::chrono::steady_clock::now();
    const tuning::MatrixStats ms = model_stats(*this, cs, vb);
    // SELL-32's slots, where AUTO's rule may take it (the slices' offsets kept for its build)
    SellSlots sell_count;
    const bool sell_counted = k == PSV_KERNEL_AUTO && nvals > 0 && sell_sized(*this, p) && !power_law(*this, cs, p);
    if (sell_counted) sell_count = sell_slot_count(*be_, *this);
    const int64_t sell_slots = sell_counted ? sell_count.slots : -1;
    // the candidates AUTO may choose among, ranked by the model's time where there is a table
    const std::vector<tuning::Plan> cands = auto_candidates(*this, p, vb, opt, sell_slots);
    std::vector<tuning::Ranked> ranking;
    if (table) ranking = tuning::rank_plans(*table, ms, cands, kshape, dshape);
    const bool forced = p.hot_columns >= 0 || p.rank_order_always || p.ranked_prefix >= 0;  // tests' and bench's
    tuning::Plan chosen;
    // the streamed product by its measured rule, ahead of the model (its coefficients for the
    // rewritten streamed product are not yet checked against the exhaustive bench: docs/design.md,
    // section 6)
    const bool stream_rule = auto_stream(*this, cs, p, vb) && opt.hot_columns < 0 && opt.rank_order < 0;
    // SELL-32 likewise by its rule (it has no coefficients in the shipped tables)
    const bool sell_rule = sell_pads_little(*this, p, vb, sell_slots) && opt.hot_columns < 0 && opt.rank_order < 0;
    if (k == PSV_KERNEL_AUTO && nvals > 0 && sell_rule && !forced) {
        chosen.family = tuning::Family::Sell;
    } else if (k == PSV_KERNEL_AUTO && nvals > 0 && stream_rule && !forced) {
        chosen.family = tuning::Family::Stream;
    } else if (k == PSV_KERNEL_AUTO && nvals > 0 && opt.plan_choice == PSV_CHOICE_MODEL && !ranking.empty() && !forced) {
        chosen = ranking.front().plan;
    } else if (k == PSV_KERNEL_AUTO) {
        // the rules (PSV_CHOICE_RULES, no table, or a policy's forced plan); options override them
        if (stream_rule) {
            chosen.family = tuning::Family::Stream;
        } else {
            int64_t hot = 0;
            bool ranked = false;
            if (encoded_columns_fit(*this, p, vb) || opt.hot_columns > 0 || opt.rank_order == 1) {
                hot = opt.hot_columns >= 0 ? std::min(opt.hot_columns, hot_cap(*this, p, vb)) : auto_hot(*this, cs, p, vb);
                ranked = opt.rank_order >= 0 ? opt.rank_order == 1 : auto_ranked(*this, cs, p, hot);
            }
            chosen.family = hot > 0 ? tuning::Family::Hot : tuning::Family::Chunk;
            chosen.hot = hot;
            chosen.ranked = ranked;
            chosen.prefix = ranked ? auto_ranked_prefix(*this, p, hot, vb) : 0;
        }
    } else {
        // an explicit kernel: the plan it builds, priced
        const FormParams fq = form_params(opt, p, vb, k == PSV_KERNEL_TILE_COO);
        chosen.family = k == PSV_KERNEL_STREAM         ? tuning::Family::Stream
                        : k == PSV_KERNEL_SELL           ? tuning::Family::Sell
                        : k == PSV_KERNEL_TILE_COMPOSITE ? tuning::Family::Tile
                        : k == PSV_KERNEL_TILE_COO       ? tuning::Family::TileCoo
                                                         : tuning::Family::Chunk;
        chosen.tile_width = chosen.family == tuning::Family::Tile || chosen.family == tuning::Family::TileCoo ? fq.tile_width : 0;
        chosen.max_tiles = chosen.family == tuning::Family::Tile ? fq.max_tiles : 0;
        chosen.workload_size = chosen.family == tuning::Family::Tile ? fq.workload_size : 0;
    }
    // the prediction of the chosen plan, and the runner-up: the best other candidate
    double predicted = 0, runner_ms = 0;
    tuning::Plan runner;
    int32_t ncand = 0;
    if (table && nvals > 0) {
        predicted = std::max(0.0, tuning::predict(*table, ms, chosen, kshape, dshape));
        bool in = false, have_runner = false;
        for (const tuning::Ranked &r : ranking) {
            if (r.plan == chosen) {
                in = true;
            } else if (!have_runner) {
                runner = r.plan;
                runner_ms = r.ms;
                have_runner = true;
            }
        }
        ncand = (int32_t)ranking.size() + (in ? 0 : 1);
        if (!have_runner) ncand = std::min<int32_t>(ncand, 1);
    }
    const double model_s = seconds_since(t_model) + cs.profile_seconds;
    // the kernel and plan parameters of the chosen plan
    bool ranked = false;
    int64_t hot = 0, prefix = ncols;
    FormatOptions fopt = opt;
    switch (chosen.family) {
    case tuning::Family::Chunk:
    case tuning::Family::Hot:
        if (k == PSV_KERNEL_AUTO) {
            hot = chosen.hot;
            ranked = chosen.ranked;
            prefix = ranked ? chosen.prefix : ncols;
        }
        k = PSV_KERNEL_CSR;
        break;
    case tuning::Family::Stream: k = PSV_KERNEL_STREAM; break;
    case tuning::Family::Tile:
        k = PSV_KERNEL_TILE_COMPOSITE;
        fopt.max_tiles = chosen.max_tiles;
        if (fopt.tile_width <= 0) fopt.tile_width = chosen.tile_width;
        break;
    case tuning::Family::TileCoo: k = PSV_KERNEL_TILE_COO; break;
    case tuning::Family::Sell: k = PSV_KERNEL_SELL; break;
    }
    // a transpose without its entries (transposed()) keeps them unbuilt only under the streamed
    // plan; any other plan is chosen again once they are built (with their near-entry count)
    if (csr_pending() && k != PSV_KERNEL_STREAM) {
        need_csr();
        rebuild_from(opt, transposed_from);
        return;
    }
    const bool tiles = k == PSV_KERNEL_TILE_COMPOSITE || k == PSV_KERNEL_TILE_COO;
    if (tiles && nvals > (int64_t)UINT32_MAX)
        fail(PSV_ERROR_NOT_IMPLEMENTED, format("the tile-composite form holds at most 2^32 - 1 entries (32-bit entry "
                                               "indices); this matrix has %lld: PSV_KERNEL_AUTO or PSV_KERNEL_CSR serve it",
                                               (long long)nvals));
    std::unique_ptr<TcForm> form;
    if (tiles) {
        ColumnStats fs;
        form = std::make_unique<TcForm>();
        build_form(*be_, *this, form_params(fopt, p, vb, k == PSV_KERNEL_TILE_COO), p.hot_min_length, *form, fs);
        be_->sync();
        fs.profile = std::move(cs.profile);
        fs.near_entries = cs.near_entries;
        cs = std::move(fs);
    }
    StreamPlan sp;  // an empty matrix's STREAM runs the CSR kernel (no plan)
    // a transpose without its entries (PageRank's and HITS's A') builds its plan without values:
    // their products read none (need_stream_values builds them for a product that does)
    if (k == PSV_KERNEL_STREAM && nvals > 0) sp = build_stream_plan(*be_, *this, p, vb, transposed_from, !csr_pending());
    SellPlan sl;  // an empty matrix's SELL runs the CSR kernel (no plan)
    if (k == PSV_KERNEL_SELL && nvals > 0) sl = build_sell_plan(*be_, *this, std::move(sell_count));
    // the CSR kernel's plan (it also serves products whose input vector has absent entries)
    const int32_t lanes = csr_lanes_for(p, nvals, nrows);
    const int64_t long_min = p.csr_long_per_lane * (int64_t)lanes;
    Buffer list;
    const int64_t nlong = list_long_rows(*be_, *this, long_min, list);
    ChunkPlan cplan;  // only the CSR kernel runs chunks (run_spmv)
    if (k == PSV_KERNEL_CSR) cplan = build_chunk_plan(*be_, *this, p, std::move(order), ranked, prefix, hot, vb);
    kernel = k;
    policy = p;
    columns = cs;
    plan = chosen;
    predicted_ms = predicted;
    runner_up = runner;
    runner_up_ms = runner_ms;
    plan_candidates = ncand;
    model_seconds = model_s;
    ranking_ = std::move(ranking);
    form_ = std::move(form);
    summary_.reset();
    spmm_layout_ = SpmmLayout();
    if (lengths.get()) column_lengths = std::move(lengths);  // else those of an earlier rebuild (the entries are the same)
    chunks = std::move(cplan);
    stream = std::move(sp);
    sell = std::move(sl);
    csr_lanes = lanes;
    csr_long_min = long_min;
    long_rows = std::move(list);
    n_long_rows = nlong;
    options = opt;
    build_seconds = seconds_since(t0);
    if (opt.progress && build_seconds > 1.0)
        std::fprintf(stderr, "psv: built in %.2f s (%s)\n", build_seconds, plan_description().c_str());
}

}  // namespace cuda
}  // namespace psv
