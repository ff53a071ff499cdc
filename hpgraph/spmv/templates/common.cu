// ---- hpgraph generated module ${MODULE} (family ${FAMILY}) ----
// Helpers shared by every kernel family.  Generated from hpgraph/spmv/templates/common.cu;
// the holes (dollar-brace names) are filled by hpgraph/spmv/codegen.py from a frozen KernelSpec.
${PREAMBLE}
namespace ${NS} {

typedef ${IDX_T} idx_t;   // index type of the matrix
typedef ${A_T} a_t;       // stored edge value type (unused for a pattern matrix)
typedef ${IN_T} in_t;     // operand type of the edge expression ("a")
typedef ${Y_T} y_t;       // monoid type
typedef ${R_T} r_t;       // result type (out's dtype when out is given, else y_t)
typedef ${OUT_T} out_t;   // out's dtype (r_t when there is no out)
typedef ${ACC_T} acc_t;   // accum's operand type

constexpr bool kPattern = ${PATTERN};
constexpr int kMask = ${MASK};            // 0: no mask, 1: bitmask words, 2: bool array
constexpr bool kComplement = ${COMPLEMENT};
constexpr int kXActive = ${XACTIVE};      // 0: every source active, 1: bitmask words, 2: bool array
constexpr bool kHasOut = ${HAS_OUT};
constexpr bool kAccum = ${ACCUM};
constexpr bool kReplace = ${REPLACE};
constexpr bool kTrack = kHasOut;          // write found[] / apply "no value" (only out needs it)
constexpr bool kAny = ${ANY};               // the "any" monoid: the identity is not neutral
constexpr bool kHas = kTrack || kAny;       // carry "has a value" flags through the reductions
constexpr bool kTerminal = ${TERMINAL};
constexpr bool kEdgeUsesRow = ${EDGE_USES_ROW};  // the edge expression reads i (the row)
// edge values can be formed before rows are known (no row mask, i unused)
constexpr bool kRowFree = !kEdgeUsesRow && kMask == 0 && !kComplement;
constexpr int kItems = ${ITEMS};          // entries per lane per warp chunk (segmented kernels)
constexpr int kStream = ${STREAM};        // how csr_lb / csr_mp load cols and values (KernelSpec.stream)
constexpr long long kChunk = 32LL * kItems;
constexpr unsigned kFull = 0xffffffffu;

template <typename T> __device__ __forceinline__ T hp_ld(const T* p) { return __ldg(p); }
template <> __device__ __forceinline__ bool hp_ld<bool>(const bool* p) { return *p; }

// Loads of column indices and values, which are read exactly once: with kStream != 0 they are
// kept out of L1 (and marked evict-first in L2) so that the caches hold x, which is gathered.
template <typename T> __device__ __forceinline__ T hp_lds(const T* p) {
  if constexpr (kStream == 0 || !(sizeof(T) == 4 || sizeof(T) == 8)) {
    return hp_ld(p);
  } else if constexpr (kStream == 1) {
    T v;
    if constexpr (sizeof(T) == 4) { const unsigned u = __ldcs((const unsigned*)p); memcpy(&v, &u, 4); }
    else { const unsigned long long u = __ldcs((const unsigned long long*)p); memcpy(&v, &u, 8); }
    return v;
  } else if constexpr (kStream == 2) {
    unsigned long long pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    T v;
    if constexpr (sizeof(T) == 4) {
      unsigned u;
      asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(u) : "l"(p), "l"(pol));
      memcpy(&v, &u, 4);
    } else {
      unsigned long long u;
      asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b64 %0, [%1], %2;" : "=l"(u) : "l"(p), "l"(pol));
      memcpy(&v, &u, 8);
    }
    return v;
  } else {
    T v;
    if constexpr (sizeof(T) == 4) {
      unsigned u;
      asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(u) : "l"(p));
      memcpy(&v, &u, 4);
    } else {
      unsigned long long u;
      asm("ld.global.nc.L1::no_allocate.b64 %0, [%1];" : "=l"(u) : "l"(p));
      memcpy(&v, &u, 8);
    }
    return v;
  }
}

