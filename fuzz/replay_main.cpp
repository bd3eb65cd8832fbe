// A main for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput on every file given
// (or in a directory given). The test suite uses it to replay the seed corpus and every saved
// crash (fuzz/regressions) with the ordinary compiler and sanitizers: a target that aborts fails.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);

static void collect(const std::string &path, std::vector<std::string> &out) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) {
        out.push_back(path);
        return;
    }
    if (DIR *d = opendir(path.c_str())) {
        while (dirent *e = readdir(d))
            if (e->d_name[0] != '.') collect(path + "/" + e->d_name, out);
        closedir(d);
    }
}

int main(int argc, char **argv) {
    LLVMFuzzerInitialize(&argc, &argv);
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) collect(argv[i], files);
    std::sort(files.begin(), files.end());
    for (const std::string &f : files) {
        FILE *fp = std::fopen(f.c_str(), "rb");
        if (!fp) continue;
        std::vector<uint8_t> data;
        uint8_t buf[65536];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) data.insert(data.end(), buf, buf + n);
        std::fclose(fp);
        std::fprintf(stderr, "%s\n", f.c_str());
        LLVMFuzzerTestOneInput(data.data(), data.size());
    }
    std::fprintf(stderr, "%zu inputs replayed\n", files.size());
    return 0;
}
