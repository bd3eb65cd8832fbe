// libFuzzer target: psv_matrix_read on arbitrary bytes, detected as whatever they look like
// (Matrix Market, edge list, CSV, METIS, gzip). Inputs starting "%metis" are written to a file
// named *.graph, the name METIS detection needs ("%..." is a METIS comment line). With
// -DFUZZ_GZIP the bytes are gzip-compressed first, so the text parsers are reached through the
// decompressing path too. A returned matrix is exercised (fuzz_common.hpp); a failure must leave
// the output untouched, name the line for a parse error, and leak nothing (LeakSanitizer).
#include <unistd.h>
#include <zlib.h>

#include <string>

#include "fuzz_common.hpp"

namespace {
psv_context *g_ctx;
std::string g_path, g_text_path, g_graph_path;

bool write_file(const uint8_t *data, size_t size) {
    FILE *f = std::fopen(g_path.c_str(), "wb");
    if (!f) return false;
#ifdef FUZZ_GZIP
    std::fclose(f);
    gzFile g = gzopen(g_path.c_str(), "wb1");
    if (!g) return false;
    if (size && gzwrite(g, data, (unsigned)size) != (int)size) {
        gzclose(g);
        return false;
    }
    return gzclose(g) == Z_OK;
#else
    const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;  // fwrite(NULL, ...) is UB
    return std::fclose(f) == 0 && ok;
#endif
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::install_memory_model();
    if (psv_context_create(PSV_BACKEND_CPU, 0, &g_ctx) != PSV_SUCCESS) std::abort();
    const char *dir = std::getenv("TMPDIR");
    g_text_path =
        std::string(dir && *dir ? dir : "/tmp") + "/psv_fuzz_read_" + std::to_string(getpid());
    g_graph_path = g_text_path + ".graph";
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    g_path = size >= 6 && std::memcmp(data, "%metis", 6) == 0 ? g_graph_path : g_text_path;
    if (!write_file(data, size)) std::abort();
    psv_matrix *const sentinel = reinterpret_cast<psv_matrix *>(uintptr_t(0x5eed0000));
    psv_matrix *A = sentinel;
    const psv_status s = psv_matrix_read(g_ctx, g_path.c_str(), &A);
    if (!fuzz::acceptable_read_status(s)) fuzz::die("psv_matrix_read", s, psv_context_last_error(g_ctx));
    if (s != PSV_SUCCESS) {
        if (A != sentinel) fuzz::die("output changed on failure", s, psv_context_last_error(g_ctx));
        const char *m = psv_context_last_error(g_ctx);
        // Text formats name the line; psv's binary format (its magic first) names the part.
        // Only a file that starts with the magic on disk is binary: gzipped bytes are text only.
#ifdef FUZZ_GZIP
        const bool binary = false;
#else
        const bool binary = size >= 8 && std::memcmp(data, "PSVMTX\0\1", 8) == 0;
#endif
        if ((s == PSV_ERROR_PARSE || s == PSV_ERROR_INVALID_INDEX) && !std::strstr(m, binary ? ".psv" : "line "))
            fuzz::die(binary ? "message names no .psv part" : "message names no line", s, m);
        return 0;
    }
    fuzz::exercise(g_ctx, A);
    psv_matrix_free(&A);
    return 0;
}
