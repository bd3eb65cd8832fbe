// The bench's report: the markdown tables and targets on stdout, JSON, CSV and the SVG chart.
#include "bench/bench.hpp"

static double ratio(double cs, double ps) { return (std::isfinite(cs) && std::isfinite(ps) && ps > 0) ? cs / ps : NAN; }
static double eff_share(const Result &r, double ms) { return r.bytes() / (ms * 1e-3) / g_copy_bw; }

void print_table() {
    std::printf("\n## %s, copy bandwidth %.2f TB/s (read + write); times in ms, median of %d; speedup = best cuSPARSE / psv\n",
                g_device.c_str(), g_copy_bw / 1e12, O.runs);
    std::printf("| matrix | kind | n | nnz | cuSP ALG1 | ALG2 | COO | best | reord best | psv auto (w) | TC (w) | TCOO (w) | CSR (w) |"
                " TC (pat) | speedup auto | speedup TC pat | BW share auto | build s | build / best cuSP |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Result &r : g_results) {
        const double b = r.best_cs();
        std::printf("| %s | %s | %lld | %lld | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.2fx | %.2fx | %.0f%% | %.3f | %.0f |\n",
                    r.name.c_str(), r.kind.c_str(), (long long)r.n, (long long)r.nnz, r.cs[0].med, r.cs[1].med, r.cs[2].med, b,
                    r.best_cs_re(), r.psv_w[0].med, r.psv_w[1].med, r.psv_w[2].med, r.psv_w[3].med, r.psv_p[1].med,
                    ratio(b, r.psv_w[0].med), ratio(b, r.psv_p[1].med), 100 * eff_share(r, r.psv_w[0].med), r.build_s,
                    r.build_s * 1e3 / b);
    }
    std::printf("\n| matrix | best cuSP | psv auto (w) | gather probe (w) | probe layout | ceiling = best cuSP / probe | psv / probe (w) |"
                " psv auto (pat) | probe (pat) | psv / probe (pat) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Result &r : g_results) {
        if (!std::isfinite(r.probe_w.med)) continue;
        std::printf("| %s | %.4f | %.4f | %.4f | %s | %.2fx | %.2f | %.4f | %.4f | %.2f |\n", r.name.c_str(), r.best_cs(), r.psv_w[0].med,
                    r.probe_w.med, r.probe_layout_w.c_str(), ratio(r.best_cs(), r.probe_w.med), r.psv_w[0].med / r.probe_w.med,
                    r.psv_p[0].med, r.probe_p.med, r.psv_p[0].med / r.probe_p.med);
    }
    std::printf("\n| matrix | PR psv s (it) | PR cuSP s (it) | PR ms/it psv | PR ms/it cuSP | PR per-it speedup | PR max rel |"
                " HITS psv s (it) | HITS cuSP s (it) | RWR S build s | RWR psv 25x1 s | RWR psv batch s | RWR cuSP 25x1 s |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Result &r : g_results) {
        if (r.pr_it_psv < 0) continue;
        std::printf("| %s | %.4f (%d) | %.4f (%d) | %.4f | %.4f | %.2fx | %.1e | %.4f (%d) | %.4f (%d) | %.3f | %.4f | %.4f | %.4f |\n",
                    r.name.c_str(), r.pr_psv, r.pr_it_psv, r.pr_cs, r.pr_it_cs, 1e3 * r.pr_iter_psv(), 1e3 * r.pr_iter_cs(),
                    r.pr_iter_cs() / r.pr_iter_psv(), r.pr_maxrel, r.hits_psv, r.hits_it_psv, r.hits_cs, r.hits_it_cs, r.rwr_graph_s,
                    r.rwr_psv, r.rwr_batch_psv, r.rwr_cs);
    }
    // the issue's targets
    double lg_probe = 0;
    int cnt_probe = 0;
    double lg = 0, mn = INFINITY, mn_bw = INFINITY, mn_pr = INFINITY, mn_con = INFINITY;
    int cnt = 0;
    std::string mn_name, bw_name, pr_name, con_name;
    for (const Result &r : g_results) {
        const double sp = ratio(r.best_cs(), r.psv_w[0].med);
        if (!std::isfinite(sp)) continue;
        if (r.kind == "powerlaw") {
            lg += std::log(sp), ++cnt;
            if (std::isfinite(ratio(r.best_cs(), r.probe_w.med))) lg_probe += std::log(ratio(r.best_cs(), r.probe_w.med)), ++cnt_probe;
            if (sp < mn) mn = sp, mn_name = r.name;
            if (r.nnz >= 10000000 && eff_share(r, r.psv_w[0].med) < mn_bw) mn_bw = eff_share(r, r.psv_w[0].med), bw_name = r.name;
            if (r.pr_it_psv > 0 && r.pr_iter_cs() / r.pr_iter_psv() < mn_pr) mn_pr = r.pr_iter_cs() / r.pr_iter_psv(), pr_name = r.name;
        } else if (sp < mn_con) {
            mn_con = sp, con_name = r.name;
        }
    }
    std::printf("\n## Targets (psv_mxv with the default kernel choice, weighted plus-times fp32, vs the best cuSPARSE algorithm)\n");
    if (cnt) {
        std::printf("- geomean speedup over %d power-law matrices: %.2fx (target >= 2x)\n", cnt, std::exp(lg / cnt));
        std::printf("- lowest power-law speedup: %.2fx on %s (target >= 1.3x)\n", mn, mn_name.c_str());
    }
    if (cnt_probe)
        std::printf("- the gather probe's ceiling (best cuSPARSE / probe, not an SpMV): geomean %.2fx over %d power-law matrices\n",
                    std::exp(lg_probe / cnt_probe), cnt_probe);
    for (const Result &r : g_results)
        if (r.name == "rmat25") std::printf("- R-MAT 25 speedup: %.2fx (target >= 3x)\n", ratio(r.best_cs(), r.psv_w[0].med));
    if (std::isfinite(mn_bw)) std::printf("- lowest bandwidth share, power-law >= 1e7 edges: %.0f%% of copy on %s (target >= 60%%)\n", 100 * mn_bw, bw_name.c_str());
    if (std::isfinite(mn_pr)) std::printf("- lowest PageRank per-iteration speedup: %.2fx on %s (target >= 3x)\n", mn_pr, pr_name.c_str());
    if (std::isfinite(mn_con)) std::printf("- lowest non-power-law speedup: %.2fx on %s (target >= 0.9x)\n", mn_con, con_name.c_str());
    for (const Result &r : g_results)
        if (r.name == "rmat24")
            std::printf("- R-MAT 24 construction: %.3f s = %.0f best-cuSPARSE SpMV times (target < 50)\n", r.build_s, r.build_s * 1e3 / r.best_cs());
    std::fflush(stdout);
}

