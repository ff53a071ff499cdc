"""The hash kernels of the masked mxm (:mod:`hpgraph.graphblas._mdot_hash`).

* which semirings and which entries they take;
* every variant compiles with NVRTC (no GPU needed);
* on the host through the g++ emulation of CUDA, against python-graphblas: the warp and the
  block kernel, columns hashed in several pieces, columns split into several tasks, value and
  structural masks, empty rows and columns, and the mix with the intersection kernels;
* on the device (``gpu`` marker): the same through ``mxm`` against python-graphblas, and
  triangle counting on R-MAT against ``hp.triangle_count``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import graphblas as hgb
from hpgraph.graphblas import _mdot_hash, _mxm_gpu
from hpgraph.graphblas._gpu_common import SEARCH_RATIO
from hpgraph.graphblas._args import as_mask, semiring_op
from tests.graphblas import _cuda_emu
from tests.graphblas._helpers import compare, gb_mask, gb_run, hp_mask, rand_matrix, _seed, semirings

#: order-free (semiring, dtype) pairs: the hash kernels take them
HASHED = (("plus_times", "int64"), ("plus_pair", "int64"), ("min_plus", "int32"),
          ("min_plus", "float64"), ("max_min", "float32"), ("times_times", "int32"),
          ("max_plus", "uint64"),
          # multiplies that are not symmetric: the kernels that hash rows of A swap operands
          ("plus_minus", "int64"), ("plus_firsti", "int64"), ("min_first", "int32"))


def _typed(name, dtype):
    return semiring_op(name, np.dtype(dtype), np.dtype(dtype))


def test_applies_only_to_order_free_monoids():
    for name, dtype in HASHED:
        assert _mdot_hash.applies(_typed(name, dtype)), (name, dtype)
    for name, dtype in (("plus_times", "float64"), ("plus_times", "float32"),
                        ("any_pair", "int64"), ("lor_land", "bool"), ("min_plus", "int16"),
                        ("plus_times", "int8")):
        assert not _mdot_hash.applies(_typed(name, dtype)), (name, dtype)


def _rule(aptr, aidx, bptr, bidx, mrow, mcol, every, min_len, heavy, ratio):
    """The hash rule entry by entry, in plain Python (the oracle of the vectorised form)."""
    out = []
    for r, c in zip(mrow.tolist(), mcol.tolist()):
        ra = aidx[aptr[r]:aptr[r + 1]].tolist()
        rb = bidx[bptr[c]:bptr[c + 1]].tolist()
        ca = cb = 0
        if ra and rb:
            ov = min(ra[-1], rb[-1]) - max(ra[0], rb[0]) + 1.0
            if ov > 0:
                ca = math.ceil(len(ra) * min(1.0, ov / (ra[-1] - ra[0] + 1.0)))
                cb = math.ceil(len(rb) * min(1.0, ov / (rb[-1] - rb[0] + 1.0)))
        lo, hi = min(ca, cb), max(ca, cb)
        cost = lo * hi.bit_length() if hi > SEARCH_RATIO * lo else lo + hi
        take = lo > 0 and (every or (hi >= min_len and (cost > heavy or cost >= ratio * lo)))
        out.append(0 if not take else (_mdot_hash.BY_ROW if ca > cb else _mdot_hash.BY_COLUMN))
    return out


def _lists(rng, n, width):
    """CSR of ``n`` sorted lists of distinct keys below ``width``: empty ones, single keys,
    short and long ones over narrow and wide key ranges."""
    rows = []
    for _ in range(n):
        k = int(rng.choice([0, 1, 2, 5, 20, 60]))
        lo = int(rng.integers(0, width // 2))
        hi = int(rng.integers(lo + k, width + k))
        rows.append(np.sort(rng.choice(np.arange(lo, max(hi, lo + k)), k, replace=False)))
    ptr = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
    idx = np.concatenate(rows + [np.zeros(0)]).astype(np.int64)
    return ptr, idx


def test_hashed_entries_rule(hp_config, monkeypatch):
    """Each list's entries within the other's key range are estimated from the ranges' overlap;
    the rule then hashes the list with more of them."""
    col, row = _mdot_hash.BY_COLUMN, _mdot_hash.BY_ROW
    monkeypatch.setattr(_mdot_hash, "MIN_HASHED", 1)
    monkeypatch.setattr(_mdot_hash, "RATIO", 2)
    hp_config(mxm_dot_heavy_cost=2048)
    # rows of A: 20 keys over 0..95; 2 keys 10, 20.  Columns of B: 8 keys over 60..95; 9 keys
    # over 0..80; 3 keys over 30..50
    aptr = np.array([0, 20, 22])
    aidx = np.concatenate([np.arange(0, 100, 5), [10, 20]])
    bptr = np.array([0, 8, 17, 20])
    bidx = np.concatenate([np.arange(60, 100, 5), np.arange(0, 90, 10), [30, 40, 50]])
    mrow, mcol = np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2])
    # (0, 0): overlap 60..95 (36 keys wide): A's 20 keys count ceil(20 * 36 / 96) = 8, B's 8:
    # a tie, the column hashed (by lengths alone the row would be); a merge of 16 steps, 2 per
    # element.  (0, 1): overlap 0..80: A's ceil(20 * 81 / 96) = 17 against B's 9: the row; 26
    # steps, 2.9 per element.  (1, 1): overlap 10..20: A's 2 against B's ceil(9 * 11 / 81) =
    # 2: the column; 2 per element.  (1, 2): the ranges do not overlap: never taken
    rule = lambda every=False: _mdot_hash.hashed_entries(  # noqa: E731
        np, aptr, aidx, bptr, bidx, mrow, mcol, every).tolist()
    assert rule(True) == rule() == [col, row, col, 0]
    monkeypatch.setattr(_mdot_hash, "RATIO", 3)             # at least 3 steps per element
    assert rule() == [0, 0, 0, 0]
    hp_config(mxm_dot_heavy_cost=20)                          # or more than 20 steps in all
    assert rule() == [0, row, 0, 0]
    monkeypatch.setattr(_mdot_hash, "RATIO", 2)
    hp_config(mxm_dot_heavy_cost=2048)
    monkeypatch.setattr(_mdot_hash, "MIN_HASHED", 9)        # the larger count is >= 9
    assert rule() == [0, row, 0, 0]
    assert rule(True) == [col, row, col, 0]
    rng = np.random.default_rng(_seed(("mhash-rule",)))
    aptr, aidx = _lists(rng, 30, 200)
    bptr, bidx = _lists(rng, 25, 200)
    mrow, mcol = rng.integers(0, 30, 400), rng.integers(0, 25, 400)
    for min_len, heavy, ratio in ((1, 2048, 3), (9, 40, 4), (30, 10, 2)):
        monkeypatch.setattr(_mdot_hash, "MIN_HASHED", min_len)
        monkeypatch.setattr(_mdot_hash, "RATIO", ratio)
        hp_config(mxm_dot_heavy_cost=heavy)
        for every in (False, True):
            got = _mdot_hash.hashed_entries(np, aptr, aidx, bptr, bidx, mrow, mcol, every)
            want = _rule(aptr, aidx, bptr, bidx, mrow, mcol, every, min_len, heavy, ratio)
            assert got.tolist() == want
            assert len(set(want)) == 3


@pytest.mark.parametrize("name,dtype", HASHED)
@pytest.mark.parametrize("idx", ["int32", "int64"])
def test_hash_kernels_compile(name, dtype, idx):
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="NVRTC is not installed")
    try:
        for mv in (None, np.dtype(np.float64)):
            for swap in (False, True):
                src, kname = _mdot_hash.hash_source(
                    _typed(name, dtype), np.dtype(dtype), np.dtype(dtype), np.dtype(idx),
                    np.dtype(idx), np.dtype(np.int64), np.dtype(idx), mv, swap)
                ptx = hp.backend.compile_ptx(src, "mhash.cu")
                assert kname + "_warp" in ptx and kname + "_block" in ptx
                assert (kname + "_classify" in ptx) != swap
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("name,dtype", HASHED)
def test_block_kernel_shared_memory_fits(name, dtype):
    """With 8-byte keys (and positions, where the multiply reads values) the block kernel's
    table is cut to pieces that keep its shared memory within CUDA's 48 KiB: ptxas (through
    NVRTC, to a cubin; no GPU needed) refuses a kernel that passes it."""
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="NVRTC is not installed")
    from hpgraph import kernel_cache

    src, kname = _mdot_hash.hash_source(
        _typed(name, dtype), np.dtype(dtype), np.dtype(dtype), np.dtype(np.int64),
        np.dtype(np.int64), np.dtype(np.int64), np.dtype(np.int64), None, False)
    try:
        assert kernel_cache.cubin(src, ("-std=c++17",), "sm_90")
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))


def test_classify_kernel_emulated(hp_config, emulated, monkeypatch):
    """The device's rule (kernel ``_classify``) gives :func:`hashed_entries`' codes, each
    entry's two lengths and a zero state, for several thresholds and for every entry."""
    from hpgraph.graphblas._gpu_common import kernel

    rng = np.random.default_rng(_seed(("mhash-classify",)))
    aptr, aidx = _lists(rng, 40, 300)
    bptr, bidx = _lists(rng, 30, 300)
    aptr, aidx = aptr.astype(np.int32), aidx.astype(np.int32)      # mixed index dtypes
    mrow = rng.integers(0, 40, 500).astype(np.int64)
    mcol = rng.integers(0, 30, 500).astype(np.int32)
    sr = _typed("plus_times", "int64")
    src, name = _mdot_hash.hash_source(sr, np.dtype(np.int64), np.dtype(np.int64),
                                       aptr.dtype, bptr.dtype, mrow.dtype, mcol.dtype)
    for min_len, heavy, ratio, every in ((6, 2048, 3, False), (3, 30, 2, False),
                                         (0, -1, 0, True)):
        monkeypatch.setattr(_mdot_hash, "MIN_HASHED", min_len)
        monkeypatch.setattr(_mdot_hash, "RATIO", ratio)
        hp_config(mxm_dot_heavy_cost=max(heavy, 0))
        code = np.full(500, 9, np.uint8)
        la, lb = np.zeros(500, np.int64), np.zeros(500, np.int64)
        state = np.full(500, 7, np.uint8)
        kernel(src, name + "_classify")((1,), (_mdot_hash.BLOCK,), (   # a grid-stride loop
            aptr, aidx, bptr, bidx, mrow, mcol, np.int64(500), np.int64(min_len),
            np.int64(heavy), np.int64(ratio), code, la, lb, state))
        want = _mdot_hash.hashed_entries(np, aptr, aidx, bptr, bidx, mrow, mcol, every)
        assert code.tolist() == want.tolist()
        assert len(set(want.tolist())) == 3          # none, by column and by row all occur
        assert la.tolist() == np.diff(aptr)[mrow].tolist()
        assert lb.tolist() == np.diff(bptr)[mcol].tolist()
        assert not state.any()


