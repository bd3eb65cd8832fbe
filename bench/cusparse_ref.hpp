// The cuSPARSE reference: descriptors, a prepared SpMV, and the cuSPARSE-based PageRank, HITS
// and RWR (the same definitions as psv's, on cuSPARSE SpMV and small kernels).
#pragma once
#include <cusparse.h>

#include "bench/bench.hpp"

#define CS(x)                                                                                  \
    do {                                                                                       \
        cusparseStatus_t s_ = (x);                                                             \
        if (s_ != CUSPARSE_STATUS_SUCCESS) die("%s:%d %s: %s", __FILE__, __LINE__, #x, cusparseGetErrorString(s_)); \
    } while (0)

extern cusparseHandle_t g_sp;  // on g_st

struct SpMat {
    cusparseSpMatDescr_t d = nullptr;
    ~SpMat() {
        if (d) cusparseDestroySpMat(d);
    }
};
struct DnVec {
    cusparseDnVecDescr_t d = nullptr;
    DnVec() = default;
    DnVec(int64_t n, float *p) { CS(cusparseCreateDnVec(&d, n, p, CUDA_R_32F)); }
    DnVec(DnVec &&o) noexcept : d(o.d) { o.d = nullptr; }
    DnVec &operator=(DnVec &&o) noexcept {
        std::swap(d, o.d);
        return *this;
    }
    ~DnVec() {
        if (d) cusparseDestroyDnVec(d);
    }
};
void make_csr_descr(SpMat &M, const Csr &A, float *val);
void make_coo_descr(SpMat &M, const Csr &A, float *val);
// 0: CSR_ALG1, 1: CSR_ALG2, 2: COO_ALG1 (kCsName)
cusparseSpMVAlg_t alg_of(int a);

// A prepared y = A x with one algorithm (buffer allocated, preprocessed where cuSPARSE has it).
struct SpMV {
    cusparseSpMatDescr_t A = nullptr;
    cusparseSpMVAlg_t alg{};
    Dev<char> buf;
    void prepare(cusparseSpMatDescr_t M, cusparseSpMVAlg_t al, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y);
    void operator()(cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) const {
        const float one = 1.0f, zero = 0.0f;
        CS(cusparseSpMV(g_sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, CUDA_R_32F, alg, buf.p));
    }
};

// Each of the three algorithms on M, timed with x rotating among xs (nx of them) into y; err
// (may be nullptr) receives each one's error against ref.
void time_cusparse(const Csr &M, const std::vector<DnVec> &xs, const DnVec &y, float *y_dev, const double *ref, Stat *out,
                   double *err);

// A pattern CSR as cuSPARSE sees it: values all 1.
struct OnesMat {
    SpMat d;
    SpMV mv;
};
void make_ones(OnesMat &M, const Csr &A, float *ones, int alg, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y);

// LAGr_PageRank with cuSPARSE SpMV on A' (ones) and small kernels; r left in `r`.
int cs_pagerank(const OnesMat &AT, int64_t n, const float *inv, float *r, float *w, float *t, cusparseDnVecDescr_t wv,
                cusparseDnVecDescr_t tv, double *scal, double damping, double tol, int maxit);
// HITS, separate form, as psv's hits_separate: a = A' h, normalize; h = A a, normalize.
int cs_hits(const OnesMat &A1, const OnesMat &AT1, int64_t n, Dev<float> *a, Dev<float> *h, double *scal, double tol,
            int maxit, int &final_idx);
// RWR, one query q, on the symmetric pattern S.
int cs_rwr(const OnesMat &S, int64_t n, const float *inv, int64_t q, float *R, float *U, float *T, cusparseDnVecDescr_t uv,
           cusparseDnVecDescr_t tv, double *scal, double c, double tol, int maxit);
