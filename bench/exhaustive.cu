// --exhaustive (issue 21, self-tuning): the performance model's choice against an exhaustive search
// over the same candidates. For each matrix, every candidate of AUTO's rebuild
// (psv::cuda::plan_candidates, best predicted first) is rebuilt with the options that name it,
// checked to build exactly that plan, and its weighted fp32 plus-times product checked against
// the fp64 reference and timed as psv_bench times AUTO; then the matrix is rebuilt with its
// original options. The chosen plan's time is its candidate's (AUTO's own time where the chosen
// plan is not among the candidates); the best is the fastest candidate built as listed.
#include <cctype>
#include <new>

#include "bench/bench.hpp"
#include "core/error.hpp"
#include "cuda/internal.hpp"

namespace {

struct CandidateResult {
    std::string plan, family;   // tuning::Plan::describe, its family's table key
    double predicted_ms = NAN;  // the model's
    Stat measured;              // weighted, median / min / p90
    double err = NAN;           // relative error against the fp64 reference
    double build_s = NAN;       // the rebuild's wall seconds
    std::string status = "ok";  // ok, skipped (out of memory, not implemented), error
    std::string reason;         // why skipped or failed
    std::string built;          // the plan built, where it is not the one listed ("": it is)
    bool timed() const { return status == "ok" && built.empty() && std::isfinite(measured.med); }
};

struct MatrixResult {
    std::string name, kind;
    int64_t n = 0, nnz = 0;
    std::string auto_plan, runner_up_plan;  // psv_matrix_plan(A, 0), (A, 1)
    double predicted_ms = NAN, runner_up_ms = NAN;
    double auto_ms = NAN;           // AUTO as psv_bench timed it before the search
    double best_cusparse_ms = NAN;  // the fastest cuSPARSE algorithm on the matrix
    int chosen = -1;                // the candidate equal to AUTO's plan (-1: none)
    int best = -1;                  // the fastest candidate timed (-1: none)
    std::vector<CandidateResult> cands;

    double chosen_ms() const { return chosen >= 0 ? cands[chosen].measured.med : auto_ms; }
    double best_ms() const { return best >= 0 ? cands[best].measured.med : NAN; }
    std::string best_plan() const { return best >= 0 ? cands[best].plan : std::string(); }
    double chosen_over_best() const { return chosen_ms() / best_ms(); }
    double predicted_over_measured() const { return predicted_ms > 0 ? predicted_ms / chosen_ms() : NAN; }
    int timed() const {
        int t = 0;
        for (const CandidateResult &c : cands) t += c.timed();
        return t;
    }
};

std::vector<MatrixResult> g_exhaustive;

// Rebuild PA as candidate c and measure it into r; a failure is recorded in r (and printed by the
// caller), PA keeps its previous plan (a failed rebuild leaves it).
void run_candidate(psv_matrix *PA, const psv::cuda::Candidate &c, const ProductTimer &t, CandidateResult &r) {
    psv::Backend &be = psv::cuda::backend_of(g_ctx);
    try {
        psv::cuda::synchronize(be);
        const double t0 = now_s();
        psv::cuda::rebuild_with(PA, c.options);
        psv::cuda::synchronize(be);
        r.build_s = now_s() - t0;
    } catch (const psv::Error &e) {
        const bool skip = e.status() == PSV_ERROR_OUT_OF_MEMORY || e.status() == PSV_ERROR_NOT_IMPLEMENTED;
        r.status = skip ? "skipped" : "error";
        r.reason = std::string(psv_status_string(e.status())) + ": " + e.what();
        return;
    } catch (const std::bad_alloc &) {
        r.status = "skipped";
        r.reason = "host out of memory";
        return;
    } catch (const std::exception &e) {
        r.status = "error";
        r.reason = e.what();
        return;
    }
    const psv::tuning::Plan built = psv::cuda::built_plan(PA, nullptr);
    if (!(built == c.plan)) r.built = built.describe();
    try {
        r.err = t.error(PA);
        r.measured = t.time(PA);
    } catch (const std::exception &e) {  // PK: a psv call failed
        r.status = "error";
        r.reason = e.what();
    }
}

// The JSON string "s" (quotes, backslashes and control characters escaped).
void jstr(FILE *f, const char *k, const std::string &s, bool comma = true) {
    std::fprintf(f, "\"%s\": \"", k);
    for (const char ch : s) {
        const unsigned char u = (unsigned char)ch;
        if (ch == '"' || ch == '\\') std::fprintf(f, "\\%c", ch);
        else if (u < 0x20) std::fprintf(f, "\\u%04x", u);
        else std::fputc(ch, f);
    }
    std::fprintf(f, "\"%s", comma ? ", " : "");
}

void json_candidate(FILE *f, const CandidateResult &c) {
    std::fprintf(f, "{");
    jstr(f, "plan", c.plan), jstr(f, "family", c.family), jnum(f, "predicted_ms", c.predicted_ms);
    jnum(f, "measured_ms", c.measured.med), jnum(f, "measured_min_ms", c.measured.min), jnum(f, "measured_p90_ms", c.measured.p90);
    jnum(f, "err_weighted", c.err), jnum(f, "build_s", c.build_s);
    jstr(f, "status", c.status), jstr(f, "reason", c.reason), jstr(f, "built_plan", c.built, false);
    std::fprintf(f, "}");
}

void json_matrix(FILE *f, const MatrixResult &m) {
    std::fprintf(f, "  {");
    jstr(f, "name", m.name), jstr(f, "kind", m.kind);
    std::fprintf(f, "\"n\": %lld, \"nnz\": %lld, ", (long long)m.n, (long long)m.nnz);
    jstr(f, "auto_plan", m.auto_plan), jnum(f, "auto_ms", m.auto_ms);
    jstr(f, "runner_up_plan", m.runner_up_plan), jnum(f, "runner_up_predicted_ms", m.runner_up_ms);
    std::fprintf(f, "\"chosen\": {\"index\": %d, ", m.chosen);
    jstr(f, "plan", m.chosen >= 0 ? m.cands[m.chosen].plan : m.auto_plan);
    jstr(f, "from", m.chosen >= 0 ? "candidate" : "auto");
    jnum(f, "predicted_ms", m.predicted_ms), jnum(f, "measured_ms", m.chosen_ms(), false);
    std::fprintf(f, "}, \"best\": {\"index\": %d, ", m.best);
    jstr(f, "plan", m.best_plan()), jnum(f, "measured_ms", m.best_ms(), false);
    std::fprintf(f, "}, ");
    jnum(f, "chosen_over_best", m.chosen_over_best()), jnum(f, "predicted_over_measured", m.predicted_over_measured());
    jnum(f, "best_cusparse_ms", m.best_cusparse_ms);
    std::fprintf(f, "\"candidates\": [");
    for (size_t i = 0; i < m.cands.size(); ++i) {
        json_candidate(f, m.cands[i]);
        std::fprintf(f, "%s", i + 1 < m.cands.size() ? ", " : "");
    }
    std::fprintf(f, "]}");
}

}  // namespace

