// Device-side helpers of the bench: COO -> CSR (sort, duplicates removed keeping the first in
// input order), psv's column ranking, the double-precision reference product and the error
// measures.
#include "bench/device.cuh"

namespace {

int bits_for(uint64_t x) {  // bits to write x (>= 1)
    int b = 1;
    while (b < 64 && (x >> b)) ++b;
    return b;
}

__global__ void make_keys_kernel(int64_t m, const int32_t *r, const int32_t *c, int cb, int64_t nrows, uint64_t *key, uint32_t *id) {
    GLOOP(e, m) {
        const int32_t rr = r[e];
        key[e] = rr < 0 ? ((uint64_t)nrows << cb) : (((uint64_t)rr << cb) | (uint64_t)c[e]);
        if (id) id[e] = (uint32_t)e;
    }
}
__global__ void flag_kernel(int64_t m, const uint64_t *key, int cb, int64_t nrows, uint32_t *flag) {
    GLOOP(e, m) flag[e] = (e == 0 || key[e] != key[e - 1]) && (key[e] >> cb) < (uint64_t)nrows;
}
__global__ void compact_kernel(int64_t m, const uint64_t *key, const uint32_t *flag, const uint32_t *pos, int cb,
                               const uint32_t *id, const float *vin, int32_t *row, int32_t *col, float *vout) {
    GLOOP(e, m) {
        if (!flag[e]) continue;
        const uint32_t p = pos[e];
        row[p] = (int32_t)(key[e] >> cb);
        col[p] = (int32_t)(key[e] & ((1ull << cb) - 1));
        if (vout) vout[p] = vin[id[e]];
    }
}
__global__ void row_ptr_kernel(int64_t nrows, int64_t nnz, const int32_t *row, int32_t *rp) {
    GLOOP(i, nrows + 1) {  // first entry with row >= i
        int64_t lo = 0, hi = nnz;
        while (lo < hi) {
            const int64_t mid = (lo + hi) >> 1;
            if (row[mid] < i) lo = mid + 1;
            else hi = mid;
        }
        rp[i] = (int32_t)lo;
    }
}

__global__ void fill_kernel(int64_t n, float v, float *x) { GLOOP(i, n) x[i] = v; }
__global__ void i32_to_i64_kernel(int64_t n, const int32_t *a, int64_t *b) { GLOOP(i, n) b[i] = a[i]; }
// y = A x in double (the reference); vals nullptr: pattern
__global__ void ref_spmv_kernel(int64_t n, const int32_t *rp, const int32_t *col, const float *val, const float *x, double *y) {
    const int lane = threadIdx.x & 31;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < n; i += ((int64_t)gridDim.x * blockDim.x) >> 5) {
        double acc = 0;
        for (int64_t p = rp[i] + lane; p < rp[i + 1]; p += 32) acc += (double)(val ? val[p] : 1.0f) * (double)x[col[p]];
        for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (lane == 0) y[i] = acc;
    }
}
__global__ void err_kernel(int64_t n, const float *y, const double *ref, double *out) {
    double e = 0, r = 0;
    GLOOP(i, n) {
        const double d = (double)y[i] - ref[i];
        e += d * d;
        r += ref[i] * ref[i];
    }
    block_add(e, out);
    block_add(r, out + 1);
}
__global__ void rank_diff_kernel(int64_t n, const float *a, const float *b, double *out) {
    // out[0] = L1 |a-b|, out[1] = max rel diff (as ordered bits of a non-negative double)
    double l1 = 0, mx = 0;
    GLOOP(i, n) {
        const double d = fabs((double)a[i] - (double)b[i]);
        l1 += d;
        const double den = fmax(fabs((double)b[i]), 1e-30);
        mx = fmax(mx, d / den);
    }
    block_add(l1, out);
    for (int o = 16; o; o >>= 1) mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    if ((threadIdx.x & 31) == 0) atomicMax(reinterpret_cast<unsigned long long *>(out + 1), (unsigned long long)__double_as_longlong(mx));
}
__global__ void col_count_kernel(int64_t m, const int32_t *col, uint32_t *cnt) { GLOOP(e, m) atomicAdd(cnt + col[e], 1u); }
__global__ void rank_keys_kernel(int64_t n, const uint32_t *cnt, uint64_t *key) {
    GLOOP(j, n) key[j] = ((uint64_t)(0xFFFFFFFFu - cnt[j]) << 32) | (uint64_t)j;  // length desc, index asc
}
__global__ void rank_of_kernel(int64_t n, const uint64_t *skey, int32_t *rank) {
    GLOOP(k, n) rank[(uint32_t)skey[k]] = (int32_t)k;
}
__global__ void map_kernel(int64_t m, const int32_t *rank, const int32_t *in, int32_t *out) { GLOOP(e, m) out[e] = rank[in[e]]; }
__global__ void inv_deg_kernel(int64_t n, const int32_t *rp, float *inv) {
    GLOOP(i, n) {
        const int32_t d = rp[i + 1] - rp[i];
        inv[i] = d ? (float)(1.0 / (double)d) : 0.0f;
    }
}
__global__ void cum_mass_kernel(int64_t n, const uint64_t *skey, const int64_t *thr, int nthr, unsigned long long *mass) {
    // mass[t] += count of columns ranked below thr[t]
    unsigned long long loc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    GLOOP(j, n) {
        const uint64_t c = 0xFFFFFFFFull - (skey[j] >> 32);
        for (int t = 0; t < nthr; ++t)
            if (j < thr[t]) loc[t] += c;
    }
    for (int t = 0; t < nthr; ++t) {
        unsigned long long v = loc[t];
        for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0 && v) atomicAdd(mass + t, v);
    }
}