#: launches of the hash kernels under the emulation (a test can see that they ran): the
#: kernels hashing columns of B, and the ``_row`` ones hashing rows of A
LAUNCHES = {"col": 0, "row": 0}


@pytest.fixture
def emulated(monkeypatch):
    if not _cuda_emu.available():
        pytest.skip("g++ is not installed (the CUDA host emulation needs it)")
    _cuda_emu.emulate(monkeypatch)
    from hpgraph.graphblas import _kern

    inner = _kern._kernel

    def counting(src, name):
        if name.startswith("hp_gb_mhash") and name.endswith(("_warp", "_block")):
            LAUNCHES["row" if name.startswith("hp_gb_mhash_row_") else "col"] += 1
        return inner(src, name)

    monkeypatch.setattr(_kern, "_kernel", counting)
    LAUNCHES.update(col=0, row=0)


def _ref(A, B, name, dtype, mspec, M):
    _, gsr = semirings(name, dtype)
    return gb_run(A.to_graphblas().mxm(B.to_graphblas(), gsr),
                  mask=gb_mask(mspec, M.to_graphblas()))


@pytest.mark.parametrize("name,dtype", HASHED)
def test_hash_kernels_emulated(hp_config, emulated, monkeypatch, name, dtype):
    """Warp and block kernels, pieces and task splits forced on small inputs, every entry or
    the ratio rule's share hashed; results equal python-graphblas'."""
    rng = np.random.default_rng(_seed(("mhash-emu", name, dtype)))
    sr = _typed(name, dtype)
    bad = []
    settings = (("hash", 64, 1024, 2048, 8192),   # defaults: warp tasks only
                ("hash", 2, 4, 3, 0),             # block tasks, 4-key pieces, 3-entry tasks
                ("auto", 3, 5, 2, 6))             # the ratio rule: some entries intersect
    # every semiring runs the block tasks and one of the other two settings, in turn (each
    # setting compiles its own kernels: ~1 s of g++ for the emulation)
    turn = HASHED.index((name, dtype)) % 2
    settings = (settings[1], settings[0] if turn == 0 else settings[2])
    monkeypatch.setattr(_mdot_hash, "MIN_HASHED", 2)
    for mode, wcap, bcap, split, work in settings:
        monkeypatch.setattr(_mdot_hash, "WARP_CAP", wcap)
        monkeypatch.setattr(_mdot_hash, "BLOCK_CAP", bcap)
        hp_config(mxm_dot_kernel=mode, mxm_hash_split=split, mxm_hash_block_work=work)
        for m, k, n in ((0, 3, 4), (3, 0, 4), (1, 5, 7), (13, 9, 11), (20, 40, 6)):
            A = rand_matrix(rng, m, k, dtype, density=0.5)
            B = rand_matrix(rng, k, n, dtype, density=0.5)
            M = rand_matrix(rng, m, n, "float64", density=0.5)
            for mspec in ("S", "V"):
                mask = as_mask(hp_mask(mspec, M), (m, n))
                got = _mxm_gpu.device_mxm(np, A, B, sr, mask, None, None, False, (m, n), "dot")
                err = compare(got, _ref(A, B, name, dtype, mspec, M),
                              f"{name} {dtype} {(m, k, n)} {mspec} {mode} caps={wcap},{bcap}",
                              cast_ref=name.endswith("_pair"))
                if err:
                    bad.append(err)
        A = rand_matrix(rng, 24, 24, dtype, density=0.4)   # its own mask: the kernels
        for B, mspec in ((A, "S"), (rand_matrix(rng, 24, 24, dtype, density=0.4), "V")):
            mask = as_mask(hp_mask(mspec, A), (24, 24))        # search A's rows from each entry
            assert mask.parent.csr is A.csr
            got = _mxm_gpu.device_mxm(np, A, B, sr, mask, None, None, False, (24, 24), "dot")
            err = compare(got, _ref(A, B, name, dtype, mspec, A),
                          f"{name} {dtype} self {mspec} {mode}", cast_ref=name.endswith("_pair"))
            if err:
                bad.append(err)
    assert bad == []
    assert LAUNCHES["col"] > 0 and LAUNCHES["row"] > 0    # both roles ran


