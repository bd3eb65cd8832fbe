// Test files: the bundled data folder (PSV_TEST_DATA, else tests/data) and a per-process
// temporary folder with files written into it (and their gzip copies where asked).
#pragma once
#include <stdlib.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace test_files {

inline std::string data_dir() {
    const char *d = std::getenv("PSV_TEST_DATA");
    return d && *d ? d : "tests/data";
}
inline std::string data_path(const std::string &rel) { return data_dir() + "/" + rel; }

// A folder made once per process (/tmp/psv_test_XXXXXX); aborts where none can be made.
inline const std::string &tmp_dir() {
    static const std::string dir = [] {
        char t[] = "/tmp/psv_test_XXXXXX";
        if (!mkdtemp(t)) std::abort();
        return std::string(t);
    }();
    return dir;
}

// Writes text to tmp_dir()/name (and, with gz, name + ".gz"); returns the path of the first.
inline std::string write_file(const std::string &name, const std::string &text, bool gz = false) {
    const std::string p = tmp_dir() + "/" + name;
    FILE *f = std::fopen(p.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size()) std::abort();
    std::fclose(f);
    if (gz) {
        gzFile g = gzopen((p + ".gz").c_str(), "wb1");
        if (!g || gzwrite(g, text.data(), static_cast<unsigned>(text.size())) != static_cast<int>(text.size()))
            std::abort();
        gzclose(g);
    }
    return p;
}

// Removes tmp_dir() and what was written into it (a message where that fails).
inline void remove_tmp_dir() {
    const std::string cmd = "rm -rf " + tmp_dir();
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", tmp_dir().c_str());
}

}  // namespace test_files
