// The bench's matrices as device tuples: R-MAT and the 27-point stencil generated on the device,
// any file psv reads (through psv_matrix_read), and METIS graphs (read here).
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "bench/device.cuh"

namespace {

__device__ inline float unit_float(uint64_t h) { return ((float)(h >> 40) + 1.0f) * (1.0f / 16777216.0f); }  // (0, 1]

// Edges first .. first + m - 1 of the R-MAT stream (each a function of its number alone).
__global__ void rmat_kernel(int64_t first, int64_t m, int scale, uint64_t seed, int32_t *src, int32_t *dst) {
    const float a = 0.57f, b = 0.19f, c = 0.19f;
    GLOOP(k, m) {
        const int64_t e = first + k;
        uint32_t r = 0, q = 0;
        uint64_t h = 0;
        for (int l = 0; l < scale; ++l) {
            if ((l & 1) == 0) h = mix64(seed ^ ((uint64_t)e * 64 + (uint64_t)l));
            const float u = (float)((l & 1) ? (uint32_t)(h >> 32) >> 8 : (uint32_t)h >> 8) * (1.0f / 16777216.0f);
            const uint32_t bit = 1u << (scale - 1 - l);
            if (u < a) {
            } else if (u < a + b) {
                q |= bit;
            } else if (u < a + b + c) {
                r |= bit;
            } else {
                r |= bit;
                q |= bit;
            }
        }
        src[k] = (int32_t)r;
        dst[k] = (int32_t)q;
    }
}
__global__ void random_keys_kernel(int64_t n, uint64_t seed, uint32_t *key, int32_t *id) {
    GLOOP(i, n) {
        key[i] = (uint32_t)mix64(seed ^ (0xA5A5A5A5ull << 32) ^ (uint64_t)i);
        id[i] = (int32_t)i;
    }
}
__global__ void relabel_kernel(int64_t m, const int32_t *__restrict__ perm, int32_t *a, int32_t *b) {
    GLOOP(e, m) {
        a[e] = perm[a[e]];
        b[e] = perm[b[e]];
    }
}
__global__ void random_values_kernel(int64_t first, int64_t m, uint64_t seed, float *v) {
    GLOOP(k, m) v[k] = unit_float(mix64(seed ^ (0x5151ull << 48) ^ (uint64_t)(first + k)));
}
__global__ void stencil_kernel(int64_t N, int32_t *row, int32_t *col) {
    const int64_t n = N * N * N;
    GLOOP(t, n * 27) {
        const int64_t i = t / 27;
        const int k = (int)(t % 27);
        const int64_t x = i % N, y = (i / N) % N, z = i / (N * N);
        const int64_t xx = x + k % 3 - 1, yy = y + (k / 3) % 3 - 1, zz = z + k / 9 - 1;
        const bool ok = xx >= 0 && xx < N && yy >= 0 && yy < N && zz >= 0 && zz < N;
        row[t] = ok ? (int32_t)i : -1;
        col[t] = ok ? (int32_t)((zz * N + yy) * N + xx) : 0;
    }
}

}  // namespace

// The random relabelling of R-MAT's vertices: a permutation from a sort of random keys.
void rmat_relabelling(int scale, Dev<int32_t> &perm) {
    const int64_t n = 1LL << scale;
    Dev<uint32_t> key(n), skey(n);
    Dev<int32_t> id(n);
    perm.alloc(n);
    random_keys_kernel<<<grid(n), 256, 0, g_st>>>(n, mix64(O.seed * 7 + scale), key, id);
    CKL();
    cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortPairs(t, b, key.p, skey.p, id.p, perm.p, n, 0, 32, g_st); });
}

// Edges first .. first + m - 1 of make_rmat's tuples (relabelled by perm), and their values
// (val nullptr: none): what make_rmat generates, a chunk at a time.
void rmat_chunk(int scale, const int32_t *perm, int64_t first, int64_t m, int32_t *row, int32_t *col, float *val) {
    if (m <= 0) return;
    rmat_kernel<<<grid(m), 256, 0, g_st>>>(first, m, scale, mix64(O.seed + scale), row, col);
    CKL();
    relabel_kernel<<<grid(m), 256, 0, g_st>>>(m, perm, row, col);
    CKL();
    if (val) {
        random_values_kernel<<<grid(m), 256, 0, g_st>>>(first, m, O.seed, val);
        CKL();
    }
}

