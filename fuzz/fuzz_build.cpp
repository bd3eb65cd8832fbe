// libFuzzer target: psv_matrix_build with arbitrary type, dimensions, duplicate operator, index
// and value arrays (NaN, Inf, out-of-range and negative indices, duplicates, extreme sizes),
// then, when built, products with an arbitrary semiring, mask and accumulator, and PageRank.
// A failure must return a documented status and leave the output untouched.
#include <vector>

#include "fuzz_common.hpp"

namespace {
psv_context *g_ctx;

struct Bytes {
    const uint8_t *p;
    size_t n;
    template <class T> T take() {
        T v{};
        const size_t k = n < sizeof(T) ? n : sizeof(T);
        std::memcpy(&v, p, k);
        p += k;
        n -= k;
        return v;
    }
};

int64_t dimension(uint8_t sel, uint16_t small) {
    switch (sel % 16) {
    case 0: return 0;
    case 1: return -1;
    case 2: return (int64_t)1 << 31;        // just over the limit
    case 3: return ((int64_t)1 << 31) - 1;  // the limit (valid; huge)
    case 4: return INT64_MIN;
    default: return small % 300;
    }
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::install_memory_model();
    if (psv_context_create(PSV_BACKEND_CPU, 0, &g_ctx) != PSV_SUCCESS) std::abort();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Bytes b{data, size};
    const psv_type type = (psv_type)(b.take<uint8_t>() % 7);  // 0 and 6 invalid
    const psv_op dup = (psv_op)(b.take<uint8_t>() % 16);      // 14, 15 invalid
    const uint8_t flags = b.take<uint8_t>();
    const int64_t nrows = dimension(b.take<uint8_t>(), b.take<uint16_t>());
    const int64_t ncols = dimension(b.take<uint8_t>(), b.take<uint16_t>());
    const psv_op add = (psv_op)(b.take<uint8_t>() % 15), mul = (psv_op)(b.take<uint8_t>() % 15),
                 accum = (psv_op)(b.take<uint8_t>() % 15);
    const int32_t desc = b.take<uint8_t>() % 32;  // 16 is an unknown bit
    const size_t vs = psv_type_size(type) ? psv_type_size(type) : 8;
    const bool pattern = flags & 1;
    // Each tuple: row and column as 16-bit offsets (or, with flag 2, raw 64-bit), then a value.
    const size_t tuple = (flags & 2 ? 16 : 4) + (pattern ? 0 : vs);
    int64_t nvals = (int64_t)(b.n / tuple);
    std::vector<int64_t> rows((size_t)nvals), cols((size_t)nvals);
    std::vector<uint8_t> vals(pattern ? 0 : (size_t)nvals * vs + 1);
    for (int64_t k = 0; k < nvals; ++k) {
        if (flags & 2) {
            rows[k] = b.take<int64_t>();
            cols[k] = b.take<int64_t>();
        } else {
            rows[k] = (int16_t)b.take<uint16_t>() % 320;  // some negative, some past the end
            cols[k] = (int16_t)b.take<uint16_t>() % 320;
        }
        if (!pattern) {
            for (size_t q = 0; q < vs; ++q) vals[(size_t)k * vs + q] = b.take<uint8_t>();
        }
        if (type == PSV_BOOL && !pattern) vals[(size_t)k * vs] &= 1;  // stored as 0 or 1
    }
    if (flags & 4) nvals = -nvals - 1;  // a negative count
    psv_matrix *const sentinel = reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000));
    psv_matrix *A = sentinel;
    const psv_status s = psv_matrix_build(g_ctx, type, nrows, ncols, nvals, rows.data(), cols.data(),
                                          pattern ? nullptr : vals.data(), dup, &A);
    if (s != PSV_SUCCESS) {
        if (s != PSV_ERROR_INVALID_VALUE && s != PSV_ERROR_INVALID_INDEX && s != PSV_ERROR_DUPLICATE_ENTRY &&
            s != PSV_ERROR_OUT_OF_MEMORY && s != PSV_ERROR_NULL_POINTER)
            fuzz::die("psv_matrix_build", s, psv_context_last_error(g_ctx));
        if (A != sentinel) fuzz::die("output changed on failure", s, psv_context_last_error(g_ctx));
        return 0;
    }
    fuzz::exercise(g_ctx, A);
    // An arbitrary semiring, mask, accumulator and descriptor: documented statuses only.
    psv_semiring *sr = nullptr;
    psv_vector *u = nullptr, *w = nullptr, *m = nullptr;
    psv_status st = psv_semiring_create(g_ctx, add, mul, type, &sr);
    if (st == PSV_SUCCESS && nrows <= 300 && ncols <= 300) {
        const bool tr = desc & PSV_DESC_TRANSPOSE_A;
        const int64_t out_n = tr ? ncols : nrows, in_n = tr ? nrows : ncols;
        psv_vector_create(g_ctx, type, in_n, &u);
        psv_vector_create(g_ctx, type, out_n, &w);
        psv_vector_create(g_ctx, (psv_type)(1 + flags % 5), out_n, &m);
        // u from the leftover bytes (sparse where a byte is even), w and m half full
        std::vector<uint8_t> uv((size_t)in_n * vs);
        std::vector<int64_t> ui;
        std::vector<uint8_t> ux;
        for (int64_t i = 0; i < in_n; ++i) {
            uint8_t sel = b.take<uint8_t>();
            if (sel % 2) continue;
            ui.push_back(i);
            for (size_t q = 0; q < vs; ++q) ux.push_back(type == PSV_BOOL ? (sel >> 1) & 1 : b.take<uint8_t>());
        }
        psv_vector_build(u, ui.data(), ux.data(), (int64_t)ui.size());
        std::vector<int64_t> half;
        for (int64_t i = 0; i < out_n; i += 2) half.push_back(i);
        std::vector<uint8_t> ones(half.size() * 8, 1);
        psv_vector_build(w, half.data(), ones.data(), (int64_t)half.size());
        psv_vector_build(m, half.data(), ones.data(), (int64_t)half.size());
        st = psv_mxv(w, (flags & 8) ? m : nullptr, accum, sr, A, (flags & 16) && !tr && nrows == ncols ? w : u, desc);
        if (st != PSV_SUCCESS && st != PSV_ERROR_INVALID_VALUE && st != PSV_ERROR_DOMAIN_MISMATCH &&
            st != PSV_ERROR_DIMENSION_MISMATCH && st != PSV_ERROR_OUT_OF_MEMORY)
            fuzz::die("psv_mxv", st, psv_context_last_error(g_ctx));
    } else if (st != PSV_SUCCESS && st != PSV_ERROR_DOMAIN_MISMATCH && st != PSV_ERROR_INVALID_VALUE) {
        fuzz::die("psv_semiring_create", st, psv_context_last_error(g_ctx));
    }
    psv_vector_free(&u);
    psv_vector_free(&w);
    psv_vector_free(&m);
    psv_semiring_free(&sr);
    psv_matrix_free(&A);
    return 0;
}