void jnum(FILE *f, const char *k, double v, bool comma) {
    if (std::isfinite(v)) std::fprintf(f, "\"%s\": %.6g%s", k, v, comma ? ", " : "");
    else std::fprintf(f, "\"%s\": null%s", k, comma ? ", " : "");
}

// The prototype's and the variants' results of one matrix (JSON arrays).
static void json_extras(FILE *f, const Result &r) {
    std::fprintf(f, "\"prototype\": [");
    for (size_t v = 0; v < r.proto.size(); ++v) {
        const auto &x = r.proto[v];
        std::fprintf(f, "{\"tile_width\": %lld, \"tiles\": %d, \"segments\": %lld, ", (long long)x.tw, x.T, (long long)x.segs);
        jnum(f, "weighted_ms", x.w.med), jnum(f, "pattern_ms", x.p.med), jnum(f, "err_weighted", x.err_w), jnum(f, "err_pattern", x.err_p);
        jnum(f, "build_s", x.build_s, false);
        std::fprintf(f, "}%s", v + 1 < r.proto.size() ? ", " : "");
    }
    std::fprintf(f, "], ");
    std::fprintf(f, "\"variants\": [");
    for (size_t v = 0; v < r.var.size(); ++v) {
        const auto &x = r.var[v];
        std::fprintf(f, "{\"name\": \"%s\", \"dense_tiles\": %d, \"tile_width\": %lld, \"workloads\": %lld, ", x.name.c_str(),
                     x.info.dense_tiles, (long long)x.info.tile_width, (long long)x.info.workloads);
        jnum(f, "weighted_ms", x.w.med), jnum(f, "pattern_ms", x.p.med), jnum(f, "err_weighted", x.err_w);
        std::fprintf(f, "\"device_bytes\": %lld, ", (long long)x.info.device_bytes);
        jnum(f, "padding_ratio", x.info.padding_ratio), jnum(f, "form_s", x.form_s, false);
        std::fprintf(f, "}%s", v + 1 < r.var.size() ? ", " : "");
    }
    std::fprintf(f, "]");
}

