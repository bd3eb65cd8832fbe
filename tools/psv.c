/* psv -- command-line front end of the psv library, written against the public C API (and the
 * kernel names of the library's kernel table, src/core/kernels.def).
 *
 *   psv pagerank FILE [--backend cpu|cuda|auto] [--damping D] [--tol T] [--max-iter N]
 *                     [--top K] [--output FILE]
 *   psv hits FILE [--backend ...] [--tol T] [--max-iter N] [--top K] [--output FILE]
 *   psv rwr FILE --query v[,v...] [--backend ...] [--c C] [--tol T] [--max-iter N] [--top K]
 *                     [--output FILE]
 *   psv info FILE [--backend ...] [--tile-width W] [--max-tiles T] [--workload-size S]
 *                 [--kernel K] [--hot-columns N] [--rank-order 0|1] [--plan-choice model|rules]
 *   psv convert IN OUT.psv [--backend ...]
 *   psv tune-device [--device N] [--out FILE] [--quick] [--backend ...]
 * Every command but tune-device takes the read options --undirected (both directions of every
 * edge) and --relabel (ids compacted in order of first appearance; convert: --undirected only).
 * tune-device runs on CUDA unless --backend says otherwise (the CPU backend has no model to tune).
 *
 * FILE "-" is standard input (read once, like any pipe). Vertex ids are printed as in the input
 * file: 0-based for edge lists, 1-based for Matrix Market and METIS (as the single read
 * detected it); with --relabel the original ids of the file (and --query takes them).
 * Progress of loads and builds longer than a second goes to stderr. Exit status: 0 success,
 * 1 failure (the reason on stderr), 2 usage error (an option the command does not take, a bad
 * value), 3 not converged within --max-iter (pagerank, hits, rwr: the results are still written,
 * and stderr says so).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psv/psv.h"
#include "../src/core/kernels.h"
#include "../src/api/internal.h"

/* ---- options ------------------------------------------------------------------------------- */

/* Exit status of a run of pagerank, hits or rwr that did not converge within --max-iter. */
#define PSV_EXIT_NOT_CONVERGED 3

/* The format options psv_context_set_option takes before the read: the command-line name, the
 * option, and the range of a number (--kernel and --plan-choice take names instead). */
typedef struct {
    const char *name;
    psv_option option;
    double lo, hi;
} format_option;

static const format_option format_options[] = {
    {"--tile-width", PSV_OPT_TILE_WIDTH, 0, 9e18},
    {"--max-tiles", PSV_OPT_MAX_TILES, -1, 9e18},
    {"--workload-size", PSV_OPT_WORKLOAD_SIZE, 0, 9e18},
    {"--kernel", PSV_OPT_KERNEL, 0, 0},
    {"--hot-columns", PSV_OPT_HOT_COLUMNS, -1, 2147483647},
    {"--rank-order", PSV_OPT_RANK_ORDER, 0, 1},
    {"--plan-choice", PSV_OPT_PLAN_CHOICE, 0, 0},
};
#define FORMAT_OPTIONS (sizeof format_options / sizeof format_options[0])
#define NOT_GIVEN INT64_MIN

/* The kernel table's names, space-separated ("auto tile-composite ..."). */
static const char kernel_names[] = ""
#define PSV_KERNEL_ENTRY(NAME, TEXT) TEXT " "
#include "../src/core/kernels.def"
#undef PSV_KERNEL_ENTRY
    ;

typedef struct {
    const char *file;
    const char *output;
    FILE *out; /* the results go there: --output, opened before computing, or stdout */
    const char *query;
    const char *file2; /* convert: the output file */
    psv_backend backend;
    int32_t read_flags; /* PSV_READ_* from --undirected, --relabel */
    double damping, tol, c;
    int32_t max_iter;
    int64_t top;
    int64_t format[FORMAT_OPTIONS]; /* format_options' values, or NOT_GIVEN */
    int32_t device;                 /* tune-device --device */
    const char *table;              /* tune-device --out: where the table goes (NULL: the cache) */
    int quick;                      /* tune-device --quick */
} options;

