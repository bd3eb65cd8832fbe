// The CUDA backend's vector operations: fill, elementwise, apply, reduce, count and the masked
// assign of a product's result (the reductions deterministic, vector/reduce.cuh).
#include <cstring>

#include "core/assign.hpp"
#include "cuda/runtime/operators.cuh"
#include "cuda/runtime/backend.cuh"
#include "cuda/vector/reduce.cuh"

namespace psv {
namespace cuda {

template <class T> __global__ void fill_kernel(int64_t n, T *x, T v) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = v;
}

template <class T>
__global__ void ewise_kernel(psv_op op, int64_t n, T *w, uint8_t *wp, const T *u, const uint8_t *up, const T *v,
                             const uint8_t *vp) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const bool p = (!up || up[i]) && (!vp || vp[i]);
        if (p) w[i] = rt_apply<T>(op, u[i], v[i]);
        if (up || vp) wp[i] = p;
    }
}

template <class T> __global__ void apply_kernel(psv_op op, int64_t n, T *w, const T *u, T s) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        w[i] = rt_apply<T>(op, u[i], s);
}

void CudaBackend::fill(psv_type type, int64_t n, void *x, const void *value) {
    if (n <= 0) return;
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v;
        std::memcpy(&v, value, sizeof(T));
        fill_kernel<T><<<grid_for(n), 256, 0, stream_>>>(n, static_cast<T *>(x), v);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

void CudaBackend::ewise(psv_op op, psv_type type, int64_t n, void *w, uint8_t *wp, const void *u,
                        const uint8_t *up, const void *v, const uint8_t *vp) {
    if (n <= 0) return;
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        ewise_kernel<T><<<grid_for(n), 256, 0, stream_>>>(canonical_op(op, type), n, static_cast<T *>(w), wp,
                                                          static_cast<const T *>(u), up, static_cast<const T *>(v), vp);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

void CudaBackend::apply(psv_op op, psv_type type, int64_t n, void *w, const void *u, const void *scalar) {
    if (n <= 0) return;
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T s;
        std::memcpy(&s, scalar, sizeof(T));
        apply_kernel<T><<<grid_for(n), 256, 0, stream_>>>(canonical_op(op, type), n, static_cast<T *>(w),
                                                          static_cast<const T *>(u), s);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

template <class T> struct RtMonoid {
    psv_op op;
    __device__ __forceinline__ T apply(T a, T b) const { return rt_apply<T>(op, a, b); }
};

template <class T> struct MaskedValue {
    const T *x;
    const uint8_t *xp;
    T id;
    __device__ T operator()(int64_t i, int) const { return (!xp || xp[i]) ? x[i] : id; }
};

void CudaBackend::reduce(psv_op monoid, psv_type type, int64_t n, const void *x, const uint8_t *xp,
                         void *result) {
    activate();
    dispatch_type(type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const psv_op op = canonical_op(monoid, type);
        const T id = rt_identity<T>(op);
        if (n <= 0) {
            std::memcpy(result, &id, sizeof(T));
            return;
        }
        Buffer out(this, sizeof(T));
        launch_mapreduce<T, RtMonoid<T>>(*this, n, MaskedValue<T>{static_cast<const T *>(x), xp, id}, id, out.as<T>(),
                                         RtMonoid<T>{op});
        download(result, out.get(), sizeof(T));
    });
}

struct PresentCount {
    const uint8_t *p;
    __device__ unsigned long long operator()(int64_t i, int) const { return p[i] != 0; }
};
struct PlusU64 {
    __device__ __forceinline__ static unsigned long long apply(unsigned long long a, unsigned long long b) { return a + b; }
};

int64_t CudaBackend::count_present(int64_t n, const uint8_t *p) {
    if (!p || n <= 0) return n > 0 ? n : 0;
    activate();
    Buffer out(this, 8);
    launch_mapreduce<unsigned long long, PlusU64>(*this, n, PresentCount{p}, 0ull, out.as<unsigned long long>());
    unsigned long long c = 0;
    download(&c, out.get(), 8);
    return (int64_t)c;
}

template <class T> struct RuntimeAccum {
    psv_op op;
    __host__ __device__ T operator()(T x, T y) const { return rt_apply<T>(op, x, y); }
};

template <class T> __global__ void assign_kernel(AssignArgs a) {
    T *w = static_cast<T *>(a.w);
    const T *t = static_cast<const T *>(a.t);
    const RuntimeAccum<T> accum{a.accum};
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < a.n; i += (int64_t)gridDim.x * blockDim.x)
        assign_entry(a, i, w, t, accum);
}

void CudaBackend::assign(const AssignArgs &a) {
    if (a.n <= 0) return;
    activate();
    dispatch_type(a.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        assign_kernel<T><<<grid_for(a.n), 256, 0, stream_>>>(a);
        PSV_CUDA_LAUNCH_CHECK();
    });
}

}  // namespace cuda
}  // namespace psv
