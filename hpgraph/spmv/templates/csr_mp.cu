// Merge-path CSR (Merrill & Garland 2016), staged through shared memory.  The "merge path" is
// the sequence of nrows row ends and nnz entries in the order a row-by-row walk meets them;
// every block takes an equal share (a tile of kBlock * kItems items) of it, so a block gets the
// same work whether its share is one hub row, thousands of empty rows or anything between.
// Per tile: (1) the row ends of its rows and its entries' edge values (gathered from x with
// kItems independent loads per thread) go to shared memory with coalesced loads; (2) every
// thread finds its own start on the tile's merge path (binary search in shared memory) and walks
// kItems items sequentially, reducing with the monoid, which needs nothing of it but
// associativity; (3) a block-wide segmented scan of the threads' last partial rows gives each
// thread the part of its first row that earlier threads hold; (4) rows are written from shared
// memory, coalesced, with the epilogue (mask / out / accum / replace).  Empty rows are ordinary
// merge items (no separate pass).  A tile's first row, if it began in an earlier tile, is left
// as a head value and its last row, if it goes on, as a carry: ${KNAME}_carry combines them.
// Tile starts come from ${KNAME}_search (run once per matrix and tile size, then cached).
constexpr int kBlock = ${BLOCK_THREADS};
constexpr int kTile = kBlock * kItems;
constexpr int kWarps = kBlock / 32;

// Start row of every tile boundary b (diagonal b * kTile of the merge path): the number of
// row ends that come before it.  Row end p (= indptr[p + 1]) comes before entry q when
// indptr[p + 1] <= q.  The entry start is the diagonal minus the row.
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_search(
    const idx_t nrows, const long long nnz, const idx_t* __restrict__ indptr, const long long ntiles,
    idx_t* __restrict__ tile_row) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b > ntiles) return;
  const long long total = (long long)nrows + nnz;
  const long long d = (b * kTile < total) ? b * kTile : total;
  long long lo = (d - nnz > 0) ? d - nnz : 0;
  long long hi = (d < (long long)nrows) ? d : (long long)nrows;
  while (lo < hi) {
    const long long p = (lo + hi) >> 1;
    if ((long long)indptr[p + 1] <= d - p - 1) lo = p + 1;
    else hi = p;
  }
  tile_row[b] = (idx_t)lo;
}

extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}(
    const idx_t nrows, const long long nnz, const idx_t* __restrict__ indptr,
    const idx_t* __restrict__ cols, const a_t* __restrict__ vals, const idx_t* __restrict__ tile_row,
    r_t* __restrict__ y, const out_t* __restrict__ out,
    const void* __restrict__ mask, const void* __restrict__ xact,
    idx_t* __restrict__ carry_row, y_t* __restrict__ carry_val, unsigned char* __restrict__ carry_has,
    y_t* __restrict__ head_val, unsigned char* __restrict__ head_has${EXTRA}) {
  // Row ends are stored relative to the tile's first entry: they lie in [0, tile entries] for
  // the rows that end in the tile, so int suffices whatever idx_t is.
  __shared__ int s_end[kTile + 1];
  __shared__ y_t s_out[kTile];                                     // row values (local row)
  __shared__ unsigned char s_outh[kHas ? kTile : 1];
  // staged entries: edge values when they do not depend on the row, else (column, value)
  __shared__ y_t s_val[kRowFree ? kTile : 1];
  __shared__ unsigned char s_vh[(kRowFree && kHas) ? kTile : 1];
  __shared__ idx_t s_col[kRowFree ? 1 : kTile];
  __shared__ in_t s_a[(kRowFree || kPattern) ? 1 : kTile];
  __shared__ int s_wkey[kWarps];
  __shared__ y_t s_wval[kWarps];
  __shared__ unsigned char s_wh[kWarps];
  __shared__ y_t s_inc[kBlock];
  __shared__ unsigned char s_inch[kHas ? kBlock : 1];

  const int m_tid = threadIdx.x;
  const int m_lane = m_tid & 31;
  const int m_wid = m_tid >> 5;
  const long long m_tile = blockIdx.x;
  const long long m_r0 = (long long)tile_row[m_tile];
  const long long m_r1 = (long long)tile_row[m_tile + 1];
  const long long m_total = (long long)nrows + nnz;
  const long long m_d0 = m_tile * kTile;
  const long long m_d1 = (m_d0 + kTile < m_total) ? m_d0 + kTile : m_total;
  const long long m_n0 = m_d0 - m_r0;
  const long long m_n1 = m_d1 - m_r1;
  const int m_nr = (int)(m_r1 - m_r0);  // rows that end in this tile: r0 .. r1 - 1
  const int m_ne = (int)(m_n1 - m_n0);  // entries of this tile: n0 .. n1 - 1

  // (1) stage
#pragma unroll
  for (int m_it = 0; m_it < kItems; ++m_it) {
    const int m_k = m_it * kBlock + m_tid;
    if (m_k < m_nr) s_end[m_k] = (int)((long long)hp_ld(indptr + m_r0 + 1 + m_k) - m_n0);
  }
  if (m_tid == 0) s_end[m_nr] = hp_max_of<int>();  // row r1 does not end here: walk its entries
  if constexpr (kRowFree) {
    idx_t m_cj[kItems];
    in_t m_av[kItems];
#pragma unroll
    for (int m_it = 0; m_it < kItems; ++m_it) {
      const int m_k = m_it * kBlock + m_tid;
      if (m_k < m_ne) {
        m_cj[m_it] = hp_lds(cols + m_n0 + m_k);
        if constexpr (kPattern) m_av[m_it] = (in_t)1;
        else m_av[m_it] = (in_t)hp_lds(vals + m_n0 + m_k);
      } else {
        m_cj[m_it] = 0;
        m_av[m_it] = (in_t)0;
      }
    }
    // All kItems gathers of x are formed in registers before any is stored, so that they are
    // in flight together (measured: when the compiler interleaved gather and store, e.g. for
    // plus_times, the kernel ran 1.5-2.2x slower on R-MAT).
    y_t m_vs[kItems];
    bool m_hs[kItems];
#pragma unroll
    for (int m_it = 0; m_it < kItems; ++m_it) {
      const int m_k = m_it * kBlock + m_tid;
      const idx_t i = (idx_t)m_r0;  // unused (kEdgeUsesRow is false)
      const idx_t j = m_cj[m_it];
      y_t m_v = hp_identity();
      bool m_h = false;
      if (m_k < m_ne && hp_src_active(xact, j)) {
        const in_t a = m_av[m_it];
        m_v = (y_t)(${EDGE_VALUE});
        m_h = true;
      }
      (void)i;
      m_vs[m_it] = m_v;
      m_hs[m_it] = m_h;
    }
#pragma unroll
    for (int m_it = 0; m_it < kItems; ++m_it) {
      const int m_k = m_it * kBlock + m_tid;
      if (m_k < m_ne) {
        s_val[m_k] = m_vs[m_it];
        if constexpr (kHas) s_vh[m_k] = m_hs[m_it];
      }
    }
  } else {
#pragma unroll
    for (int m_it = 0; m_it < kItems; ++m_it) {
      const int m_k = m_it * kBlock + m_tid;
      if (m_k < m_ne) {
        s_col[m_k] = hp_lds(cols + m_n0 + m_k);
        if constexpr (!kPattern) s_a[m_k] = (in_t)hp_lds(vals + m_n0 + m_k);
      }
    }
  }
  __syncthreads();

  // (2) this thread's share of the tile's merge path: items [diag, diag_end)
  const int m_tlen = m_nr + m_ne;
  const int m_diag = (m_tid * kItems < m_tlen) ? m_tid * kItems : m_tlen;
  const int m_diag_end = (m_diag + kItems < m_tlen) ? m_diag + kItems : m_tlen;
  int m_lo = (m_diag - m_ne > 0) ? m_diag - m_ne : 0;
  int m_hi = (m_diag < m_nr) ? m_diag : m_nr;
  while (m_lo < m_hi) {
    const int m_p = (m_lo + m_hi) >> 1;
    if (s_end[m_p] <= m_diag - m_p - 1) m_lo = m_p + 1;
    else m_hi = m_p;
  }
  int m_x = m_lo;            // local row
  int m_q = m_diag - m_lo;     // local entry
  const int m_xs = m_x;
  y_t m_acc = hp_identity();
  bool m_has = false;
  y_t m_fv = hp_identity();  // the first row this thread ends (earlier threads may hold part of it)
  bool m_fh = false;
  bool m_emitted = false;
  bool m_row_ok = true;
  if constexpr (!kRowFree) m_row_ok = (m_r0 + m_x < (long long)nrows) && hp_row_allowed(mask, m_r0 + m_x);
#pragma unroll
  for (int m_s = 0; m_s < kItems; ++m_s) {
    if (m_diag + m_s >= m_diag_end) break;
    if (m_q < s_end[m_x]) {  // entry q belongs to row x
      y_t m_v;
      bool m_h;
      if constexpr (kRowFree) {
        m_v = s_val[m_q];
        m_h = kHas ? (s_vh[m_q] != 0) : true;
      } else {
        m_v = hp_identity();
        m_h = false;
        if (m_row_ok) {
          const idx_t i = (idx_t)(m_r0 + m_x);
          const idx_t j = s_col[m_q];
          if (hp_src_active(xact, j)) {
            in_t a;
            if constexpr (kPattern) a = (in_t)1;
            else a = s_a[m_q];
            m_v = (y_t)(${EDGE_VALUE});
            m_h = true;
          }
        }
      }
      m_acc = hp_combine(m_acc, m_has, m_v, m_h);
      m_has = m_has || m_h;
      ++m_q;
    } else {             // row x ends
      if (!m_emitted) {
        m_fv = m_acc;
        m_fh = m_has;
        m_emitted = true;
      } else {
        s_out[m_x] = m_acc;
        if constexpr (kHas) s_outh[m_x] = m_has;
      }
      m_acc = hp_identity();
      m_has = false;
      ++m_x;
      if constexpr (!kRowFree) m_row_ok = (m_r0 + m_x < (long long)nrows) && hp_row_allowed(mask, m_r0 + m_x);
    }
  }

  // (3) segmented inclusive scan of (row x, acc) over the threads (rows are non-decreasing in
  // tid, so equal keys at distance d mean one segment); thread t's first row gets the scan of
  // thread t - 1, whose last row it is.
  int m_key = m_x;
  y_t m_sv = m_acc;
  bool m_sh = m_has;
#pragma unroll
  for (unsigned m_d = 1; m_d < 32; m_d <<= 1) {
    const y_t m_ov = hp_shfl_up(m_sv, m_d);
    const int m_ok = __shfl_up_sync(kFull, m_key, m_d);
    bool m_oh = false;
    if constexpr (kHas) m_oh = hp_shfl_up(m_sh, m_d);
    if (m_lane >= (int)m_d && m_ok == m_key) { m_sv = hp_combine(m_ov, m_oh, m_sv, m_sh); if constexpr (kHas) m_sh = m_sh || m_oh; }
  }
  if (m_lane == 31) {
    s_wkey[m_wid] = m_key;
    s_wval[m_wid] = m_sv;
    s_wh[m_wid] = m_sh;
  }
  __syncthreads();
  for (int m_w = m_wid - 1; m_w >= 0; --m_w) {  // earlier warps whose last row is this thread's
    if (s_wkey[m_w] != m_key) break;
    const bool m_oh = kHas ? (s_wh[m_w] != 0) : false;
    m_sv = hp_combine(s_wval[m_w], m_oh, m_sv, m_sh);
    if constexpr (kHas) m_sh = m_sh || m_oh;
  }
  s_inc[m_tid] = m_sv;
  if constexpr (kHas) s_inch[m_tid] = m_sh;
  __syncthreads();
  if (m_emitted) {
    if (m_tid > 0) {
      const bool m_ph = kHas ? (s_inch[m_tid - 1] != 0) : false;
      m_fv = hp_combine(s_inc[m_tid - 1], m_ph, m_fv, m_fh);
      m_fh = m_fh || m_ph;
    }
    s_out[m_xs] = m_fv;
    if constexpr (kHas) s_outh[m_xs] = m_fh;
  }
  __syncthreads();

  // (4) rows that end in this tile; the first one goes to the carry pass if it began earlier
  const bool m_head_partial = m_nr > 0 && (long long)hp_ld(indptr + m_r0) < m_n0;
#pragma unroll 1
  for (int m_k = m_tid; m_k < m_nr; m_k += kBlock) {
    const long long m_r = m_r0 + m_k;
    const y_t m_v = s_out[m_k];
    const bool m_h = kHas ? (s_outh[m_k] != 0) : false;
    if (m_k == 0 && m_head_partial) {
      head_val[m_tile] = m_v;
      if constexpr (kHas) head_has[m_tile] = m_h;
    } else {
      hp_commit(y, out, m_r, hp_row_allowed(mask, m_r), m_v, m_h);
    }
  }
  if (m_tid == 0) {  // row r1 goes on into the next tile: its part here is the last thread's scan
    const bool m_goes_on = m_r1 < (long long)nrows && (long long)hp_ld(indptr + m_r1) < m_n1;
    carry_row[m_tile] = m_goes_on ? (idx_t)m_r1 : (idx_t)-1;
    if (m_goes_on) {
      carry_val[m_tile] = s_inc[kBlock - 1];
      if constexpr (kHas) carry_has[m_tile] = s_inch[kBlock - 1];
    }
  }
}

extern "C" __global__ void __launch_bounds__(${BLOCK}) ${KNAME}_carry(
    const long long ntiles,
    const idx_t* __restrict__ carry_row, const y_t* __restrict__ carry_val, const unsigned char* __restrict__ carry_has,
    const y_t* __restrict__ head_val, const unsigned char* __restrict__ head_has,
    r_t* __restrict__ y, const out_t* __restrict__ out, const void* __restrict__ mask) {
  hp_carry_body<true>(ntiles, carry_row, carry_val, carry_has, head_val, head_has, y, (y_t*)nullptr,
                      (unsigned char*)nullptr, out, mask);
}
