// Shared by the libFuzzer targets: a memory model and helpers.
//
// Memory: a single allocation above kMaxAlloc (host operator new, or a backend buffer) fails as
// on a machine without that much memory -- the library must then answer
// PSV_ERROR_OUT_OF_MEMORY. Without the cap, a 40-byte file declaring 2^31-1 rows would have the
// fuzzer report its (legitimate) 16 GiB row pointer array as a crash.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/test_hooks.hpp"
#include "psv/psv.h"

namespace fuzz {

constexpr size_t kMaxAlloc = size_t(64) << 20;

inline bool big_backend_allocation(psv_backend, size_t bytes) { return bytes > kMaxAlloc; }

inline void install_memory_model() { psv::test_hooks::fail_allocation = big_backend_allocation; }

// Statuses psv_matrix_read / psv_matrix_build may return on any input.
inline bool acceptable_read_status(psv_status s) {
    return s == PSV_SUCCESS || s == PSV_ERROR_PARSE || s == PSV_ERROR_INVALID_INDEX || s == PSV_ERROR_IO ||
           s == PSV_ERROR_NOT_IMPLEMENTED || s == PSV_ERROR_OUT_OF_MEMORY;
}

[[noreturn]] inline void die(const char *what, psv_status s, const char *msg) {
    std::fprintf(stderr, "fuzz: %s: status %d (%s): %s\n", what, (int)s, psv_status_string(s), msg);
    std::abort();
}

// Exercise a matrix that was returned: queries, tuples, a product (plain and transposed) and,
// if square, PageRank. Any failure other than running out of memory is a bug.
inline void exercise(psv_context *ctx, psv_matrix *A) {
    int64_t nr = -1, nc = -1, nv = -1;
    psv_type t = 0;
    int32_t pat = -1;
    if (psv_matrix_nrows(A, &nr) || psv_matrix_ncols(A, &nc) || psv_matrix_nvals(A, &nv) ||
        psv_matrix_type(A, &t) || psv_matrix_is_pattern(A, &pat))
        die("queries", -1, psv_context_last_error(ctx));
    if (nr < 0 || nc < 0 || nv < 0 || nr > INT32_MAX || nc > INT32_MAX) die("dimensions", -1, "");
    psv_matrix_info info;
    psv_status s = psv_matrix_info_get(A, &info);
    if (s) die("psv_matrix_info_get", s, psv_context_last_error(ctx));
    if (nr > 1000000 || nc > 1000000 || nv > 1000000) return;  // keep executions fast
    {
        int64_t n = nv;
        int64_t *r = (int64_t *)std::malloc(sizeof(int64_t) * (size_t)(nv + 1));
        int64_t *c = (int64_t *)std::malloc(sizeof(int64_t) * (size_t)(nv + 1));
        s = psv_matrix_extract_tuples(A, r, c, nullptr, &n);
        if (s) die("psv_matrix_extract_tuples", s, psv_context_last_error(ctx));
        if (n != nv) die("extract_tuples count", -1, "");
        for (int64_t k = 0; k < n; ++k) {
            if (r[k] < 0 || r[k] >= nr || c[k] < 0 || c[k] >= nc) die("tuple out of range", -1, "");
            if (k && (r[k] < r[k - 1] || (r[k] == r[k - 1] && c[k] <= c[k - 1]))) die("tuples not sorted/unique", -1, "");
        }
        std::free(r);
        std::free(c);
    }
    psv_semiring *sr = nullptr;
    psv_vector *u = nullptr, *w = nullptr, *ut = nullptr, *wt = nullptr, *rank = nullptr;
    if (psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, t, &sr)) goto out;
    if (psv_vector_create(ctx, t, nc, &u) || psv_vector_create(ctx, t, nr, &w) || psv_vector_create(ctx, t, nr, &ut) ||
        psv_vector_create(ctx, t, nc, &wt))
        goto out;
    {
        double one_d = 1;
        int64_t one_i = 1;
        float one_f = 1;
        int32_t one_32 = 1;
        uint8_t one_b = 1;
        const void *one = t == PSV_FP64 ? (const void *)&one_d : t == PSV_INT64 ? (const void *)&one_i
                        : t == PSV_FP32 ? (const void *)&one_f : t == PSV_INT32 ? (const void *)&one_32 : (const void *)&one_b;
        psv_vector_fill(u, one);
        psv_vector_fill(ut, one);
    }
    s = psv_mxv(w, nullptr, PSV_NOOP, sr, A, u, 0);
    if (s && s != PSV_ERROR_OUT_OF_MEMORY) die("psv_mxv", s, psv_context_last_error(ctx));
    s = psv_mxv(wt, nullptr, PSV_NOOP, sr, A, ut, PSV_DESC_TRANSPOSE_A);
    if (s && s != PSV_ERROR_OUT_OF_MEMORY) die("psv_mxv transposed", s, psv_context_last_error(ctx));
    if (nr == nc && nr > 0) {
        int32_t it = 0;
        s = psv_pagerank(&rank, &it, A, 0.85, 1e-4, 20);
        if (s && s != PSV_NOT_CONVERGED && s != PSV_ERROR_OUT_OF_MEMORY) die("psv_pagerank", s, psv_context_last_error(ctx));
    }
out:
    psv_vector_free(&rank);
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_vector_free(&ut);
    psv_vector_free(&wt);
    psv_semiring_free(&sr);
}

}  // namespace fuzz

// The cap on host allocations (operator new, every form the library uses).
void *operator new(size_t n) {
    if (n > fuzz::kMaxAlloc) throw std::bad_alloc();
    void *p = std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
    return n > fuzz::kMaxAlloc ? nullptr : std::malloc(n ? n : 1);
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept { return operator new(n, t); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