// The share of entries in the top 2^16, 2^20, 2^22, 2^23, 2^24 ranked columns.
void column_mass(int64_t nc, int64_t nnz, const uint64_t *skey, double *share) {
    const int64_t thr_h[5] = {1 << 16, 1 << 20, 1 << 22, 1 << 23, 1 << 24};
    Dev<int64_t> thr(5);
    Dev<unsigned long long> mass(5);
    CK(cudaMemcpyAsync(thr.p, thr_h, 40, cudaMemcpyHostToDevice, g_st));
    CK(cudaMemsetAsync(mass.p, 0, 40, g_st));
    cum_mass_kernel<<<grid(nc), 256, 0, g_st>>>(nc, skey, thr, 5, mass);
    CKL();
    unsigned long long mh[5];
    CK(cudaMemcpyAsync(mh, mass.p, 40, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    for (int t = 0; t < 5; ++t) share[t] = nnz ? (double)mh[t] / (double)nnz : NAN;
}

}  // namespace

Csr coo_to_csr(int64_t nrows, int64_t ncols, int64_t m, const int32_t *r, const int32_t *c, const float *v) {
    if (m >= (int64_t)UINT32_MAX) die("at most 2^32-1 tuples");
    const int cb = bits_for((uint64_t)std::max<int64_t>(1, ncols - 1));
    const int rb = bits_for((uint64_t)nrows);  // row nrows marks a dropped tuple
    Csr A;
    A.nrows = nrows, A.ncols = ncols;
    Dev<uint64_t> key(m), skey(m);
    Dev<uint32_t> id, sid;
    if (v) id.alloc(m), sid.alloc(m);
    make_keys_kernel<<<grid(m), 256, 0, g_st>>>(m, r, c, cb, nrows, key, id.p);
    CKL();
    if (v)
        cub_run([&](void *t, size_t &b) {
            return cubns::DeviceRadixSort::SortPairs(t, b, key.p, skey.p, id.p, sid.p, m, 0, cb + rb, g_st);
        });
    else
        cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortKeys(t, b, key.p, skey.p, m, 0, cb + rb, g_st); });
    key.reset();
    id.reset();
    Dev<uint32_t> flag(m + 1), pos(m + 1);
    flag_kernel<<<grid(m), 256, 0, g_st>>>(m, skey, cb, nrows, flag);
    CKL();
    const uint32_t nnz = exclusive_count(flag, pos, m);
    A.nnz = nnz;
    A.row.alloc(nnz), A.col.alloc(nnz);
    if (v) A.val.alloc(nnz);
    compact_kernel<<<grid(m), 256, 0, g_st>>>(m, skey, flag, pos, cb, sid.p, v, A.row, A.col, A.val.p);
    CKL();
    A.rp.alloc(nrows + 1);
    row_ptr_kernel<<<grid(nrows + 1), 256, 0, g_st>>>(nrows, (int64_t)nnz, A.row, A.rp);
    CKL();
    CK(cudaStreamSynchronize(g_st));
    return A;
}

