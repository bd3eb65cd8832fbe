// The streamed product (PSV_KERNEL_STREAM, cuda/spmv/stream.cuh, cuda/build/stream_plan.cu) on the
// cut cases of the chunk kernel's test (spmv_cases.hpp) and on an R-MAT graph, each product
// against a float64 reference or the CPU backend (exactly, for int32 min-plus and boolean, A and
// A'), three runs bit-identical. The tuning policy (psv::cuda::set_policy) shrinks the rows per
// partition and the shared memory the plan counts on, so that these small matrices take many
// partitions and pieces: rows whose runs span threads' ranges, warps and pieces, partitions without
// pairs (empty rows), a dense block of long rows over the same columns. Also: the plan's counts
// and device bytes, an AUTO rule that streams, u with absent entries and products wider than the
// plan's values (the CSR fallback), a mask and an accumulator, an allocation failure while
// planning, a transpose's plan read from the matrix it transposes against its own, a streamed
// transpose's entries built only when a product reads them, and the plan's entries sorted piece by
// piece in shared memory against the radix sort of them all.
#include <cuda_runtime.h>

#include <atomic>

#include "core/test_hooks.hpp"
#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"
#include "spmv_cases.hpp"

using namespace spmvcases;

namespace {

// The n-th CUDA allocation from now fails (test_hooks::fail_allocation).
std::atomic<int64_t> g_countdown{0};
bool fail_nth(psv_backend b, size_t) { return b == PSV_BACKEND_CUDA && g_countdown.fetch_sub(1) == 1; }

// Rows over the same columns: 3000 rows of 70 entries and 1100 of 4100 (a row's run spans warps
// and tiles; every partition holds the same pairs).
gputest::Edges dense_block() {
    gputest::Edges E;
    E.nrows = 4100;
    E.ncols = 5000;
    for (int64_t i = 0; i < E.nrows; ++i)
        for (int64_t j = 0; j < (i < 3000 ? 70 : 4100); ++j) E.rows.push_back(i), E.cols.push_back(j);
    return E;
}

// A pass: the rows per partition at most, the partitions per SM, the slots per piece at most, the
// scatter's window and its runs per block (0: the policy's).
struct Pass {
    const char *name;
    int64_t rows, parts_per_sm, slots_max, window_max, block_runs;
    bool flip;  // the policy's other launch of the accumulate pass (overlapped or not)
};

// y<mask> += A x with the streamed kernel equals the CSR kernel's, bit for bit (the same
// semiring, the same accumulation order within rows is not required: compared against a
// float64 reference), and the mask keeps the other entries.
int masked_accumulate(psv_context *gpu) {
    const gputest::Edges E = gputest::rmat(12, 8, 3);
    const int64_t n = E.nrows, nnz = (int64_t)E.rows.size();
    std::vector<float> x((size_t)n), y0((size_t)n);
    uint64_t s = 5;
    for (auto &v : x) v = (float)(gputest::splitmix(s) % 100) / 64.0f;
    for (auto &v : y0) v = (float)(gputest::splitmix(s) % 100) / 32.0f;
    std::vector<uint8_t> mk((size_t)n);
    for (auto &v : mk) v = gputest::splitmix(s) % 3 != 0;
    std::vector<float> out[2];
    for (int k = 0; k < 2; ++k) {
        psv_context_set_option(gpu, PSV_OPT_KERNEL, k ? PSV_KERNEL_STREAM : PSV_KERNEL_CSR);
        psv_matrix *A = nullptr;
        REQUIRE(psv_matrix_build(gpu, PSV_FP32, n, n, nnz, E.rows.data(), E.cols.data(), nullptr, PSV_FIRST, &A) == PSV_SUCCESS);
        psv_vector *u = nullptr, *w = nullptr, *m = nullptr;
        REQUIRE(psv_vector_create(gpu, PSV_FP32, n, &u) == PSV_SUCCESS);
        REQUIRE(psv_vector_create(gpu, PSV_FP32, n, &w) == PSV_SUCCESS);
        REQUIRE(psv_vector_create(gpu, PSV_BOOL, n, &m) == PSV_SUCCESS);
        REQUIRE(psv_vector_set(u, x.data(), n) == PSV_SUCCESS);
        REQUIRE(psv_vector_set(w, y0.data(), n) == PSV_SUCCESS);
        REQUIRE(psv_vector_set(m, mk.data(), n) == PSV_SUCCESS);
        psv_semiring *sr = nullptr;
        REQUIRE(psv_semiring_create(gpu, PSV_PLUS, PSV_SECOND, PSV_FP32, &sr) == PSV_SUCCESS);
        CHECK(psv_mxv(w, m, PSV_PLUS, sr, A, u, 0) == PSV_SUCCESS);
        out[k].assign((size_t)n, -1.0f);
        std::vector<int64_t> idx((size_t)n);
        std::vector<float> v((size_t)n);
        int64_t got = n;
        REQUIRE(psv_vector_extract_tuples(w, idx.data(), v.data(), &got) == PSV_SUCCESS);
        for (int64_t q = 0; q < got; ++q) out[k][(size_t)idx[q]] = v[q];
        psv_semiring_free(&sr);
        psv_vector_free(&u);
        psv_vector_free(&w);
        psv_vector_free(&m);
        psv_matrix_free(&A);
    }
    // each row of a pattern product with small integers in 1/64 is exact in fp32 and double
    CHECK_MSG(out[0] == out[1], "masked accumulate: the streamed product differs from the CSR kernel's");
    return 1;
}

// A' of a streamed matrix (psv_mxv with PSV_DESC_TRANSPOSE_A) keeps its row pointer alone while
// its products stream; a product of u with absent entries (the CSR-vector kernel) builds its
// entries first. int32 min-plus: every product exactly the CPU backend's. Under the CSR kernel the
// transpose is built whole.
int lazy_transpose(psv_context *cpu, psv_context *gpu) {
    const gputest::Edges E = gputest::rmat(12, 8, 7);
    const int64_t n = E.nrows, nnz = (int64_t)E.rows.size();
    std::vector<int32_t> a((size_t)nnz), x((size_t)n);
    uint64_t s = 17;
    for (auto &v : a) v = (int32_t)(gputest::splitmix(s) % 1000) - 300;
    for (auto &v : x) v = (int32_t)(gputest::splitmix(s) % 1000) - 300;
    std::vector<int64_t> some;
    std::vector<int32_t> some_x;
    for (int64_t i = 0; i < n; i += 3) some.push_back(i), some_x.push_back(x[(size_t)i]);
    // STREAM; AUTO, then rebuilt as STREAM (AUTO's ranking counted A's column lengths, so A''s row
    // pointer is their sum; the explicit kernels count them unless a tuning table ranked them); CSR
    for (int mode = 0; mode < 3; ++mode) {
        const psv_kernel kern = mode == 2 ? PSV_KERNEL_CSR : PSV_KERNEL_STREAM;
        psv_context_set_option(gpu, PSV_OPT_KERNEL, mode == 1 ? PSV_KERNEL_AUTO : kern);
        psv_context *ctx[2] = {cpu, gpu};
        psv_matrix *A[2] = {nullptr, nullptr};
        psv_semiring *sr[2] = {nullptr, nullptr};
        for (int b = 0; b < 2; ++b) {
            REQUIRE(psv_matrix_build(ctx[b], PSV_INT32, n, n, nnz, E.rows.data(), E.cols.data(), a.data(), PSV_FIRST, &A[b]) ==
                    PSV_SUCCESS);
            REQUIRE(psv_semiring_create(ctx[b], PSV_MIN, PSV_PLUS, PSV_INT32, &sr[b]) == PSV_SUCCESS);
        }
        if (mode == 1) {
            CHECK_MSG(psv::cuda::column_lengths_kept(A[1]), "AUTO's ranking kept no column lengths");
            REQUIRE(psv_matrix_set_option(A[1], PSV_OPT_KERNEL, PSV_KERNEL_STREAM) == PSV_SUCCESS);
            CHECK_MSG(psv::cuda::column_lengths_kept(A[1]), "a rebuild dropped the column lengths");
        }
        // y = A' u on both backends, u whole or with absent entries: the output's tuples
        auto product = [&](int b, bool whole, std::vector<int64_t> &idx, std::vector<int32_t> &val) {
            psv_vector *u = nullptr, *w = nullptr;
            REQUIRE(psv_vector_create(ctx[b], PSV_INT32, n, &u) == PSV_SUCCESS);
            REQUIRE(psv_vector_create(ctx[b], PSV_INT32, n, &w) == PSV_SUCCESS);
            if (whole) REQUIRE(psv_vector_set(u, x.data(), n) == PSV_SUCCESS);
            else REQUIRE(psv_vector_build(u, some.data(), some_x.data(), (int64_t)some.size()) == PSV_SUCCESS);
            CHECK(psv_mxv(w, nullptr, PSV_NOOP, sr[b], A[b], u, PSV_DESC_TRANSPOSE_A) == PSV_SUCCESS);
            idx.assign((size_t)n, 0);
            val.assign((size_t)n, 0);
            int64_t got = n;
            REQUIRE(psv_vector_extract_tuples(w, idx.data(), val.data(), &got) == PSV_SUCCESS);
            idx.resize((size_t)got);
            val.resize((size_t)got);
            psv_vector_free(&u);
            psv_vector_free(&w);
        };
        const bool streamed = kern == PSV_KERNEL_STREAM;
        psv_matrix_info before, after;
        for (bool whole : {true, false, true}) {
            std::vector<int64_t> ic, ig;
            std::vector<int32_t> vc, vg;
            product(0, whole, ic, vc);
            product(1, whole, ig, vg);
            CHECK_MSG(ic == ig && vc == vg, "%s A' u (u %s): GPU and CPU differ", streamed ? "streamed" : "CSR",
                      whole ? "whole" : "with absent entries");
            if (whole && !ic.empty() && psv::cuda::transpose_csr_pending(A[1]) == streamed)
                REQUIRE(psv_matrix_info_get(A[1], &before) == PSV_SUCCESS);
            if (whole) continue;
            CHECK_MSG(!psv::cuda::transpose_csr_pending(A[1]), "%s: A' without its entries after a product that reads them",
                      streamed ? "streamed" : "CSR");
            REQUIRE(psv_matrix_info_get(A[1], &after) == PSV_SUCCESS);
            // built now: its columns and values (4 bytes each an entry)
            if (streamed)
                CHECK_MSG(after.device_bytes >= before.device_bytes + 8 * after.nvals, "device bytes %lld -> %lld for %lld entries",
                          (long long)before.device_bytes, (long long)after.device_bytes, (long long)after.nvals);
        }
        CHECK_MSG(streamed || !psv::cuda::transpose_csr_pending(A[1]), "the CSR kernel's A' without its entries");
        for (int b = 0; b < 2; ++b) {
            psv_semiring_free(&sr[b]);
            psv_matrix_free(&A[b]);
        }
    }
    psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_AUTO);
    return 3;
}