// One matrix's JSON object, without its closing brace.
static void json_matrix(FILE *f, const Result &r) {
    std::fprintf(f, "  {\"name\": \"%s\", \"kind\": \"%s\", \"n\": %lld, \"ncols\": %lld, \"nnz\": %lld, \"tuples\": %lld, \"x_rotation\": %d, ",
                 r.name.c_str(), r.kind.c_str(), (long long)r.n, (long long)r.ncols, (long long)r.nnz, (long long)r.nnz_in, r.nx);
    jnum(f, "gen_s", r.gen_s), jnum(f, "csr_s", r.csr_s), jnum(f, "psv_build_s", r.build_s), jnum(f, "psv_form_s", r.rebuild_tc_s);
    std::fprintf(f, "\"device_bytes\": %lld, ", (long long)r.info.device_bytes);
    jnum(f, "device_bytes_per_entry", r.device_bytes_per_entry());
    std::fprintf(f, "\"form\": {\"dense_tiles\": %d, \"tile_width\": %lld, \"sparse_tile\": %d, \"workloads\": %lld, "
                    "\"row_major_workloads\": %lld, \"padding_ratio\": %.4f, \"bytes\": %lld, \"dense_nvals\": %lld, \"auto_kernel\": %d}, ",
                 r.info.dense_tiles, (long long)r.info.tile_width, r.info.sparse_tile, (long long)r.info.workloads,
                 (long long)r.info.row_major_workloads, r.info.padding_ratio, (long long)r.info.bytes, (long long)r.info.dense_nvals,
                 r.auto_kernel);
    for (int k = 0; k < 4; ++k) {
        std::string key = std::string("psv_") + psv_kernel_name(kKernels[k]);
        std::fprintf(f, "\"%s\": {", key.c_str());
        jnum(f, "weighted_ms", r.psv_w[k].med), jnum(f, "weighted_min_ms", r.psv_w[k].min), jnum(f, "weighted_p90_ms", r.psv_w[k].p90);
        jnum(f, "pattern_ms", r.psv_p[k].med), jnum(f, "pattern_min_ms", r.psv_p[k].min), jnum(f, "err_weighted", r.psv_err_w[k]);
        jnum(f, "err_pattern", r.psv_err_p[k], false);
        std::fprintf(f, "}, ");
    }
    for (int a = 0; a < 3; ++a) {
        std::fprintf(f, "\"cusparse_%s\": {", kCsName[a]);
        jnum(f, "ms", r.cs[a].med), jnum(f, "min_ms", r.cs[a].min), jnum(f, "err", r.cs_err[a]);
        jnum(f, "reordered_ms", r.cs_re[a].med, false);
        std::fprintf(f, "}, ");
    }
    const double b = r.best_cs();
    jnum(f, "best_cusparse_ms", b), jnum(f, "best_cusparse_reordered_ms", r.best_cs_re());
    jnum(f, "speedup_auto_weighted", ratio(b, r.psv_w[0].med)), jnum(f, "speedup_tc_weighted", ratio(b, r.psv_w[1].med));
    jnum(f, "speedup_tc_pattern", ratio(b, r.psv_p[1].med)), jnum(f, "speedup_auto_vs_reordered", ratio(r.best_cs_re(), r.psv_w[0].med));
    jnum(f, "eff_bw_auto_Bps", r.bytes() / (r.psv_w[0].med * 1e-3)), jnum(f, "bw_share_auto", eff_share(r, r.psv_w[0].med));
    jnum(f, "bw_share_best_cusparse", eff_share(r, b));
    jnum(f, "pagerank_psv_s", r.pr_psv), jnum(f, "pagerank_psv_it", r.pr_it_psv), jnum(f, "pagerank_cusparse_s", r.pr_cs);
    jnum(f, "pagerank_cusparse_it", r.pr_it_cs), jnum(f, "pagerank_l1_diff", r.pr_l1), jnum(f, "pagerank_max_rel_diff", r.pr_maxrel);
    jnum(f, "transpose_build_s", r.transpose_s), jnum(f, "transpose_bytes", r.transpose_bytes), jnum(f, "pagerank_psv_1it_s", r.pr_psv1), jnum(f, "pagerank_cusparse_1it_s", r.pr_cs1);
    jnum(f, "pagerank_psv_ms_per_it", 1e3 * r.pr_iter_psv()), jnum(f, "pagerank_cusparse_ms_per_it", 1e3 * r.pr_iter_cs());
    jnum(f, "hits_psv_s", r.hits_psv), jnum(f, "hits_psv_it", r.hits_it_psv), jnum(f, "hits_cusparse_s", r.hits_cs);
    jnum(f, "hits_cusparse_it", r.hits_it_cs), jnum(f, "hits_l1_diff", r.hits_l1);
    jnum(f, "rwr_graph_build_s", r.rwr_graph_s), jnum(f, "rwr_psv_25_singles_s", r.rwr_psv), jnum(f, "rwr_psv_it_sum", r.rwr_it_psv);
    jnum(f, "rwr_psv_batch25_s", r.rwr_batch_psv), jnum(f, "rwr_cusparse_25_singles_s", r.rwr_cs);
    jnum(f, "rwr_cusparse_it_sum", r.rwr_it_cs), jnum(f, "rwr_l1_diff", r.rwr_l1), jnum(f, "rwr_batch_l1_diff", r.rwr_batch_l1);
    std::fprintf(f, "\"column_mass_top_64K_1M_4M_8M_16M\": [%.4f, %.4f, %.4f, %.4f, %.4f], ", r.mass[0], r.mass[1], r.mass[2], r.mass[3],
                 r.mass[4]);
    jnum(f, "probe_w_ms", r.probe_w.med);
    jnum(f, "probe_p_ms", r.probe_p.med);
    std::fprintf(f, "\"probe_layout_w\": \"%s\", \"probe_layout_p\": \"%s\", ", r.probe_layout_w.c_str(), r.probe_layout_p.c_str());
    json_extras(f, r);
}