void bench_exhaustive(psv_matrix *PA, const Result &res, const ProductTimer &t) {
    MatrixResult m;
    m.name = res.name, m.kind = res.kind, m.n = res.n, m.nnz = res.nnz;
    m.auto_plan = psv_matrix_plan(PA, 0);
    m.runner_up_plan = psv_matrix_plan(PA, 1);
    double predicted = 0;
    const psv::tuning::Plan chosen = psv::cuda::built_plan(PA, &predicted);
    m.predicted_ms = predicted > 0 ? predicted : NAN;
    m.runner_up_ms = res.info.plan_candidates >= 2 ? res.info.runner_up_ms : NAN;
    m.auto_ms = res.psv_w[0].med;
    m.best_cusparse_ms = res.best_cs();
    const psv::FormatOptions original = psv::cuda::store_of(PA).options;
    const std::vector<psv::cuda::Candidate> cands = psv::cuda::plan_candidates(PA);
    std::printf("exhaustive: AUTO's plan: %s, predicted %.4f ms; runner-up: %s, predicted %.4f ms; %zu candidates\n",
                m.auto_plan.c_str(), m.predicted_ms, m.runner_up_plan.empty() ? "none" : m.runner_up_plan.c_str(), m.runner_up_ms,
                cands.size());
    if (cands.empty()) std::printf("exhaustive: no candidates to time (tuning table: %s)\n", psv_context_tuning_text(g_ctx));
    // the model's input, for an offline check of other features or tables (lines "stats ...")
    std::string label = res.name;
    for (char &ch : label)
        if (std::isspace((unsigned char)ch)) ch = '_';
    if (!cands.empty()) {
        const double ms_model = psv::cuda::model_seconds(PA);
        std::printf("exhaustive: the model's cost %.4f s of the build's %.3f s (%.1f %%)\n", ms_model, res.build_s,
                    100.0 * ms_model / res.build_s);
        std::printf("%s\n", psv::cuda::model_stats_line(PA, label).c_str());
    }
    std::fflush(stdout);
    for (size_t i = 0; i < cands.size(); ++i) {
        CandidateResult r;
        r.plan = cands[i].plan.describe();
        r.family = psv::tuning::family_name(cands[i].plan.family);
        r.predicted_ms = cands[i].predicted_ms;
        run_candidate(PA, cands[i], t, r);
        if (r.status != "ok") {
            std::printf("exhaustive %2zu/%zu %s: %s (%s)\n", i + 1, cands.size(), r.status == "error" ? "ERROR" : "skipped",
                        r.plan.c_str(), r.reason.c_str());
        } else {
            if (!r.built.empty())
                std::printf("exhaustive %2zu/%zu ERROR: the candidate's options built \"%s\", not \"%s\" (not counted)\n", i + 1,
                            cands.size(), r.built.c_str(), r.plan.c_str());
            std::printf("exhaustive %2zu/%zu %-72s predicted %9.4f ms  measured %9.4f ms (predicted/measured %.2f)  err %.1e  "
                        "build %.2f s\n",
                        i + 1, cands.size(), r.plan.c_str(), r.predicted_ms, r.measured.med, r.predicted_ms / r.measured.med, r.err,
                        r.build_s);
            if (r.built.empty())
                std::printf("measured %s %s 1 %.6f\n", label.c_str(), cands[i].plan.key().c_str(), r.measured.med);
        }
        std::fflush(stdout);
        m.cands.push_back(std::move(r));
        const CandidateResult &c = m.cands.back();
        if (!c.timed()) continue;
        if (m.chosen < 0 && cands[i].plan == chosen) m.chosen = (int)i;
        if (m.best < 0 || c.measured.med < m.cands[m.best].measured.med) m.best = (int)i;
    }
    if (!cands.empty())
        std::printf("exhaustive: chosen %s %.4f ms (%s); best %s %.4f ms; chosen/best %.3f; predicted/measured %.3f\n",
                    m.chosen >= 0 ? m.cands[m.chosen].plan.c_str() : m.auto_plan.c_str(), m.chosen_ms(),
                    m.chosen >= 0 ? "its candidate's time" : "not among the candidates timed: AUTO's own time",
                    m.best_plan().c_str(), m.best_ms(), m.chosen_over_best(), m.predicted_over_measured());
    std::fflush(stdout);
    g_exhaustive.push_back(std::move(m));  // kept even where the rebuild below fails
    if (cands.empty()) return;
    psv::cuda::rebuild_with(PA, original);
    const psv::tuning::Plan again = psv::cuda::built_plan(PA, nullptr);
    if (!(again == chosen))
        std::printf("exhaustive: ERROR: the original options rebuilt \"%s\", not AUTO's \"%s\"\n", again.describe().c_str(),
                    chosen.describe().c_str());
}