static void usage(FILE *f) {
    fprintf(f,
            "usage: psv COMMAND FILE [options]\n"
            "commands:\n"
            "  pagerank FILE  PageRank (LAGraph definition); prints 'vertex rank' lines\n"
            "  hits FILE      HITS hubs and authorities; prints 'vertex hub authority' lines\n"
            "  rwr FILE       random walk with restart from --query v[,v...]\n"
            "  info FILE      size, degree skew, the tile-composite form and the plan psv_mxv runs\n"
            "  convert IN OUT.psv  write IN (any format read) in psv's binary format, which\n"
            "                 psv_matrix_read and every command load without parsing\n"
            "  tune-device    measure a CUDA device and write its tuning table (the performance\n"
            "                 model's coefficients), by default to the user's cache where later\n"
            "                 runs on that device find it\n"
            "options:\n"
            "  --backend cpu|cuda|auto   (default auto: CUDA where a GPU exists; tune-device: cuda)\n"
            "  --damping D               PageRank damping (default 0.85)\n"
            "  --c C                     RWR restart constant c (default 0.9)\n"
            "  --query v[,v...]          RWR query vertices (ids as in the file)\n"
            "  --tol T                   L1 convergence tolerance (default 1e-6)\n"
            "  --max-iter N              iteration limit (default 100)\n"
            "  --top K                   only the K highest, sorted (default: all, by vertex)\n"
            "  --output FILE             write results there instead of stdout\n"
            "  --tile-width W --max-tiles T --workload-size S   format options (info)\n"
            "  --kernel K                the kernel (info): %s\n"
            "  --hot-columns N           CUDA auto plan: columns of x in shared memory, -1 chosen (info)\n"
            "  --rank-order 0|1          CUDA auto plan: x read in plain or column rank order (info)\n"
            "  --plan-choice model|rules how auto chooses the CUDA plan (info; default model)\n"
            "  --device N                tune-device: the CUDA device (default 0)\n"
            "  --out FILE                tune-device: write the table there instead of the cache\n"
            "  --quick                   tune-device: a quick pass on small matrices\n"
            "  --undirected              store both directions of every edge (a self loop once)\n"
            "  --relabel                 compact the ids in order of first appearance (any id up\n"
            "                            to 2^63-1); results and --query use the file's ids\n"
            "                            (not convert: a .psv file keeps no original ids)\n"
            "  --version\n"
            "FILE '-' is standard input (plain or gzip). An option a command does not take is an error.\n"
            "exit status: 0 success, 1 failure, 2 usage error, 3 not converged within --max-iter\n"
            "(pagerank, hits, rwr: the results are still written; stderr says so)\n",
            kernel_names);
}

static int parse_number(const char *s, double *out) {
    char *end;
    *out = strtod(s, &end);
    return *s && !*end && !isnan(*out);
}

/* The options each command takes (without the leading "--"), space-separated. */
static const char *options_of(const char *cmd) {
    if (!strcmp(cmd, "pagerank")) return " backend damping tol max-iter top output undirected relabel ";
    if (!strcmp(cmd, "hits")) return " backend tol max-iter top output undirected relabel ";
    if (!strcmp(cmd, "rwr")) return " backend query c tol max-iter top output undirected relabel ";
    if (!strcmp(cmd, "info"))
        return " backend tile-width max-tiles workload-size kernel hot-columns rank-order plan-choice undirected relabel ";
    if (!strcmp(cmd, "convert")) return " backend undirected ";
    if (!strcmp(cmd, "tune-device")) return " backend device out quick ";
    return " ";
}

static int takes_option(const char *cmd, const char *opt) {
    char key[64];
    if (strlen(opt) + 2 >= sizeof key) return 0;
    snprintf(key, sizeof key, " %s ", opt);
    return strstr(options_of(cmd), key) != NULL;
}

/* Whether some command takes the option: known, even where this command does not take it. */
static int known_option(const char *opt) {
    static const char *const commands[] = {"pagerank", "hits", "rwr", "info", "convert", "tune-device"};
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c)
        if (takes_option(commands[c], opt)) return 1;
    return 0;
}

/* A whole number in [lo, hi] (a usage error naming the option otherwise). */
static int parse_int_option(const char *opt, const char *val, double lo, double hi, int64_t *out) {
    double v;
    if (!parse_number(val, &v) || v != floor(v) || v < lo || v > hi) {
        fprintf(stderr, "psv: %s takes a whole number from %.0f to %.0f, not '%s'\n", opt, lo, hi, val);
        return 2;
    }
    *out = (int64_t)v;
    return 0;
}