namespace {

// R-MAT (Graph500 a=.57 b=.19 c=.19 d=.05) with a random relabelling, random values.
void make_rmat(const std::string &spec, Coo &c, std::string &name) {
    int scale = 0, ef = 16;
    if (std::sscanf(spec.c_str() + 5, "%d:%d", &scale, &ef) < 1 || scale < 1 || scale > 30 || ef < 1)
        die("bad R-MAT spec %s", spec.c_str());
    const int64_t n = 1LL << scale, m = (int64_t)ef << scale;
    c.nrows = c.ncols = n, c.m = m;
    c.row.alloc(m), c.col.alloc(m), c.val.alloc(m);
    rmat_kernel<<<grid(m), 256, 0, g_st>>>(0, m, scale, mix64(O.seed + scale), c.row, c.col);
    CKL();
    random_values_kernel<<<grid(m), 256, 0, g_st>>>(0, m, O.seed, c.val);
    CKL();
    Dev<int32_t> perm;
    rmat_relabelling(scale, perm);
    relabel_kernel<<<grid(m), 256, 0, g_st>>>(m, perm, c.row, c.col);
    CKL();
    char buf[64];
    std::snprintf(buf, sizeof buf, "rmat%d", scale);
    if (ef != 16) std::snprintf(buf, sizeof buf, "rmat%d-ef%d", scale, ef);
    name = buf;
}

// A 3-D 27-point stencil on an N^3 grid (the tuples outside the grid get row -1: dropped).
void make_stencil(const std::string &spec, Coo &c, std::string &name) {
    const int64_t N = std::atoll(spec.c_str() + 8);
    if (N < 2 || N * N * N > (1LL << 30)) die("bad stencil spec %s", spec.c_str());
    const int64_t n = N * N * N, m = 27 * n;
    c.nrows = c.ncols = n, c.m = m;
    c.row.alloc(m), c.col.alloc(m), c.val.alloc(m);
    stencil_kernel<<<grid(m), 256, 0, g_st>>>(N, c.row, c.col);
    CKL();
    random_values_kernel<<<grid(m), 256, 0, g_st>>>(0, m, O.seed, c.val);
    CKL();
    name = "stencil27-" + std::to_string(N) + "^3";
}

// A file's tuples on the host (values empty: a pattern).
struct HostTuples {
    int64_t nrows = 0, ncols = 0;
    std::vector<int64_t> rows, cols;
    std::vector<double> values;
};

// The next line of text from pos (false at the end).
bool next_line(const std::string &text, size_t &pos, std::string &out) {
    if (pos >= text.size()) return false;
    size_t e = text.find('\n', pos);
    if (e == std::string::npos) e = text.size();
    out = text.substr(pos, e - pos);
    pos = e + 1;
    return true;
}

// METIS graph files (psv's readers do not take them): "n m [fmt]" then one line of 1-based
// neighbours per vertex (fmt 1 / 11: weights after each neighbour, taken as values).
bool read_metis(const std::string &path, HostTuples &c) {
    gzFile g = gzopen(path.c_str(), "rb");
    if (!g) return false;
    std::string text;
    char buf[1 << 16];
    int k;
    while ((k = gzread(g, buf, sizeof buf)) > 0) text.append(buf, (size_t)k);
    gzclose(g);
    size_t pos = 0;
    std::string l;
    do {
        if (!next_line(text, pos, l)) return false;
    } while (!l.empty() && l[0] == '%');
    long long n = 0, m = 0, fmt = 0;
    if (std::sscanf(l.c_str(), "%lld %lld %lld", &n, &m, &fmt) < 2) return false;
    const bool ew = fmt % 10 == 1;
    c.nrows = c.ncols = n;
    for (long long i = 0; i < n; ++i) {
        if (!next_line(text, pos, l)) break;
        if (!l.empty() && l[0] == '%') {
            --i;
            continue;
        }
        const char *p = l.c_str();
        char *end = nullptr;
        for (;;) {
            const long long j = std::strtoll(p, &end, 10);
            if (end == p) break;
            p = end;
            double w = 1;
            if (ew) {
                w = std::strtod(p, &end);
                p = end;
            }
            if (j < 1 || j > n) return false;
            c.rows.push_back(i);
            c.cols.push_back(j - 1);
            if (ew) c.values.push_back(w);
        }
    }
    return true;
}

// Any file psv reads, through the public API: read into a matrix of the bench's context, its
// tuples extracted (duplicates already combined by psv's reader), the matrix freed.
void read_psv(const std::string &path, HostTuples &c) {
    psv_matrix *M = nullptr;
    PK(psv_matrix_read(g_ctx, path.c_str(), &M));
    std::unique_ptr<psv_matrix, void (*)(psv_matrix *)> hold(M, [](psv_matrix *m) { psv_matrix_free(&m); });
    int64_t nvals = 0;
    int32_t pattern = 0;
    psv_type type = PSV_FP64;
    PK(psv_matrix_nrows(M, &c.nrows));
    PK(psv_matrix_ncols(M, &c.ncols));
    PK(psv_matrix_nvals(M, &nvals));
    PK(psv_matrix_is_pattern(M, &pattern));
    PK(psv_matrix_type(M, &type));
    c.rows.resize((size_t)nvals), c.cols.resize((size_t)nvals);
    int64_t got = nvals;
    if (pattern) {
        PK(psv_matrix_extract_tuples(M, c.rows.data(), c.cols.data(), nullptr, &got));
    } else if (type == PSV_INT64) {
        std::vector<int64_t> v((size_t)nvals);
        PK(psv_matrix_extract_tuples(M, c.rows.data(), c.cols.data(), v.data(), &got));
        c.values.assign(v.begin(), v.end());
    } else if (type == PSV_FP64) {
        c.values.resize((size_t)nvals);
        PK(psv_matrix_extract_tuples(M, c.rows.data(), c.cols.data(), c.values.data(), &got));
    } else {
        die("%s: unexpected value type %d", path.c_str(), (int)type);
    }
    hold.reset();
    pool_trim();  // the read matrix's device blocks go back before anything is timed
}

// PATH[@LABEL]: the label after the last '@' only when what precedes it is a file
// (uk-2007-05@100000 has one); else the file name without its extensions.
void file_name(const std::string &spec, std::string &path, std::string &name) {
    path = spec;
    const size_t at = spec.rfind('@');
    if (at != std::string::npos && at > 0) {
        FILE *f = std::fopen(spec.substr(0, at).c_str(), "rb");
        if (f) {
            std::fclose(f);
            path = spec.substr(0, at);
            name = spec.substr(at + 1);
        }
    }
    if (!name.empty()) return;
    name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    for (const char *ext : {".gz", ".txt", ".mtx", ".graph", ".metis", ".edgelist"})
        if (name.size() > std::strlen(ext) && name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0)
            name.resize(name.size() - std::strlen(ext));
}

// A file's tuples on the device (a pattern gets random values).
void load_file(const std::string &spec, Coo &c, std::string &name) {
    std::string path;
    file_name(spec, path, name);
    HostTuples h;
    if (path.find(".metis") != std::string::npos) {
        if (!read_metis(path, h)) throw std::runtime_error(path + ": not a METIS graph");
    } else {
        read_psv(path, h);
    }
    const int64_t m = (int64_t)h.rows.size();
    if (h.nrows > INT32_MAX || h.ncols > INT32_MAX) die("%s: too large", path.c_str());
    c.nrows = h.nrows, c.ncols = h.ncols, c.m = m;
    std::vector<int32_t> r((size_t)m), q((size_t)m);
    for (int64_t e = 0; e < m; ++e) r[e] = (int32_t)h.rows[e], q[e] = (int32_t)h.cols[e];
    c.row.alloc(m), c.col.alloc(m), c.val.alloc(m);
    CK(cudaMemcpy(c.row.p, r.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c.col.p, q.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
    if (h.values.size() == (size_t)m && m > 0) {
        std::vector<float> v((size_t)m);
        for (int64_t e = 0; e < m; ++e) v[e] = (float)h.values[e];
        CK(cudaMemcpy(c.val.p, v.data(), (size_t)m * 4, cudaMemcpyHostToDevice));
    } else {
        random_values_kernel<<<grid(m), 256, 0, g_st>>>(0, m, O.seed, c.val);  // a pattern: random weights
        CKL();
    }
}

}  // namespace

void random_values(int64_t m, uint64_t seed, float *v) {
    random_values_kernel<<<grid(m), 256, 0, g_st>>>(0, m, seed, v);
    CKL();
}

Coo load_matrix(const std::string &spec, std::string &name, double &gen_s) {
    Coo c;
    const double t0 = now_s();
    if (spec.rfind("rmat:", 0) == 0) make_rmat(spec, c, name);
    else if (spec.rfind("stencil:", 0) == 0) make_stencil(spec, c, name);
    else load_file(spec, c, name);
    CK(cudaStreamSynchronize(g_st));
    gen_s = now_s() - t0;
    return c;
}
