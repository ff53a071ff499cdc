"""hpgraph.is_graphical against networkx's own degree-sequence tests (networkx's pure-Python
functions, not the hpgraph backend) on random and hand-made sequences, both backends."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


def _sequences():
    rng = np.random.default_rng(7)
    out = [[], [0], [1], [0, 0, 0], [1, 1], [2, 2], [3, 3, 3, 3], [3, 3, 1, 1], [4, 1, 1, 1, 1],
           [5, 1], [2, -1, 1], [3, 2, 2, 1], [6, 6, 6, 6, 6, 5, 5, 5, 5, 2]]
    for n in (5, 9, 20, 60):
        for _ in range(40):
            out.append(rng.integers(0, n, size=n).tolist())
    # sequences of actual graphs (graphical) and of graphs with one degree changed
    for seed in range(20):
        G = nx.gnp_random_graph(30, 0.2, seed=seed)
        d = [k for _, k in G.degree()]
        out.append(d)
        out.append(d[:-1] + [d[-1] + 1])
        out.append(d[:-1] + [d[-1] + 2])
    return out


SEQUENCES = _sequences()


@pytest.mark.parametrize("kind", ["simple", "multi", "pseudo"])
def test_matches_networkx(kind, backend_name, cases):
    xp = np
    if backend_name == "gpu":
        import cupy as xp
    ref = {"simple": nx.is_valid_degree_sequence_erdos_gallai, "multi": nx.is_multigraphical,
           "pseudo": nx.is_pseudographical}[kind]
    for seq in SEQUENCES:
        if kind == "pseudo" and not seq:
            want = True  # networkx raises ValueError (min of an empty sequence)
        else:
            want = ref(list(seq), backend="networkx")
        got = hp.is_graphical(xp.asarray(seq, dtype=np.int64), kind, backend=backend_name)
        assert got is want, (kind, seq)
        if kind == "simple":
            assert nx.is_valid_degree_sequence_havel_hakimi(list(seq), backend="networkx") is want


def test_exact_answers():
    assert hp.is_graphical([3, 3, 3, 3]) is True          # K4
    assert hp.is_graphical([3, 3, 1, 1]) is False
    assert hp.is_graphical([3, 3, 1, 1], kind="multi") is True
    assert hp.is_graphical([3, 1], kind="multi") is False  # 3 > (3 + 1) / 2
    assert hp.is_graphical([3, 1], kind="pseudo") is True
    assert hp.is_graphical([2, 1], kind="pseudo") is False  # odd sum
    assert hp.is_graphical([1, -1], kind="pseudo") is False
    assert hp.is_graphical([]) is True


def test_bad_arguments():
    with pytest.raises(InvalidValue, match="kind"):
        hp.is_graphical([1, 1], kind="bipartite")
    with pytest.raises(InvalidValue, match="integer"):
        hp.is_graphical([1.5, 1.5])
    with pytest.raises(InvalidValue, match="1-D"):
        hp.is_graphical([[1, 1]])
