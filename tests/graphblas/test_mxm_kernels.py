"""The generated SpGEMM kernels of mxm (masked dot products, unmasked bitmap SpGEMM).

* their pure-Python parts (template slots, dispatch rules);
* every kernel variant compiles with NVRTC (no GPU needed);
* the kernels run on the host through a g++ emulation of CUDA (``_cuda_emu``), against
  python-graphblas, on the awkward inputs of the other graphblas tests (empty rows, explicit
  zeros, value / structural masks, index semirings), with the heavy-entry and column-tile
  paths forced on small inputs;
* on the device (``gpu`` marker): the same paths through ``mxm`` against python-graphblas
  and SciPy, including cuSPARSE's fallback and triangle counting.
"""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import graphblas as hgb
from hpgraph.exceptions import InvalidValue
from hpgraph.graphblas import _mdot_gpu, _mxm_gpu, _spgemm_gpu
from hpgraph.graphblas._args import as_mask, semiring_op
from hpgraph.graphblas._gpu_common import reads_operand, semiring_slots
from tests.graphblas import _cuda_emu
from tests.graphblas._helpers import (compare, gb_mask, gb_run, hp_mask, rand_matrix, _seed,
                                      semirings)

#: (semiring, dtype) pairs the kernel tests run: floats, integers, bool, index and user ops
CASES = (("plus_times", "float64"), ("min_plus", "int32"), ("max_min", "float32"),
         ("plus_pair", "int64"), ("any_pair", "int64"), ("lor_land", "bool"), ("user", "int64"))


def _nvrtc_or_skip():
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="NVRTC (the nvrtc extra) is not installed")
    try:
        hp.backend.compile_ptx('extern "C" __global__ void k(int* a) { a[0] = 1; }', "probe.cu")
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def emulated(monkeypatch):
    if not _cuda_emu.available():
        pytest.skip("g++ is not installed (the CUDA host emulation needs it)")
    _cuda_emu.emulate(monkeypatch)


def _typed(name, dtype):
    hsr = semirings(name, dtype)[0] if name == "user" else name
    return semiring_op(hsr, np.dtype(dtype), np.dtype(dtype))


# ---------------------------------------------------------------------------------------
# pure-Python parts


def test_reads_operand_follows_the_multiply():
    assert reads_operand(_typed("plus_times", "float64").mul, "a")
    assert reads_operand(_typed("plus_times", "float64").mul, "b")
    assert not reads_operand(_typed("plus_pair", "int64").mul, "a")
    assert not reads_operand(_typed("plus_pair", "int64").mul, "b")
    first = semiring_op("min_first", np.dtype(np.int64), np.dtype(np.int64)).mul
    assert reads_operand(first, "a") and not reads_operand(first, "b")
    fi = semiring_op("max_firsti", np.dtype(np.int64), np.dtype(np.int64)).mul
    assert not reads_operand(fi, "a") and not reads_operand(fi, "b")


def test_semiring_slots():
    s = semiring_slots(_typed("min_plus", "int32"), np.int32, np.float64)
    assert (s["X"], s["Z"], s["AV"], s["BV"]) == ("int", "int", "int", "double")
    assert s["READ_A"] == s["READ_B"] == "true"
    assert s["TERM"] != "false"  # min has a terminal (the dtype's minimum)
    assert semiring_slots(_typed("plus_times", "float64"), np.float64, np.float64)["TERM"] == "false"
    assert semiring_slots(_typed("any_pair", "int64"), np.int64, np.int64)["TERM"] == "true"


def test_bitmap_words_and_applicability():
    assert _spgemm_gpu._words(1) == 8
    assert _spgemm_gpu._words(32 * 8) == 8
    assert _spgemm_gpu._words(32 * 8 + 1) == 16
    assert _spgemm_gpu._words(1 << 40) == _spgemm_gpu.MAX_WORDS
    assert _spgemm_gpu.applies(_typed("plus_times", "float64"))
    assert _spgemm_gpu.applies(_typed("min_plus", "int32"))
    assert not _spgemm_gpu.applies(_typed("lor_land", "bool"))  # no atomic on bool
    with pytest.raises(NotImplementedError, match="no atomic form"):
        _spgemm_gpu.spgemm_source(_typed("lor_land", "bool"), np.bool_, np.bool_, np.int32,
                                  np.int32, np.int32, 10)
    assert _mxm_gpu.cusparse_applies(_typed("plus_times", "float32"))
    assert not _mxm_gpu.cusparse_applies(_typed("plus_times", "int64"))
    assert not _mxm_gpu.cusparse_applies(_typed("min_plus", "float64"))


