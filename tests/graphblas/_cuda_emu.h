// Host emulation of the CUDA C subset that hpgraph's generated graphblas kernels use, so CI
// (no GPU) runs those kernels: one fiber (ucontext) per CUDA thread of a block, all on the
// calling thread, blocks one after another; __syncthreads is a barrier of the block's fibers
// (a fiber that waits yields to the next one), __shared__ a static (one block runs at a time),
// atomics real atomics.  A source with warp intrinsics (__shfl_sync, __shfl_xor_sync,
// __shfl_up/down_sync, __ballot_sync, __match_any_sync, __reduce_min/max_sync, __any_sync,
// __syncwarp) also
// runs one fiber per CUDA thread, each warp meeting at its own barrier; every lane of a warp
// must call them (the kernels tested here exit warp by warp).  Fibers instead of threads: a
// barrier costs a few context switches in user space, not a round of the OS scheduler.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <memory>
#include <ucontext.h>
#include <vector>

struct hp_emu_dim3 { unsigned x = 1, y = 1, z = 1; };
inline thread_local hp_emu_dim3 threadIdx, blockIdx;
inline hp_emu_dim3 blockDim, gridDim;
// the fiber scheduler: the fiber running now, the context it yields to
struct hp_emu_fiber_t { ucontext_t ctx; bool done; };
inline ucontext_t hp_emu_main;
inline hp_emu_fiber_t* hp_emu_cur = nullptr;
inline void hp_emu_yield() { swapcontext(&hp_emu_cur->ctx, &hp_emu_main); }
// a barrier of fibers (std::barrier's arrive_and_wait / arrive_and_drop)
struct hp_emu_sync_t {
    unsigned expected = 0, arrived = 0, gen = 0;
    void arrive_and_wait() {
        const unsigned g = gen;
        if (++arrived == expected) { arrived = 0; ++gen; return; }
        while (gen == g) hp_emu_yield();
    }
    void arrive_and_drop() {
        if (--expected && arrived == expected) { arrived = 0; ++gen; }
    }
};
inline hp_emu_sync_t* hp_emu_bar = nullptr;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
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
template <typename T> inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
[[noreturn]] inline void __trap() { std::abort(); }
template <typename T> inline T atomicMin(T* p, T v) { return hp_emu_cas_apply(p, v, 1); }
template <typename T> inline T atomicMax(T* p, T v) { return hp_emu_cas_apply(p, v, 2); }
template <typename T> inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <typename T> inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <typename T> inline T atomicCAS(T* p, T cmp, T v) {
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}

struct hp_emu_warp_t { hp_emu_sync_t* bar; unsigned long long v[32]; };
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
template <typename T> inline T __shfl_down_sync(unsigned m, T x, unsigned d) {
    const unsigned src = hp_emu_lane() + d;             // past the warp: the lane's own value
    return __shfl_sync(m, x, (int)(src < 32 ? src : hp_emu_lane()));
}
template <typename T> inline T __shfl_up_sync(unsigned m, T x, unsigned d) {
    const unsigned l = hp_emu_lane();                   // below lane 0: the lane's own value
    return __shfl_sync(m, x, (int)(l >= d ? l - d : l));
}
// every lane's 64-bit word, after all 32 have written theirs
inline void hp_emu_exchange(unsigned long long bits, unsigned long long out[32]) {
    hp_emu_warp_t& w = hp_emu_warp();
    w.v[hp_emu_lane()] = bits;
    w.bar->arrive_and_wait();
    for (int l = 0; l < 32; ++l) out[l] = w.v[l];
    w.bar->arrive_and_wait();
}
template <typename T> inline unsigned __match_any_sync(unsigned, T x) {
    static_assert(sizeof(T) <= 8);
    unsigned long long bits = 0, all[32];
    std::memcpy(&bits, &x, sizeof(T));
    hp_emu_exchange(bits, all);
    unsigned r = 0;
    for (int l = 0; l < 32; ++l) r |= (unsigned)(all[l] == bits) << l;
    return r;
}
inline unsigned __reduce_max_sync(unsigned, unsigned x) {
    unsigned long long all[32];
    hp_emu_exchange(x, all);
    unsigned r = 0;
    for (int l = 0; l < 32; ++l) r = (unsigned)all[l] > r ? (unsigned)all[l] : r;
    return r;
}
inline unsigned __reduce_min_sync(unsigned, unsigned x) {
    unsigned long long all[32];
    hp_emu_exchange(x, all);
    unsigned r = 0xffffffffu;
    for (int l = 0; l < 32; ++l) r = (unsigned)all[l] < r ? (unsigned)all[l] : r;
    return r;
}
inline int __any_sync(unsigned, int p) {
    unsigned long long all[32];
    hp_emu_exchange(p != 0, all);
    for (int l = 0; l < 32; ++l) if (all[l]) return 1;
    return 0;
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
inline void __syncwarp(unsigned = 0xffffffffu) { hp_emu_warp().bar->arrive_and_wait(); }

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

inline void (*hp_emu_body)(void*) = nullptr;
inline void* hp_emu_body_arg = nullptr;
inline void hp_emu_entry() {
    hp_emu_body(hp_emu_body_arg);
    hp_emu_warps[threadIdx.x >> 5].bar->arrive_and_drop();
    hp_emu_bar->arrive_and_drop();
    hp_emu_cur->done = true;                 // returns to uc_link: the scheduler
}

template <typename F> void hp_emu_run(unsigned grid, unsigned block, F f) {
    constexpr size_t STACK = 128 * 1024;
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    hp_emu_body = [](void* p) { (*static_cast<F*>(p))(); };
    hp_emu_body_arg = &f;
    std::vector<std::unique_ptr<char[]>> stacks(block);
    for (auto& st : stacks) st.reset(new char[STACK]);
    std::vector<hp_emu_fiber_t> fibers(block);
    for (unsigned b = 0; b < grid; ++b) {
        hp_emu_sync_t bar;
        bar.expected = block;
        hp_emu_bar = &bar;
        unsigned nw = (block + 31) / 32;
        std::vector<hp_emu_warp_t> warps(nw);
        std::vector<hp_emu_sync_t> wbars(nw);
        for (unsigned k = 0; k < nw; ++k) {
            wbars[k].expected = std::min(32u, block - 32 * k);
            warps[k].bar = &wbars[k];
        }
        hp_emu_warps = warps.data();
        for (unsigned t = 0; t < block; ++t) {
            hp_emu_fiber_t& fb = fibers[t];
            fb.done = false;
            getcontext(&fb.ctx);
            fb.ctx.uc_stack.ss_sp = stacks[t].get();
            fb.ctx.uc_stack.ss_size = STACK;
            fb.ctx.uc_link = &hp_emu_main;
            makecontext(&fb.ctx, hp_emu_entry, 0);
        }
        blockIdx = {b, 1, 1};
        for (bool left = true; left;) {       // round robin until every fiber has returned
            left = false;
            for (unsigned t = 0; t < block; ++t) {
                if (fibers[t].done) continue;
                threadIdx = {t, 1, 1};
                hp_emu_cur = &fibers[t];
                swapcontext(&hp_emu_main, &fibers[t].ctx);
                left |= !fibers[t].done;
            }
        }
    }
}
