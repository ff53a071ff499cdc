"""A step-by-step NumPy/Python emulation of the ``csr_mp`` kernel's algorithm (no GPU needed).

``hpgraph/spmv/templates/csr_mp.cu`` splits the merge path of a CSR matrix into tiles of
``block * items`` items, walks each thread's share sequentially, fixes the threads' first rows
with a block-wide segmented scan and joins rows that cross tiles in a carry pass.  This file
replays exactly those steps (same search rule, same scan with a configurable warp width, same
head / carry protocol) on random CSR shapes -- empty rows, hub rows spanning many tiles, rows
ending exactly on tile boundaries, empty matrices -- with a monoid that is associative but not
commutative (tuple concatenation), so a lost, duplicated or reordered entry shows.  The ``any``
monoid's "has a value" handling (``hp_combine``) is checked the same way.  The CUDA code itself
is checked against the CPU SpMV on the device (``test_gpu.py``).
"""

from __future__ import annotations

import numpy as np
import pytest


def _combine(a, ha, b, hb, any_mode):
    if any_mode:
        return b if hb else a
    return a + b


def _search(indptr, nnz, nrows, d):
    """Number of row ends before diagonal d (the kernels' merge-path rule)."""
    lo, hi = max(d - nnz, 0), min(d, nrows)
    while lo < hi:
        p = (lo + hi) >> 1
        if indptr[p + 1] <= d - p - 1:
            lo = p + 1
        else:
            hi = p
    return lo