def test_hash_min_max_keep_nan_emulated(hp_config, emulated):
    """An entry whose terms are all NaN is NaN (fmin / fmax), as python-graphblas gives; one
    with a number among NaNs is that number."""
    hp_config(mxm_dot_kernel="hash")
    nan = np.nan
    A = hgb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [nan, nan, nan, 3.0], nrows=2, ncols=2)
    B = hgb.Matrix.from_coo([0, 1], [0, 0], [1.0, 2.0], nrows=2, ncols=1)
    M = hgb.Matrix.from_coo([0, 1], [0, 0], [True, True], nrows=2, ncols=1)
    for name in ("min_plus", "max_plus"):
        for dtype in ("float32", "float64"):
            sr = _typed(name, dtype)
            a, b = A.astype(dtype), B.astype(dtype)
            got = _mxm_gpu.device_mxm(np, a, b, sr, as_mask(M.S, (2, 1)), None, None, False,
                                      (2, 1), "dot")
            err = compare(got, _ref(a, b, name, dtype, "S", M), f"{name} {dtype} NaN")
            assert err is None, err
    assert LAUNCHES["col"] > 0                  # ties hash the column


def test_hash_triangles_emulated(hp_config, emulated, monkeypatch):
    """``L .* (L @ L)`` and ``U .* (U @ U^T)`` with every entry hashed, long columns in pieces,
    against networkx."""
    import networkx as nx

    monkeypatch.setattr(_mdot_hash, "BLOCK_CAP", 8)
    hp_config(mxm_dot_kernel="hash", mxm_hash_split=5)
    G = hp.generators.rmat(7, edge_factor=8, seed=3, directed=False, backend="cpu")
    A = hgb.select(hgb.Matrix.from_graph(G, dtype=np.int64), "offdiag")
    L, U = hgb.select(A, "tril", -1), hgb.select(A, "triu", 1)
    sr = _typed("plus_pair", "int64")
    r = A.to_coo()
    expect = sum(nx.triangles(nx.Graph(zip(r[0].tolist(), r[1].tolist()))).values()) // 3
    assert expect > 0
    for X, Y, M in ((L, L, L), (U, hgb.transpose(U), U)):
        C = _mxm_gpu.device_mxm(np, X, Y, sr, as_mask(M.S, M.shape), None, None, False, M.shape,
                                "dot")
        assert int(hgb.reduce_scalar(C)) == expect


