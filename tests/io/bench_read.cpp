// The parse throughput of psv's readers, apart from the matrix build: the best of R runs of
// io::read_file (text to tuples), build_csr (tuples to CSR) and, for a .psv file, io::read_psv
// (file to CSR). Not a test: docs/benchmarks.md quotes it.
//   bench_read FILE [R]     (OMP_NUM_THREADS sets the parsing threads)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/csr_build.hpp"
#include "core/error.hpp"
#include "io/psv_format.hpp"
#include "io/read.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_read FILE [REPEATS]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    double best_read = 1e30, best_build = 1e30;
    int64_t entries = 0;
    try {
        for (int r = 0; r < reps; ++r) {
            auto t0 = std::chrono::steady_clock::now();
            if (psv::io::is_psv_file(path)) {
                int32_t base = 0;
                psv::CsrHost csr = psv::io::read_psv(path, base);
                best_read = std::min(best_read, seconds_since(t0));
                entries = csr.nvals();
                best_build = 0;
                continue;
            }
            psv::Coo c = psv::io::read_file(path, false);
            best_read = std::min(best_read, seconds_since(t0));
            entries = static_cast<int64_t>(c.rows.size());
            t0 = std::chrono::steady_clock::now();
            psv::CsrHost csr = psv::build_csr(c.nrows, c.ncols, entries, c.rows.data(),
                                              c.cols.data(), c.pattern ? nullptr : c.fvalues.data(),
                                              c.type, c.dup);
            best_build = std::min(best_build, seconds_since(t0));
        }
    } catch (const psv::Error &e) {
        std::fprintf(stderr, "bench_read: %s\n", e.what());
        return 1;
    }
    std::printf("%s: %lld entries, read %.4f s (%.1f M entries/s), build_csr %.4f s\n",
                path.c_str(), static_cast<long long>(entries), best_read,
                static_cast<double>(entries) / best_read / 1e6, best_build);
    return 0;
}