/* A format option's value: a kernel name, model|rules, or a whole number in the option's range
 * (2 on a usage error naming the option). */
static int parse_format_option(const format_option *f, const char *val, int64_t *out) {
    if (f->option == PSV_OPT_KERNEL) {
        const int32_t k = psv_kernel_by_name(val);
        if (k < 0) {
            fprintf(stderr, "psv: --kernel takes one of %s(not '%s')\n", kernel_names, val);
            return 2;
        }
        *out = k;
        return 0;
    }
    if (f->option == PSV_OPT_PLAN_CHOICE) {
        if (strcmp(val, "model") && strcmp(val, "rules")) {
            fprintf(stderr, "psv: --plan-choice is model or rules, not '%s'\n", val);
            return 2;
        }
        *out = strcmp(val, "model") ? PSV_CHOICE_RULES : PSV_CHOICE_MODEL;
        return 0;
    }
    return parse_int_option(f->name, val, f->lo, f->hi, out);
}

/* Returns 0 on success, 2 on a usage error (message printed). */
static int parse_options(const char *cmd, int argc, char **argv, int first, options *o) {
    o->file = NULL;
    o->output = NULL;
    o->out = stdout;
    o->query = NULL;
    o->file2 = NULL;
    o->backend = strcmp(cmd, "tune-device") ? PSV_BACKEND_AUTO : PSV_BACKEND_CUDA;
    o->read_flags = 0;
    o->damping = 0.85;
    o->c = 0.9;
    o->tol = 1e-6;
    o->max_iter = 100;
    o->top = -1;
    for (size_t k = 0; k < FORMAT_OPTIONS; ++k) o->format[k] = NOT_GIVEN;
    o->device = 0;
    o->table = NULL;
    o->quick = 0;
    const int takes_file = strcmp(cmd, "tune-device") != 0;
    for (int i = first; i < argc; ++i) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == 0) {
            if (o->file && !strcmp(cmd, "convert") && !o->file2) {
                o->file2 = a;
                continue;
            }
            if (o->file || !takes_file) {
                fprintf(stderr, "psv: unexpected argument '%s'\n", a);
                return 2;
            }
            o->file = a;
            continue;
        }
        if (a[1] != '-' || !known_option(a + 2)) {
            fprintf(stderr, "psv: unknown option %s\n", a);
            return 2;
        }
        if (!takes_option(cmd, a + 2)) {
            fprintf(stderr, "psv: %s does not take %s (it takes:%s)\n", cmd, a, options_of(cmd));
            return 2;
        }
        if (!strcmp(a, "--undirected") || !strcmp(a, "--relabel")) { /* flags: no value */
            o->read_flags |= !strcmp(a, "--undirected") ? PSV_READ_UNDIRECTED : PSV_READ_RELABEL;
            continue;
        }
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "psv: option %s needs a value\n", a);
            return 2;
        }
        const char *val = argv[++i];
        double v;
        int64_t k;
        size_t f = 0;
        while (f < FORMAT_OPTIONS && strcmp(a, format_options[f].name)) ++f;
        if (f < FORMAT_OPTIONS) {
            if (parse_format_option(&format_options[f], val, &o->format[f])) return 2;
        } else if (!strcmp(a, "--backend")) {
            if (!strcmp(val, "cpu")) o->backend = PSV_BACKEND_CPU;
            else if (!strcmp(val, "cuda")) o->backend = PSV_BACKEND_CUDA;
            else if (!strcmp(val, "auto")) o->backend = PSV_BACKEND_AUTO;
            else {
                fprintf(stderr, "psv: --backend is cpu, cuda or auto, not '%s'\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--output")) {
            o->output = val;
        } else if (!strcmp(a, "--query")) {
            o->query = val;
        } else if (!strcmp(a, "--damping") || !strcmp(a, "--c") || !strcmp(a, "--tol")) {
            if (!parse_number(val, &v)) {
                fprintf(stderr, "psv: %s takes a number, not '%s'\n", a, val);
                return 2;
            }
            if (!strcmp(a, "--damping")) o->damping = v;
            else if (!strcmp(a, "--c")) o->c = v;
            else o->tol = v;
        } else if (!strcmp(a, "--max-iter")) {
            if (parse_int_option(a, val, 1, 1e9, &k)) return 2;
            o->max_iter = (int32_t)k;
        } else if (!strcmp(a, "--top")) {
            if (parse_int_option(a, val, 0, 9e18, &k)) return 2;
            o->top = k;
        } else if (!strcmp(a, "--device")) {
            if (parse_int_option(a, val, 0, 2147483647, &k)) return 2;
            o->device = (int32_t)k;
        } else {  /* --out */
            o->table = val;
        }
    }
    if (!o->file && takes_file) {
        fprintf(stderr, "psv: no input FILE\n");
        return 2;
    }
    if (!strcmp(cmd, "convert") && !o->file2) {
        fprintf(stderr, "psv: convert needs an output file: psv convert IN OUT.psv\n");
        return 2;
    }
    return 0;
}