static void write_json(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write %s", path.c_str());
    std::fprintf(f, "{\"device\": \"%s\", ", g_device.c_str());
    jnum(f, "copy_bandwidth_Bps", g_copy_bw);
    std::fprintf(f, "\"runs\": %d, \"warmup\": %d, \"l2_flush\": %s, \"matrices\": [\n", O.runs, O.warmup, O.flush ? "true" : "false");
    for (size_t i = 0; i < g_results.size(); ++i) {
        json_matrix(f, g_results[i]);
        std::fprintf(f, "}%s\n", i + 1 < g_results.size() ? "," : "");
    }
    std::fprintf(f, "]");
    json_exhaustive(f);
    std::fprintf(f, "}\n");
    std::fclose(f);
}

static void write_csv(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write %s", path.c_str());
    std::fprintf(f, "matrix,kind,n,nnz,cusparse_csr_alg1_ms,cusparse_csr_alg2_ms,cusparse_coo_alg1_ms,best_cusparse_ms,"
                    "reordered_best_cusparse_ms,psv_auto_w_ms,psv_tc_w_ms,psv_tcoo_w_ms,psv_csr_w_ms,psv_auto_p_ms,psv_tc_p_ms,"
                    "psv_tcoo_p_ms,psv_csr_p_ms,speedup_auto_w,speedup_tc_p,bw_share_auto,psv_build_s,pagerank_psv_s,pagerank_psv_it,"
                    "pagerank_cusparse_s,pagerank_cusparse_it,hits_psv_s,hits_cusparse_s,rwr_psv_25_s,rwr_psv_batch_s,rwr_cusparse_25_s,"
                    "device_bytes,device_bytes_per_entry\n");
    for (const Result &r : g_results) {
        const double b = r.best_cs();
        std::fprintf(f, "%s,%s,%lld,%lld,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.4f,%.4f,%.4f,%.4f,%.5f,%d,%.5f,%d,%.5f,%.5f,%.5f,%.5f,%.5f,%lld,%.4f\n",
                     r.name.c_str(), r.kind.c_str(), (long long)r.n, (long long)r.nnz, r.cs[0].med, r.cs[1].med, r.cs[2].med, b,
                     r.best_cs_re(), r.psv_w[0].med, r.psv_w[1].med, r.psv_w[2].med, r.psv_w[3].med, r.psv_p[0].med, r.psv_p[1].med,
                     r.psv_p[2].med, r.psv_p[3].med, ratio(b, r.psv_w[0].med), ratio(b, r.psv_p[1].med), eff_share(r, r.psv_w[0].med),
                     r.build_s, r.pr_psv, r.pr_it_psv, r.pr_cs, r.pr_it_cs, r.hits_psv, r.hits_cs, r.rwr_psv, r.rwr_batch_psv, r.rwr_cs,
                     (long long)r.info.device_bytes, r.device_bytes_per_entry());
    }
    std::fclose(f);
}