def emulate_mp(indptr, values, active, block, warp, items, any_mode=False):
    """Rows' (value, has) as the csr_mp kernels compute them."""
    nrows = len(indptr) - 1
    nnz = int(indptr[-1])
    total = nrows + nnz
    tile_n = block * items
    ntiles = -(-total // tile_n)
    tile_row = [_search(indptr, nnz, nrows, min(b * tile_n, total)) for b in range(ntiles + 1)]
    y = [None] * nrows
    carry_row = [None] * ntiles
    carry_val = [None] * ntiles
    carry_has = [None] * ntiles
    head_val = [None] * ntiles
    head_has = [None] * ntiles
    BIG = 1 << 62
    for t in range(ntiles):
        r0, r1 = tile_row[t], tile_row[t + 1]
        d0 = t * tile_n
        d1 = min(d0 + tile_n, total)
        n0, n1 = d0 - r0, d1 - r1
        nr, ne = r1 - r0, n1 - n0
        s_end = [int(indptr[r0 + 1 + k]) - n0 for k in range(nr)] + [BIG]
        assert all(0 <= e <= ne for e in s_end[:-1])
        s_val = [values[n0 + k] if active[n0 + k] else () for k in range(ne)]
        s_vh = [bool(active[n0 + k]) for k in range(ne)]
        s_out = [None] * nr
        s_outh = [None] * nr
        tlen = nr + ne
        th = []
        for tid in range(block):
            diag = min(tid * items, tlen)
            dend = min(diag + items, tlen)
            lo, hi = max(diag - ne, 0), min(diag, nr)
            while lo < hi:
                p = (lo + hi) >> 1
                if s_end[p] <= diag - p - 1:
                    lo = p + 1
                else:
                    hi = p
            x, q = lo, diag - lo
            xs = x
            acc, has = (), False
            fv, fh, emitted = (), False, False
            for _ in range(dend - diag):
                if q < s_end[x]:
                    acc = _combine(acc, has, s_val[q], s_vh[q], any_mode)
                    has = has or s_vh[q]
                    q += 1
                else:
                    if not emitted:
                        fv, fh, emitted = acc, has, True
                    else:
                        assert s_out[x] is None
                        s_out[x], s_outh[x] = acc, has
                    acc, has = (), False
                    x += 1
            assert x + q == dend
            th.append(dict(xs=xs, key=x, sv=acc, sh=has, fv=fv, fh=fh, emitted=emitted))
        # segmented inclusive scan, warp level (Hillis-Steele, all lanes step together)
        keys = [d["key"] for d in th]
        assert keys == sorted(keys)
        sv = [d["sv"] for d in th]
        sh = [d["sh"] for d in th]
        for w0 in range(0, block, warp):
            d = 1
            while d < warp:
                nv, nh = sv[:], sh[:]
                for lane in range(d, warp):
                    i = w0 + lane
                    if keys[i - d] == keys[i]:
                        nv[i] = _combine(sv[i - d], sh[i - d], sv[i], sh[i], any_mode)
                        nh[i] = sh[i] or sh[i - d]
                sv, sh = nv, nh
                d <<= 1
        nw = block // warp
        wkey = [keys[w * warp + warp - 1] for w in range(nw)]
        wval = [sv[w * warp + warp - 1] for w in range(nw)]
        wh = [sh[w * warp + warp - 1] for w in range(nw)]
        inc, inch = [], []
        for tid in range(block):
            v, h = sv[tid], sh[tid]
            for w in range(tid // warp - 1, -1, -1):
                if wkey[w] != keys[tid]:
                    break
                v = _combine(wval[w], wh[w], v, h, any_mode)
                h = h or wh[w]
            inc.append(v)
            inch.append(h)
        for tid, d in enumerate(th):
            if d["emitted"]:
                fv, fh = d["fv"], d["fh"]
                if tid > 0:
                    assert keys[tid - 1] == d["xs"]
                    fv = _combine(inc[tid - 1], inch[tid - 1], fv, fh, any_mode)
                    fh = fh or inch[tid - 1]
                assert s_out[d["xs"]] is None
                s_out[d["xs"]], s_outh[d["xs"]] = fv, fh
        assert all(v is not None for v in s_out)
        head_partial = nr > 0 and indptr[r0] < n0
        for k in range(nr):
            if k == 0 and head_partial:
                head_val[t], head_has[t] = s_out[k], s_outh[k]
            else:
                assert y[r0 + k] is None
                y[r0 + k] = (s_out[k], s_outh[k])
        goes_on = r1 < nrows and indptr[r1] < n1
        carry_row[t] = r1 if goes_on else -1
        if goes_on:
            carry_val[t], carry_has[t] = inc[block - 1], inch[block - 1]
    # carry pass (hp_carry_body)
    for w in range(ntiles):
        r = carry_row[w]
        if r < 0 or (w > 0 and carry_row[w - 1] == r):
            continue
        acc, h = carry_val[w], carry_has[w]
        k = w + 1
        while k < ntiles and carry_row[k] == r:
            acc = _combine(acc, h, carry_val[k], carry_has[k], any_mode)
            h = h or carry_has[k]
            k += 1
        assert k < ntiles
        acc = _combine(acc, h, head_val[k], head_has[k], any_mode)
        h = h or head_has[k]
        assert y[r] is None
        y[r] = (acc, h)
    return y


def _random_indptr(rng, kind):
    n = int(rng.integers(0, 60))
    if kind == "empty":
        lens = np.zeros(n, np.int64)
    elif kind == "hub":
        lens = rng.integers(0, 3, n) * (rng.random(n) < 0.5)
        if n:
            lens[rng.integers(0, n, min(n, 3))] = rng.integers(20, 200, min(n, 3))
    elif kind == "regular":
        lens = np.full(n, int(rng.integers(1, 6)))
    else:
        lens = np.minimum(rng.zipf(1.5, n), 150) * (rng.random(n) < 0.7)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(lens, out=indptr[1:])
    return indptr


@pytest.mark.parametrize("block,warp,items", [(8, 4, 3), (16, 4, 2), (4, 4, 1), (8, 2, 5), (64, 32, 8)])
@pytest.mark.parametrize("kind", ["zipf", "hub", "regular", "empty"])
def test_merge_path_emulation(block, warp, items, kind):
    rng = np.random.default_rng(block * 1000 + items * 10 + len(kind))
    for _ in range(25):
        indptr = _random_indptr(rng, kind)
        nnz = int(indptr[-1])
        values = [(e,) for e in range(nnz)]
        active = rng.random(nnz) < (1.0 if rng.random() < 0.5 else 0.6)
        for any_mode in (False, True):
            got = emulate_mp(indptr, values, active, block, warp, items, any_mode)
            for r in range(len(indptr) - 1):
                ents = [e for e in range(indptr[r], indptr[r + 1]) if active[e]]
                v, h = got[r]
                assert h == bool(ents), (r, got[r], ents)
                if any_mode:
                    assert (v in [(e,) for e in ents]) if ents else v == ()
                else:
                    assert v == tuple(ents), (r, v, ents)


def test_tile_boundaries_on_row_ends():
    """Rows whose end falls exactly on a tile boundary, and tiles of only empty rows."""
    for lens in ([3, 0, 0, 0, 0, 5], [7], [0] * 17, [1] * 9, [2, 2, 2, 2, 40, 0, 0, 1]):
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        nnz = int(indptr[-1])
        for block, warp, items in ((4, 2, 1), (4, 2, 2), (2, 2, 3), (8, 4, 1)):
            got = emulate_mp(indptr, [(e,) for e in range(nnz)], np.ones(nnz, bool), block, warp, items)
            for r in range(len(lens)):
                assert got[r] == (tuple(range(indptr[r], indptr[r + 1])), lens[r] > 0)