/* ---- helpers --------------------------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail_with(psv_context *ctx, const char *what, psv_status s) {
    fprintf(stderr, "psv: %s failed: %s\n  %s\n", what, psv_status_string(s), ctx ? psv_context_last_error(ctx) : "");
    return 1;
}

/* Create the context of --backend on device `device`; 1 on failure (the reason printed). */
static int create_context(const options *o, int32_t device, psv_context **ctx) {
    psv_status s = psv_context_create(o->backend, device, ctx);
    if (s == PSV_SUCCESS) return 0;
    const char *why = psv_internal_context_create_error();
    fprintf(stderr, "psv: creating the context failed: %s\n  %s\n", psv_status_string(s), *why ? why : "(no reason given)");
    return 1;
}

/* Create the context, set the format options given, and read FILE into *A, with progress on
 * stderr. */
static int open_graph(const options *o, psv_context **ctx, psv_matrix **A) {
    if (create_context(o, 0, ctx)) return 1;
    psv_status s = psv_context_set_option(*ctx, PSV_OPT_PROGRESS, 1);
    for (size_t f = 0; f < FORMAT_OPTIONS && s == PSV_SUCCESS; ++f)
        if (o->format[f] != NOT_GIVEN) s = psv_context_set_option(*ctx, format_options[f].option, o->format[f]);
    if (s != PSV_SUCCESS) {
        int r = fail_with(*ctx, "setting the format options", s);
        psv_context_free(ctx);
        return r;
    }
    double t0 = now();
    s = psv_matrix_read_with_flags(*ctx, o->file, o->read_flags, A);
    if (s != PSV_SUCCESS) {
        int r = fail_with(*ctx, "reading the graph", s);
        psv_context_free(ctx);
        return r;
    }
    double dt = now() - t0;
    if (dt > 1.0) fprintf(stderr, "psv: loaded %s in %.2f s\n", o->file, dt);
    return 0;
}

/* How a vertex is printed: its file id, labels[i] for a relabelled graph, else i + base. */
typedef struct {
    int64_t base;
    int64_t *labels; /* NULL unless read with --relabel */
} id_map;

static long long file_id(const id_map *m, int64_t i) { return m->labels ? m->labels[i] : i + m->base; }

/* The id map of A (labels copied out of a relabelled matrix); 1 on failure (message printed). */
static int get_id_map(psv_context *ctx, const psv_matrix *A, id_map *m) {
    m->base = psv_internal_matrix_index_base(A);
    m->labels = NULL;
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    int64_t *l = malloc((size_t)(n ? n : 1) * sizeof *l);
    if (!l) {
        fprintf(stderr, "psv: out of memory\n");
        return 1;
    }
    psv_status s = psv_matrix_labels(A, l, &n);
    if (s == PSV_SUCCESS) {
        m->labels = l;
        return 0;
    }
    free(l);
    return s == PSV_NO_VALUE ? 0 : fail_with(ctx, "reading the labels", s);
}

typedef struct {
    int64_t id;
    float value;
} ranked;