void print_exhaustive_table() {
    if (g_exhaustive.empty()) return;
    std::printf("\n## Self-tuning on %s: the model's choice against the exhaustive best over its candidates\n"
                "tuning table: %s; weighted fp32 plus-times, ms, median of %d after %d warm-ups\n",
                g_device.c_str(), psv_context_tuning_text(g_ctx), O.runs, O.warmup);
    std::printf("| matrix | nnz | chosen plan | chosen ms | best plan | best ms | chosen/best | predicted ms | predicted/measured |"
                " candidates |\n|---|---|---|---|---|---|---|---|---|---|\n");
    double worst_ratio = 0, worst_pred = 0;
    std::string worst_ratio_name, worst_pred_name;
    int within_ratio = 0, with_ratio = 0, within_pred = 0, with_pred = 0;
    for (const MatrixResult &m : g_exhaustive) {
        std::printf("| %s | %lld | %s%s | %.4f | %s | %.4f | %.3f | %.4f | %.3f | %d of %zu |\n", m.name.c_str(), (long long)m.nnz,
                    m.chosen >= 0 ? m.cands[m.chosen].plan.c_str() : m.auto_plan.c_str(), m.chosen >= 0 ? "" : " (AUTO timed)",
                    m.chosen_ms(), m.best_plan().c_str(), m.best_ms(), m.chosen_over_best(), m.predicted_ms,
                    m.predicted_over_measured(), m.timed(), m.cands.size());
        const double r = m.chosen_over_best();
        if (std::isfinite(r)) {
            ++with_ratio, within_ratio += r <= 1.03;
            if (r > worst_ratio) worst_ratio = r, worst_ratio_name = m.name;
        }
        const double pm = m.predicted_over_measured();
        if (m.nnz >= 10000000 && std::isfinite(pm)) {
            ++with_pred, within_pred += std::fabs(pm - 1) <= 0.10;
            if (std::fabs(pm - 1) > worst_pred) worst_pred = std::fabs(pm - 1), worst_pred_name = m.name;
        }
    }
    std::printf("\n## Targets (issue 21)\n");
    if (with_ratio)
        std::printf("- chosen within 3%% of the exhaustive best: %d of %d matrices; worst chosen/best %.3f on %s\n", within_ratio,
                    with_ratio, worst_ratio, worst_ratio_name.c_str());
    if (with_pred)
        std::printf("- predicted within 10%% of measured (>= 1e7 entries): %d of %d matrices; worst |predicted/measured - 1| %.1f%% on %s\n",
                    within_pred, with_pred, 100 * worst_pred, worst_pred_name.c_str());
    std::fflush(stdout);
}

void json_exhaustive(FILE *f) {
    if (!O.exhaustive) return;
    std::fprintf(f, ", ");
    jstr(f, "tuning_table", psv_context_tuning_text(g_ctx));
    std::fprintf(f, "\"exhaustive\": [\n");
    for (size_t i = 0; i < g_exhaustive.size(); ++i) {
        json_matrix(f, g_exhaustive[i]);
        std::fprintf(f, "%s\n", i + 1 < g_exhaustive.size() ? "," : "");
    }
    std::fprintf(f, "]");
}
