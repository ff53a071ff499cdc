"""hpgraph._gen_gpu: the R-MAT generator's fused device kernels against plain CuPy / NumPy
references of the same steps."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


@pytest.mark.parametrize("idt", [np.int32, np.int64])
def test_add_level_matches_the_float32_comparisons(cp, idt):
    from hpgraph._gen_gpu import add_level

    rng = np.random.default_rng(5)
    k, a, b, c = 10_000, 0.57, 0.19, 0.19
    u, v = np.zeros(k, idt), np.zeros(k, idt)
    du, dv = cp.asarray(u), cp.asarray(v)
    fa, fab, fabc = np.float32(a), np.float32(a + b), np.float32(a + b + c)
    for level in range(20):
        r = rng.random(k, dtype=np.float32)
        r[:4] = [fa, fab, fabc, 0.0]                     # thresholds exactly: ties go up
        add_level(cp.asarray(r), a, b, c, level, du, dv)
        row = r >= fab
        col = (r >= fa) ^ (r >= fabc) ^ row
        u |= row.astype(idt) << level
        v |= col.astype(idt) << level
    np.testing.assert_array_equal(du.get(), u)
    np.testing.assert_array_equal(dv.get(), v)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("m,n", [(0, 5), (1, 1), (7, 3), (5_000, 50), (20_000, 4_000)])
def test_distinct_pairs_match_a_numpy_reference(cp, directed, m, n):
    from hpgraph._gen_gpu import distinct_pairs

    rng = np.random.default_rng(m + n)
    u = rng.integers(0, n, m).astype(np.int32)
    v = rng.integers(0, n, m).astype(np.int32)
    perm = rng.permutation(n)
    a, b = perm[u], perm[v]
    keep = a != b
    a, b = a[keep], b[keep]
    if not directed:
        a, b = np.minimum(a, b), np.maximum(a, b)
    pairs = np.unique(np.stack([a, b], axis=1), axis=0) if a.size else np.zeros((0, 2), np.int64)
    got_u, got_v = distinct_pairs(cp.asarray(u), cp.asarray(v), cp.asarray(perm), n, directed)
    assert got_u.dtype == np.int32 and got_v.dtype == np.int32
    np.testing.assert_array_equal(got_u.get(), pairs[:, 0])
    np.testing.assert_array_equal(got_v.get(), pairs[:, 1])


@pytest.mark.parametrize("directed", [False, True])
def test_rmat_on_the_device_equals_the_plain_cupy_steps(cp, directed):
    """The fused kernels give the edges the plain CuPy steps give from the same stream."""
    from hpgraph.generators import _Rng, rmat_edges

    scale, ef, seed = 12, 8, 3
    el = rmat_edges(scale, ef, seed=seed, directed=directed, backend="gpu")
    rng = _Rng(cp, seed)
    n, m = 1 << scale, ef << scale
    u, v = cp.zeros(m, np.int32), cp.zeros(m, np.int32)
    fa, fab, fabc = np.float32(0.57), np.float32(0.76), np.float32(0.95)
    for level in range(scale):
        r = rng.random(m, dtype=np.float32)
        row = r >= fab
        col = (r >= fa) ^ (r >= fabc) ^ row
        u |= row.astype(np.int32) << level
        v |= col.astype(np.int32) << level
    perm = rng.permutation(n).astype(np.int32)
    u, v = perm[u], perm[v]
    keep = u != v
    u, v = u[keep], v[keep]
    if not directed:
        u, v = cp.minimum(u, v), cp.maximum(u, v)
    key = cp.unique(u.astype(np.int64) * n + v)
    np.testing.assert_array_equal(el.src.get(), (key // n).get())
    np.testing.assert_array_equal(el.dst.get(), (key % n).get())
