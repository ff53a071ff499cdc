// ---- hpgraph generated module ${KNAME} (column relabeling: x2 = x[perm]) ----
// Generated from hpgraph/spmv/templates/gather.cu by hpgraph/spmv/codegen.py (gather_source).
// The relabeled SpMV (format "<csr kernel>+relabel", hpgraph/spmv/gpu.py) runs the unchanged
// CSR kernel on columns renumbered by descending column count; this kernel builds the operand
// vector in the new numbering once per product.  Values are moved as raw words of their width
// (w_t), so one kernel per (width, index type) serves every dtype, bool included.
typedef ${W_T} w_t;      // unsigned word of the value's width
typedef ${IDX_T} idx_t;  // index type of perm (the matrix's)

extern "C" __global__ void __launch_bounds__(256) ${KNAME}(
    const long long n, const idx_t* __restrict__ perm, const w_t* __restrict__ x,
    w_t* __restrict__ x2) {
  // grid-stride: the grid is capped at a few waves (gpu.py); perm and x2 are streamed in order,
  // x is gathered (its hot entries -- the hub columns -- are the first ones of perm)
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
    x2[k] = __ldg(x + __ldcs(perm + k));
  }
}