// The plan's counts: pairs, partitions and slots agree with the matrix; device bytes include it;
// the scatter's blocks per window follow the policy (at least its waves of SMs in all, unless a
// block would hold fewer than its runs, at most 32; where it allows one run a block, R-MAT cut
// so small takes several).
int plan_counts(psv_context *gpu, const gputest::Edges &E, const psv::cuda::Policy &pol) {
    psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_STREAM);
    psv_matrix *A = nullptr;
    const int64_t nnz = (int64_t)E.rows.size();
    REQUIRE(psv_matrix_build(gpu, PSV_FP32, E.nrows, E.ncols, nnz, E.rows.data(), E.cols.data(), nullptr, PSV_FIRST, &A) ==
            PSV_SUCCESS);
    psv_matrix_info info;
    REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
    const psv::cuda::StreamCounts sc = psv::cuda::stream_counts(A);
    CHECK_MSG(info.kernel == PSV_KERNEL_STREAM, "info reports kernel %d", (int)info.kernel);
    CHECK_MSG(sc.parts >= 1 && sc.pairs >= 1 && sc.pairs <= nnz && sc.slots >= 1024 && sc.rows >= 256 &&
                  sc.parts == (E.nrows + sc.rows - 1) / sc.rows && sc.pieces >= 1 && sc.pieces >= sc.pairs / sc.slots,
              "plan counts: %lld partitions of %lld rows, %lld pieces of %lld slots, %lld pairs of %lld entries",
              (long long)sc.parts, (long long)sc.rows, (long long)sc.pieces, (long long)sc.slots, (long long)sc.pairs,
              (long long)nnz);
    const int64_t waves = (int64_t)pol.stream_scatter_waves * pol.sms;
    const int64_t splits = std::max<int64_t>(
        1, std::min<int64_t>({32, (waves + sc.windows - 1) / sc.windows,
                              sc.runs / (sc.windows * std::max<int64_t>(1, pol.stream_scatter_block_runs))}));
    CHECK_MSG(sc.windows >= 1 && sc.splits == splits && (pol.stream_scatter_block_runs > 1 || sc.splits > 1),
              "%lld blocks for each of %lld windows (%lld runs, %lld a block at least): expected %lld", (long long)sc.splits,
              (long long)sc.windows, (long long)sc.runs, (long long)pol.stream_scatter_block_runs, (long long)splits);
    CHECK_MSG(sc.entries >= nnz && sc.entries <= nnz + 3 * sc.pieces && sc.entries % 4 == 0,
              "%lld entries laid out for %lld (%lld pieces)", (long long)sc.entries, (long long)nnz, (long long)sc.pieces);
    CHECK_MSG(sc.max_part_entries >= (sc.entries + sc.parts - 1) / sc.parts && sc.max_part_entries <= sc.entries,
              "largest partition %lld of %lld entries", (long long)sc.max_part_entries, (long long)sc.entries);
    CHECK_MSG(sc.bytes_weighted > sc.bytes_pattern && sc.bytes_pattern > 4 * nnz + 10 * sc.pairs, "byte model %lld / %lld",
              (long long)sc.bytes_pattern, (long long)sc.bytes_weighted);
    // at least the columns (4 per entry), the rows and slots (4 per entry) and per pair an item (2)
    // and its value (4)
    CHECK_MSG(info.device_bytes >= 8 * nnz + 6 * sc.pairs, "device bytes %lld for %lld entries and %lld pairs",
              (long long)info.device_bytes, (long long)nnz, (long long)sc.pairs);
    psv_matrix_free(&A);
    return 1;
}

