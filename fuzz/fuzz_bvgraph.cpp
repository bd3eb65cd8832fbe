// libFuzzer target: psv_matrix_read on a BVGraph (LAW WebGraph) made of arbitrary parts. The
// input is [u16 LE n][n bytes of X.properties][u8 flags][u32 LE g][g bytes of X.graph][the rest:
// X.offsets, written when flags & 1]; parts cut short by the input's end are shorter. A
// returned matrix is exercised (fuzz_common.hpp); a failure must return a documented status,
// leave the output untouched, name the file for a parse error, and leak nothing.
#include <unistd.h>

#include <algorithm>
#include <string>

#include "fuzz_common.hpp"

namespace {
psv_context *g_ctx;
std::string g_base;

bool write_file(const std::string &path, const uint8_t *data, size_t size) {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
    return std::fclose(f) == 0 && ok;
}

// The next part: n bytes (fewer at the end of the input).
const uint8_t *take(const uint8_t *&p, const uint8_t *e, size_t n, size_t &got) {
    got = std::min(n, static_cast<size_t>(e - p));
    const uint8_t *b = p;
    p += got;
    return b;
}

size_t le(const uint8_t *&p, const uint8_t *e, int bytes) {
    size_t v = 0;
    for (int k = 0; k < bytes && p < e; ++k) v |= static_cast<size_t>(*p++) << (8 * k);
    return v;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::install_memory_model();
    if (psv_context_create(PSV_BACKEND_CPU, 0, &g_ctx) != PSV_SUCCESS) std::abort();
    const char *dir = std::getenv("TMPDIR");
    g_base = std::string(dir && *dir ? dir : "/tmp") + "/psv_fuzz_bvgraph_" + std::to_string(getpid());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    const uint8_t *p = data, *e = data + size;
    size_t np = 0, ng = 0, no = 0;
    const uint8_t *props = take(p, e, le(p, e, 2), np);
    const int flags = p < e ? *p++ : 0;
    const uint8_t *graph = take(p, e, le(p, e, 4), ng);
    const uint8_t *offsets = take(p, e, static_cast<size_t>(e - p), no);
    if (!write_file(g_base + ".properties", props, np) || !write_file(g_base + ".graph", graph, ng))
        std::abort();
    if (flags & 1) {
        if (!write_file(g_base + ".offsets", offsets, no)) std::abort();
    } else {
        std::remove((g_base + ".offsets").c_str());
    }
    psv_matrix *const sentinel = reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000));
    psv_matrix *A = sentinel;
    const std::string path = g_base + ".graph";
    const psv_status s = psv_matrix_read(g_ctx, path.c_str(), &A);
    if (!fuzz::acceptable_read_status(s)) fuzz::die("psv_matrix_read", s, psv_context_last_error(g_ctx));
    if (s != PSV_SUCCESS) {
        if (A != sentinel) fuzz::die("output changed on failure", s, psv_context_last_error(g_ctx));
        const char *m = psv_context_last_error(g_ctx);
        // BVGraph messages name the file (.graph, .properties or .offsets); a text .graph (a
        // properties-less METIS or edge list look-alike) names the line.
        if (s == PSV_ERROR_PARSE && !std::strstr(m, g_base.c_str()) && !std::strstr(m, "line "))
            fuzz::die("message names no file or line", s, m);
        return 0;
    }
    fuzz::exercise(g_ctx, A);
    psv_matrix_free(&A);
    return 0;
}
