/* Reading the stored float64 reference files (tests/data/ref/NAME.txt.gz, made by
 * tools/reference/make_refs.py): '# key=value' header lines, then 'vertex value [value...]'. */
#ifndef PSV_TEST_REFDATA_H
#define PSV_TEST_REFDATA_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    char keys[64][64];
    char vals[64][256];
    int nkeys;
    long long n;     /* rows read */
    int ncols;       /* value columns per row */
    double *values;  /* n * ncols, row-major, indexed by vertex */
} refdata;

static inline const char *ref_key(const refdata *r, const char *key) {
    for (int i = 0; i < r->nkeys; ++i)
        if (!strcmp(r->keys[i], key)) return r->vals[i];
    return NULL;
}

/* Returns 0 on success. Rows are placed by their vertex id (column 0). */
static inline int ref_read(const char *path, refdata *r) {
    memset(r, 0, sizeof *r);
    gzFile f = gzopen(path, "rb");
    if (!f) return -1;
    char line[4096];
    long long cap = 0;
    while (gzgets(f, line, sizeof line)) {
        if (line[0] == '#') {
            char *eq = strchr(line, '=');
            if (!eq || r->nkeys >= 64) continue;
            char *k = line + 1;
            while (*k == ' ') ++k;
            *eq = 0;
            char *v = eq + 1;
            v[strcspn(v, "\r\n")] = 0;
            snprintf(r->keys[r->nkeys], 64, "%.63s", k);   /* longer keys are cut, on purpose */
            snprintf(r->vals[r->nkeys], 256, "%.255s", v);
            r->nkeys++;
            continue;
        }
        char *p = line, *end;
        long long vtx = strtoll(p, &end, 10);
        if (end == p) continue;
        p = end;
        double row[16];
        int c = 0;
        for (;;) {
            double x = strtod(p, &end);
            if (end == p || c >= 16) break;
            row[c++] = x;
            p = end;
        }
        if (!r->ncols) r->ncols = c;
        if (vtx >= cap) {
            long long nc = cap ? cap * 2 : 1024;
            while (nc <= vtx) nc *= 2;
            double *nv = realloc(r->values, sizeof(double) * (size_t)(nc * r->ncols));
            if (!nv) { gzclose(f); return -1; }
            memset(nv + cap * r->ncols, 0, sizeof(double) * (size_t)((nc - cap) * r->ncols));
            r->values = nv;
            cap = nc;
        }
        memcpy(r->values + vtx * r->ncols, row, sizeof(double) * (size_t)r->ncols);
        if (vtx + 1 > r->n) r->n = vtx + 1;
    }
    gzclose(f);
    return 0;
}

static inline void ref_free(refdata *r) { free(r->values); r->values = NULL; }
#endif
