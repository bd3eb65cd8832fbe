// Test files: the bundled data folder (PSV_TEST_DATA, else tests/data) and a per-process
// temporary folder with files written into it (and their gzip copies where asked).
#pragma once
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
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

// Runs read() with standard input replaced by a pipe that a child process fills with the bytes of
// path (a non-seekable input, as "-" or /dev/stdin from a shell pipe), then restores standard
// input and waits for the child. Returns what read() returns.
template <class Read>
auto with_stdin_pipe(const std::string &path, Read read) -> decltype(read()) {
    int fds[2];
    if (pipe(fds) != 0) std::abort();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        FILE *f = std::fopen(path.c_str(), "rb");
        if (!f) _exit(1);
        char buf[65536];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
            if (write(fds[1], buf, n) != static_cast<ssize_t>(n)) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    const int saved = dup(STDIN_FILENO);
    dup2(fds[0], STDIN_FILENO);
    close(fds[0]);
    auto result = read();
    dup2(saved, STDIN_FILENO);  // the pipe's read end closes here (the writer may get SIGPIPE)
    close(saved);
    int st = 0;
    waitpid(pid, &st, 0);
    return result;
}

}  // namespace test_files
