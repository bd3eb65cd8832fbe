// Partitioning: rows or columns (psv_bench --partition P[,P...] MATRIX...), issue 19's question.
// P GPUs can split y = A x by rows -- each part holds its rows with every column, and x is
// all-gathered before the product -- or by columns -- each part holds every row with only its
// columns, so its x is n/P long, and its full-length partial y is reduce-scattered after the
// product. One GPU measures what one GPU can: each part's product timed alone (psv AUTO on the
// part built as a psv matrix, weighted and pattern, and cuSPARSE CSR_ALG1 on the same part; the
// L2 flushed before every run and x rotated beyond it, as the driver does), the local work of the
// reduce-scatter's sums, and the bytes each scheme exchanges and each part's product moves.
//
// Schemes (each dealing its indices to P parts; a part's indices keep their order):
//   rows, bitonic        the seed's rule (src/dist/layout.cpp's, re-implemented here): rows sorted
//                        by length, longest first, ties by index, dealt P per round, the
//                        direction reversing every round
//   cols, blocks         contiguous column blocks of the matrix's own labels (R-MAT's are a
//                        random relabelling)
//   cols, ranked blocks  contiguous blocks of psv's column ranking (length descending, ties by
//                        index): the heavy columns together
//   cols, bitonic        the bitonic deal of columns by column length
// A row part is also timed as src/dist/product.cpp runs it: its local block (the columns it owns)
// and then its remote block added into y (time_split).
// Every scheme's parts together give y: the row parts' pieces scattered, the column parts'
// partial ys summed in part order; that y is checked against the fp64 reference.
#include <cusparse.h>

#include <string>
#include <vector>

#include "bench/cusparse_ref.hpp"
#include "bench/device.cuh"
#include "cuda/internal.hpp"

MatrixHandle build_psv(const Csr &M, double *build_s);  // psv_bench.cu

namespace {

enum class Rule { Bitonic, Blocks, RankedBlocks };
struct Scheme {
    const char *name;
    bool by_cols;
    Rule rule;
};
const Scheme kSchemes[] = {
    {"rows, bitonic", false, Rule::Bitonic},
    {"cols, blocks", true, Rule::Blocks},
    {"cols, ranked blocks", true, Rule::RankedBlocks},
    {"cols, bitonic", true, Rule::Bitonic},
};

// ---- the deal ----------------------------------------------------------------------------------

__global__ void row_len_kernel(int64_t n, const int32_t *rp, uint32_t *len) { GLOOP(i, n) len[i] = (uint32_t)(rp[i + 1] - rp[i]); }
__global__ void col_len_kernel(int64_t m, const int32_t *col, uint32_t *len) { GLOOP(e, m) atomicAdd(len + col[e], 1u); }
__global__ void order_key_kernel(int64_t n, const uint32_t *len, uint64_t *key) {
    GLOOP(i, n) key[i] = ((uint64_t)(0xFFFFFFFFu - len[i]) << 32) | (uint64_t)i;  // length desc, index asc
}
// skey: the indices in length order; part[index] by the rule (block: indices per block)
__global__ void deal_kernel(int64_t n, const uint64_t *skey, int P, Rule rule, int64_t block, int32_t *part) {
    GLOOP(k, n) {
        const int64_t i = (int64_t)(uint32_t)skey[k];
        if (rule == Rule::RankedBlocks) {
            part[i] = (int32_t)(k / block);
        } else {
            const int64_t round = k / P, j = k % P;
            part[i] = (int32_t)(round & 1 ? P - 1 - j : j);
        }
    }
}
__global__ void block_kernel(int64_t n, int64_t block, int32_t *part) { GLOOP(i, n) part[i] = (int32_t)(i / block); }

// part[0..n) for the rule: the length of each index (rows: from A's row pointer, columns: counted)
void deal(const Csr &A, bool by_cols, Rule rule, int P, Dev<int32_t> &part) {
    const int64_t n = by_cols ? A.ncols : A.nrows, block = (n + P - 1) / P;
    part.alloc(n);
    if (rule == Rule::Blocks) {
        block_kernel<<<grid(n), 256, 0, g_st>>>(n, block, part);
        CKL();
        return;
    }
    Dev<uint32_t> len(n);
    if (by_cols) {
        CK(cudaMemsetAsync(len.p, 0, (size_t)n * 4, g_st));
        col_len_kernel<<<grid(A.nnz), 256, 0, g_st>>>(A.nnz, A.col, len);
    } else {
        row_len_kernel<<<grid(n), 256, 0, g_st>>>(n, A.rp, len);
    }
    CKL();
    Dev<uint64_t> key(n), skey(n);
    order_key_kernel<<<grid(n), 256, 0, g_st>>>(n, len, key);
    CKL();
    cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortKeys(t, b, key.p, skey.p, n, 0, 64, g_st); });
    deal_kernel<<<grid(n), 256, 0, g_st>>>(n, skey, P, rule, block, part);
    CKL();
}