def test_row_flops_and_dot_preference():
    A = hgb.Matrix.from_coo(np.array([0, 0, 2]), np.array([0, 1, 1]), 1.0, nrows=3, ncols=2)
    B = hgb.Matrix.from_coo(np.array([0, 1, 1, 1]), np.array([0, 0, 1, 2]), 1.0, nrows=2, ncols=3)
    assert _mxm_gpu.row_flops(np, A, B).tolist() == [4, 0, 3]
    small = hgb.Matrix.from_coo(np.array([0]), np.array([0]), 1.0, nrows=3, ncols=3)
    full = hgb.Matrix.from_dense(np.ones((3, 3)))
    assert _mxm_gpu._prefer_dot(np, A, B, small)     # 7 terms >= 1 mask entry
    assert not _mxm_gpu._prefer_dot(np, A, B, full)  # 7 terms < 9 mask entries


def test_method_errors_on_the_host():
    A = hgb.Matrix.from_coo(np.array([0]), np.array([0]), 1.0, nrows=2, ncols=2)
    for method in ("bitmap", "cusparse"):
        with pytest.raises(InvalidValue, match="needs device operands and no mask"):
            hgb.mxm(A, A, method=method)
    with pytest.raises(InvalidValue, match="'bitmap'"):
        hgb.mxm(A, A, method="nosuch")


# ---------------------------------------------------------------------------------------
# NVRTC: every kernel variant compiles


@pytest.mark.parametrize("name,dtype", CASES)
@pytest.mark.parametrize("mask", ["S", "V-bool", "V-float64"])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_mdot_kernels_compile(name, dtype, mask, idx):
    _nvrtc_or_skip()
    sr = _typed(name, dtype)
    mv = None if mask == "S" else np.dtype(mask.split("-")[1])
    src, kname = _mdot_gpu.mdot_source(sr, np.dtype(dtype), np.dtype(dtype), idx, idx, idx,
                                       np.int64, mv)
    ptx = hp.backend.compile_ptx(src, kname + ".cu")
    for k in ("_entry", "_plan", "_chunk"):
        assert kname + k in ptx


def test_mdot_kernels_compile_with_mixed_index_and_value_dtypes():
    _nvrtc_or_skip()
    sr = semiring_op("min_plus", np.dtype(np.int32), np.dtype(np.float32))
    src, kname = _mdot_gpu.mdot_source(sr, np.int32, np.float32, np.int32, np.int64, np.int64,
                                       np.int32, np.uint8)
    assert kname + "_chunk" in hp.backend.compile_ptx(src, kname + ".cu")
    src, kname = _spgemm_gpu.spgemm_source(sr, np.int32, np.float32, np.int64, np.int32,
                                           np.int64, 5000)
    assert kname + "_fill" in hp.backend.compile_ptx(src, kname + ".cu")


@pytest.mark.parametrize("name,dtype", [c for c in CASES if c[1] != "bool"]
                         + [("any_secondi", "int64"), ("plus_times", "float32")])
@pytest.mark.parametrize("idx,ncols", [(np.int32, 100), (np.int64, 1 << 20)])
def test_spgemm_kernels_compile(name, dtype, idx, ncols):
    _nvrtc_or_skip()
    sr = _typed(name, dtype)
    src, kname = _spgemm_gpu.spgemm_source(sr, np.dtype(dtype), np.dtype(dtype), idx, idx, idx,
                                           ncols)
    ptx = hp.backend.compile_ptx(src, kname + ".cu")
    assert kname + "_count" in ptx and kname + "_fill" in ptx


# ---------------------------------------------------------------------------------------
# the kernels run on the host (g++ emulation) against python-graphblas


def _gb_ref(A, B, name, dtype, mspec, M, out=None, accum=None, replace=False):
    _, gsr = semirings(name, dtype)
    return gb_run(A.to_graphblas().mxm(B.to_graphblas(), gsr), out=out,
                  mask=gb_mask(mspec, M.to_graphblas()) if M is not None else None,
                  accum=accum, replace=replace)