template <typename T> __device__ __forceinline__ T hp_shfl(T v, int src, int width = 32) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_sync(kFull, (int)v, src, width);
  else return __shfl_sync(kFull, v, src, width);
}
template <typename T> __device__ __forceinline__ T hp_shfl_up(T v, unsigned d) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_up_sync(kFull, (int)v, d);
  else return __shfl_up_sync(kFull, v, d);
}
template <typename T> __device__ __forceinline__ T hp_shfl_down(T v, unsigned d) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_down_sync(kFull, (int)v, d);
  else return __shfl_down_sync(kFull, v, d);
}
template <typename T> __device__ __forceinline__ T hp_shfl_xor(T v, int m, int width = 32) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_xor_sync(kFull, (int)v, m, width);
  else return __shfl_xor_sync(kFull, v, m, width);
}
template <typename T> __device__ __forceinline__ T hp_max_of();
template <> __device__ __forceinline__ int hp_max_of<int>() { return 0x7fffffff; }
template <> __device__ __forceinline__ long long hp_max_of<long long>() { return 0x7fffffffffffffffLL; }

__device__ __forceinline__ y_t hp_identity() { return (y_t)(${IDENTITY}); }
__device__ __forceinline__ y_t hp_add(y_t a, y_t b) { return (y_t)(${ADD}); }
__device__ __forceinline__ bool hp_terminal(y_t a) { return ${IS_TERMINAL}; }
// Combine two partial results that may be empty (ha/hb: they hold a value).  For every monoid
// but "any" the identity is neutral and this is hp_add; "any" (add = second operand) must not
// let an empty partial's identity replace a value.
__device__ __forceinline__ y_t hp_combine(y_t a, bool ha, y_t b, bool hb) {
  if constexpr (kAny) return hb ? b : a;
  else return hp_add(a, b);
}
__device__ __forceinline__ r_t hp_accum(acc_t o, acc_t t) { return (r_t)(${ACCUM_EXPR}); }

// Row r is computed (structural mask over the output, complement applied).
__device__ __forceinline__ bool hp_row_allowed(const void* __restrict__ mask, long long r) {
  if constexpr (kMask == 0) {
    return !kComplement;
  } else if constexpr (kMask == 1) {
    const unsigned w = __ldg((const unsigned*)mask + (r >> 5));
    return (((w >> (r & 31)) & 1u) != 0u) != kComplement;
  } else {
    return (__ldg((const unsigned char*)mask + r) != 0) != kComplement;
  }
}

// Source j is active (the paper's x_bitmask).
__device__ __forceinline__ bool hp_src_active(const void* __restrict__ xact, long long j) {
  if constexpr (kXActive == 0) {
    return true;
  } else if constexpr (kXActive == 1) {
    const unsigned w = __ldg((const unsigned*)xact + (j >> 5));
    return ((w >> (j & 31)) & 1u) != 0u;
  } else {
    return __ldg((const unsigned char*)xact + j) != 0;
  }
}

// Final value of row r: mask / out / accum / replace / "no value" semantics of INTERNALS.md.
__device__ __forceinline__ void hp_commit(r_t* __restrict__ y, const out_t* __restrict__ out,
                                          long long r, bool allowed, y_t v, bool has) {
  r_t res;
  if constexpr (kHasOut) {
    if (!allowed) {
      res = kReplace ? (r_t)hp_identity() : (r_t)out[r];
    } else if (!has) {
      res = (r_t)out[r];
    } else {
      if constexpr (kAccum) res = hp_accum((acc_t)out[r], (acc_t)v);
      else res = (r_t)v;
    }
  } else {
    res = allowed ? (r_t)v : (r_t)hp_identity();
  }
  y[r] = res;
}