@pytest.mark.gpu
@pytest.mark.parametrize("name,dtype", HASHED)
def test_gpu_hash_kernels_match_graphblas(hp_config, name, dtype):
    rng = np.random.default_rng(_seed(("gpu-mhash", name, dtype)))
    bad = []
    for mode in ("hash", "auto"):
        hp_config(mxm_dot_kernel=mode)
        for m, k, n in ((0, 3, 4), (3, 0, 4), (1, 5, 7), (13, 9, 11), (60, 3000, 50),
                        (700, 40, 300)):
            A = rand_matrix(rng, m, k, dtype, density=0.4)
            B = rand_matrix(rng, k, n, dtype, density=0.3)
            M = rand_matrix(rng, m, n, "float64", density=0.5)
            dA, dB, dM = A.to_device(), B.to_device(), M.to_device()
            for mspec in ("S", "V"):
                got = hgb.mxm(dA, dB, name, mask=hp_mask(mspec, dM), method="dot")
                err = compare(got, _ref(A, B, name, dtype, mspec, M),
                              f"{name} {dtype} {(m, k, n)} {mspec} {mode}",
                              cast_ref=name.endswith("_pair"))
                if err:
                    bad.append(err)
    assert bad == []


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["hash", "auto"])
def test_gpu_hash_triangles_match_triangle_count(hp_config, mode):
    hp_config(mxm_dot_kernel=mode)
    G = hp.generators.rmat(13, edge_factor=16, seed=2, directed=False, backend="gpu")
    A = hgb.select(hgb.Matrix.from_graph(G, dtype=np.int64), "offdiag")
    L = hgb.select(A, "tril", -1)
    U = hgb.select(A, "triu", 1)
    want = hp.triangle_count(G)
    assert int(hgb.reduce_scalar(hgb.mxm(L, L, "plus_pair[int64]", mask=L.S))) == want
    assert int(hgb.reduce_scalar(hgb.mxm(U, U.T, "plus_pair[int64]", mask=U.S))) == want


