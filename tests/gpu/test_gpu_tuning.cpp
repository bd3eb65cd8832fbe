// The performance model on a device: a quick psv_context_tune writes a table that parses and that
// the context then uses; AUTO builds the candidate the model ranks first, reports its predicted
// time and the runner-up; every candidate computes the same product (fp64 reference); the same
// plan gives bit-identical results twice; the options override the choice; a table that cannot
// be written is PSV_ERROR_IO and the context keeps its table.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cuda/internal.hpp"
#include "gpu_common.hpp"
#include "psv/psv.h"
#include "tuning/model.hpp"

namespace {

std::string read_all(const std::string &path) {
    std::ifstream f(path);
    std::ostringstream o;
    o << f.rdbuf();
    return o.str();
}

// y = A x on the host in fp64, A given by its tuples (duplicates: the first kept, as PSV_FIRST)
std::vector<double> reference(const gputest::Edges &E, const std::vector<float> &val, const std::vector<float> &x) {
    std::vector<double> y((size_t)E.nrows, 0.0);
    std::vector<std::pair<int64_t, int64_t>> seen;
    seen.reserve(E.rows.size());
    std::vector<size_t> idx(E.rows.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return E.rows[a] != E.rows[b] ? E.rows[a] < E.rows[b] : E.cols[a] < E.cols[b];
    });
    for (size_t k = 0; k < idx.size(); ++k) {
        const size_t i = idx[k];
        if (k > 0 && E.rows[idx[k - 1]] == E.rows[i] && E.cols[idx[k - 1]] == E.cols[i]) continue;
        y[(size_t)E.rows[i]] += (double)val[i] * (double)x[(size_t)E.cols[i]];
    }
    return y;
}

std::vector<float> product(psv_context *ctx, psv_matrix *A, const std::vector<float> &x, psv_semiring *s) {
    int64_t nr = 0, nc = 0;
    psv_matrix_nrows(A, &nr);
    psv_matrix_ncols(A, &nc);
    psv_vector *u = nullptr, *w = nullptr;
    REQUIRE(psv_vector_create(ctx, PSV_FP32, nc, &u) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP32, nr, &w) == PSV_SUCCESS);
    REQUIRE(psv_vector_set(u, x.data(), nc) == PSV_SUCCESS);
    REQUIRE(psv_mxv(w, nullptr, PSV_NOOP, s, A, u, 0) == PSV_SUCCESS);
    std::vector<float> y((size_t)nr, 0.0f);
    REQUIRE(psv_vector_get(w, y.data(), nr) == PSV_SUCCESS);
    psv_vector_free(&u);
    psv_vector_free(&w);
    return y;
}

double rel_l1(const std::vector<float> &y, const std::vector<double> &ref) {
    double num = 0, den = 0;
    for (size_t i = 0; i < y.size(); ++i) num += std::fabs((double)y[i] - ref[i]), den += std::fabs(ref[i]);
    return den > 0 ? num / den : num;
}

}  // namespace