// A transpose's plan, read from the entries of the matrix it transposes (PageRank's and HITS's A'),
// equals the plan built from its own entries, array for array.
// Valued: the transpose's plan is built without values (its entries not built, none of its
// products reads them) and holds at least a value an entry less; built again with them (as a
// product that reads them does), from A or, once its entries are built, from its own, the values
// (of 1, 4 or 8 bytes) travel with the entries, or (8) their places.
int transpose_plan(psv_context *gpu, const gputest::Edges &E, bool valued, const char *name, psv_type type = PSV_FP32) {
    psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_STREAM);
    const int64_t nnz = (int64_t)E.rows.size();
    if (nnz == 0) return 0;  // no plan
    std::vector<float> vf;
    std::vector<double> vd;
    std::vector<uint8_t> vb;
    for (int64_t k = 0; valued && k < nnz; ++k) {
        vf.push_back(0.25f + (float)(k % 7));
        vd.push_back(0.125 + (double)(k % 11));
        vb.push_back((uint8_t)(k % 3 != 0));
    }
    const void *vals = !valued ? nullptr : type == PSV_FP64 ? (const void *)vd.data() : type == PSV_BOOL ? (const void *)vb.data()
                                                                                                        : (const void *)vf.data();
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(gpu, type, E.nrows, E.ncols, nnz, E.rows.data(), E.cols.data(), vals, PSV_FIRST, &A) ==
            PSV_SUCCESS);
    try {
        const std::unique_ptr<psv::MatrixStore> T = psv::cuda::store_of(A).transposed();
        const int64_t vsize = !valued ? 0 : type == PSV_FP64 ? 8 : type == PSV_BOOL ? 1 : 4;
        const int64_t no_values = T->device_bytes();
        CHECK_MSG(psv::cuda::stream_values_pending(*T) == valued, "%s (type %d): a %s transpose's plan %s values", name,
                  (int)type, valued ? "valued" : "pattern", psv::cuda::stream_values_pending(*T) ? "without" : "with");
        psv::cuda::need_stream_values(*T);  // read from A: its entries still not built
        CHECK_MSG(!psv::cuda::stream_values_pending(*T) && T->device_bytes() >= no_values + vsize * T->nvals,
                  "%s (type %d): the plan held %lld bytes without values, %lld with", name, (int)type, (long long)no_values,
                  (long long)T->device_bytes());
        const psv::cuda::StreamPlanCopy from_a = psv::cuda::download_stream_plan(*T);
        const int64_t lean = T->device_bytes();
        if (valued) {  // the same plan where the values are read from the transpose's own entries
            const std::unique_ptr<psv::MatrixStore> T2 = psv::cuda::store_of(A).transposed();
            psv::cuda::need_csr(*T2);
            CHECK_MSG(psv::cuda::stream_values_pending(*T2), "%s: the plan has values before a product reads them", name);
            psv::cuda::need_stream_values(*T2);
            const psv::cuda::StreamPlanCopy from_own = psv::cuda::download_stream_plan(*T2);
            size_t d2 = 0;
            for (size_t k = 0; k < from_own.arrays.size() && k < from_a.arrays.size(); ++k) d2 += from_a.arrays[k] != from_own.arrays[k];
            CHECK_MSG(!psv::cuda::stream_values_pending(*T2) && from_own.counts == from_a.counts &&
                          from_own.arrays.size() == from_a.arrays.size() && d2 == 0,
                      "%s (type %d): the values' plan from the transpose's entries differs from A's (%zu arrays differ)", name,
                      (int)type, d2);
        }
        psv::FormatOptions fo;
        fo.kernel = PSV_KERNEL_STREAM;
        T->rebuild(fo);  // its own plan reads its own entries: built first
        const psv::cuda::StreamPlanCopy own = psv::cuda::download_stream_plan(*T);
        CHECK_MSG(T->device_bytes() >= lean + 4 * T->nvals, "%s: the transpose held %lld bytes before its own plan, %lld after",
                  name, (long long)lean, (long long)T->device_bytes());
        size_t differ = 0;
        for (size_t k = 0; k < own.arrays.size() && k < from_a.arrays.size(); ++k) differ += from_a.arrays[k] != own.arrays[k];
        CHECK_MSG(!own.counts.empty() && from_a.counts == own.counts && from_a.arrays.size() == own.arrays.size() && differ == 0,
                  "%s%s (type %d): the transpose's plan read from A differs from its own (%zu arrays differ)", name,
                  valued ? " valued" : "", (int)type, differ);
    } catch (const psv::Error &e) {
        CHECK_MSG(false, "%s: %s", name, e.what());
    }
    psv_matrix_free(&A);
    return 1;
}

