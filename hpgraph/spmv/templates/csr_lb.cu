// Load-balanced CSR ("merge-based"): every warp takes 32 * kItems consecutive entries, finds
// each entry's row by searching a window of 32 row ends held one per lane (shuffles), and
// reduces row segments with the same warp-segmented scan as HYB's COO part; rows crossing a
// chunk boundary go through the carry pass.  No row array is read (8 bytes per entry, not 12),
// and long rows are split evenly.  Empty rows are written by ${KNAME}_empty first.
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_empty(
    const idx_t nrows, const idx_t* __restrict__ indptr, r_t* __restrict__ y,
    const out_t* __restrict__ out, const void* __restrict__ mask) {
  const size_t n = (size_t)nrows;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride) {
    if (hp_ld(indptr + r) == hp_ld(indptr + r + 1))
      hp_commit(y, out, (long long)r, hp_row_allowed(mask, (long long)r), hp_identity(), false);
  }
}

extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}(
    const idx_t nrows, const long long nnz, const idx_t* __restrict__ indptr,
    const idx_t* __restrict__ cols, const a_t* __restrict__ vals, const idx_t* __restrict__ chunk_row,
    r_t* __restrict__ y, const out_t* __restrict__ out,
    const void* __restrict__ mask, const void* __restrict__ xact,
    idx_t* __restrict__ carry_row, y_t* __restrict__ carry_val, unsigned char* __restrict__ carry_has,
    y_t* __restrict__ head_val, unsigned char* __restrict__ head_has${EXTRA}) {
  const int lane = threadIdx.x & 31;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long c0 = warp * kChunk;
  if (c0 >= nnz) return;
  const long long c1 = (c0 + kChunk < nnz) ? c0 + kChunk : nnz;
  idx_t cj[kItems];
  in_t av[kItems];
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const long long e = c0 + it * 32 + lane;
    if (e < c1) {
      cj[it] = hp_ld(cols + e);
      if constexpr (kPattern) av[it] = (in_t)1;
      else av[it] = (in_t)hp_ld(vals + e);
    } else {
      cj[it] = 0;
      av[it] = (in_t)0;
    }
  }
  const idx_t r0 = hp_ld(chunk_row + warp);
  const bool head_partial = (long long)hp_ld(indptr + r0) < c0;
  idx_t rows[kItems];
  long long rcur = r0, wbase = -1;
  idx_t wend = 0;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const long long e = c0 + it * 32 + lane;
    rows[it] = (idx_t)hp_locate<idx_t>(indptr, (long long)nrows, (idx_t)e, e < c1, lane, rcur, wbase, wend);
  }
  y_t vs[kItems];
  bool hs[kItems];
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    y_t v = hp_identity();
    bool h = false;
    const idx_t i = rows[it];
    const idx_t j = cj[it];
    if (i >= 0 && hp_row_allowed(mask, i) && hp_src_active(xact, j)) {
      const in_t a = av[it];
      v = (y_t)(${EDGE_VALUE});
      h = true;
    }
    vs[it] = v;
    hs[it] = h;
  }
  idx_t cr;
  y_t cv;
  bool ch;
  hp_seg_reduce<true>(lane, warp, rows, vs, hs, r0, head_partial, y, (y_t*)nullptr, (unsigned char*)nullptr,
                      out, mask, head_val, head_has, cr, cv, ch);
  const bool complete = (cr >= 0) && ((long long)hp_ld(indptr + cr + 1) <= c1);
  hp_seg_finish<true>(lane, warp, complete, cr, cv, ch, r0, head_partial, y, (y_t*)nullptr,
                      (unsigned char*)nullptr, out, mask, head_val, head_has, carry_row, carry_val, carry_has);
}

extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_carry(
    const long long nwarps,
    const idx_t* __restrict__ carry_row, const y_t* __restrict__ carry_val, const unsigned char* __restrict__ carry_has,
    const y_t* __restrict__ head_val, const unsigned char* __restrict__ head_has,
    r_t* __restrict__ y, const out_t* __restrict__ out, const void* __restrict__ mask) {
  hp_carry_body<true>(nwarps, carry_row, carry_val, carry_has, head_val, head_has, y, (y_t*)nullptr,
                      (unsigned char*)nullptr, out, mask);
}
