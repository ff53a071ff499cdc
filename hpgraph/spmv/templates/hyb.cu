// HYB's COO part: atomic-free warp-segmented reduction over the row-sorted COO (CUSP's scheme).
// Each warp reduces a chunk of 32 * kItems consecutive entries with shuffles, adds the rows
// that end inside its chunk to t (the ELL result), and leaves its last row (if it continues)
// to the carry pass, and its first row (if it began earlier) as a head value.
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_coo(
    const long long n,
    const idx_t* __restrict__ coo_row, const idx_t* __restrict__ coo_col, const a_t* __restrict__ coo_val,
    y_t* __restrict__ t, unsigned char* __restrict__ found,
    const void* __restrict__ mask, const void* __restrict__ xact,
    idx_t* __restrict__ carry_row, y_t* __restrict__ carry_val, unsigned char* __restrict__ carry_has,
    y_t* __restrict__ head_val, unsigned char* __restrict__ head_has${EXTRA}) {
  const int lane = threadIdx.x & 31;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long c0 = warp * kChunk;
  if (c0 >= n) return;
  const long long c1 = (c0 + kChunk < n) ? c0 + kChunk : n;
  idx_t rows[kItems];
  idx_t cols[kItems];
  in_t as[kItems];
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const long long e = c0 + it * 32 + lane;
    if (e < c1) {
      rows[it] = hp_ld(coo_row + e);
      cols[it] = hp_ld(coo_col + e);
      if constexpr (kPattern) as[it] = (in_t)1;
      else as[it] = (in_t)hp_ld(coo_val + e);
    } else {
      rows[it] = (idx_t)-1;
      cols[it] = 0;
      as[it] = (in_t)0;
    }
  }
  y_t vs[kItems];
  bool hs[kItems];
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    y_t v = hp_identity();
    bool h = false;
    const idx_t i = rows[it];
    const idx_t j = cols[it];
    if (i >= 0 && hp_row_allowed(mask, i) && hp_src_active(xact, j)) {
      const in_t a = as[it];
      v = (y_t)(${EDGE_VALUE});
      h = true;
    }
    vs[it] = v;
    hs[it] = h;
  }
  const idx_t r0 = hp_shfl(rows[0], 0);
  const bool head_partial = c0 > 0 && hp_ld(coo_row + c0 - 1) == r0;
  idx_t cr;
  y_t cv;
  bool ch;
  hp_seg_reduce<false>(lane, warp, rows, vs, hs, r0, head_partial, (r_t*)nullptr, t, found,
                       (const out_t*)nullptr, mask, head_val, head_has, cr, cv, ch);
  const bool complete = (c1 >= n) || (cr >= 0 && hp_ld(coo_row + c1) != cr);
  hp_seg_finish<false>(lane, warp, complete, cr, cv, ch, r0, head_partial, (r_t*)nullptr, t, found,
                       (const out_t*)nullptr, mask, head_val, head_has, carry_row, carry_val, carry_has);
}

extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_carry(
    const long long nwarps,
    const idx_t* __restrict__ carry_row, const y_t* __restrict__ carry_val, const unsigned char* __restrict__ carry_has,
    const y_t* __restrict__ head_val, const unsigned char* __restrict__ head_has,
    y_t* __restrict__ t, unsigned char* __restrict__ found) {
  hp_carry_body<false>(nwarps, carry_row, carry_val, carry_has, head_val, head_has, (r_t*)nullptr, t, found,
                       (const out_t*)nullptr, (const void*)nullptr);
}

// General epilogue (out / accum / replace): y[r] from the partial value t[r] and found[r].
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_epilogue(
    const idx_t nrows, const y_t* __restrict__ t, const unsigned char* __restrict__ found,
    r_t* __restrict__ y, const out_t* __restrict__ out, const void* __restrict__ mask) {
  const size_t n = (size_t)nrows;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride)
    hp_commit(y, out, (long long)r, hp_row_allowed(mask, (long long)r), t[r], kTrack ? found[r] != 0 : true);
}