// ---- one part's matrix -------------------------------------------------------------------------

__global__ void member_kernel(int64_t n, const int32_t *part, int32_t p, uint32_t *flag) { GLOOP(i, n) flag[i] = part[i] == p; }
// loc[i]: i's place in its part (for i in part p); glob[place] = i
__global__ void places_kernel(int64_t n, const uint32_t *flag, const uint32_t *pos, int32_t *loc, int32_t *glob) {
    GLOOP(i, n) if (flag[i]) loc[i] = (int32_t)pos[i], glob[pos[i]] = (int32_t)i;
}
__global__ void entry_member_kernel(int64_t m, const int32_t *idx, const int32_t *part, int32_t p, uint32_t *flag) {
    GLOOP(e, m) flag[e] = part[idx[e]] == p;
}
// the part's entries: the partitioned side's index renumbered by loc
__global__ void compact_kernel(int64_t m, const uint32_t *flag, const uint32_t *pos, const int32_t *row, const int32_t *col,
                               const float *val, bool by_cols, const int32_t *loc, int32_t *prow, int32_t *pcol, float *pval) {
    GLOOP(e, m) {
        if (!flag[e]) continue;
        const uint32_t q = pos[e];
        prow[q] = by_cols ? row[e] : loc[row[e]];
        pcol[q] = by_cols ? loc[col[e]] : col[e];
        pval[q] = val[e];
    }
}
__global__ void touched_kernel(int64_t m, const int32_t *col, uint32_t *seen) { GLOOP(e, m) seen[col[e]] = 1; }
__global__ void count_kernel(int64_t n, const uint32_t *flag, unsigned long long *count) {
    unsigned long long c = 0;
    GLOOP(i, n) c += flag[i];
    for (int o = 16; o; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}
__global__ void gather_kernel(int64_t n, const int32_t *glob, const float *x, float *out) { GLOOP(k, n) out[k] = x[glob[k]]; }
__global__ void scatter_kernel(int64_t n, const int32_t *glob, const float *y, float *out) { GLOOP(k, n) out[glob[k]] = y[k]; }
__global__ void add_kernel(int64_t n, const float *y, float *out) { GLOOP(i, n) out[i] += y[i]; }
__global__ void away_kernel(int64_t n, const int32_t *part, int32_t p, int32_t *away) { GLOOP(i, n) away[i] = part[i] != p; }

// Scratch of the matrix's size, kept across parts: entry flags and places (nnz + 1 each), index
// flags and places (n + 1 each).
struct Scratch {
    Dev<uint32_t> eflag, epos, iflag, ipos;
    Scratch(int64_t nnz, int64_t n) : eflag(nnz + 1), epos(nnz + 1), iflag(n + 1), ipos(n + 1) {}
};

// Part p of A under `part` (over the rows, or over the columns where by_cols) as a CSR; loc and
// glob receive the partitioned side's places.
Csr extract(const Csr &A, bool by_cols, const int32_t *part, int32_t p, Scratch &s, Dev<int32_t> &loc, Dev<int32_t> &glob) {
    const int64_t n = by_cols ? A.ncols : A.nrows;
    member_kernel<<<grid(n), 256, 0, g_st>>>(n, part, p, s.iflag);
    CKL();
    const int64_t size = exclusive_count(s.iflag, s.ipos, n);
    loc.alloc(n), glob.alloc(size);
    places_kernel<<<grid(n), 256, 0, g_st>>>(n, s.iflag, s.ipos, loc, glob);
    entry_member_kernel<<<grid(A.nnz), 256, 0, g_st>>>(A.nnz, by_cols ? A.col.p : A.row.p, part, p, s.eflag);
    CKL();
    const int64_t m = exclusive_count(s.eflag, s.epos, A.nnz);
    Dev<int32_t> r(m), c(m);
    Dev<float> v(m);
    compact_kernel<<<grid(A.nnz), 256, 0, g_st>>>(A.nnz, s.eflag, s.epos, A.row, A.col, A.val, by_cols, loc, r, c, v);
    CKL();
    return coo_to_csr(by_cols ? A.nrows : size, by_cols ? size : A.ncols, m, r, c, v);
}

// Columns of M with at least one entry.
int64_t touched_columns(const Csr &M) {
    Dev<uint32_t> seen(M.ncols);
    Dev<unsigned long long> cnt(1);
    CK(cudaMemsetAsync(seen.p, 0, (size_t)M.ncols * 4, g_st));
    CK(cudaMemsetAsync(cnt.p, 0, 8, g_st));
    touched_kernel<<<grid(M.nnz), 256, 0, g_st>>>(M.nnz, M.col, seen);
    count_kernel<<<grid(M.ncols), 256, 0, g_st>>>(M.ncols, seen, cnt);
    CKL();
    unsigned long long h = 0;
    CK(cudaMemcpyAsync(&h, cnt.p, 8, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    return (int64_t)h;
}

// ---- timing --------------------------------------------------------------------------------------

// x vectors for a product with nc columns: nx of them, enough to exceed 2x L2 together; the
// first is `first` (nullptr: random like the others).
struct XSet {
    int nx = 1;
    int64_t nc = 0;
    Dev<float> X;
    std::vector<psv_vector *> U;
    XSet(int64_t ncols, size_t l2, const float *first) : nc(ncols) {
        nx = (int)std::max<int64_t>(1, std::min<int64_t>(64, ((int64_t)(2 * l2) + 4 * nc - 1) / std::max<int64_t>(1, 4 * nc)));
        X.alloc((size_t)nx * nc);
        random_values((int64_t)nx * nc, O.seed ^ 0x55, X.p);
        if (first) CK(cudaMemcpyAsync(X.p, first, (size_t)nc * 4, cudaMemcpyDeviceToDevice, g_st));
        U.assign(nx, nullptr);
        for (int k = 0; k < nx; ++k) {
            PK(psv_vector_create(g_ctx, PSV_FP32, nc, &U[k]));
            PK(psv_vector_set_device(U[k], X.p + (size_t)k * nc, nc));
        }
    }
    ~XSet() {
        for (auto *u : U) psv_vector_free(&u);
    }
    XSet(const XSet &) = delete;
    XSet &operator=(const XSet &) = delete;
};

// The columns c of M with part[c] == p as a CSR of their own (renumbered in order), with x
// vectors of that length whose first holds x0's values at those columns.
struct Block {
    Csr B;
    std::unique_ptr<XSet> xs;
    Block(const Csr &M, const int32_t *part, int32_t p, Scratch &s, const float *x0, size_t l2) {
        Dev<int32_t> loc, glob;
        B = extract(M, true, part, p, s, loc, glob);
        loc.reset();
        Dev<float> first(B.ncols);
        gather_kernel<<<grid(B.ncols), 256, 0, g_st>>>(B.ncols, glob, x0, first.p);
        CKL();
        xs = std::make_unique<XSet>(B.ncols, l2, first.p);
    }
};

struct Semirings {
    psv_semiring *w = nullptr, *p = nullptr;
    Semirings() {
        PK(psv_semiring_create(g_ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &w));
        PK(psv_semiring_create(g_ctx, PSV_PLUS, PSV_SECOND, PSV_FP32, &p));
    }
    ~Semirings() {
        psv_semiring_free(&w);
        psv_semiring_free(&p);
    }
    Semirings(const Semirings &) = delete;
    Semirings &operator=(const Semirings &) = delete;
};

// One product timed: psv AUTO weighted and pattern, cuSPARSE CSR_ALG1 weighted (ms, medians).
struct Times {
    double w = 0, p = 0, cs = 0;
};

// The byte model of one part's weighted CSR product: a column and a value per entry, the 8-byte
// row pointer, y written, x read once over the columns it touches (the floor: a gather moves at
// least that and up to a 32-byte sector per entry).
double model_bytes(int64_t rows, int64_t nnz, int64_t touched) {
    return 8.0 * (double)nnz + 8.0 * (double)(rows + 1) + 4.0 * (double)rows + 4.0 * (double)touched;
}

// M timed with x rotating in xs; y receives the weighted product of xs' first vector.
Times time_product(const Csr &M, const XSet &xs, const Semirings &sr, float *y, std::string &plan) {
    Times t;
    if (M.nnz == 0) {
        CK(cudaMemsetAsync(y, 0, (size_t)M.nrows * 4, g_st));
        plan = "empty";
        return t;
    }
    MatrixHandle PM = build_psv(M, nullptr);
    plan = psv::cuda::plan_description(PM.get());
    psv_vector *W = nullptr;
    PK(psv_vector_create(g_ctx, PSV_FP32, M.nrows, &W));
    std::unique_ptr<psv_vector, void (*)(psv_vector *)> Wh(W, [](psv_vector *v) { psv_vector_free(&v); });
    t.w = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, sr.w, PM.get(), xs.U[i % xs.nx], 0)); }).med;
    t.p = g_timer.run([&](int i) { PK(psv_mxv(W, nullptr, PSV_NOOP, sr.p, PM.get(), xs.U[i % xs.nx], 0)); }).med;
    PK(psv_mxv(W, nullptr, PSV_NOOP, sr.w, PM.get(), xs.U[0], 0));
    PK(psv_vector_get_device(W, y, M.nrows));
    PM.reset();
    std::vector<DnVec> xv;
    for (int k = 0; k < xs.nx; ++k) xv.emplace_back(M.ncols, xs.X.p + (size_t)k * M.ncols);
    Dev<float> ycs(M.nrows);
    DnVec yv(M.nrows, ycs.p);
    SpMat D;
    make_csr_descr(D, M, M.val.p);
    SpMV mv;
    mv.prepare(D.d, CUSPARSE_SPMV_CSR_ALG1, xv[0].d, yv.d);
    t.cs = g_timer.run([&](int i) { mv(xv[i % xs.nx].d, yv.d); }).med;
    return t;
}