// Segment of row r reduced by one warp.  FINAL: the value is the row's whole product and the
// epilogue is applied; otherwise it is combined into the partial row values t (HYB's COO part
// after the ELL part).  A warp whose first row began in an earlier chunk (head) leaves that
// row's value to the carry pass.
template <bool FINAL>
__device__ __forceinline__ void hp_seg_commit(long long r, y_t v, bool h, bool is_head, long long warp,
                                              r_t* __restrict__ y, y_t* __restrict__ t,
                                              unsigned char* __restrict__ found,
                                              const out_t* __restrict__ out, const void* __restrict__ mask,
                                              y_t* __restrict__ head_val, unsigned char* __restrict__ head_has) {
  if (is_head) {
    head_val[warp] = v;
    if constexpr (kHas) head_has[warp] = h;
  } else if constexpr (FINAL) {
    hp_commit(y, out, r, hp_row_allowed(mask, r), v, h);
  } else {
    if constexpr (kAny) { if (h) t[r] = v; }
    else t[r] = hp_add(t[r], v);
    if constexpr (kTrack) { if (h) found[r] = 1; }
  }
}

// One round of 32 consecutive entries of a warp-segmented reduction (rows non-decreasing across
// lanes; row -1 marks lanes past the end).  (cr, cv, ch) carries the segment of the previous
// round's last lane in and this round's out; segments that end inside the round are committed.
template <bool FINAL>
__device__ __forceinline__ void hp_seg_round(const int lane, const long long warp, idx_t r, y_t v, bool h,
                                             const idx_t r0, const bool head_partial,
                                             r_t* __restrict__ y, y_t* __restrict__ t,
                                             unsigned char* __restrict__ found, const out_t* __restrict__ out,
                                             const void* __restrict__ mask,
                                             y_t* __restrict__ head_val, unsigned char* __restrict__ head_has,
                                             idx_t& cr, y_t& cv, bool& ch) {
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const y_t ov = hp_shfl_up(v, d);
    const idx_t orr = hp_shfl_up(r, d);
    bool oh = false;
    if constexpr (kHas) oh = hp_shfl_up(h, d);
    if (lane >= (int)d && orr == r) { v = hp_combine(ov, oh, v, h); if constexpr (kHas) h = h || oh; }
  }
  const idx_t rfirst = hp_shfl(r, 0);
  if (cr >= 0) {
    if (rfirst != cr) {  // the carried segment ended with the previous round
      if (lane == 0) hp_seg_commit<FINAL>(cr, cv, ch, head_partial && cr == r0, warp, y, t, found, out, mask, head_val, head_has);
    } else if (r == cr) {
      v = hp_combine(cv, ch, v, h);
      h = h || ch;
    }
  }
  const idx_t nr = hp_shfl_down(r, 1);
  if (lane < 31 && r >= 0 && nr != r)
    hp_seg_commit<FINAL>(r, v, h, head_partial && r == r0, warp, y, t, found, out, mask, head_val, head_has);
  cr = hp_shfl(r, 31);
  cv = hp_shfl(v, 31);
  if constexpr (kHas) ch = hp_shfl(h, 31); else ch = false;
}

// Warp-segmented reduction of kItems rounds of 32 consecutive entries.  The chunk's last
// segment is returned in (cr, cv, ch) for the caller, who knows whether it ends with the chunk.
template <bool FINAL>
__device__ __forceinline__ void hp_seg_reduce(const int lane, const long long warp,
                                              const idx_t (&rows)[kItems], const y_t (&vals)[kItems],
                                              const bool (&hass)[kItems], const idx_t r0, const bool head_partial,
                                              r_t* __restrict__ y, y_t* __restrict__ t,
                                              unsigned char* __restrict__ found, const out_t* __restrict__ out,
                                              const void* __restrict__ mask,
                                              y_t* __restrict__ head_val, unsigned char* __restrict__ head_has,
                                              idx_t& cr, y_t& cv, bool& ch) {
  cr = -1; cv = hp_identity(); ch = false;
#pragma unroll
  for (int it = 0; it < kItems; ++it)
    hp_seg_round<FINAL>(lane, warp, rows[it], vals[it], hass[it], r0, head_partial, y, t, found, out, mask,
                        head_val, head_has, cr, cv, ch);
}