int main() {
    gputest::require_device();
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create(PSV_BACKEND_CUDA, 0, &ctx) == PSV_SUCCESS);
    psv_tuning_info ti;
    CHECK_STATUS(psv_context_tuning(ctx, &ti), PSV_SUCCESS);
    std::printf("tuning before: %s\n", psv_context_tuning_text(ctx));

    // an unwritable path: PSV_ERROR_IO, the table unchanged
    const std::string before = psv_context_tuning_text(ctx);
    CHECK_STATUS(psv_context_tune(ctx, "/proc/psv-no-such-dir/x.tbl", 0, 0), PSV_ERROR_IO);
    CHECK(before == psv_context_tuning_text(ctx));
    CHECK_STATUS(psv_context_tune(ctx, nullptr, 2, 0), PSV_ERROR_INVALID_VALUE);

    // a quick tune into a temporary file
    char dir[] = "/tmp/psv-tune-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const std::string path = std::string(dir) + "/sub/table.tbl";
    CHECK_STATUS(psv_context_tune(ctx, path.c_str(), 0, 1), PSV_SUCCESS);
    psv::tuning::Table T;
    std::string err;
    CHECK_MSG(psv::tuning::parse(read_all(path), T, err), "the written table does not parse: %s", err.c_str());
    CHECK(T.samples.size() >= 20);
    for (int f = 0; f < psv::tuning::kFamilies; ++f)
        CHECK_MSG(T.has((psv::tuning::Family)f), "family %s not measured", psv::tuning::family_name((psv::tuning::Family)f));
    REQUIRE(psv_context_tuning(ctx, &ti) == PSV_SUCCESS);
    CHECK(ti.source == PSV_TUNING_USER && ti.families == psv::tuning::kFamilies && ti.samples == (int64_t)T.samples.size());
    CHECK(std::string(psv_context_tuning_text(ctx)).find(path) != std::string::npos);
    // the fit on its own samples: a median relative error a model of this kind reaches
    {
        std::vector<double> rel;
        for (const auto &s : T.samples) {
            double ms = 0;
            const auto &c = *T.coefficients(s.plan);
            for (size_t j = 0; j < c.size(); ++j) ms += c[j] * s.f[j];
            rel.push_back(std::fabs(ms - s.ms) / s.ms);
        }
        std::sort(rel.begin(), rel.end());
        const double med = rel[rel.size() / 2];
        std::printf("quick table: %zu samples, median relative error of the fit %.3f\n", rel.size(), med);
        CHECK_MSG(med < 0.5, "median relative error of the fit %.3f", med);
    }

    // AUTO under the model on an R-MAT matrix
    const int scale = gputest::small_mode() ? 11 : 15;
    const gputest::Edges E = gputest::rmat(scale, 16, 11);
    std::vector<float> val(E.rows.size()), x((size_t)E.ncols);
    for (size_t i = 0; i < val.size(); ++i) val[i] = 0.5f + (float)((i * 2654435761u) % 1000) / 1000.0f;
    for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0f + (float)(i % 7) / 7.0f;
    const std::vector<double> ref = reference(E, val, x);
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, E.nrows, E.ncols, (int64_t)E.rows.size(), E.rows.data(), E.cols.data(),
                             val.data(), PSV_FIRST, &A) == PSV_SUCCESS);
    psv_matrix_info in;
    REQUIRE(psv_matrix_info_get(A, &in) == PSV_SUCCESS);
    const std::vector<psv::cuda::Candidate> cands = psv::cuda::plan_candidates(A);
    CHECK(cands.size() >= 5 && in.plan_candidates == (int32_t)cands.size());
    double pred = 0;
    const psv::tuning::Plan built = psv::cuda::built_plan(A, &pred);
    REQUIRE(!cands.empty());
    CHECK_MSG(built == cands[0].plan, "built %s, the model ranks %s first", built.describe().c_str(),
              cands[0].plan.describe().c_str());
    for (size_t i = 1; i < cands.size(); ++i) CHECK(cands[i - 1].predicted_ms <= cands[i].predicted_ms);
    CHECK(in.predicted_ms > 0 && in.predicted_ms == pred && in.predicted_ms == cands[0].predicted_ms);
    CHECK(in.runner_up_ms == cands[1].predicted_ms && in.runner_up_kernel == psv::tuning::family_kernel(cands[1].plan.family));
    CHECK(std::string(psv_matrix_plan(A, 0)).find(psv::tuning::family_text(built.family)) == 0);
    CHECK(std::string(psv_matrix_plan(A, 1)) == cands[1].plan.describe());
    CHECK(std::string(psv_matrix_plan(A, 2)).empty());
    std::printf("R-MAT %d: %lld entries, plan %s, predicted %.4f ms; runner-up %s, %.4f ms; %d candidates\n", scale,
                (long long)in.nvals, psv_matrix_plan(A, 0), in.predicted_ms, psv_matrix_plan(A, 1), in.runner_up_ms,
                (int)in.plan_candidates);

    // every candidate: the product within float rounding of the fp64 reference, and each the
    // same twice, bit for bit
    psv_semiring *s = nullptr;
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP32, &s) == PSV_SUCCESS);
    for (const psv::cuda::Candidate &c : cands) {
        psv::cuda::rebuild_with(A, c.options);
        const psv::tuning::Plan b = psv::cuda::built_plan(A, nullptr);
        CHECK_MSG(b == c.plan, "options for %s built %s", c.plan.describe().c_str(), b.describe().c_str());
        const std::vector<float> y1 = product(ctx, A, x, s), y2 = product(ctx, A, x, s);
        const double e = rel_l1(y1, ref);
        CHECK_MSG(e < 1e-6, "%s: relative L1 error %.3g", c.plan.describe().c_str(), e);
        CHECK_MSG(std::memcmp(y1.data(), y2.data(), y1.size() * 4) == 0, "%s: two runs differ", c.plan.describe().c_str());
    }

    // the options override the choice: no hot columns, plain order
    psv::cuda::rebuild_with(A, psv::FormatOptions{});
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_HOT_COLUMNS, 0) == PSV_SUCCESS);
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_RANK_ORDER, 0) == PSV_SUCCESS);
    REQUIRE(psv_matrix_info_get(A, &in) == PSV_SUCCESS);
    CHECK(in.kernel == PSV_KERNEL_CSR && in.hot_columns == 0 && in.ranked_columns == 0);
    CHECK(psv::cuda::built_plan(A, nullptr).family == psv::tuning::Family::Chunk);
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_HOT_COLUMNS, 4096) == PSV_SUCCESS);
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_RANK_ORDER, 1) == PSV_SUCCESS);
    REQUIRE(psv_matrix_info_get(A, &in) == PSV_SUCCESS);
    CHECK_MSG(in.hot_columns == std::min<int64_t>(4096, in.ncols / 32 * 32) && in.ranked_columns > 0, "hot %lld ranked %lld",
              (long long)in.hot_columns, (long long)in.ranked_columns);
    CHECK(rel_l1(product(ctx, A, x, s), ref) < 1e-6);
    // the rules, and an explicit kernel (priced, the runner-up the model's best other plan)
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_HOT_COLUMNS, -1) == PSV_SUCCESS);
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_RANK_ORDER, -1) == PSV_SUCCESS);
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_PLAN_CHOICE, PSV_CHOICE_RULES) == PSV_SUCCESS);
    REQUIRE(psv_matrix_info_get(A, &in) == PSV_SUCCESS);
    CHECK(in.kernel == PSV_KERNEL_CSR && in.predicted_ms > 0);
    REQUIRE(psv_matrix_set_option(A, PSV_OPT_KERNEL, PSV_KERNEL_STREAM) == PSV_SUCCESS);
    REQUIRE(psv_matrix_info_get(A, &in) == PSV_SUCCESS);
    CHECK(in.kernel == PSV_KERNEL_STREAM && in.predicted_ms > 0 && in.runner_up_kernel >= 0);
    CHECK(rel_l1(product(ctx, A, x, s), ref) < 1e-6);

    psv_semiring_free(&s);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    std::remove(path.c_str());
    ::rmdir((std::string(dir) + "/sub").c_str());
    ::rmdir(dir);
    return check_exit();
}
