// Host emulation of the CUDA C subset that hpgraph's generated graphblas kernels use, so CI
// (no GPU) runs those kernels: one std::thread per CUDA thread of a block, blocks one after
// another, __syncthreads as a std::barrier, __shared__ as a static (one block runs at a time),
// atomics as real atomics.  Warp shuffles are not emulated (the kernels tested here use none).
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <math.h>
#include <thread>
#include <vector>

struct hp_emu_dim3 { unsigned x = 1, y = 1, z = 1; };
inline thread_local hp_emu_dim3 threadIdx, blockIdx;
inline hp_emu_dim3 blockDim, gridDim;
inline std::barrier<>* hp_emu_bar = nullptr;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
inline void __syncthreads() { hp_emu_bar->arrive_and_wait(); }
template <typename T> inline T __ldg(const T* p) { return *p; }
inline int __clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
inline int __clz(unsigned int x) { return x ? __builtin_clz(x) : 32; }
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline long long __double_as_longlong(double d) { long long r; std::memcpy(&r, &d, 8); return r; }
inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(unsigned long long x) { return __longlong_as_double((long long)x); }
inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline float __int_as_float(unsigned int x) { return __int_as_float((int)x); }
inline int __float_as_int(float f) { int r; std::memcpy(&r, &f, 4); return r; }
inline unsigned int __float_as_uint(float f) { unsigned r; std::memcpy(&r, &f, 4); return r; }
using std::min; using std::max;

template <typename T> inline T hp_emu_cas_apply(T* p, T v, int op) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (true) {
        T nv = op == 0 ? (T)(old + v) : op == 1 ? (v < old ? v : old) : (v > old ? v : old);
        if (__atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return old;
    }
}
template <typename T> inline T atomicAdd(T* p, T v) {
    if constexpr (std::is_floating_point_v<T>) {
        std::atomic_ref<T> r(*p);
        T old = r.load();
        while (!r.compare_exchange_weak(old, old + v)) {}
        return old;
    } else {
        return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    }
}
template <typename T> inline T atomicMin(T* p, T v) { return hp_emu_cas_apply(p, v, 1); }
template <typename T> inline T atomicMax(T* p, T v) { return hp_emu_cas_apply(p, v, 2); }
template <typename T> inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <typename T> inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <typename T> inline T atomicCAS(T* p, T cmp, T v) {
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}

// kernels without __syncthreads: the threads of a block one after another, on this thread
template <typename F> void hp_emu_run_seq(unsigned grid, unsigned block, F f) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b)
        for (unsigned t = 0; t < block; ++t) {
            blockIdx = {b, 1, 1};
            threadIdx = {t, 1, 1};
            f();
        }
}

template <typename F> void hp_emu_run(unsigned grid, unsigned block, F f) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b) {
        std::barrier<> bar(block);
        hp_emu_bar = &bar;
        std::vector<std::thread> ts;
        ts.reserve(block);
        for (unsigned t = 0; t < block; ++t)
            ts.emplace_back([&, b, t] {
                blockIdx = {b, 1, 1};
                threadIdx = {t, 1, 1};
                f();
                bar.arrive_and_drop();
            });
        for (auto& th : ts) th.join();
    }
}
