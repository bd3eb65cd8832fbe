/* psv -- command-line front end of the psv library, written against the public C API (and the
 * kernel names of the library's kernel table, src/core/kernels.def).
 *
 *   psv pagerank FILE [--backend cpu|cuda|auto] [--damping D] [--tol T] [--max-iter N]
 *                     [--top K] [--output FILE]
 *   psv hits FILE [--backend ...] [--tol T] [--max-iter N] [--top K] [--output FILE]
 *   psv rwr FILE --query v[,v...] [--backend ...] [--c C] [--tol T] [--max-iter N] [--top K]
 *                     [--output FILE]
 *   psv info FILE [--backend ...] [--tile-width W] [--max-tiles T] [--workload-size S]
 *
 * Vertex ids are printed as in the input file: 0-based for edge lists, 1-based for Matrix Market.
 * Progress of loads and builds longer than a second goes to stderr. Exit status: 0 success,
 * 1 failure (the reason on stderr), 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "psv/psv.h"
#include "../src/core/kernels.h"

/* ---- options ------------------------------------------------------------------------------- */

typedef struct {
    const char *file;
    const char *output;
    const char *query;
    psv_backend backend;
    double damping, tol, c;
    int32_t max_iter;
    int64_t top;
    int64_t tile_width, max_tiles, workload_size;
} options;

static void usage(FILE *f) {
    fprintf(f,
            "usage: psv COMMAND FILE [options]\n"
            "commands:\n"
            "  pagerank FILE  PageRank (LAGraph definition); prints 'vertex rank' lines\n"
            "  hits FILE      HITS hubs and authorities; prints 'vertex hub authority' lines\n"
            "  rwr FILE       random walk with restart from --query v[,v...]\n"
            "  info FILE      size, degree skew and the tile-composite form\n"
            "options:\n"
            "  --backend cpu|cuda|auto   (default auto: CUDA where a GPU exists)\n"
            "  --damping D               PageRank damping (default 0.85)\n"
            "  --c C                     RWR restart constant c (default 0.9)\n"
            "  --query v[,v...]          RWR query vertices (ids as in the file)\n"
            "  --tol T                   L1 convergence tolerance (default 1e-6)\n"
            "  --max-iter N              iteration limit (default 100)\n"
            "  --top K                   only the K highest, sorted (default: all, by vertex)\n"
            "  --output FILE             write results there instead of stdout\n"
            "  --tile-width W --max-tiles T --workload-size S   format options (info)\n"
            "  --version\n");
}

static int parse_number(const char *s, double *out) {
    char *end;
    *out = strtod(s, &end);
    return *s && !*end;
}

/* Returns 0 on success, 2 on a usage error (message printed). */
static int parse_options(int argc, char **argv, int first, options *o) {
    o->file = NULL;
    o->output = NULL;
    o->query = NULL;
    o->backend = PSV_BACKEND_AUTO;
    o->damping = 0.85;
    o->c = 0.9;
    o->tol = 1e-6;
    o->max_iter = 100;
    o->top = -1;
    o->tile_width = o->max_tiles = o->workload_size = -2; /* -2: not given */
    for (int i = first; i < argc; ++i) {
        const char *a = argv[i];
        double v;
        if (a[0] != '-' || a[1] == 0) {
            if (o->file) {
                fprintf(stderr, "psv: unexpected argument '%s'\n", a);
                return 2;
            }
            o->file = a;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "psv: option %s needs a value\n", a);
            return 2;
        }
        const char *val = argv[++i];
        if (!strcmp(a, "--backend")) {
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
        } else if (parse_number(val, &v)) {
            if (!strcmp(a, "--damping")) o->damping = v;
            else if (!strcmp(a, "--c")) o->c = v;
            else if (!strcmp(a, "--tol")) o->tol = v;
            else if (!strcmp(a, "--max-iter") && v >= 1 && v <= 1e9 && v == floor(v)) o->max_iter = (int32_t)v;
            else if (!strcmp(a, "--top") && v >= 0 && v == floor(v)) o->top = (int64_t)v;
            else if (!strcmp(a, "--tile-width") && v >= 0 && v == floor(v)) o->tile_width = (int64_t)v;
            else if (!strcmp(a, "--max-tiles") && v >= -1 && v == floor(v)) o->max_tiles = (int64_t)v;
            else if (!strcmp(a, "--workload-size") && v >= 0 && v == floor(v)) o->workload_size = (int64_t)v;
            else {
                fprintf(stderr, "psv: unknown option or bad value: %s %s\n", a, val);
                return 2;
            }
        } else {
            fprintf(stderr, "psv: unknown option or bad value: %s %s\n", a, val);
            return 2;
        }
    }
    if (!o->file) {
        fprintf(stderr, "psv: no input FILE\n");
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

/* 1 for Matrix Market (1-based ids), 0 for edge lists; gzip is looked through. */
static int64_t id_base(const char *path) {
    gzFile f = gzopen(path, "rb");
    if (!f) return 0;
    char head[16] = {0};
    int n = gzread(f, head, 14);
    gzclose(f);
    return n == 14 && !memcmp(head, "%%MatrixMarket", 14) ? 1 : 0;
}

static int fail_with(psv_context *ctx, const char *what, psv_status s) {
    fprintf(stderr, "psv: %s failed: %s\n  %s\n", what, psv_status_string(s), ctx ? psv_context_last_error(ctx) : "");
    return 1;
}

/* Create the context and read FILE into *A, with progress on stderr. */
static int open_graph(const options *o, psv_context **ctx, psv_matrix **A) {
    psv_status s = psv_context_create(o->backend, 0, ctx);
    if (s != PSV_SUCCESS) return fail_with(NULL, "creating the context", s);
    psv_context_set_option(*ctx, PSV_OPT_PROGRESS, 1);
    if (o->tile_width >= 0) psv_context_set_option(*ctx, PSV_OPT_TILE_WIDTH, o->tile_width);
    if (o->max_tiles >= -1 && o->max_tiles != -2) psv_context_set_option(*ctx, PSV_OPT_MAX_TILES, o->max_tiles);
    if (o->workload_size >= 0) psv_context_set_option(*ctx, PSV_OPT_WORKLOAD_SIZE, o->workload_size);
    double t0 = now();
    s = psv_matrix_read(*ctx, o->file, A);
    if (s != PSV_SUCCESS) {
        int r = fail_with(*ctx, "reading the graph", s);
        psv_context_free(ctx);
        return r;
    }
    double dt = now() - t0;
    if (dt > 1.0) fprintf(stderr, "psv: loaded %s in %.2f s\n", o->file, dt);
    return 0;
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
static int write_values(const options *o, int64_t base, int64_t n, const float *v, const float *v2) {
    FILE *out = stdout;
    if (o->output && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "psv: cannot write %s\n", o->output);
        return 1;
    }
    if (o->top >= 0) {
        ranked *r = malloc((size_t)(n ? n : 1) * sizeof *r);
        if (!r) {
            fprintf(stderr, "psv: out of memory\n");
            if (out != stdout) fclose(out);
            return 1;
        }
        for (int64_t i = 0; i < n; ++i) {
            r[i].id = i;
            r[i].value = v[i];
        }
        qsort(r, (size_t)n, sizeof *r, by_value_desc);
        for (int64_t k = 0; k < n && k < o->top; ++k) {
            if (v2) fprintf(out, "%lld %.9g %.9g\n", (long long)(r[k].id + base), v[r[k].id], v2[r[k].id]);
            else fprintf(out, "%lld %.9g\n", (long long)(r[k].id + base), r[k].value);
        }
        free(r);
    } else {
        for (int64_t i = 0; i < n; ++i) {
            if (v2) fprintf(out, "%lld %.9g %.9g\n", (long long)(i + base), v[i], v2[i]);
            else fprintf(out, "%lld %.9g\n", (long long)(i + base), v[i]);
        }
    }
    int bad = ferror(out);
    if (out != stdout) bad |= fclose(out) != 0;
    if (bad) {
        fprintf(stderr, "psv: error writing the output\n");
        return 1;
    }
    return 0;
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
    psv_status s = psv_pagerank(&rank, &iters, A, o->damping, o->tol, o->max_iter);
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
                    (long long)n, iters, s == PSV_NOT_CONVERGED ? " (NOT converged)" : "", dt);
            r = write_values(o, id_base(o->file), n, v, NULL);
        }
        free(v);
    }
    psv_vector_free(&rank);
    psv_matrix_free(&A);
    psv_context_free(&ctx);
    return r;
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
            r = write_values(o, id_base(o->file), n, h, a);
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