static int by_value_desc(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Print n values (one or two columns) as 'vertex value [value2]', all by id or the top K. */
static int write_values(const options *o, const id_map *ids, int64_t n, const float *v, const float *v2) {
    FILE *out = o->out;
    if (o->top >= 0) {
        ranked *r = malloc((size_t)(n ? n : 1) * sizeof *r);
        if (!r) {
            fprintf(stderr, "psv: out of memory\n");
            return 1;
        }
        for (int64_t i = 0; i < n; ++i) {
            r[i].id = i;
            r[i].value = v[i];
        }
        qsort(r, (size_t)n, sizeof *r, by_value_desc);
        for (int64_t k = 0; k < n && k < o->top; ++k) {
            if (v2) fprintf(out, "%lld %.9g %.9g\n", file_id(ids, r[k].id), v[r[k].id], v2[r[k].id]);
            else fprintf(out, "%lld %.9g\n", file_id(ids, r[k].id), r[k].value);
        }
        free(r);
    } else {
        for (int64_t i = 0; i < n; ++i) {
            if (v2) fprintf(out, "%lld %.9g %.9g\n", file_id(ids, i), v[i], v2[i]);
            else fprintf(out, "%lld %.9g\n", file_id(ids, i), v[i]);
        }
    }
    if (ferror(out) || fflush(out) != 0) {
        fprintf(stderr, "psv: error writing the output\n");
        return 1;
    }
    return 0;
}

/* The end of a converging run: 0, or PSV_EXIT_NOT_CONVERGED with a line on stderr. */
static int convergence_exit(const char *what, psv_status s, int32_t iters, double tol) {
    if (s != PSV_NOT_CONVERGED) return 0;
    fprintf(stderr, "psv: %s did NOT converge within %d iterations (--tol %g); results written anyway, exit status %d\n",
            what, iters, tol, PSV_EXIT_NOT_CONVERGED);
    return PSV_EXIT_NOT_CONVERGED;
}

static const char *backend_name(const psv_context *ctx) {
    psv_backend b = 0;
    psv_context_backend(ctx, &b);
    return b == PSV_BACKEND_CUDA ? "cuda" : "cpu";
}

/* ---- commands -------------------------------------------------------------------------------- */

static int cmd_pagerank(const options *o) {
    psv_context *ctx;
    psv_matrix *A;
    int r = open_graph(o, &ctx, &A);
    if (r) return r;
    psv_vector *rank = NULL;
    int32_t iters = 0;
    double t0 = now();
    const psv_status st = psv_pagerank(&rank, &iters, A, o->damping, o->tol, o->max_iter);
    psv_status s = st;
    double dt = now() - t0;
    if (s < 0) {
        r = fail_with(ctx, "pagerank", s);
    } else {
        int64_t n = 0;
        psv_vector_size(rank, &n);
        float *v = malloc((size_t)(n ? n : 1) * sizeof(float));
        if (!v) {
            fprintf(stderr, "psv: out of memory\n");
            r = 1;
        } else if ((s = psv_vector_get(rank, v, n)) != PSV_SUCCESS) {
            r = fail_with(ctx, "reading the ranks", s);
        } else {
            fprintf(stderr, "psv: pagerank on %s: %lld vertices, %d iterations%s, %.3f s\n", backend_name(ctx),
                    (long long)n, iters, st == PSV_NOT_CONVERGED ? " (NOT converged)" : "", dt);
            id_map ids;
            r = get_id_map(ctx, A, &ids);
            if (!r) r = write_values(o, &ids, n, v, NULL);
            free(ids.labels);
            if (!r) r = convergence_exit("pagerank", st, iters, o->tol);
        }
        free(v);
    }
    psv_vector_free(&rank);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return r;
}

/* The plan psv_mxv runs, the model's predicted time and runner-up, and the tuning table. */
static void print_plan(const psv_context *ctx, const psv_matrix *A, const psv_matrix_info *in) {
    const char *plan = psv_matrix_plan(A, 0);
    printf("plan           %s\n", *plan ? plan : "(not described)");
    if (in->predicted_ms > 0) printf("predicted      %.4g ms per product\n", in->predicted_ms);
    else printf("predicted      no model\n");
    if (in->plan_candidates >= 2)
        printf("runner-up      %s (%s), %.4g ms; %d candidates\n", psv_matrix_plan(A, 1),
               psv_kernel_name(in->runner_up_kernel), in->runner_up_ms, in->plan_candidates);
    if (in->hot_columns) printf("hot columns    %lld\n", (long long)in->hot_columns);
    if (in->ranked_columns) printf("ranked columns %lld (read in column rank order)\n", (long long)in->ranked_columns);
    printf("tuning         %s\n", psv_context_tuning_text(ctx));
}

static int cmd_info(const options *o) {
    psv_context *ctx;
    psv_matrix *A;
    int r = open_graph(o, &ctx, &A);
    if (r) return r;
    psv_matrix_info in;
    psv_status s = psv_matrix_info_get(A, &in);
    if (s != PSV_SUCCESS) {
        r = fail_with(ctx, "info", s);
    } else {
        double mean = in.nrows ? (double)in.nvals / (double)in.nrows : 0;
        double cmean = in.ncols ? (double)in.nvals / (double)in.ncols : 0;
        printf("file           %s\n", o->file);
        printf("backend        %s\n", backend_name(ctx));
        printf("size           %lld x %lld, %lld entries\n", (long long)in.nrows, (long long)in.ncols, (long long)in.nvals);
        printf("row degree     mean %.2f, max %d (%.1fx the mean)\n", mean, in.max_row_length,
               mean > 0 ? in.max_row_length / mean : 0.0);
        printf("column degree  mean %.2f, max %d (%.1fx the mean)\n", cmean, in.max_col_length,
               cmean > 0 ? in.max_col_length / cmean : 0.0);
        printf("tile width     %lld columns\n", (long long)in.tile_width);
        printf("tiles          %d dense (%lld columns, %.1f%% of entries)%s\n", in.dense_tiles,
               (long long)in.dense_columns, in.nvals ? 100.0 * (double)in.dense_nvals / (double)in.nvals : 0.0,
               in.sparse_tile ? " + 1 sparse" : "");
        printf("workloads      %lld (%lld row-major CSR-vector, %lld column-major ELL)\n", (long long)in.workloads,
               (long long)in.row_major_workloads, (long long)(in.workloads - in.row_major_workloads));
        printf("workload size  %lld (first tile)\n", (long long)in.workload_size);
        printf("stored         %lld slots, padding ratio %.3f, %.1f MB\n", (long long)in.stored_entries,
               in.padding_ratio, (double)in.bytes / 1e6);
        printf("kernel         %s\n", psv_kernel_name(in.kernel));
        print_plan(ctx, A, &in);
        const double per = in.nvals ? (double)in.nvals : 1.0;
        printf("memory now     %.1f MB (%.2f bytes per entry)\n", (double)in.device_bytes / 1e6,
               (double)in.device_bytes / per);
        printf("memory peak    %.1f MB (%.2f bytes per entry, during construction)\n",
               (double)in.peak_bytes / 1e6, (double)in.peak_bytes / per);
        printf("build          %.3f s\n", in.build_seconds);
        int32_t tiles = in.dense_tiles + in.sparse_tile;
        printf("\ntile  columns              rows      entries   workloads  wl-size  padding  bits\n");
        for (int32_t t = 0; t < tiles; ++t) {
            psv_tile_info ti;
            if (psv_matrix_tile_info(A, t, &ti) != PSV_SUCCESS) break;
            printf("%-5d %-9lld-%9lld %9lld %12lld %10lld %8lld %8.3f %5d%s\n", t, (long long)ti.col_begin,
                   (long long)ti.col_end, (long long)ti.rows, (long long)ti.nvals, (long long)ti.workloads,
                   (long long)ti.workload_size, ti.nvals ? (double)ti.stored_entries / (double)ti.nvals : 1.0,
                   ti.index_bits, ti.is_sparse ? "  sparse" : "");
        }
    }
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return r;
}

/* psv convert IN OUT.psv: IN read (any format), written by psv_matrix_write. */
static int cmd_convert(const options *o) {
    psv_context *ctx;
    psv_matrix *A;
    int r = open_graph(o, &ctx, &A);
    if (r) return r;
    psv_status s = psv_matrix_write(A, o->file2);
    if (s != PSV_SUCCESS) r = fail_with(ctx, "writing", s);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return r;
}

/* psv tune-device: the device's tuning table as it is, then measured and written (--out FILE,
 * else the user's cache). */
static int cmd_tune_device(const options *o) {
    psv_context *ctx;
    if (create_context(o, o->device, &ctx)) return 1;
    if (!strcmp(backend_name(ctx), "cuda")) printf("device         cuda %d\n", (int)o->device);
    else printf("device         cpu\n");
    printf("tuning was     %s\n", psv_context_tuning_text(ctx));
    fflush(stdout);
    psv_status s = psv_context_tune(ctx, o->table, o->quick ? 0 : 1, 1);
    int r = 0;
    if (s != PSV_SUCCESS) r = fail_with(ctx, "tuning", s);
    else printf("tuning now     %s\n", psv_context_tuning_text(ctx));
    psv_context_free(&ctx);
    return r;
}

/* ---- hits, rwr ------------------------------------------------------------------------------- */

/* psv hits FILE: 'vertex hub authority' lines (--top K: the K best hubs). */
static int cmd_hits(const options *o) {
    psv_context *ctx;
    psv_matrix *A;
    int r = open_graph(o, &ctx, &A);
    if (r) return r;
    psv_vector *hub = NULL, *auth = NULL;
    int32_t iters = 0;
    double t0 = now();
    psv_status s = psv_hits(&hub, &auth, &iters, A, o->tol, o->max_iter);
    double dt = now() - t0;
    if (s < 0) {
        r = fail_with(ctx, "hits", s);
    } else {
        const int not_converged = s == PSV_NOT_CONVERGED;
        int64_t n = 0;
        psv_vector_size(hub, &n);
        float *h = malloc((size_t)(n ? n : 1) * sizeof(float)), *a = malloc((size_t)(n ? n : 1) * sizeof(float));
        if (!h || !a) {
            fprintf(stderr, "psv: out of memory\n");
            r = 1;
        } else if ((s = psv_vector_get(hub, h, n)) != PSV_SUCCESS || (s = psv_vector_get(auth, a, n)) != PSV_SUCCESS) {
            r = fail_with(ctx, "reading the scores", s);
        } else {
            fprintf(stderr, "psv: hits on %s: %lld vertices, %d iterations%s, %.3f s\n", backend_name(ctx),
                    (long long)n, iters, not_converged ? " (NOT converged)" : "", dt);
            id_map ids;
            r = get_id_map(ctx, A, &ids);
            if (!r) r = write_values(o, &ids, n, h, a);
            free(ids.labels);
            if (!r && not_converged) r = convergence_exit("hits", PSV_NOT_CONVERGED, iters, o->tol);
        }
        free(h);
        free(a);
    }
    psv_vector_free(&hub);
    psv_vector_free(&auth);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return r;
}

/* The --query list "v[,v...]" (ids as in the file, each >= 0); returns the count, 0 on error. */
static int32_t parse_queries(const char *list, int64_t **out) {
    int32_t k = 1;
    for (const char *p = list; *p; ++p) k += *p == ',';
    int64_t *q = malloc((size_t)k * sizeof(int64_t));
    if (!q) return 0;
    const char *p = list;
    for (int32_t j = 0; j < k; ++j) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < 0) {
            fprintf(stderr, "psv: --query takes vertex ids v[,v...] (>= 0), not '%s'\n", list);
            free(q);
            return 0;
        }
        q[j] = v;
        p = *end ? end + 1 : end;
    }
    *out = q;
    return k;
}

