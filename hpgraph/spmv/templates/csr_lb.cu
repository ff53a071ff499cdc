// Load-balanced CSR ("merge-based"): every warp takes 32 * kItems consecutive entries, finds
// each entry's row by searching a window of 32 row ends held one per lane (shuffles), and
// reduces row segments with the same warp-segmented scan as HYB's COO part; rows crossing a
// chunk boundary go through the carry pass.  No row array is read (8 bytes per entry, not 12),
// and long rows are split evenly; rounds inside one long row skip the search and the scan.
// Empty rows are written by ${KNAME}_empty first.
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
      cj[it] = hp_lds(cols + e);
      if constexpr (kPattern) av[it] = (in_t)1;
      else av[it] = (in_t)hp_lds(vals + e);
    } else {
      cj[it] = 0;
      av[it] = (in_t)0;
    }
  }
  const idx_t r0 = hp_ld(chunk_row + warp);
  const bool head_partial = (long long)hp_ld(indptr + r0) < c0;
  long long rcur = r0, wbase = -1;
  idx_t wend = 0;
  idx_t cr = -1;
  y_t cv = hp_identity();
  bool ch = false;
  if constexpr (kRowFree) {
    // Edge values do not depend on the row: gather all of them first (kItems loads in flight),
    // then walk the rounds.  A round that lies inside the current row (long rows) is added to
    // per-lane partials with no shuffles and no row search; other rounds locate rows and run
    // the segmented scan.
    y_t vs[kItems];
    bool hs[kItems];
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
      const long long e = c0 + it * 32 + lane;
      y_t v = hp_identity();
      bool h = false;
      const idx_t i = r0;  // unused (kEdgeUsesRow is false)
      const idx_t j = cj[it];
      if (e < c1 && hp_src_active(xact, j)) {
        const in_t a = av[it];
        v = (y_t)(${EDGE_VALUE});
        h = true;
      }
      (void)i;
      vs[it] = v;
      hs[it] = h;
    }
    long long cur_end = (long long)hp_ld(indptr + r0 + 1);  // end of row rcur
    y_t lacc = hp_identity();
    bool lhas = false;
    bool pending = false;
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
      const long long first = c0 + it * 32;
      if (first >= c1) break;
      const long long last = (first + 31 < c1) ? first + 31 : c1 - 1;
      if (last < cur_end) {  // the whole round is inside row rcur
        lacc = hp_combine(lacc, lhas, vs[it], hs[it]);
        lhas = lhas || hs[it];
        pending = true;
        continue;
      }
      if (pending) {  // fold the per-lane partials of row rcur into the carry
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
          const y_t o = hp_shfl_xor(lacc, off);
          const bool oh = kHas ? hp_shfl_xor(lhas, off) : false;
          lacc = hp_combine(lacc, lhas, o, oh);
          lhas = lhas || oh;
        }
        const bool anyh = lhas;
        if (cr >= 0 && cr != (idx_t)rcur) {  // (cannot happen: the carry is always row rcur)
          if (lane == 0) hp_seg_commit<true>(cr, cv, ch, head_partial && cr == r0, warp, y, (y_t*)nullptr,
                                             (unsigned char*)nullptr, out, mask, head_val, head_has);
          cr = -1;
        }
        if (cr < 0) { cr = (idx_t)rcur; cv = lacc; ch = anyh; }
        else { cv = hp_combine(cv, ch, lacc, anyh); ch = ch || anyh; }
        lacc = hp_identity();
        lhas = false;
        pending = false;
      }
      const long long e = first + lane;
      const idx_t r = (idx_t)hp_locate<idx_t>(indptr, (long long)nrows, (idx_t)e, e < c1, lane, rcur, wbase, wend);
      hp_seg_round<true>(lane, warp, r, vs[it], hs[it], r0, head_partial, y, (y_t*)nullptr,
                         (unsigned char*)nullptr, out, mask, head_val, head_has, cr, cv, ch);
      cur_end = (long long)hp_ld(indptr + rcur + 1);
    }
    if (pending) {
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) {
        const y_t o = hp_shfl_xor(lacc, off);
        const bool oh = kHas ? hp_shfl_xor(lhas, off) : false;
        lacc = hp_combine(lacc, lhas, o, oh);
        lhas = lhas || oh;
      }
      const bool anyh = lhas;
      if (cr >= 0 && cr != (idx_t)rcur) {
        if (lane == 0) hp_seg_commit<true>(cr, cv, ch, head_partial && cr == r0, warp, y, (y_t*)nullptr,
                                           (unsigned char*)nullptr, out, mask, head_val, head_has);
        cr = -1;
      }
      if (cr < 0) { cr = (idx_t)rcur; cv = lacc; ch = anyh; }
      else { cv = hp_combine(cv, ch, lacc, anyh); ch = ch || anyh; }
    }
  } else {
    // Rows first (the edge value or the mask needs them), then the values, then the scan.
    idx_t rows[kItems];
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
    hp_seg_reduce<true>(lane, warp, rows, vs, hs, r0, head_partial, y, (y_t*)nullptr, (unsigned char*)nullptr,
                        out, mask, head_val, head_has, cr, cv, ch);
  }
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