/* The --query list "v[,v...]" (ids as in the file) as 0-based ids; returns the count, 0 on error. */
static int32_t parse_queries(const char *list, int64_t base, int64_t **out) {
    int32_t k = 1;
    for (const char *p = list; *p; ++p) k += *p == ',';
    int64_t *q = malloc((size_t)k * sizeof(int64_t));
    if (!q) return 0;
    const char *p = list;
    for (int32_t j = 0; j < k; ++j) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < base) {
            fprintf(stderr, "psv: --query takes vertex ids v[,v...] (>= %lld), not '%s'\n", (long long)base, list);
            free(q);
            return 0;
        }
        q[j] = v - base;
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
    const int64_t base = id_base(o->file);
    int64_t *q = NULL;
    const int32_t k = parse_queries(o->query, base, &q);
    if (k == 0) return 2;
    psv_context *ctx;
    psv_matrix *A;
    int r = open_graph(o, &ctx, &A);
    if (r) {
        free(q);
        return r;
    }
    int64_t n = 0;
    psv_matrix_nrows(A, &n);
    for (int32_t j = 0; j < k; ++j) {
        if (q[j] >= n) {
            fprintf(stderr, "psv: query vertex %lld is not in the graph (ids %lld .. %lld)\n", (long long)(q[j] + base),
                    (long long)base, (long long)(n - 1 + base));
            free(q);
            psv_matrix_free(&A);
            psv_context_free(&ctx);
            return 1;
        }
    }
    float *rel = malloc((size_t)(n ? n : 1) * (size_t)k * sizeof(float));
    int32_t iters = 0;
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
    if (k == 1) {
        r = write_values(o, base, n, rel, NULL);
        goto done;
    }
    FILE *out = stdout;
    if (o->output && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "psv: cannot write %s\n", o->output);
        r = 1;
        goto done;
    }
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
                fprintf(out, "%lld %lld %.9g\n", (long long)(q[j] + base), (long long)(rk[t].id + base), rk[t].value);
        }
        free(rk);
    } else {
        for (int64_t i = 0; i < n; ++i) {
            fprintf(out, "%lld", (long long)(i + base));
            for (int32_t j = 0; j < k; ++j) fprintf(out, " %.9g", rel[i * k + j]);
            fputc('\n', out);
        }
    }
    int bad = ferror(out);
    if (out != stdout) bad |= fclose(out) != 0;
    if (bad) {
        fprintf(stderr, "psv: error writing the output\n");
        r = 1;
    }
done:
    free(rel);
    free(q);
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
        int r = parse_options(argc, argv, 2, &o);
        if (r) {
            usage(stderr);
            return r;
        }
        return commands[i].fn(&o);
    }
    fprintf(stderr, "psv: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