// A bar chart of speedups over the best cuSPARSE algorithm (log2 scale), per matrix and kernel.
static void write_svg(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write %s", path.c_str());
    struct Ser {
        const char *name, *color;
        int k;
        bool pat;
    } ser[] = {{"tile-composite (w)", "#1f77b4", 1, false}, {"TILE-COO (w)", "#ff7f0e", 2, false}, {"CSR (w)", "#2ca02c", 3, false},
               {"tile-composite (pattern)", "#9467bd", 1, true}, {"reordered cuSPARSE", "#7f7f7f", -1, false}};
    const int ns = 5, nm = (int)g_results.size();
    const double bw = 14, gap = 18, left = 60, top = 40, H = 320;
    const double W = left + nm * (ns * bw + gap) + 220;
    const double lo = -2, hi = 3;  // log2 range: 0.25x .. 8x
    auto yof = [&](double r) {
        double l = std::log2(std::max(1e-9, r));
        l = std::min(hi, std::max(lo, l));
        return top + H * (hi - l) / (hi - lo);
    };
    std::fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n", W,
                 top + H + 110);
    std::fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">psv SpMV speedup over the best cuSPARSE algorithm (%s, fp32)</text>\n", left,
                 g_device.c_str());
    for (double r : {0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 8.0}) {
        const double y = yof(r);
        std::fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n", left,
                     W - 210, y, y, r == 1.0 ? "black" : "#ddd", r == 1.0 ? "1.5" : "1");
        std::fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%gx</text>\n", left - 4, y + 4, r);
    }
    for (int m = 0; m < nm; ++m) {
        const Result &r = g_results[m];
        const double x0 = left + gap / 2 + m * (ns * bw + gap);
        for (int s = 0; s < ns; ++s) {
            double v = ser[s].k < 0 ? ratio(r.best_cs(), r.best_cs_re())
                                    : ratio(r.best_cs(), (ser[s].pat ? r.psv_p : r.psv_w)[ser[s].k].med);
            if (!std::isfinite(v)) continue;
            const double y1 = yof(1.0), y = yof(v);
            std::fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %.2fx</title></rect>\n",
                         x0 + s * bw, std::min(y, y1), bw - 1, std::fabs(y1 - y), ser[s].color, r.name.c_str(), ser[s].name, v);
        }
        std::fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(45)\">%s%s</text>\n", x0 + 4, top + H + 12, r.name.c_str(),
                     r.kind == "contrast" ? " (contrast)" : "");
    }
    for (int s = 0; s < ns; ++s) {
        std::fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n", W - 200,
                     top + 20 * s, ser[s].color, W - 184, top + 20 * s + 10, ser[s].name);
    }
    std::fprintf(f, "</svg>\n");
    std::fclose(f);
}

void write_outputs() {
    if (!O.json.empty()) write_json(O.json);
    if (!O.csv.empty()) write_csv(O.csv);
    if (!O.svg.empty()) write_svg(O.svg);
}

