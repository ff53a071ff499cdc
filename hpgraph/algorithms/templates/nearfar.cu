typedef ${DIST} dist_t;
typedef ${BITS} bits_t;
typedef ${IDX} idx_t;
typedef ${PTR} ptr_t;
typedef ${WT} w_t;
#define GROUP ${GROUP}
#define HEAVY ${HEAVY}
#define HAS_HEAVY ${HAS_HEAVY}
#define WEIGHTED ${WEIGHTED}
#define BLOCK ${BLOCK}
#define FULL 0xffffffffu

enum { S_HALT = 0, S_PAR = 1, S_FP = 2, S_IT = 3, S_PHASE = 4, S_DONE = 5, S_NEAR = 6,
       S_HEAVYQ = 8, S_FAR = 10, S_FMIN = 12, S_THR = 13, S_DELTA = 14, S_NRELAX = 15,
       S_NSPLIT = 16, S_MAXQ = 17 };

// Non-negative IEEE floats order like their bit patterns read as signed integers, so
// atomicMin on the bits is a float min (distances here are never -0.0: 0 + w >= +0).
__device__ __forceinline__ int to_bits(float d) { return __float_as_int(d); }
__device__ __forceinline__ long long to_bits(double d) { return __double_as_longlong(d); }
__device__ __forceinline__ float from_bits(int b) { return __int_as_float(b); }
__device__ __forceinline__ double from_bits(long long b) { return __longlong_as_double(b); }

// Append v to q for every lane with `want` (all 32 lanes of the warp must call this: the
// loops around it are warp-uniform); one atomicAdd per warp.
__device__ __forceinline__ void append(bool want, idx_t v, idx_t* __restrict__ q,
                                       unsigned long long* cnt)
{
    const unsigned m = __ballot_sync(FULL, want);
    if (m == 0u) return;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(m) - 1;
    unsigned long long base = 0ull;
    if (lane == leader) base = atomicAdd(cnt, (unsigned long long)__popc(m));
    base = __shfl_sync(FULL, base, leader);
    if (want) q[base + __popc(m & ((1u << lane) - 1u))] = v;
}

__device__ __forceinline__ bool is_heavy(const ptr_t* __restrict__ indptr, idx_t v)
{
#if HAS_HEAVY
    return (long long)(__ldg(indptr + v + 1) - __ldg(indptr + v)) > (long long)HEAVY;
#else
    return false;
#endif
}

struct Ctx {
    const ptr_t* indptr; const idx_t* indices; const w_t* w; dist_t* dist;
    idx_t* qout; idx_t* hout; idx_t* fout;
    unsigned long long* cq; unsigned long long* ch; unsigned long long* cf;
    int* nstamp; int* fstamp; int it1; int phase; double thr;
};

// Relax stored entry e (when `valid`) from a vertex at distance du; queue the improved target.
__device__ __forceinline__ void relax(const Ctx& c, bool valid, long long e, dist_t du)
{
    bool near = false, far = false, heavy = false;
    idx_t v = 0;
    if (valid) {
        v = __ldg(c.indices + e);
#if WEIGHTED
        const dist_t nd = du + (dist_t)__ldg(c.w + e);
#else
        const dist_t nd = du + (dist_t)1;
#endif
        if (nd < __ldcg(c.dist + v)) {
            const bits_t nb = to_bits(nd);
            const bits_t old = atomicMin((bits_t*)(c.dist + v), nb);
            if (nb < old) {
                if ((double)nd < c.thr) {
                    if (atomicExch(c.nstamp + v, c.it1) != c.it1) {
                        near = true;
                        heavy = is_heavy(c.indptr, v);
                    }
                } else if (atomicExch(c.fstamp + v, c.phase) != c.phase) {
                    far = true;
                }
            }
        }
    }
    append(near && !heavy, v, c.qout, c.cq);
#if HAS_HEAVY
    append(near && heavy, v, c.hout, c.ch);
#endif
    append(far, v, c.fout, c.cf);
}

