#pragma once
#include "core/format.hpp"

namespace psv {

// Host memory psv may still use, in bytes: /proc/meminfo's MemAvailable (else the physical
// memory), no more than a cgroup v2 limit leaves; 0 when none is known (then nothing is checked).
// Within a HostMemoryScope the system is read once, at the first question, and what psv keeps
// from then on (host_memory_held) is subtracted; outside any scope every question reads it.
uint64_t host_memory_left();
// The machine's memory in bytes: its physical memory, no more than a cgroup v2 limit; 0 when
// unknown. Unlike host_memory_left it does not change while a program runs, so a choice made
// from it (the CPU backend's AUTO form rule) gives the same result run to run.
uint64_t host_memory_total();
// psv now keeps `bytes` more of host memory (negative: fewer) than when the figure was read.
void host_memory_held(int64_t bytes);
// One call chain (a build, a read): nested scopes share the outermost one's figure.
class HostMemoryScope {
public:
    HostMemoryScope();
    ~HostMemoryScope();
    HostMemoryScope(const HostMemoryScope &) = delete;
    HostMemoryScope &operator=(const HostMemoryScope &) = delete;
};

// The bytes build_csr holds at once for an nrows x ncols matrix of nvals entries of value_size
// bytes (its per-row counts and cursors, the placed columns and values), plus the column
// ranking a form then needs.
double build_memory_need(int64_t nrows, int64_t ncols, int64_t nvals, size_t value_size);
// Throws PSV_ERROR_OUT_OF_MEMORY, naming the sizes, when build_memory_need is more than
// host_memory_left (checked before allocating). A reader holding arrays of its own through the
// build passes their bytes per entry in value_size.
void check_build_memory(int64_t nrows, int64_t ncols, int64_t nvals, size_t value_size);

// Tuples -> CSR on the host. values == nullptr: a pattern (duplicates count once); otherwise
// duplicates combine with dup in input order, or throw PSV_ERROR_DUPLICATE_ENTRY if dup is
// PSV_NOOP. An index out of range throws PSV_ERROR_INVALID_INDEX. Dimensions are checked by the
// caller (<= kMaxDimension). Each row's entries are placed in input order, then sorted and
// combined within the row: no array of 8 bytes per entry. The result's build_peak counts what
// it held at once.
CsrHost build_csr(int64_t nrows, int64_t ncols, int64_t nvals, const int64_t *rows,
                  const int64_t *cols, const void *values, psv_type type, psv_op dup);

}  // namespace psv
