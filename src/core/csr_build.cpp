// Coordinate tuples -> host CSR: validation, counting per row, placing each tuple in its row in
// input order, then sorting and combining duplicates within each row (so a non-commutative dup
// operator means what it says). And the host-memory check that comes before it.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <numeric>

#include "core/csr_build.hpp"
#include "core/error.hpp"
#include "core/ops.hpp"

namespace psv {
namespace {

// A cgroup v2 memory limit less what the group uses, or UINT64_MAX where there is none.
uint64_t cgroup_memory_limit();

uint64_t cgroup_memory_left() {
    const uint64_t limit = cgroup_memory_limit();
    if (limit == UINT64_MAX) return UINT64_MAX;
    unsigned long long used = 0;
    if (FILE *f = std::fopen("/sys/fs/cgroup/memory.current", "r")) {
        if (std::fscanf(f, "%llu", &used) != 1) used = 0;
        std::fclose(f);
    }
    return limit > used ? static_cast<uint64_t>(limit - used) : 0;
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

uint64_t read_memory_available() {
    const uint64_t avail = system_memory_available();
    const uint64_t cg = cgroup_memory_left();
    if (avail == 0) return cg == UINT64_MAX ? 0 : cg;
    return std::min(avail, cg);
}

// A cgroup v2 memory limit, or UINT64_MAX where there is none.
uint64_t cgroup_memory_limit() {
    unsigned long long limit = 0;
    bool have_limit = false;
    if (FILE *f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {
        have_limit = std::fscanf(f, "%llu", &limit) == 1;  // "max": no limit
        std::fclose(f);
    }
    return have_limit ? static_cast<uint64_t>(limit) : UINT64_MAX;
}

// The calling thread's scope: the figure read at its first question and what psv kept since.
struct ScopeState {
    int depth = 0;
    bool have = false;
    uint64_t available = 0;
    int64_t held = 0;
};
thread_local ScopeState scope;

}  // namespace

HostMemoryScope::HostMemoryScope() { ++scope.depth; }
HostMemoryScope::~HostMemoryScope() {
    if (--scope.depth == 0) scope = ScopeState();
}

uint64_t host_memory_left() {
    if (scope.depth == 0) return read_memory_available();
    if (!scope.have) {
        scope.available = read_memory_available();
        scope.have = true;
        scope.held = 0;
    }
    if (scope.available == 0) return 0;
    const int64_t left = (int64_t)scope.available - scope.held;
    return left > 1 ? (uint64_t)left : 1;  // 1, not 0: 0 means "unknown"
}

uint64_t host_memory_total() {
    static const uint64_t total = [] {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        const uint64_t phys = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
        const uint64_t cg = cgroup_memory_limit();
        return phys == 0 ? (cg == UINT64_MAX ? 0 : cg) : std::min(phys, cg);
    }();
    return total;
}

void host_memory_held(int64_t bytes) {
    if (scope.depth > 0 && scope.have) scope.held += bytes;
}

// build_csr at its peak holds per row its counts (row_ptr to be) and placement cursors, per
// entry the placed column and value; a form then ranks the columns (column lengths, ranks and
// ranked lengths). Measured on 50 M tuples (docs/design.md, section 5).
double build_memory_need(int64_t nrows, int64_t ncols, int64_t nvals, size_t value_size) {
    const double per_row = 16.0;
    const double per_col = 24.0;
    const double per_entry = 4.0 + static_cast<double>(value_size);
    return per_row * (static_cast<double>(nrows) + 1) + per_col * static_cast<double>(ncols) +
           per_entry * static_cast<double>(nvals);
}

// Compared with the memory available before anything is allocated: a declared dimension far
// beyond the entries (a 60-byte file declaring 2^31-1 rows) fails at once.
void check_build_memory(int64_t nrows, int64_t ncols, int64_t nvals, size_t value_size) {
    const double need = build_memory_need(nrows, ncols, nvals, value_size);
    const uint64_t avail = host_memory_left();
    if (avail == 0 || need <= static_cast<double>(avail)) return;
    fail(PSV_ERROR_OUT_OF_MEMORY,
         format("a %lld x %lld matrix with %lld entries needs about %.1f GB to build (16 bytes "
                "per row, 24 per column, %.0f per entry), more than the %.1f GB of memory "
                "available",
                (long long)nrows, (long long)ncols, (long long)nvals, need / 1e9,
                4.0 + static_cast<double>(value_size), static_cast<double>(avail) / 1e9));
}

namespace {

// Row [b, e) of cols/values sorted by column (stable) and its duplicates combined in input
// order, the survivors first; returns their count. dup_found: a duplicate met under NOOP.
template <class T, class Op>
int64_t sort_combine_row(int32_t *col, T *val, int64_t b, int64_t e, bool error_on_dup, bool &dup_found,
                         std::vector<int32_t> &order, std::vector<int32_t> &cbuf, std::vector<T> &vbuf) {
    const int64_t len = e - b;
    if (len == 0) return 0;
    if (!std::is_sorted(col + b, col + e)) {
        order.resize((size_t)len);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return col[b + x] < col[b + y]; });
        cbuf.resize((size_t)len);
        vbuf.resize((size_t)len);
        for (int64_t k = 0; k < len; ++k) {
            cbuf[k] = col[b + order[k]];
            vbuf[k] = val[b + order[k]];
        }
        std::copy(cbuf.begin(), cbuf.end(), col + b);
        std::copy(vbuf.begin(), vbuf.end(), val + b);
    }
    int64_t out = b;
    for (int64_t p = b + 1; p < e; ++p) {
        if (col[p] == col[out]) {
            if (error_on_dup) {
                dup_found = true;
                return len;
            }
            val[out] = Op::apply(val[out], val[p]);
        } else {
            ++out;
            col[out] = col[p];
            val[out] = val[p];
        }
    }
    return out - b + 1;
}

}  // namespace

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
    MemoryMeter meter;
    CsrHost A;
    A.nrows = nrows;
    A.ncols = ncols;
    A.type = type;
    A.pattern = pattern;
    // count per row; ptr becomes the row_ptr
    std::vector<int64_t> ptr((size_t)nrows + 1, 0);
    meter.hold(8 * (nrows + 1));
    for (int64_t e = 0; e < nvals; ++e) ptr[(size_t)rows[e] + 1]++;
    for (int64_t i = 0; i < nrows; ++i) ptr[i + 1] += ptr[i];
    // place each tuple in its row, input order within a row
    A.col.resize((size_t)nvals);
    A.values.resize((size_t)nvals * vs);
    meter.hold(nvals * (int64_t)(4 + vs));
    const uint8_t *vin = static_cast<const uint8_t *>(values);
    {
        std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);
        meter.hold(8 * nrows);
        for (int64_t e = 0; e < nvals; ++e) {
            const int64_t d = next[(size_t)rows[e]]++;
            A.col[d] = (int32_t)cols[e];
            if (vs) std::memcpy(&A.values[(size_t)d * vs], vin + e * vs, vs);
        }
        meter.release(8 * nrows);
    }
    // sort each row by column (stable: duplicates stay in input order) and combine duplicates,
    // the survivors at the start of the row's range
    std::vector<int64_t> kept((size_t)nrows, 0);
    meter.hold(8 * nrows);
    int64_t dup_row = -1;
    std::exception_ptr failure;  // a bad_alloc must not leave an OpenMP region (std::terminate)
    int32_t *col = A.col.data();
    if (pattern) {
#pragma omp parallel for schedule(dynamic, 1024)
        for (int64_t i = 0; i < nrows; ++i) {
            int32_t *b = col + ptr[i], *e = col + ptr[i + 1];
            if (!std::is_sorted(b, e)) std::sort(b, e);
            kept[i] = std::unique(b, e) - b;
        }
    } else {
        dispatch_type(type, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const psv_op d = canonical_op(dup == PSV_NOOP ? PSV_FIRST : dup, type);
            dispatch_binary_op<T>(d, [&](auto op) {
                using Op = decltype(op);
                T *val = reinterpret_cast<T *>(A.values.data());
#pragma omp parallel reduction(max : dup_row)
                {
                    std::vector<int32_t> order, cbuf;
                    std::vector<T> vbuf;
#pragma omp for schedule(dynamic, 1024)
                    for (int64_t i = 0; i < nrows; ++i) {
                        try {
                            bool found = false;
                            kept[i] = sort_combine_row<T, Op>(col, val, ptr[i], ptr[i + 1], dup == PSV_NOOP, found,
                                                              order, cbuf, vbuf);
                            if (found) dup_row = std::max(dup_row, i);
                        } catch (...) {
#pragma omp critical(psv_build_csr_failure)
                            if (!failure) failure = std::current_exception();
                        }
                    }
                }
            });
        });
    }
    if (failure) std::rethrow_exception(failure);
    if (dup_row >= 0)
        fail(PSV_ERROR_DUPLICATE_ENTRY,
             format("duplicate entries in row %lld and no dup operator was given", (long long)dup_row));
    // close the gaps the duplicates left (in order: a row moves only toward the front)
    int64_t nnz = 0;
    for (int64_t i = 0; i < nrows; ++i) {
        const int64_t from = ptr[i], k = kept[i];
        if (from != nnz) {
            std::memmove(col + nnz, col + from, (size_t)k * sizeof(int32_t));
            if (vs) std::memmove(&A.values[(size_t)nnz * vs], &A.values[(size_t)from * vs], (size_t)k * vs);
        }
        ptr[i] = nnz;
        nnz += k;
    }
    if (nrows >= 0) ptr[(size_t)nrows] = nnz;
    std::vector<int64_t>().swap(kept);
    meter.release(8 * nrows);
    A.row_ptr = std::move(ptr);
    if (nnz < nvals) {  // duplicates: the arrays shrink (a copy of the survivors)
        meter.hold(nnz * (int64_t)(4 + vs));
        A.col.resize((size_t)nnz);
        A.col.shrink_to_fit();
        A.values.resize((size_t)nnz * vs);
        A.values.shrink_to_fit();
        meter.release(nvals * (int64_t)(4 + vs));
    }
    A.build_peak = meter.peak;
    host_memory_held(A.bytes());
    return A;
}

}  // namespace psv