@pytest.mark.parametrize("name,dtype", CASES)
def test_masked_dot_kernels_emulated(hp_config, emulated, monkeypatch, name, dtype):
    rng = np.random.default_rng(_seed(("mdot-emu", name, dtype)))
    sr = _typed(name, dtype)
    bad = []
    for heavy in (False, True):
        if heavy:  # every entry with more than 2 candidates goes to the chunk kernel
            hp_config(mxm_dot_heavy_cost=0)
            monkeypatch.setattr(_mdot_gpu, "CHUNK", 2)
        for m, k, n in ((0, 3, 4), (3, 0, 4), (1, 5, 7), (13, 9, 11), (20, 40, 6)):
            A = rand_matrix(rng, m, k, dtype, density=0.5)
            B = rand_matrix(rng, k, n, dtype, density=0.5)
            M = rand_matrix(rng, m, n, "float64", density=0.5)
            for mspec in ("S", "V"):
                mask = as_mask(hp_mask(mspec, M), (m, n))
                got = _mxm_gpu.device_mxm(np, A, B, sr, mask, None, None, False, (m, n), "dot")
                err = compare(got, _gb_ref(A, B, name, dtype, mspec, M), f"{name} {dtype} "
                              f"{(m, k, n)} {mspec} heavy={heavy}", cast_ref=name.endswith("_pair"))
                if err:
                    bad.append(err)
        A = rand_matrix(rng, 25, 25, dtype, density=0.4)   # its own mask: searched from e
        for B, mspec in ((A, "S"), (rand_matrix(rng, 25, 25, dtype, density=0.4), "V")):
            got = _mxm_gpu.device_mxm(np, A, B, sr, as_mask(hp_mask(mspec, A), (25, 25)), None,
                                      None, False, (25, 25), "dot")
            err = compare(got, _gb_ref(A, B, name, dtype, mspec, A), f"{name} {dtype} self "
                          f"{mspec} heavy={heavy}", cast_ref=name.endswith("_pair"))
            if err:
                bad.append(err)
    assert bad == []


@pytest.mark.parametrize("name,dtype", [c for c in CASES if c[1] != "bool"])
def test_bitmap_spgemm_kernels_emulated(emulated, monkeypatch, name, dtype):
    rng = np.random.default_rng(_seed(("bitmap-emu", name, dtype)))
    sr = _typed(name, dtype)
    bad = []
    for words in (_spgemm_gpu.MAX_WORDS, 8):
        monkeypatch.setattr(_spgemm_gpu, "MAX_WORDS", words)  # 8 words: tiles of 256 columns
        for m, k, n in ((0, 3, 4), (4, 3, 0), (1, 5, 7), (13, 9, 11), (9, 30, 600)):
            A = rand_matrix(rng, m, k, dtype, density=0.5)
            B = rand_matrix(rng, k, n, dtype, density=0.3)
            got = _mxm_gpu.device_mxm(np, A, B, sr, None, None, None, False, (m, n), "bitmap")
            err = compare(got, _gb_ref(A, B, name, dtype, "none", None),
                          f"{name} {dtype} {(m, k, n)} words={words}",
                          any_values=name.startswith("any") and name != "any_pair",
                          cast_ref=name.endswith("_pair"))
            if err:
                bad.append(err)
            assert got.csr.indptr.dtype == got.csr.indices.dtype
    assert bad == []


def test_device_results_with_out_accum_replace_emulated(emulated):
    rng = np.random.default_rng(11)
    A, B = rand_matrix(rng, 13, 9, "int64"), rand_matrix(rng, 9, 11, "int64")
    M = rand_matrix(rng, 13, 11, "float64", density=0.5)
    C0 = rand_matrix(rng, 13, 11, "int64", density=0.3)
    sr = _typed("plus_times", "int64")
    bad = []
    for mspec in ("S", "V", "none"):
        for out, accum, replace in ((None, "plus", False), (C0, "plus", False), (C0, None, True),
                                    (C0, "min", True)):
            mask = as_mask(hp_mask(mspec, M), (13, 11))
            method = "dot" if mask is not None else "bitmap"
            got = _mxm_gpu.device_mxm(np, A, B, sr, mask, out, accum, replace, (13, 11), method)
            ref = _gb_ref(A, B, "plus_times", "int64", mspec, M if mask else None, out=out,
                          accum=accum, replace=replace)
            err = compare(got, ref, f"{mspec} out={out is not None} {accum} {replace}")
            if err:
                bad.append(err)
    assert bad == []


def test_masked_triangles_emulated(hp_config, emulated, monkeypatch):
    """``L .* (L @ L)`` and ``U .* (U @ U^T)`` through the kernels against networkx."""
    import networkx as nx

    hp_config(mxm_dot_heavy_cost=8)
    monkeypatch.setattr(_mdot_gpu, "CHUNK", 3)
    G = hp.generators.rmat(7, edge_factor=8, seed=3, directed=False, backend="cpu")
    A = hgb.Matrix.from_graph(G, dtype=np.int64)
    A = hgb.select(A, "offdiag")
    L, U = hgb.select(A, "tril", -1), hgb.select(A, "triu", 1)
    sr = semiring_op("plus_pair[int64]", np.dtype(np.int64), np.dtype(np.int64))
    r = A.to_coo()
    expect = sum(nx.triangles(nx.Graph(zip(r[0].tolist(), r[1].tolist()))).values()) // 3
    assert expect > 0
    for X, Y, M in ((L, L, L), (U, hgb.transpose(U), U)):
        C = _mxm_gpu.device_mxm(np, X, Y, sr, as_mask(M.S, M.shape), None, None, False, M.shape, "dot")
        assert int(hgb.reduce_scalar(C)) == expect


