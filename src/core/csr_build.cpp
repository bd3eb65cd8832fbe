// Coordinate tuples -> host CSR: validation, bucketing by row, sorting each row, and combining
// duplicates in input order (so a non-commutative dup operator means what it says).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "core/csr_build.hpp"
#include "core/error.hpp"
#include "core/ops.hpp"

namespace psv {
namespace {

uint64_t system_memory_available();

// A cgroup v2 memory limit less what the group uses, or UINT64_MAX where there is none.
uint64_t cgroup_memory_left() {
    unsigned long long limit = 0, used = 0;
    bool have_limit = false;
    if (FILE *f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {
        have_limit = std::fscanf(f, "%llu", &limit) == 1;  // "max": no limit
        std::fclose(f);
    }
    if (!have_limit) return UINT64_MAX;
    if (FILE *f = std::fopen("/sys/fs/cgroup/memory.current", "r")) {
        if (std::fscanf(f, "%llu", &used) != 1) used = 0;
        std::fclose(f);
    }
    return limit > used ? static_cast<uint64_t>(limit - used) : 0;
}

// Bytes of memory available now: /proc/meminfo's MemAvailable, else the physical memory, and no
// more than a cgroup limit leaves; 0 when none is known (then nothing is checked).
uint64_t available_memory() {
    const uint64_t avail = system_memory_available();
    const uint64_t cg = cgroup_memory_left();
    if (avail == 0) return cg == UINT64_MAX ? 0 : cg;
    return std::min(avail, cg);
}

uint64_t system_memory_available() {
    if (FILE *f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        unsigned long long kb = 0;
        bool found = false;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                found = true;
                break;
            }
        std::fclose(f);
        if (found) return static_cast<uint64_t>(kb) * 1024;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
    return 0;
}

}  // namespace

// What building A (build_csr's arrays at their peak, then the tile-composite form's per-column
// arrays) needs in bytes, compared with the memory available before anything is allocated: a
// declared dimension far beyond the entries (a 60-byte file declaring 2^31-1 rows) fails at once.
void check_build_memory(int64_t nrows, int64_t ncols, int64_t nvals, size_t value_size) {
    const double per_row = 32.0;  // ptr, next, kept (build_csr) and row_ptr: 8 bytes each
    const double per_col = 24.0;  // column lengths, ranks and ranked lengths (tile composite)
    const double per_entry = 8.0 + 4.0 + static_cast<double>(value_size);  // perm, col, value
    const double need = per_row * (static_cast<double>(nrows) + 1) +
                        per_col * static_cast<double>(ncols) +
                        per_entry * static_cast<double>(nvals);
    const uint64_t avail = available_memory();
    if (avail == 0 || need <= static_cast<double>(avail)) return;
    fail(PSV_ERROR_OUT_OF_MEMORY,
         format("a %lld x %lld matrix with %lld entries needs about %.1f GB to build (%.0f bytes "
                "per row, %.0f per column, %.0f per entry), more than the %.1f GB of memory "
                "available",
                (long long)nrows, (long long)ncols, (long long)nvals, need / 1e9, per_row, per_col,
                per_entry, static_cast<double>(avail) / 1e9));
}

CsrHost build_csr(int64_t nrows, int64_t ncols, int64_t nvals, const int64_t *rows,
                  const int64_t *cols, const void *values, psv_type type, psv_op dup) {
    // validate every index first: nothing is allocated for a bad input
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) schedule(static)
    for (int64_t e = 0; e < nvals; ++e)
        if (rows[e] < 0 || rows[e] >= nrows || cols[e] < 0 || cols[e] >= ncols) bad = std::max(bad, e);
    if (bad >= 0) {
        // report the first bad tuple, not the last
        for (int64_t e = 0; e < nvals; ++e)
            if (rows[e] < 0 || rows[e] >= nrows || cols[e] < 0 || cols[e] >= ncols) {
                bad = e;
                break;
            }
        fail(PSV_ERROR_INVALID_INDEX,
             format("tuple %lld: (%lld, %lld) is outside the %lld x %lld matrix", (long long)bad,
                    (long long)rows[bad], (long long)cols[bad], (long long)nrows, (long long)ncols));
    }

    const bool pattern = values == nullptr;
    const size_t vs = pattern ? 0 : type_size(type);
    check_build_memory(nrows, ncols, nvals, vs);
    CsrHost A;
    A.nrows = nrows;
    A.ncols = ncols;
    A.type = type;
    A.pattern = pattern;
    std::vector<int64_t> ptr((size_t)nrows + 1, 0);
    for (int64_t e = 0; e < nvals; ++e) ptr[(size_t)rows[e] + 1]++;
    for (int64_t i = 0; i < nrows; ++i) ptr[i + 1] += ptr[i];
    // bucket tuples by row, keeping input order within a row
    std::vector<int64_t> perm((size_t)nvals);
    {
        std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);
        for (int64_t e = 0; e < nvals; ++e) perm[next[rows[e]]++] = e;
    }
    // sort each row by column (stable: duplicates stay in input order), count survivors
    std::vector<int64_t> kept((size_t)nrows, 0);
    int64_t dup_row = -1;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : dup_row)
    for (int64_t i = 0; i < nrows; ++i) {
        int64_t *b = perm.data() + ptr[i], *e = perm.data() + ptr[i + 1];
        std::stable_sort(b, e, [&](int64_t x, int64_t y) { return cols[x] < cols[y]; });
        int64_t k = 0;
        for (int64_t *p = b; p < e; ++p) {
            if (p > b && cols[*p] == cols[p[-1]]) {
                if (!pattern && dup == PSV_NOOP) dup_row = std::max(dup_row, i);
                continue;
            }
            ++k;
        }
        kept[i] = k;
    }
    if (dup_row >= 0)
        fail(PSV_ERROR_DUPLICATE_ENTRY,
             format("duplicate entries in row %lld and no dup operator was given", (long long)dup_row));
    A.row_ptr.assign((size_t)nrows + 1, 0);
    for (int64_t i = 0; i < nrows; ++i) A.row_ptr[i + 1] = A.row_ptr[i] + kept[i];
    const int64_t nnz = A.row_ptr[nrows];
    A.col.resize((size_t)nnz);
    A.values.resize((size_t)nnz * vs);
    const uint8_t *vin = static_cast<const uint8_t *>(values);
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const psv_op d = canonical_op(dup == PSV_NOOP ? PSV_FIRST : dup, type);
        dispatch_binary_op<T>(d, [&](auto op) {
            using Op = decltype(op);
#pragma omp parallel for schedule(dynamic, 1024)
            for (int64_t i = 0; i < nrows; ++i) {
                int64_t out = A.row_ptr[i] - 1;
                for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p) {
                    const int64_t e = perm[p];
                    const bool same = p > ptr[i] && cols[e] == cols[perm[p - 1]];
                    if (!same) {
                        ++out;
                        A.col[out] = (int32_t)cols[e];
                        if (vs) std::memcpy(&A.values[out * vs], vin + e * vs, vs);
                    } else if (vs) {
                        T acc, x;
                        std::memcpy(&acc, &A.values[out * vs], vs);
                        std::memcpy(&x, vin + e * vs, vs);
                        acc = Op::apply(acc, x);
                        std::memcpy(&A.values[out * vs], &acc, vs);
                    }
                }
            }
        });
    });
    return A;
}

}  // namespace psv
