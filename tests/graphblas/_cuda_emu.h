// Host emulation of the CUDA C subset that hpgraph's generated graphblas kernels use, so CI
// (no GPU) runs those kernels: one std::thread per CUDA thread of a block, blocks one after
// another, __syncthreads as a std::barrier, __shared__ as a static (one block runs at a time),
// atomics as real atomics.  A source with warp intrinsics (__shfl_sync, __shfl_xor_sync,
// __ballot_sync) also runs one thread per CUDA thread, each warp meeting at its own barrier;
// every lane of a warp must call them (the kernels tested here exit warp by warp).
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <math.h>
#include <memory>
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

struct hp_emu_warp_t { std::barrier<>* bar; unsigned long long v[32]; };
inline hp_emu_warp_t* hp_emu_warps = nullptr;
inline unsigned hp_emu_lane() { return threadIdx.x & 31; }
inline hp_emu_warp_t& hp_emu_warp() { return hp_emu_warps[threadIdx.x >> 5]; }
template <typename T> inline T __shfl_sync(unsigned, T x, int src) {
    static_assert(sizeof(T) <= 8);
    hp_emu_warp_t& w = hp_emu_warp();
    unsigned long long bits = 0, got;
    std::memcpy(&bits, &x, sizeof(T));
    w.v[hp_emu_lane()] = bits;
    w.bar->arrive_and_wait();
    got = w.v[src & 31];
    w.bar->arrive_and_wait();
    T out;
    std::memcpy(&out, &got, sizeof(T));
    return out;
}
template <typename T> inline T __shfl_xor_sync(unsigned m, T x, int mask) {
    return __shfl_sync(m, x, (int)(hp_emu_lane() ^ (unsigned)mask));
}
inline unsigned __ballot_sync(unsigned, int p) {
    hp_emu_warp_t& w = hp_emu_warp();
    w.v[hp_emu_lane()] = p != 0;
    w.bar->arrive_and_wait();
    unsigned r = 0;
    for (int l = 0; l < 32; ++l) r |= (unsigned)w.v[l] << l;
    w.bar->arrive_and_wait();
    return r;
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
        unsigned nw = (block + 31) / 32;
        std::vector<hp_emu_warp_t> warps(nw);
        std::vector<std::unique_ptr<std::barrier<>>> wbars;
        for (unsigned k = 0; k < nw; ++k) {
            wbars.emplace_back(new std::barrier<>(std::min(32u, block - 32 * k)));
            warps[k].bar = wbars.back().get();
        }
        hp_emu_warps = warps.data();
        std::vector<std::thread> ts;
        ts.reserve(block);
        for (unsigned t = 0; t < block; ++t)
            ts.emplace_back([&, b, t] {
                blockIdx = {b, 1, 1};
                threadIdx = {t, 1, 1};
                f();
                warps[t >> 5].bar->arrive_and_drop();
                bar.arrive_and_drop();
            });
        for (auto& th : ts) th.join();
    }
}