// A row part's product as the library runs it (src/dist/product.cpp): the local block (the
// columns the part owns: under a square matrix's layout, its own rows' indices) while x is
// all-gathered, then the remote block (the other columns) added into y by the plus accumulator.
// Each block's columns are renumbered in index order (the library's remote block keeps the
// gathered order, a permutation of them). Both psv AUTO, weighted, ms; y receives local + remote
// of the first x.
struct Split {
    double local = 0, remote = 0;
    int64_t local_nnz = 0, remote_nnz = 0;
};
Split time_split(const Csr &M, const int32_t *part, int32_t p, Scratch &s, const float *x0, size_t l2, const Semirings &sr, float *y) {
    Dev<int32_t> away(M.ncols);
    away_kernel<<<grid(M.ncols), 256, 0, g_st>>>(M.ncols, part, p, away);
    CKL();
    const Block local(M, part, p, s, x0, l2), remote(M, away, 1, s, x0, l2);
    away.reset();
    Split sp;
    sp.local_nnz = local.B.nnz, sp.remote_nnz = remote.B.nnz;
    MatrixHandle L = local.B.nnz ? build_psv(local.B, nullptr) : MatrixHandle(nullptr, free_matrix);
    MatrixHandle R = remote.B.nnz ? build_psv(remote.B, nullptr) : MatrixHandle(nullptr, free_matrix);
    psv_vector *W = nullptr;
    PK(psv_vector_create(g_ctx, PSV_FP32, M.nrows, &W));
    std::unique_ptr<psv_vector, void (*)(psv_vector *)> Wh(W, [](psv_vector *v) { psv_vector_free(&v); });
    auto product = [&](const MatrixHandle &B, const Block &b, psv_op accum, int i) {
        if (B) PK(psv_mxv(W, nullptr, accum, sr.w, B.get(), b.xs->U[i % b.xs->nx], 0));
    };
    if (L) sp.local = g_timer.run([&](int i) { product(L, local, PSV_NOOP, i); }).med;
    product(L, local, PSV_NOOP, 0);  // y's pattern before the remote block's accumulation
    if (R) sp.remote = g_timer.run([&](int i) { product(R, remote, PSV_PLUS, i); }).med;
    PK(psv_vector_clear(W));
    product(L, local, PSV_NOOP, 0);
    product(R, remote, PSV_PLUS, 0);
    PK(psv_vector_get_device(W, y, M.nrows));
    return sp;
}