/* psv rwr FILE --query v[,v...]: one query: 'vertex relevance' lines; several: 'vertex r1 r2 ...'
 * lines (a column per query, in --query order); with --top K, the K most relevant vertices of
 * each query as 'query vertex relevance' lines (one query: 'vertex relevance'). */
static int cmd_rwr(const options *o) {
    if (!o->query) {
        fprintf(stderr, "psv: rwr needs --query v[,v...]\n");
        return 2;
    }
    int64_t *q = NULL;
    int32_t k = parse_queries(o->query, &q); /* the syntax, before reading */
    if (k == 0) return 2;
    psv_context *ctx;
    psv_matrix *A;
    int r = open_graph(o, &ctx, &A);
    if (r) {
        free(q);
        return r;
    }
    /* The id base as the single read of the file found it (stdin and pipes included); with
     * --relabel, the queries are the file's ids, found among the labels. */
    id_map ids;
    if (get_id_map(ctx, A, &ids)) {
        free(q);
        psv_matrix_free(&A);
        psv_context_free(&ctx);
        return 1;
    }
    const int64_t base = ids.labels ? 0 : ids.base;
    float *rel = NULL;
    int32_t iters = 0;
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    for (int32_t j = 0; j < k; ++j) {
        if (q[j] < base) {
            fprintf(stderr, "psv: --query takes vertex ids v[,v...] (>= %lld), not '%s'\n", (long long)base, o->query);
            r = 2;
            goto done;
        }
        q[j] -= base;
        int64_t i = ids.labels ? 0 : q[j];
        if (ids.labels)
            while (i < n && ids.labels[i] != q[j]) ++i;
        if (i >= n) {
            if (ids.labels)
                fprintf(stderr, "psv: query vertex %lld is not in the graph (no edge names it)\n", (long long)q[j]);
            else
                fprintf(stderr, "psv: query vertex %lld is not in the graph (ids %lld .. %lld)\n",
                        (long long)(q[j] + base), (long long)base, (long long)(n - 1 + base));
            r = 1;
            goto done;
        }
        q[j] = i;
    }
    rel = malloc((size_t)(n ? n : 1) * (size_t)k * sizeof(float));
    if (!rel) {
        fprintf(stderr, "psv: out of memory\n");
        r = 1;
        goto done;
    }
    double t0 = now();
    psv_status s = psv_rwr_batch(rel, &iters, A, q, k, o->c, o->tol, o->max_iter);
    double dt = now() - t0;
    if (s < 0) {
        r = fail_with(ctx, "rwr", s);
        goto done;
    }
    fprintf(stderr, "psv: rwr on %s: %lld vertices, %d quer%s, %d iterations%s, %.3f s\n", backend_name(ctx),
            (long long)n, (int)k, k == 1 ? "y" : "ies", iters, s == PSV_NOT_CONVERGED ? " (NOT converged)" : "", dt);
    const psv_status st = s;
    if (k == 1) {
        r = write_values(o, &ids, n, rel, NULL);
        if (!r) r = convergence_exit("rwr", st, iters, o->tol);
        goto done;
    }
    FILE *out = o->out;
    if (o->top >= 0) {
        ranked *rk = malloc((size_t)(n ? n : 1) * sizeof *rk);
        if (!rk) {
            fprintf(stderr, "psv: out of memory\n");
            r = 1;
        }
        for (int32_t j = 0; rk && j < k; ++j) {
            for (int64_t i = 0; i < n; ++i) {
                rk[i].id = i;
                rk[i].value = rel[i * k + j];
            }
            qsort(rk, (size_t)n, sizeof *rk, by_value_desc);
            for (int64_t t = 0; t < n && t < o->top; ++t)
                fprintf(out, "%lld %lld %.9g\n", file_id(&ids, q[j]), file_id(&ids, rk[t].id), rk[t].value);
        }
        free(rk);
    } else {
        for (int64_t i = 0; i < n; ++i) {
            fprintf(out, "%lld", file_id(&ids, i));
            for (int32_t j = 0; j < k; ++j) fprintf(out, " %.9g", rel[i * k + j]);
            fputc('\n', out);
        }
    }
    if (ferror(out) || fflush(out) != 0) {
        fprintf(stderr, "psv: error writing the output\n");
        r = 1;
    }
    if (!r) r = convergence_exit("rwr", st, iters, o->tol);
done:
    free(rel);
    free(q);
    free(ids.labels);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return r;
}

