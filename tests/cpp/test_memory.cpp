// The host memory budget: build_csr against a reference (duplicates combined in input order) and
// its counted peak; the CPU backend's form kept only where the kernel reads it and built only
// where it fits; psv_matrix_info's bytes now and peak; the host-memory scope.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "core/backend.hpp"
#include "core/csr_build.hpp"
#include "core/format.hpp"
#include "psv/psv.h"
#include "check.h"

using namespace psv;

namespace {

struct Tuples {
    int64_t nrows = 0, ncols = 0;
    std::vector<int64_t> r, c;
    std::vector<int32_t> v;
};

// Rows of random lengths, columns drawn with repeats, in no order.
Tuples random_tuples(int64_t nrows, int64_t ncols, unsigned seed) {
    std::mt19937_64 rng(seed);
    Tuples t;
    t.nrows = nrows;
    t.ncols = ncols;
    for (int64_t k = 0; k < nrows * 12; ++k) {
        t.r.push_back((int64_t)(rng() % (uint64_t)nrows));
        t.c.push_back((int64_t)(rng() % (uint64_t)(k % 3 ? ncols : 8)));  // some columns often
        t.v.push_back((int32_t)(rng() % 1000) - 500);
    }
    return t;
}

// build_csr against a map that applies MINUS (not commutative) in input order.
void reference_build() {
    const Tuples t = random_tuples(3000, 500, 1);
    const int64_t n = (int64_t)t.r.size();
    std::map<std::pair<int64_t, int64_t>, int32_t> ref;
    for (int64_t k = 0; k < n; ++k) {
        auto key = std::make_pair(t.r[k], t.c[k]);
        auto it = ref.find(key);
        if (it == ref.end()) ref.emplace(key, t.v[k]);
        else it->second = it->second - t.v[k];
    }
    CsrHost A = build_csr(t.nrows, t.ncols, n, t.r.data(), t.c.data(), t.v.data(), PSV_INT32, PSV_MINUS);
    CHECK_MSG(A.nvals() == (int64_t)ref.size(), "%lld entries, %zu expected", (long long)A.nvals(), ref.size());
    bool same = A.nvals() == (int64_t)ref.size();
    auto it = ref.begin();
    for (int64_t i = 0; same && i < t.nrows; ++i)
        for (int64_t e = A.row_ptr[i]; same && e < A.row_ptr[i + 1]; ++e, ++it) {
            int32_t x;
            std::memcpy(&x, &A.values[(size_t)e * 4], 4);
            same = it->first.first == i && it->first.second == A.col[e] && it->second == x;
        }
    CHECK(same);
    CHECK(A.col.size() == (size_t)A.nvals() && A.values.size() == (size_t)A.nvals() * 4);
    // what it held at once: row counts and cursors with every tuple's column and value, or the
    // counts with the tuples' and the survivors' columns and values (the arrays shrink)
    const int64_t nnz = A.nvals();
    const int64_t peak = std::max(16 * t.nrows + 8 + 8 * n, 8 * (t.nrows + 1) + 8 * n + 8 * nnz);
    CHECK_MSG(A.build_peak == peak, "build_peak %lld, expected %lld", (long long)A.build_peak, (long long)peak);
    // a pattern: duplicates once, and the same columns
    CsrHost P = build_csr(t.nrows, t.ncols, n, t.r.data(), t.c.data(), nullptr, PSV_FP32, PSV_NOOP);
    CHECK(P.row_ptr == A.row_ptr && P.col == A.col && P.values.empty());
    // NOOP on valued duplicates: an error naming a row
    bool threw = false;
    try {
        build_csr(t.nrows, t.ncols, n, t.r.data(), t.c.data(), t.v.data(), PSV_INT32, PSV_NOOP);
    } catch (const Error &e) {
        threw = e.status() == PSV_ERROR_DUPLICATE_ENTRY;
    }
    CHECK(threw);
}

// AUTO keeps the form where it fits the budget, else the CSR alone; both give the same products.
void budget_rule() {
    std::unique_ptr<Backend> be = create_cpu_backend();
    const Tuples t = random_tuples(5000, 5000, 2);
    const int64_t n = (int64_t)t.r.size();
    auto csr = [&] { return build_csr(t.nrows, t.ncols, n, t.r.data(), t.c.data(), t.v.data(), PSV_INT32, PSV_PLUS); };
    FormatOptions roomy, tight;
    roomy.tile_width = 256;
    tight.tile_width = 256;
    tight.memory_budget = 1;
    auto F = be->build_matrix(csr(), roomy);
    auto C = be->build_matrix(csr(), tight);
    psv_matrix_info fi, ci;
    F->info(fi);
    C->info(ci);
    const int64_t csr_bytes = 8 * (t.nrows + 1) + 8 * F->nvals;  // int32 values
    CHECK(fi.kernel == PSV_KERNEL_TILE_COMPOSITE && fi.bytes > 0 && fi.device_bytes == csr_bytes + fi.bytes);
    CHECK(fi.peak_bytes >= fi.device_bytes + fi.bytes);  // the form's build holds its tiles twice at the end
    CHECK(ci.kernel == PSV_KERNEL_CSR && ci.bytes == 0 && ci.dense_tiles == 0 && C->tile_count() == 0);
    CHECK_MSG(ci.device_bytes == csr_bytes, "device_bytes %lld, CSR %lld", (long long)ci.device_bytes, (long long)csr_bytes);
    CHECK(ci.peak_bytes > ci.device_bytes && ci.peak_bytes < fi.peak_bytes);
    std::vector<int32_t> u((size_t)t.ncols), tf((size_t)t.nrows), tc((size_t)t.nrows);
    for (int64_t j = 0; j < t.ncols; ++j) u[j] = (int32_t)(j % 7) - 3;
    for (auto *pair : {&tf, &tc}) {
        SpmvArgs sa;
        sa.A = pair == &tf ? F.get() : C.get();
        sa.type = PSV_INT32;
        sa.u = u.data();
        sa.t = pair->data();
        be->spmv(sa);
    }
    CHECK(tf == tc);
    // TILE_COMPOSITE asked where it does not fit: out of memory, the matrix as it was
    FormatOptions ask = tight;
    ask.kernel = PSV_KERNEL_TILE_COMPOSITE;
    bool oom = false;
    try {
        C->rebuild(ask);
    } catch (const Error &e) {
        oom = e.status() == PSV_ERROR_OUT_OF_MEMORY;
    }
    CHECK(oom);
    C->info(ci);
    CHECK(ci.kernel == PSV_KERNEL_CSR && ci.device_bytes == csr_bytes);
    // the CSR kernel where the form would fit: the form described but not kept
    FormatOptions plain = roomy;
    plain.kernel = PSV_KERNEL_CSR;
    F->rebuild(plain);
    psv_matrix_info pi;
    F->info(pi);
    CHECK(pi.kernel == PSV_KERNEL_CSR && pi.device_bytes == csr_bytes);
    CHECK(pi.bytes == fi.bytes && pi.dense_tiles == fi.dense_tiles && F->tile_count() == fi.dense_tiles + fi.sparse_tile);
    CHECK(pi.peak_bytes == csr_bytes + fi.bytes);  // the rebuild held the CSR and the old form
}

// Through the C API: bytes now and the peak of psv_matrix_build.
void api_values() {
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CPU, 0, &ctx) == PSV_SUCCESS);
    const Tuples t = random_tuples(2000, 3000, 3);
    const int64_t n = (int64_t)t.r.size();
    for (int kernel : {PSV_KERNEL_AUTO, PSV_KERNEL_CSR}) {
        CHECK_STATUS(psv_context_set_option(ctx, PSV_OPT_KERNEL, kernel), PSV_SUCCESS);
        psv_matrix *A = nullptr;
        REQUIRE(psv_matrix_build(ctx, PSV_FP32, t.nrows, t.ncols, n, t.r.data(), t.c.data(), nullptr, PSV_NOOP, &A) ==
                PSV_SUCCESS);
        psv_matrix_info in;
        CHECK_STATUS(psv_matrix_info_get(A, &in), PSV_SUCCESS);
        CHECK(in.device_bytes >= 4 * in.nvals && in.peak_bytes >= in.device_bytes);
        // build_csr's peak: per row the counts and cursors, per tuple its column, the survivors'
        // copy (the tuples repeat entries)
        const int64_t csr_peak = std::max(16 * t.nrows + 8 + 4 * n, 8 * (t.nrows + 1) + 4 * n + 4 * in.nvals);
        CHECK(in.nvals < n);
        if (kernel == PSV_KERNEL_CSR) {
            CHECK(in.device_bytes == 8 * (t.nrows + 1) + 4 * in.nvals);
            CHECK_MSG(in.peak_bytes == csr_peak, "peak %lld, expected %lld", (long long)in.peak_bytes, (long long)csr_peak);
        } else {
            CHECK(in.peak_bytes > csr_peak && in.peak_bytes >= in.device_bytes + in.bytes);
        }
        psv_matrix_free(&A);
    }
    psv_context_free(&ctx);
}

// Within a scope the system is read once; what psv keeps is subtracted.
void memory_scope() {
    HostMemoryScope scope;
    const uint64_t left = host_memory_left();
    if (left == 0) return;  // unknown on this system: nothing to check
    host_memory_held(1 << 20);
    CHECK(host_memory_left() == left - (1 << 20));
    {
        HostMemoryScope inner;
        CHECK(host_memory_left() == left - (1 << 20));
    }
    host_memory_held(-(1 << 20));
    CHECK(host_memory_left() == left);
}

}  // namespace

int main() {
    reference_build();
    budget_rule();
    api_values();
    memory_scope();
    return check_exit();
}