void fill_vec(int64_t n, float v, float *x) {
    fill_kernel<<<grid(n), 256, 0, g_st>>>(n, v, x);
    CKL();
}

void i32_to_i64(int64_t n, const int32_t *a, int64_t *b) {
    i32_to_i64_kernel<<<grid(n), 256, 0, g_st>>>(n, a, b);
    CKL();
}

void ref_spmv(int64_t n, const int32_t *rp, const int32_t *col, const float *val, const float *x, double *y) {
    ref_spmv_kernel<<<grid(32 * n), 256, 0, g_st>>>(n, rp, col, val, x, y);
    CKL();
}

void map_ids(int64_t m, const int32_t *rank, const int32_t *in, int32_t *out) {
    map_kernel<<<grid(m), 256, 0, g_st>>>(m, rank, in, out);
    CKL();
}

void inv_degree(int64_t n, const int32_t *rp, float *inv) {
    inv_deg_kernel<<<grid(n), 256, 0, g_st>>>(n, rp, inv);
    CKL();
}

double rel_err(int64_t n, const float *y, const double *ref) {
    Dev<double> acc(2);
    CK(cudaMemsetAsync(acc.p, 0, 16, g_st));
    err_kernel<<<grid(n), 256, 0, g_st>>>(n, y, ref, acc);
    CKL();
    double h[2];
    CK(cudaMemcpyAsync(h, acc.p, 16, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    return h[1] > 0 ? std::sqrt(h[0] / h[1]) : std::sqrt(h[0]);
}

void rank_diff(int64_t n, const float *a, const float *b, double &l1, double &maxrel) {
    Dev<double> acc(2);
    CK(cudaMemsetAsync(acc.p, 0, 16, g_st));
    rank_diff_kernel<<<grid(n), 256, 0, g_st>>>(n, a, b, acc);
    CKL();
    double h[2];
    CK(cudaMemcpyAsync(h, acc.p, 16, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    l1 = h[0], maxrel = h[1];
}

double read_scalar(const double *d) {
    double h = 0;
    CK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, g_st));
    CK(cudaStreamSynchronize(g_st));
    return h;
}

void rank_columns(const Csr &A, Dev<int32_t> &rank, Dev<uint64_t> &skey, Result &res) {
    const int64_t nc = A.ncols, nnz = A.nnz;
    rank.alloc(nc);
    skey.alloc(nc);
    Dev<uint32_t> cnt(nc);
    CK(cudaMemsetAsync(cnt.p, 0, (size_t)nc * 4, g_st));
    col_count_kernel<<<grid(nnz), 256, 0, g_st>>>(nnz, A.col, cnt);
    Dev<uint64_t> key(nc);
    rank_keys_kernel<<<grid(nc), 256, 0, g_st>>>(nc, cnt, key);
    CKL();
    cub_run([&](void *t, size_t &b) { return cubns::DeviceRadixSort::SortKeys(t, b, key.p, skey.p, nc, 0, 64, g_st); });
    rank_of_kernel<<<grid(nc), 256, 0, g_st>>>(nc, skey, rank);
    CKL();
    column_mass(nc, nnz, skey, res.mass);
    std::printf("entries in the top 64K / 1M / 4M / 8M / 16M ranked columns: %.1f%% %.1f%% %.1f%% %.1f%% %.1f%%\n", 100 * res.mass[0],
                100 * res.mass[1], 100 * res.mass[2], 100 * res.mass[3], 100 * res.mass[4]);
}