/* Subcommands added by other modules register here. */
typedef int (*command_fn)(const options *);
typedef struct {
    const char *name;
    command_fn fn;
} command;

static const command commands[] = {
    {"pagerank", cmd_pagerank},
    {"hits", cmd_hits},
    {"rwr", cmd_rwr},
    {"info", cmd_info},
    {"convert", cmd_convert},
    {"tune-device", cmd_tune_device},
};

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        int32_t v = psv_version_number();
        printf("psv %d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        if (strcmp(argv[1], commands[i].name)) continue;
        options o;
        int r = parse_options(argv[1], argc, argv, 2, &o);
        if (r) {
            fprintf(stderr, "psv: 'psv --help' lists the commands and options\n");
            return r;
        }
        /* --output is opened before anything is read or computed: a path that cannot be written
         * fails at once. */
        if (o.output && !(o.out = fopen(o.output, "w"))) {
            fprintf(stderr, "psv: cannot write %s: %s\n", o.output, strerror(errno));
            return 1;
        }
        r = commands[i].fn(&o);
        if (o.out != stdout && fclose(o.out) != 0) {
            fprintf(stderr, "psv: error writing %s: %s\n", o.output, strerror(errno));
            if (r == 0 || r == PSV_EXIT_NOT_CONVERGED) r = 1;
        }
        return r;
    }
    fprintf(stderr, "psv: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
