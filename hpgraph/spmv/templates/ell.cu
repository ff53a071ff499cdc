// ELL: one thread per row over the column-major block (entry k of row r at k * nrows + r), so a
// warp reads 32 consecutive words per slot.  Padding (-1) only follows a row's entries: the
// loop stops there.  HP_ELL_UNROLL slots are loaded before any is used (loads in flight).
// FINAL: apply the epilogue (pure ELL); otherwise write the partial value t[r] (+ found[r])
// for HYB's COO pass.
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}(
    const idx_t nrows, const idx_t K,
    const idx_t* __restrict__ ell_idx, const a_t* __restrict__ ell_val,
    r_t* __restrict__ y, y_t* __restrict__ t, unsigned char* __restrict__ found,
    const out_t* __restrict__ out, const void* __restrict__ mask, const void* __restrict__ xact${EXTRA}) {
  constexpr bool FINAL = ${FINAL};
  constexpr int U = 4;
  const size_t n = (size_t)nrows;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t rr = (size_t)blockIdx.x * blockDim.x + threadIdx.x; rr < n; rr += stride) {
    const idx_t row = (idx_t)rr;
    y_t acc = hp_identity();
    bool has = false;
    const bool allowed = hp_row_allowed(mask, row);
    if (allowed) {
      for (idx_t k0 = 0; k0 < K; k0 += U) {
        idx_t jj[U];
        in_t aa[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
          jj[u] = (k0 + u < K) ? hp_ld(ell_idx + (size_t)(k0 + u) * n + rr) : (idx_t)-1;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if constexpr (kPattern) aa[u] = (in_t)1;
          else aa[u] = (jj[u] >= 0) ? (in_t)hp_ld(ell_val + (size_t)(k0 + u) * n + rr) : (in_t)0;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const idx_t j = jj[u];
          if (j >= 0 && hp_src_active(xact, j)) {
            const idx_t i = row;
            const in_t a = aa[u];
            const y_t v = (y_t)(${EDGE_VALUE});
            acc = hp_add(acc, v);
            has = true;
          }
        }
        if (jj[U - 1] < 0) break;
        if (kTerminal && has && hp_terminal(acc)) break;
      }
    }
    if constexpr (FINAL) {
      hp_commit(y, out, row, allowed, acc, has);
    } else {
      t[row] = acc;
      if constexpr (kTrack) found[row] = has;
    }
  }
}
