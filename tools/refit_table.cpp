// refit_table IN.tbl OUT.tbl: a tuning table's samples priced again with this psv's features
// (from the matrices' statistics the table keeps) and its coefficients fitted again, written to
// OUT (psv_context_tune's measurements kept as they are). For a table measured before a change
// of the features or of the fit (data/tuning/README.md). Not installed.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tuning/model.hpp"

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: refit_table IN.tbl OUT.tbl\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "refit_table: cannot read %s\n", argv[1]);
        return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    psv::tuning::Table t;
    std::string err;
    if (!psv::tuning::parse(text.str(), t, err)) {
        std::fprintf(stderr, "refit_table: %s: %s\n", argv[1], err.c_str());
        return 1;
    }
    if (t.matrices.empty()) {
        std::fprintf(stderr, "refit_table: %s keeps no matrix statistics: measure the device again\n", argv[1]);
        return 1;
    }
    t.refeature();
    t.coef.clear();
    psv::tuning::fit(t);
    if (!psv::tuning::save_table(t, argv[2], err)) {
        std::fprintf(stderr, "refit_table: %s\n", err.c_str());
        return 1;
    }
    std::printf("%zu samples of %zu matrices refitted into %zu coefficient sets: %s\n", t.samples.size(), t.matrices.size(),
                t.coef.size(), argv[2]);
    return 0;
}