def test_hash_kernels_int64_indices_emulated(hp_config, emulated, monkeypatch):
    """Matrices with int64 row pointers and column ids (the 64-bit key table), against
    python-graphblas."""
    from hpgraph.formats import CSR

    def wide(M):
        c = M.csr
        return hgb.Matrix._new(CSR._new(c.indptr.astype(np.int64), c.indices.astype(np.int64),
                                        c.values, tuple(M.shape)), M.dtype)

    monkeypatch.setattr(_mdot_hash, "BLOCK_CAP", 4)
    hp_config(mxm_dot_kernel="hash", mxm_hash_split=3, mxm_hash_block_work=0)
    rng = np.random.default_rng(_seed(("mhash-int64",)))
    bad = []
    for name, dtype in (("plus_times", "int64"), ("min_plus", "float32")):
        sr = _typed(name, dtype)
        A = rand_matrix(rng, 13, 9, dtype, density=0.5)
        B = rand_matrix(rng, 9, 11, dtype, density=0.5)
        M = rand_matrix(rng, 13, 11, "float64", density=0.5)
        mask = as_mask(hp_mask("S", wide(M)), (13, 11))
        got = _mxm_gpu.device_mxm(np, wide(A), wide(B), sr, mask, None, None, False, (13, 11),
                                  "dot")
        err = compare(got, _ref(A, B, name, dtype, "S", M), f"{name} {dtype} int64 indices")
        if err:
            bad.append(err)
    assert bad == [] and LAUNCHES["col"] + LAUNCHES["row"] > 0