extern "C" __global__ void __launch_bounds__(BLOCK) ${NAME}(
        const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const w_t* __restrict__ w, dist_t* dist,
        idx_t* q0, idx_t* q1, idx_t* h0, idx_t* h1, idx_t* f0, idx_t* f1,
        int* nstamp, int* fstamp, unsigned long long* st)
{
    if (((volatile unsigned long long*)st)[S_HALT]) return;
    const int par = (int)st[S_PAR], fp = (int)st[S_FP];
    const int it = (int)st[S_IT], phase = (int)st[S_PHASE];
    const unsigned long long nl = st[S_NEAR + par], nh = st[S_HEAVYQ + par], nf = st[S_FAR + fp];
    const double thr = __longlong_as_double((long long)st[S_THR]);
    const double delta = __longlong_as_double((long long)st[S_DELTA]);
    const int lane = threadIdx.x & 31;
    const long long gtid = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * BLOCK;
    const bool relax_mode = (nl + nh) > 0ull;
    double nbound = thr;

    Ctx c;
    c.indptr = indptr; c.indices = indices; c.w = w; c.dist = dist;
    c.nstamp = nstamp; c.fstamp = fstamp; c.it1 = it + 1; c.thr = thr;
    c.qout = par ? q0 : q1; c.hout = par ? h0 : h1;
    c.cq = st + S_NEAR + (par ^ 1); c.ch = st + S_HEAVYQ + (par ^ 1);

    if (relax_mode) {
        c.fout = fp ? f1 : f0; c.cf = st + S_FAR + fp; c.phase = phase;
        const idx_t* qin = par ? q1 : q0;
        const idx_t* hin = par ? h1 : h0;
        // light vertices: GROUP lanes each, warp-uniform loops (appends need all 32 lanes)
        const int sub = lane / GROUP, gl = lane % GROUP;
        const long long per_warp = 32 / GROUP;
        const long long nwarps = nthreads >> 5;
        for (long long base = (gtid >> 5) * per_warp; base < (long long)nl; base += nwarps * per_warp) {
            const long long i = base + sub;
            long long s = 0, t = 0;
            dist_t du = (dist_t)0;
            if (i < (long long)nl) {
                const idx_t u = qin[i];
                s = (long long)__ldg(indptr + u);
                t = (long long)__ldg(indptr + u + 1);
                du = __ldcg(dist + u);
            }
            long long trips = (t - s + GROUP - 1) / GROUP;
            for (int off = 16; off > 0; off >>= 1)
                trips = max(trips, __shfl_xor_sync(FULL, trips, off));
            for (long long k = 0; k < trips; ++k) {
                const long long e = s + gl + k * GROUP;
                relax(c, e < t, e, du);
            }
        }
        // heavy vertices: one block each (block-uniform loops)
        for (long long h = blockIdx.x; h < (long long)nh; h += gridDim.x) {
            const idx_t u = hin[h];
            const long long s = (long long)__ldg(indptr + u), t = (long long)__ldg(indptr + u + 1);
            const dist_t du = __ldcg(dist + u);
            for (long long e0 = s; e0 < t; e0 += BLOCK)
                relax(c, e0 + threadIdx.x < t, e0 + threadIdx.x, du);
        }
    } else {
        // split the far pile by the next threshold
        nbound = thr + delta;
        if (!(nbound > thr)) nbound = __longlong_as_double(0x7ff0000000000000ll);  // +inf
        const idx_t* fin = fp ? f1 : f0;
        c.fout = fp ? f0 : f1; c.cf = st + S_FAR + (fp ^ 1); c.phase = phase + 1;
        unsigned long long fmin = ~0ull;
        for (long long base = gtid & ~31ll; base < (long long)nf; base += nthreads) {
            const long long i = base + lane;
            bool near = false, keep = false, heavy = false;
            idx_t v = 0;
            if (i < (long long)nf) {
                v = fin[i];
                const dist_t d = __ldcg(dist + v);
                const double dd = (double)d;
                if (dd >= thr) {
                    if (dd < nbound) {
                        if (atomicExch(nstamp + v, c.it1) != c.it1) {
                            near = true;
                            heavy = is_heavy(indptr, v);
                        }
                    } else if (atomicExch(fstamp + v, c.phase) != c.phase) {
                        keep = true;
                        fmin = min(fmin, (unsigned long long)to_bits(d));
                    }
                }
            }
            append(near && !heavy, v, c.qout, c.cq);
#if HAS_HEAVY
            append(near && heavy, v, c.hout, c.ch);
#endif
            append(keep, v, c.fout, c.cf);
        }
        for (int off = 16; off > 0; off >>= 1)
            fmin = min(fmin, __shfl_xor_sync(FULL, fmin, off));
        if (lane == 0 && fmin != ~0ull) atomicMin(st + S_FMIN, fmin);
    }

    // the last block to finish closes the step
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned long long ticket = atomicAdd(st + S_DONE, 1ull);
        if (ticket == (unsigned long long)gridDim.x - 1ull) {
            __threadfence();
            volatile unsigned long long* vs = st;
            const int nxt = par ^ 1;
            const unsigned long long next = vs[S_NEAR + nxt] + vs[S_HEAVYQ + nxt];
            vs[S_NEAR + par] = 0ull;
            vs[S_HEAVYQ + par] = 0ull;
            vs[S_PAR] = (unsigned long long)nxt;
            unsigned long long far_left;
            if (relax_mode) {
                far_left = vs[S_FAR + fp];
                vs[S_NRELAX] = vs[S_NRELAX] + 1ull;
            } else {
                vs[S_FAR + fp] = 0ull;
                vs[S_FP] = (unsigned long long)(fp ^ 1);
                vs[S_PHASE] = (unsigned long long)(phase + 1);
                far_left = vs[S_FAR + (fp ^ 1)];
                double nt = nbound;
                if (next == 0ull && far_left > 0ull) {
                    // nothing fell in [thr, nb): jump to the nearest far distance
                    const double fm = (double)from_bits((bits_t)vs[S_FMIN]);
                    if (fm > nt) nt = fm;
                }
                vs[S_THR] = (unsigned long long)__double_as_longlong(nt);
                vs[S_FMIN] = ~0ull;
                vs[S_NSPLIT] = vs[S_NSPLIT] + 1ull;
            }
            if (next > vs[S_MAXQ]) vs[S_MAXQ] = next;
            vs[S_IT] = (unsigned long long)(it + 1);
            if (next == 0ull && far_left == 0ull) vs[S_HALT] = 1ull;
            vs[S_DONE] = 0ull;
        }
    }
}