// The local work of one GPU's ring reduce-scatter of a partial y of n: P - 1 steps, each adding a
// received chunk of n/P into its own (the link's transfer itself is not on one GPU).
double time_reduce_local(int64_t n, int P) {
    const int64_t chunk = (n + P - 1) / P;
    Dev<float> bufs((size_t)P * chunk);
    random_values((int64_t)P * chunk, O.seed ^ 0x33, bufs.p);
    return g_timer
        .run([&](int) {
            for (int k = 1; k < P; ++k) add_kernel<<<grid(chunk), 256, 0, g_st>>>(chunk, bufs.p + (size_t)k * chunk, bufs.p);
            CKL();
        })
        .med;
}

// ---- results -------------------------------------------------------------------------------------

struct SchemeRes {
    std::string matrix, scheme;
    int P = 1;
    double max_w = 0, sum_w = 0, max_p = 0, sum_p = 0, max_cs = 0, sum_cs = 0, whole_w = 0, whole_p = 0;
    int64_t max_nnz = 0, nnz = 0, max_touched = 0;
    double exchange = 0, extra_local = 0, reduce_ms = 0, max_model = 0, err = NAN;
    double max_local = 0, max_remote = 0, max_split = 0, err_split = NAN;  // rows: the library's split
};
std::vector<SchemeRes> g_part_results;

