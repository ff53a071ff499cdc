"""User vertex programs on partitioned graphs (hpgraph.distributed.run): the example programs
against SciPy, equal to hp.run's results, and the features it refuses."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph import distributed as hpd

from .conftest import CASES

# programs importable by the workers (pickled by reference; their source is read there)
from examples.bfs import UNREACHED, BFSDepth  # noqa: E402
from examples.pagerank import PageRank  # noqa: E402
from examples.sssp import SSSP64  # noqa: E402


@pytest.mark.parametrize("name", ["components-2-u", "loops-dups-d", "grid-6x5-zero-weights",
                                  "rmat-1-s6-e4-d", "star-directed-inward"])
def test_example_programs(cluster, name):
    case = next(c for c in CASES.graph_cases() if c.name == name)
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(cluster, G)
    A = CASES.to_scipy(case)
    out, info = hpd.run(dg, SSSP64, source=0, return_info=True)
    ref = CASES.sssp_reference(case, [0])
    np.testing.assert_array_equal(out["dist"], ref)
    single = hp.run(SSSP64, G, backend="cpu", source=0)
    np.testing.assert_array_equal(out["dist"], single.dist)
    assert info.iterations == single.supersteps
    depth = hpd.run(dg, BFSDepth, source=0)["depth"]
    hops = csg.shortest_path(A, unweighted=True, indices=[0])[0]
    reached = depth != UNREACHED
    np.testing.assert_array_equal(reached, np.isfinite(hops))
    np.testing.assert_array_equal(depth[reached], hops[np.isfinite(hops)])


def test_pagerank_program_with_tolerance(cluster2):
    """gather_from="all", a tolerance and apply_to="all" (every vertex updated each superstep);
    out-degrees come from the whole graph, so the program's init is given them."""

    G = CASES.to_graph(next(c for c in CASES.graph_cases() if c.name == "rmat-2-s6-e8-u"), "cpu")
    dg = hpd.DistributedGraph(cluster2, G)
    out = hpd.run(dg, PageRankGivenDegrees, outdeg=np.asarray(G.out_degree, np.float64))
    single = hp.run(PageRankGivenDegrees, G, backend="cpu",
                    outdeg=np.asarray(G.out_degree, np.float64))
    np.testing.assert_allclose(out["rank"], single.rank, rtol=1e-12)


class PageRankGivenDegrees(PageRank):
    """examples.pagerank.PageRank with the out-degrees passed in (a rank's init sees only its
    own in-edges)."""

    def init(self, graph, outdeg=None):
        n = graph.num_vertices
        self.teleport = (1.0 - self.damping) / n
        return {"rank": np.full(n, 1.0 / n), "outdeg": outdeg}


def test_refused_programs(cluster2):
    dg = hpd.DistributedGraph(cluster2, hp.Graph.from_edges([0], [1]))

    class Out(SSSP64):
        edges = "out"

    class Prio(SSSP64):
        priority = "dist"

    with pytest.raises(NotImplementedError, match="edges='out'"):
        hpd.run(dg, Out)
    with pytest.raises(NotImplementedError, match="priority"):
        hpd.run(dg, Prio)
    with pytest.raises(hp.exceptions.InvalidValue, match="VertexProgram"):
        hpd.run(dg, object)


def test_program_then_drop_in_on_one_partition(cluster2):
    """A vertex program and the one-partition drop-ins keep separate graphs on the worker (the
    program's is the directed in-edge graph, the drop-ins' the graph itself)."""
    case = next(c for c in CASES.graph_cases() if c.name == "components-2-u")
    G = CASES.to_graph(case, "cpu")
    dg = hpd.DistributedGraph(cluster2, G, num_partitions=1)
    A = CASES.to_scipy(case)
    hops = csg.shortest_path(A, unweighted=True, indices=[0])[0]
    want = np.where(np.isinf(hops), -1, hops)
    for _ in range(2):   # program first, then the drop-in, then both again
        np.testing.assert_array_equal(hpd.run(dg, SSSP64, source=0)["dist"], CASES.sssp_reference(case, [0]))
        np.testing.assert_array_equal(hpd.bfs(dg, 0), want)
    part = cluster2.client.gather(dg.futures)[0]        # what the worker kept for the drop-ins
    assert part.graph().directed is False