// The chunk's last segment: committed if the row ends with the chunk, else left as a carry.
template <bool FINAL>
__device__ __forceinline__ void hp_seg_finish(const int lane, const long long warp, const bool complete,
                                              const idx_t cr, const y_t cv, const bool ch,
                                              const idx_t r0, const bool head_partial,
                                              r_t* __restrict__ y, y_t* __restrict__ t,
                                              unsigned char* __restrict__ found, const out_t* __restrict__ out,
                                              const void* __restrict__ mask,
                                              y_t* __restrict__ head_val, unsigned char* __restrict__ head_has,
                                              idx_t* __restrict__ carry_row, y_t* __restrict__ carry_val,
                                              unsigned char* __restrict__ carry_has) {
  if (lane != 0) return;
  if (cr >= 0 && !complete) {
    carry_row[warp] = cr;
    carry_val[warp] = cv;
    if constexpr (kHas) carry_has[warp] = ch;
    return;
  }
  carry_row[warp] = -1;
  if (cr >= 0) hp_seg_commit<FINAL>(cr, cv, ch, head_partial && cr == r0, warp, y, t, found, out, mask, head_val, head_has);
}

// Row (segment) of entry e given non-decreasing segment ends ptr[1..nseg]: a window of 32 ends
// is held one per lane and searched with shuffles; rcur is a row known to start at or before
// every entry of this round (the row of the previous round's last entry).
template <typename P>
__device__ __forceinline__ long long hp_locate(const P* __restrict__ ptr, const long long nseg,
                                               const P e, bool need, const int lane,
                                               long long& rcur, long long& wbase, P& wend) {
  long long r = -1;
  long long rb = (wbase >= 0 && rcur >= wbase && rcur < wbase + 32) ? wbase : rcur;
  while (__any_sync(kFull, need)) {
    if (rb != wbase) {
      const long long q = rb + 1 + lane;
      wend = (q <= nseg) ? hp_ld(ptr + q) : hp_max_of<P>();
      wbase = rb;
    }
    int pos = 0;
#pragma unroll
    for (int s = 16; s > 0; s >>= 1) {
      const P tv = hp_shfl(wend, pos + s - 1);
      if (tv <= e) pos += s;
    }
    const P t31 = hp_shfl(wend, 31);
    if (pos == 31 && t31 <= e) pos = 32;
    if (need && pos < 32) { r = rb + pos; need = false; }
    rb += 32;
  }
  const long long r31 = hp_shfl(r, 31);
  if (r31 >= 0) rcur = r31;
  return r;
}

// Carry pass of the segmented kernels: each run of warps whose last row continues into the
// next chunk is combined, with the head value of the warp where that row ends.
template <bool FINAL>
__device__ __forceinline__ void hp_carry_body(const long long nwarps,
                                              const idx_t* __restrict__ carry_row, const y_t* __restrict__ carry_val,
                                              const unsigned char* __restrict__ carry_has,
                                              const y_t* __restrict__ head_val, const unsigned char* __restrict__ head_has,
                                              r_t* __restrict__ y, y_t* __restrict__ t, unsigned char* __restrict__ found,
                                              const out_t* __restrict__ out, const void* __restrict__ mask) {
  const long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= nwarps) return;
  const idx_t r = carry_row[w];
  if (r < 0) return;
  if (w > 0 && carry_row[w - 1] == r) return;
  y_t acc = carry_val[w];
  bool h = false;
  if constexpr (kHas) h = carry_has[w] != 0;
  long long k = w + 1;
  while (k < nwarps && carry_row[k] == r) {
    const bool hk = kHas ? (carry_has[k] != 0) : false;
    acc = hp_combine(acc, h, carry_val[k], hk);
    h = h || hk;
    ++k;
  }
  if (k < nwarps) {  // always true for a well-formed matrix: the row ends in warp k
    const bool hk = kHas ? (head_has[k] != 0) : false;
    acc = hp_combine(acc, h, head_val[k], hk);
    h = h || hk;
  }
  if constexpr (FINAL) {
    hp_commit(y, out, r, hp_row_allowed(mask, r), acc, h);
  } else {
    if constexpr (kAny) { if (h) t[r] = acc; }
    else t[r] = hp_add(t[r], acc);
    if constexpr (kTrack) { if (h) found[r] = 1; }
  }
}

${ATOMIC}