// A piece's entries sorted by row in shared memory (a block a piece) give the plan that the radix
// sort of all the entries gives, array for array: a matrix's own plan and its transpose's (read
// from it), pattern and with values of 4, 8 (their places) and 1 byte; each policy took its way.
int piece_sorts(psv_context *gpu, const gputest::Edges &E, const psv::cuda::Policy &pol, const char *name) {
    psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_STREAM);
    const int64_t nnz = (int64_t)E.rows.size();
    if (nnz == 0) return 0;
    std::vector<float> vf;
    std::vector<double> vd;
    std::vector<uint8_t> vb;
    for (int64_t k = 0; k < nnz; ++k) {
        vf.push_back(0.5f + (float)(k % 5));
        vd.push_back(0.25 + (double)(k % 9));
        vb.push_back((uint8_t)(k % 4 != 0));
    }
    const struct {
        psv_type type;
        const void *vals;
    } kinds[] = {{PSV_FP32, nullptr}, {PSV_FP32, vf.data()}, {PSV_FP64, vd.data()}, {PSV_BOOL, vb.data()}};
    for (const auto &kd : kinds) {
        psv::cuda::StreamPlanCopy own[2], tr[2];
        for (int way = 0; way < 2; ++way) {
            psv::cuda::Policy q = pol;
            q.stream_piece_sort_share = way ? 1e9 : 0.0;
            psv::cuda::set_policy(gpu, q);
            psv_matrix *A = nullptr;
            REQUIRE(psv_matrix_build(gpu, kd.type, E.nrows, E.ncols, nnz, E.rows.data(), E.cols.data(), kd.vals, PSV_FIRST, &A) ==
                    PSV_SUCCESS);
            try {
                own[way] = psv::cuda::download_stream_plan(psv::cuda::store_of(A));
                const std::unique_ptr<psv::MatrixStore> T = psv::cuda::store_of(A).transposed();
                psv::cuda::need_stream_values(*T);
                tr[way] = psv::cuda::download_stream_plan(*T);
            } catch (const psv::Error &e) {
                CHECK_MSG(false, "%s: %s", name, e.what());
            }
            psv_matrix_free(&A);
        }
        for (int t = 0; t < 2; ++t) {
            const psv::cuda::StreamPlanCopy *P = t ? tr : own;
            size_t differ = 0;
            for (size_t k = 0; k < P[0].arrays.size() && k < P[1].arrays.size(); ++k) differ += P[0].arrays[k] != P[1].arrays[k];
            CHECK_MSG(!P[0].counts.empty() && !P[0].piece_sorted && P[1].piece_sorted && P[0].counts == P[1].counts &&
                          P[0].arrays.size() == P[1].arrays.size() && differ == 0,
                      "%s%s (type %d, %s): the plan sorted in pieces (%d) differs from the one sorted whole (%d): %zu arrays differ",
                      name, t ? " transposed" : "", (int)kd.type, kd.vals ? "valued" : "pattern", (int)P[1].piece_sorted,
                      (int)P[0].piece_sorted, differ);
        }
    }
    psv::cuda::set_policy(gpu, pol);
    return 1;
}

}  // namespace

