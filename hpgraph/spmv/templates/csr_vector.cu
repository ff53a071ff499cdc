// CSR "vector": G consecutive lanes per row (G = 1 is the scalar one-thread-per-row kernel),
// lanes stride over the row's entries and combine with a shuffle reduction.  The loop over
// rows is warp-uniform so every lane reaches the shuffles.
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}(
    const idx_t nrows, const idx_t* __restrict__ indptr, const idx_t* __restrict__ cols,
    const a_t* __restrict__ vals, r_t* __restrict__ y, const out_t* __restrict__ out,
    const void* __restrict__ mask, const void* __restrict__ xact${EXTRA}) {
  constexpr int G = ${GROUP};
  constexpr int RPW = 32 / G;  // rows per warp per step
  const int lane = threadIdx.x & 31;
  const int sub = lane % G;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long base = gwarp * RPW; base < (long long)nrows; base += nwarps * RPW) {
    const long long rr = base + lane / G;
    const bool valid = rr < (long long)nrows;
    const idx_t row = (idx_t)rr;
    y_t acc = hp_identity();
    bool has = false;
    bool allowed = false;
    if (valid) {
      allowed = hp_row_allowed(mask, row);
      if (allowed) {
        const idx_t s = hp_ld(indptr + row);
        const idx_t e = hp_ld(indptr + row + 1);
        for (idx_t p = s + sub; p < e; p += G) {
          const idx_t j = hp_ld(cols + p);
          if (!hp_src_active(xact, j)) continue;
          const idx_t i = row;
          in_t a;
          if constexpr (kPattern) a = (in_t)1;
          else a = (in_t)hp_ld(vals + p);
          acc = hp_add(acc, (y_t)(${EDGE_VALUE}));
          has = true;
          if (kTerminal && hp_terminal(acc)) break;
        }
      }
    }
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
      const y_t o = hp_shfl_xor(acc, off, G);
      const bool oh = kHas ? hp_shfl_xor(has, off, G) : false;
      acc = hp_combine(acc, has, o, oh);
      has = has || oh;
    }
    if (valid && sub == 0) hp_commit(y, out, row, allowed, acc, has);
  }
}
