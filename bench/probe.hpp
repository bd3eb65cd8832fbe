// The gather probe (bench-side, not an SpMV): the ceiling of CSR-order kernels on a matrix.
#pragma once
#include <initializer_list>

#include "bench/bench.hpp"

struct Probe {
    int sms = 0, smem_sm = 0;
    Dev<float> scratch;  // one slot per thread of the probe's grid
    explicit Probe(int dev);
    // Time the probe on M (weighted and pattern) with each count of hot columns in shared memory
    // that fits two blocks per SM; x rotates among the nx vectors of X. res.probe_* keeps the best.
    void run(const Csr &M, const char *layout, std::initializer_list<int32_t> hot, const float *X, int nx, float *Y,
             Result &res);
};