double mb(double b) { return b / 1e6; }

}  // namespace

// ---- the mode ------------------------------------------------------------------------------------

void bench_partition(const Csr &A, const std::string &name, const std::vector<int> &parts) {
    const int64_t nr = A.nrows, nc = A.ncols;
    int dev = 0, l2 = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    Semirings sr;
    XSet full(nc, (size_t)l2, nullptr);
    Dev<double> ref(nr);
    ref_spmv(nr, A.rp, A.col, A.val, full.X.p, ref);
    Dev<float> y(nr), ysum(nr), ysplit(nr);
    std::string plan;
    const Times whole = time_product(A, full, sr, y, plan);
    std::printf("whole matrix: psv weighted %.4f ms, pattern %.4f ms, cuSPARSE CSR_ALG1 %.4f ms (err %.1e; plan: %s); model %.0f MB, "
                "x %.0f MB\n",
                whole.w, whole.p, whole.cs, rel_err(nr, y, ref), plan.c_str(), mb(model_bytes(nr, A.nnz, touched_columns(A))),
                mb(4.0 * (double)nc));
    std::fflush(stdout);
    Scratch scratch(A.nnz, std::max(nr, nc));
    for (const int P : parts) {
        if (P < 1 || P > std::max<int64_t>(1, std::min(nr, nc))) {
            std::printf("P=%d: skipped (1 .. min(rows, columns))\n", P);
            continue;
        }
        const double reduce_ms = time_reduce_local(nr, P);
        for (const Scheme &sc : kSchemes) {
            SchemeRes r;
            r.matrix = name, r.scheme = sc.name, r.P = P, r.whole_w = whole.w, r.whole_p = whole.p;
            const double share = (double)(P - 1) / (double)P;
            // rows: x all-gathered (each GPU receives the pieces it lacks); columns: the partial y
            // reduce-scattered (as much over the link), and locally y written full length instead
            // of n/P, then P - 1 chunk sums (read two, write one)
            r.exchange = sc.by_cols ? 4.0 * (double)nr * share : 4.0 * (double)nc * share;
            r.extra_local = sc.by_cols ? 4.0 * (double)nr * share + 12.0 * (double)nr * share : 0.0;
            r.reduce_ms = sc.by_cols ? reduce_ms : 0.0;
            Dev<int32_t> part;
            deal(A, sc.by_cols, sc.rule, P, part);
            CK(cudaMemsetAsync(ysum.p, 0, (size_t)nr * 4, g_st));
            CK(cudaMemsetAsync(ysplit.p, 0, (size_t)nr * 4, g_st));
            std::printf("P=%d %s:\n", P, sc.name);
            for (int32_t p = 0; p < P; ++p) {
                Csr M;
                std::unique_ptr<Block> cols;  // a column part with its own x
                Dev<int32_t> loc, glob;       // a row part's rows
                if (sc.by_cols) cols = std::make_unique<Block>(A, part, p, scratch, full.X.p, (size_t)l2);
                else M = extract(A, false, part, p, scratch, loc, glob);
                const Csr &PM = sc.by_cols ? cols->B : M;
                loc.reset();
                const int64_t touched = touched_columns(PM);
                const Times t = time_product(PM, sc.by_cols ? *cols->xs : full, sr, y, plan);
                if (sc.by_cols) add_kernel<<<grid(nr), 256, 0, g_st>>>(nr, y, ysum);
                else scatter_kernel<<<grid(PM.nrows), 256, 0, g_st>>>(PM.nrows, glob, y, ysum);
                CKL();
                if (!sc.by_cols && nr == nc) {  // the library's split of a row part
                    const Split sp = time_split(PM, part, p, scratch, full.X.p, (size_t)l2, sr, y);
                    scatter_kernel<<<grid(PM.nrows), 256, 0, g_st>>>(PM.nrows, glob, y, ysplit);
                    CKL();
                    r.max_local = std::max(r.max_local, sp.local), r.max_remote = std::max(r.max_remote, sp.remote);
                    r.max_split = std::max(r.max_split, sp.local + sp.remote);
                    std::printf("  part %d split: local block %lld entries %.4f ms, remote block %lld entries %.4f ms (added into y)\n", p,
                                (long long)sp.local_nnz, sp.local, (long long)sp.remote_nnz, sp.remote);
                }
                const double model = model_bytes(PM.nrows, PM.nnz, touched);
                std::printf("  part %d: %lld x %lld, %lld entries, %lld columns touched; psv %.4f ms (pattern %.4f), cuSPARSE %.4f ms; "
                            "model %.0f MB (%.0f%% of copy); %s\n",
                            p, (long long)PM.nrows, (long long)PM.ncols, (long long)PM.nnz, (long long)touched, t.w, t.p, t.cs, mb(model),
                            t.w > 0 ? 100.0 * eff_share_of(model, t.w) : 0.0, plan.c_str());
                r.max_w = std::max(r.max_w, t.w), r.sum_w += t.w;
                r.max_p = std::max(r.max_p, t.p), r.sum_p += t.p;
                r.max_cs = std::max(r.max_cs, t.cs), r.sum_cs += t.cs;
                r.max_nnz = std::max(r.max_nnz, PM.nnz), r.nnz += PM.nnz;
                r.max_touched = std::max(r.max_touched, touched);
                r.max_model = std::max(r.max_model, model);
            }
            r.err = rel_err(nr, ysum, ref);
            if (r.max_split > 0) {
                r.err_split = rel_err(nr, ysplit, ref);
                std::printf("  => split: local max %.4f ms, remote (added) max %.4f ms, local + remote max %.4f ms; y err %.1e\n",
                            r.max_local, r.max_remote, r.max_split, r.err_split);
            }
            std::printf("  => max %.4f ms, sum %.4f ms (whole %.4f); pattern max %.4f, sum %.4f; cuSPARSE max %.4f, sum %.4f; "
                        "entries max/mean %.3f; exchange %.1f MB per GPU, extra local %.1f MB (reduce sums %.4f ms); y err %.1e\n",
                        r.max_w, r.sum_w, whole.w, r.max_p, r.sum_p, r.max_cs, r.sum_cs, (double)r.max_nnz * P / (double)r.nnz,
                        mb(r.exchange), mb(r.extra_local), r.reduce_ms, r.err);
            std::fflush(stdout);
            g_part_results.push_back(r);
        }
    }
}

