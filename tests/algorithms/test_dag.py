"""Topological generations and order against networkx, both backends: the directed cases as
they are (mostly cyclic) and made acyclic (only the edges that go forward in a random vertex
order, so that the order is not the id order)."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


def _acyclic(case, cases):
    """The case with only the edges ``u -> v`` where ``u`` comes before ``v`` in a random
    permutation (a DAG whose topological order is not the id order)."""
    rank = np.random.default_rng(case.n).permutation(case.n)
    keep = rank[case.src] < rank[case.dst]
    w = None if case.weights is None else case.weights[keep]
    return cases.GraphCase(case.name + "-dag", case.src[keep], case.dst[keep], w, case.n, True)


def _nx_generations(H):
    """networkx's generations as sets, and the nodes it could not place (cycles)."""
    gens = []
    try:
        for g in nx.topological_generations(H):
            gens.append(set(g))
    except nx.NetworkXUnfeasible:
        pass
    placed = set().union(*gens) if gens else set()
    return gens, set(H) - placed


def _check_generations(case, backend_name, cases):
    count, gen = hp.topological_generations(cases.to_graph(case, backend_name),
                                            backend=backend_name)
    gen = cases.host(gen)
    assert gen.dtype == np.int32 and gen.shape == (case.n,)
    want, stuck = _nx_generations(cases.to_networkx(case))
    assert count == len(want)
    assert [set(np.flatnonzero(gen == k).tolist()) for k in range(count)] == want
    assert set(np.flatnonzero(gen == -1).tolist()) == stuck
    return gen, not stuck


@pytest.mark.cases(directed=True)
def test_generations_match_networkx(graph_case, backend_name, cases):
    _check_generations(graph_case, backend_name, cases)


@pytest.mark.cases(directed=True)
def test_generations_and_order_of_dags(graph_case, backend_name, cases):
    case = _acyclic(graph_case, cases)
    gen, acyclic = _check_generations(case, backend_name, cases)
    assert acyclic == nx.is_directed_acyclic_graph(cases.to_networkx(case)) is True
    order = cases.host(hp.topological_sort(cases.to_graph(case, backend_name),
                                           backend=backend_name))
    assert order.dtype == np.int64
    # vertices by generation, ids increasing within a generation
    want = sorted(range(case.n), key=lambda v: (gen[v], v))
    assert order.tolist() == want
    pos = np.empty(case.n, dtype=np.int64)
    pos[order] = np.arange(case.n)
    assert np.all(pos[case.src] < pos[case.dst])


def test_small_dag_exact():
    G = hp.Graph.from_edges([0, 0, 1, 3, 5], [1, 2, 2, 4, 0], num_vertices=6, backend="cpu")
    count, gen = hp.topological_generations(G, backend="cpu")
    assert count == 4
    assert gen.tolist() == [1, 2, 3, 0, 1, 0]
    assert hp.topological_sort(G, backend="cpu").tolist() == [3, 5, 0, 4, 1, 2]


def test_cycle_and_self_loop():
    # 0 -> 1 -> 2 -> 1 (a cycle), 3 -> 0, 4 with a self-loop, 5 alone
    G = hp.Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 1, 0, 4], num_vertices=6, backend="cpu")
    count, gen = hp.topological_generations(G, backend="cpu")
    assert count == 2
    assert gen.tolist() == [1, -1, -1, 0, -1, 0]
    with pytest.raises(InvalidValue, match="cycle"):
        hp.topological_sort(G, backend="cpu")


def test_empty_and_undirected():
    G = hp.Graph.from_edges([], [], num_vertices=0, backend="cpu")
    count, gen = hp.topological_generations(G, backend="cpu")
    assert count == 0 and gen.shape == (0,)
    assert hp.topological_sort(G, backend="cpu").shape == (0,)
    U = hp.Graph.from_edges([0], [1], num_vertices=2, directed=False, backend="cpu")
    for f in (hp.topological_generations, hp.topological_sort):
        with pytest.raises(InvalidValue, match="directed"):
            f(U, backend="cpu")


@pytest.mark.gpu
@pytest.mark.cases(directed=True)
def test_gpu_equals_cpu(graph_case, cases):
    G = cases.to_graph(graph_case, "cpu")
    kc, gc = hp.topological_generations(G, backend="cpu")
    kg, gg = hp.topological_generations(G.to_device(), backend="gpu")
    assert kc == kg
    np.testing.assert_array_equal(cases.host(gg), gc)