# ---------------------------------------------------------------------------------------
# on the device


@pytest.mark.gpu
@pytest.mark.parametrize("name,dtype", CASES)
def test_gpu_kernel_paths_match_graphblas(hp_config, monkeypatch, name, dtype):
    rng = np.random.default_rng(_seed(("gpu-kernels", name, dtype)))
    hsr, _ = semirings(name, dtype)
    bad = []
    for heavy in (False, True):
        if heavy:
            hp_config(mxm_dot_heavy_cost=0)
            monkeypatch.setattr(_mdot_gpu, "CHUNK", 2)
            monkeypatch.setattr(_spgemm_gpu, "MAX_WORDS", 8)
        for m, k, n in ((0, 3, 4), (3, 0, 4), (1, 5, 7), (13, 9, 11), (40, 60, 700)):
            A, B = rand_matrix(rng, m, k, dtype, density=0.4), rand_matrix(rng, k, n, dtype, density=0.3)
            M = rand_matrix(rng, m, n, "float64", density=0.5)
            dA, dB, dM = A.to_device(), B.to_device(), M.to_device()
            for mspec in ("S", "V", "none"):
                methods = ("dot",) if mspec != "none" else (
                    ("bitmap", "auto") if _spgemm_gpu.applies(_typed(name, dtype)) else ("auto",))
                for method in methods:
                    got = hgb.mxm(dA, dB, hsr, mask=hp_mask(mspec, dM), method=method)
                    assert got.on_device
                    err = compare(got, _gb_ref(A, B, name, dtype, mspec, M if mspec != "none" else None),
                                  f"{name} {dtype} {(m, k, n)} {mspec} {method} heavy={heavy}",
                                  any_values=name.startswith("any") and name != "any_pair",
                                  cast_ref=name.endswith("_pair"))
                    if err:
                        bad.append(err)
    assert bad == []


@pytest.mark.gpu
def test_gpu_cusparse_fallback_and_scipy(monkeypatch):
    """plus_times on R-MAT 11 against SciPy: through cuSPARSE, and through the bitmap kernels
    when cuSPARSE is made to give up (the path R-MAT 16 / 18 take)."""
    G = hp.generators.rmat(11, edge_factor=16, seed=1, directed=False, weights=(1, 8), backend="cpu")
    A = hgb.Matrix.from_graph(G, dtype=np.float64)
    S = A.to_scipy()
    ref = (S @ S).tocsr()
    ref.sort_indices()
    dA = A.to_device()
    got = [hgb.mxm(dA, dA, "plus_times"), hgb.mxm(dA, dA, "plus_times", method="cusparse")]
    # products above the limit skip cuSPARSE
    with monkeypatch.context() as m, hp.config.set(mxm_cusparse_max_flops=0):
        m.setattr(_mxm_gpu, "cusparse_product", None)
        got.append(hgb.mxm(dA, dA, "plus_times"))
    monkeypatch.setattr(_mxm_gpu, "cusparse_product", lambda *a: None)
    got.append(hgb.mxm(dA, dA, "plus_times"))
    got.append(hgb.mxm(dA, dA, "plus_times", method="bitmap"))
    for C in got:
        c = C.to_host().to_scipy()
        assert np.array_equal(c.indptr, ref.indptr) and np.array_equal(c.indices, ref.indices)
        assert np.array_equal(c.data, ref.data)


@pytest.mark.gpu
def test_gpu_masked_triangles_match_triangle_count():
    G = hp.generators.rmat(12, edge_factor=16, seed=2, directed=False, backend="gpu")
    A = hgb.select(hgb.Matrix.from_graph(G, dtype=np.int64), "offdiag")
    L = hgb.select(A, "tril", -1)
    U = hgb.select(A, "triu", 1)
    want = hp.triangle_count(G)
    assert int(hgb.reduce_scalar(hgb.mxm(L, L, "plus_pair[int64]", mask=L.S))) == want
    assert int(hgb.reduce_scalar(hgb.mxm(U, U.T, "plus_pair[int64]", mask=U.S))) == want