int main() {
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        std::fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    psv_context *cpu = nullptr, *gpu = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &cpu) == PSV_SUCCESS);
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &gpu) == PSV_SUCCESS);
    // these checks are of the rules (the performance model's choice is test_gpu_tuning's)
    REQUIRE(psv_context_set_option(gpu, PSV_OPT_PLAN_CHOICE, PSV_CHOICE_RULES) == PSV_SUCCESS);
    int checks = 0;
    const psv::cuda::Policy base = psv::cuda::policy_of(gpu);
    // small: 256-row partitions of 1024-pair pieces, a scatter of 1024-column windows, each
    // window's runs over several blocks (some may hold none)
    const Pass passes[] = {{"device", 0, 0, 0, 0, 0, false},
                           {"small", 256, 64, 1024, 1024, 1, false},
                           {"small, flipped", 256, 64, 1024, 1024, 1, true},
                           {"1024 rows", 1024, 64, 0, 0, 0, false},
                           {"1024 rows, flipped", 1024, 64, 0, 0, 0, true}};
    // under the sanitizers (small mode): the small pass (every path of the kernels, with little
    // to track), fp32 and int32, R-MAT 12
    const bool small = gputest::small_mode();
    for (const Pass &P : passes) {
        if (small && !P.slots_max) continue;
        psv::cuda::Policy policy = base;
        if (P.rows) policy.stream_rows = P.rows;
        if (P.parts_per_sm) policy.stream_parts_per_sm = P.parts_per_sm;
        if (P.slots_max) policy.stream_slots_max = P.slots_max;
        if (P.window_max) policy.stream_window_max = P.window_max;
        if (P.block_runs) policy.stream_scatter_block_runs = P.block_runs;
        if (P.flip) policy.stream_overlap_launch = !base.stream_overlap_launch;
        psv::cuda::set_policy(gpu, policy);
        psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_STREAM);
        for (const Case &cs : cases()) {
            if (small && (std::strcmp(cs.name, "zipf") == 0 || std::strcmp(cs.name, "short") == 0)) continue;
            const gputest::Edges E = edges_for(cs, 5);
            checks += run_float<float>(gpu, cs, E, PSV_FP32, false);
            if (!small) checks += run_float<float>(gpu, cs, E, PSV_FP32, true);
            if (!small) checks += run_float<double>(gpu, cs, E, PSV_FP64, false);
            if (!small) checks += run_float<double>(gpu, cs, E, PSV_FP64, true);  // wider than the pattern's plan
            checks += run_exact(cpu, gpu, cs, E, PSV_INT32);
            if (!small) checks += run_exact(cpu, gpu, cs, E, PSV_BOOL);
        }
        if (!small) {  // long rows over the same columns
            const gputest::Edges H = dense_block();
            Case hc{"dense-block", {}, H.ncols};
            checks += run_float<float>(gpu, hc, H, PSV_FP32, false);
            checks += run_exact(cpu, gpu, hc, H, PSV_INT32);
        }
        const gputest::Edges R = gputest::sorted_unique(gputest::rmat(small ? 12 : 17, 16, 9));
        Case rc{"rmat", {}, R.ncols};
        checks += run_float<float>(gpu, rc, R, PSV_FP32, false);
        checks += run_float<float>(gpu, rc, R, PSV_FP32, true);
        checks += run_exact(cpu, gpu, rc, R, PSV_INT32);
        if (P.rows) checks += plan_counts(gpu, R, policy);
        checks += transpose_plan(gpu, R, false, "rmat");
        checks += transpose_plan(gpu, R, true, "rmat");
        checks += transpose_plan(gpu, R, true, "rmat", PSV_FP64);
        checks += transpose_plan(gpu, R, true, "rmat", PSV_BOOL);
        for (const Case &cs : cases())
            if (!small) checks += transpose_plan(gpu, edges_for(cs, 5), true, cs.name);
        // the sort in pieces: R-MAT, and rows whose runs cross its tiles (a dense block: 256 rows of
        // a partition x 40 columns in one piece, a row's 40 entries across tiles of 2048)
        checks += piece_sorts(gpu, R, policy, "rmat");
        {
            gputest::Edges D;
            D.nrows = 300;
            D.ncols = 40;
            for (int64_t i = 0; i < D.nrows; ++i)
                for (int64_t j = 0; j < D.ncols; ++j) D.rows.push_back(i), D.cols.push_back(j);
            checks += piece_sorts(gpu, D, policy, "dense 300 x 40");
        }
        if (!small) checks += piece_sorts(gpu, dense_block(), policy, "dense-block");
    }
    // AUTO streams a power-law matrix above the policy's size where the policy lets it (both forced
    // here); by default it does not
    {
        psv::cuda::Policy policy = base;
        policy.stream_auto = true;
        policy.stream_min_entries = 1000;
        policy.stream_l2_share = 0.0;
        psv::cuda::set_policy(gpu, policy);
        psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_AUTO);
        const gputest::Edges R = gputest::rmat(13, 16, 4);
        psv_matrix *A = nullptr;
        REQUIRE(psv_matrix_build(gpu, PSV_FP32, R.nrows, R.ncols, (int64_t)R.rows.size(), R.rows.data(), R.cols.data(), nullptr,
                                 PSV_FIRST, &A) == PSV_SUCCESS);
        psv_matrix_info info;
        REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
        CHECK_MSG(info.kernel == PSV_KERNEL_STREAM, "AUTO on a power-law matrix above stream_min_entries: kernel %d", (int)info.kernel);
        psv_matrix_free(&A);
        psv::cuda::set_policy(gpu, base);
        REQUIRE(psv_matrix_build(gpu, PSV_FP32, R.nrows, R.ncols, (int64_t)R.rows.size(), R.rows.data(), R.cols.data(), nullptr,
                                 PSV_FIRST, &A) == PSV_SUCCESS);
        REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
        CHECK_MSG(info.kernel == PSV_KERNEL_CSR, "AUTO under the device's policy: kernel %d", (int)info.kernel);
        psv_matrix_free(&A);
        checks += 2;
    }
    psv::cuda::set_policy(gpu, base);
    checks += masked_accumulate(gpu);
    checks += lazy_transpose(cpu, gpu);
    // an allocation failing while the plan is built: an out-of-memory status, the matrix as it was
    {
        const gputest::Edges R = gputest::rmat(12, 8, 6);
        psv_context_set_option(gpu, PSV_OPT_KERNEL, PSV_KERNEL_CSR);
        psv_matrix *A = nullptr;
        REQUIRE(psv_matrix_build(gpu, PSV_FP32, R.nrows, R.ncols, (int64_t)R.rows.size(), R.rows.data(), R.cols.data(), nullptr,
                                 PSV_FIRST, &A) == PSV_SUCCESS);
        int failed = 0;
        for (int64_t k = 1; k < 200; ++k) {
            const int64_t live = psv::test_hooks::live_buffers.load();
            g_countdown = k;
            psv::test_hooks::fail_allocation = fail_nth;
            const psv_status st = psv_matrix_set_option(A, PSV_OPT_KERNEL, PSV_KERNEL_STREAM);
            psv::test_hooks::fail_allocation = nullptr;
            if (st == PSV_SUCCESS) break;
            CHECK_MSG(st == PSV_ERROR_OUT_OF_MEMORY, "allocation %lld failing: status %d", (long long)k, (int)st);
            CHECK_MSG(psv::test_hooks::live_buffers.load() == live, "allocation %lld failing: %lld buffers leaked", (long long)k,
                      (long long)(psv::test_hooks::live_buffers.load() - live));
            psv_matrix_info info;
            REQUIRE(psv_matrix_info_get(A, &info) == PSV_SUCCESS);
            CHECK_MSG(info.kernel == PSV_KERNEL_CSR, "a failed re-plan changed the kernel to %d", (int)info.kernel);
            ++failed;
        }
        CHECK_MSG(failed > 5, "only %d allocations of the plan failed", failed);
        psv_matrix_free(&A);
        ++checks;
    }
    psv_context_free(&cpu);
    psv_context_free(&gpu);
    std::printf("gpu_stream: %d checks\n", checks);
    return check_exit();
}
