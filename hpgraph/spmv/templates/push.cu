// Push (sparse frontier): y[dst] (+)= EDGE(i = dst, j = src, a = A[src, dst]) for every out-edge
// of every frontier vertex, combined with the monoid's atomic.  Edge-balanced: the frontier's
// degrees are prefix-summed into fptr (nf + 1 entries, fptr[nf] = total edges); warps take
// chunks of 32 * kItems edges (grid-stride, the total is read on the device: no host sync) and
// find each edge's frontier slot with the same window search as the load-balanced CSR kernel.
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}(
    const long long nf, const idx_t* __restrict__ frontier, const long long* __restrict__ fptr,
    const idx_t* __restrict__ indptr, const idx_t* __restrict__ cols, const a_t* __restrict__ vals,
    y_t* __restrict__ y, unsigned* __restrict__ touched, const int use_touched,
    const void* __restrict__ mask${EXTRA}) {
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  if (nf <= 0) return;
  const long long total = fptr[nf];
  const long long nchunks = (total + kChunk - 1) / kChunk;
  for (long long ch = gwarp; ch < nchunks; ch += nwarps) {
    const long long c0 = ch * kChunk;
    const long long c1 = (c0 + kChunk < total) ? c0 + kChunk : total;
    long long lo = 0, hi = nf;  // fptr[lo] <= c0 < fptr[hi]
    while (hi - lo > 1) {
      const long long mid = (lo + hi) >> 1;
      if (fptr[mid] <= c0) lo = mid; else hi = mid;
    }
    long long kcur = lo, wbase = -1, wend = 0;
    for (int it = 0; it < kItems; ++it) {
      const long long e = c0 + it * 32 + lane;
      if (!__any_sync(kFull, e < c1)) break;
      const long long k = hp_locate<long long>(fptr, nf, e, e < c1, lane, kcur, wbase, wend);
      if (k < 0) continue;
      const idx_t src = hp_ld(frontier + k);
      const long long pos = (long long)hp_ld(indptr + src) + (e - fptr[k]);
      const idx_t dst = hp_ld(cols + pos);
      if (!hp_row_allowed(mask, dst)) continue;
      const idx_t i = dst;
      const idx_t j = src;
      in_t a;
      if constexpr (kPattern) a = (in_t)1;
      else a = (in_t)hp_ld(vals + pos);
      const y_t v = (y_t)(${EDGE_VALUE});
      if (!(kTerminal && hp_terminal(*(volatile y_t*)(y + dst)))) hp_atomic_combine(y + dst, v);
      if (use_touched) {
        const unsigned bit = 1u << (dst & 31);
        if (!(*(volatile unsigned*)(touched + (dst >> 5)) & bit)) atomicOr(touched + (dst >> 5), bit);
      }
    }
  }
}