void print_partition_table() {
    if (g_part_results.empty()) return;
    std::printf("\n== partitioning: rows or columns (per part timed alone on one GPU; ms, medians) ==\n");
    std::printf("| matrix | P | scheme | entries max/mean | x touched max (M) | psv max | psv sum / whole | pattern max | cuSPARSE max "
                "| split local max | split remote max | split max | model MB max part | exchange MB/GPU | extra local MB "
                "| reduce sums ms | y err |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto &r : g_part_results) {
        char split[96] = "- | - | -";
        if (r.max_split > 0) std::snprintf(split, sizeof split, "%.4f | %.4f | %.4f", r.max_local, r.max_remote, r.max_split);
        std::printf("| %s | %d | %s | %.3f | %.2f | %.4f | %.3f | %.4f | %.4f | %s | %.0f | %.1f | %.1f | %.4f | %.1e |\n", r.matrix.c_str(),
                    r.P, r.scheme.c_str(), (double)r.max_nnz * r.P / std::max<double>(1, (double)r.nnz), (double)r.max_touched / 1e6,
                    r.max_w, r.sum_w / r.whole_w, r.max_p, r.max_cs, split, mb(r.max_model), mb(r.exchange), mb(r.extra_local),
                    r.reduce_ms, r.err);
    }
    std::fflush(stdout);
}
