"""The generated engine kernels compile with NVRTC (no GPU needed: runs in CI).

Every example program, on weighted and unweighted graphs, with int32 and int64 indices, and
every monoid atomic form (native add/min/max/or/and, the CAS loop, none) is compiled to PTX.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import hpgraph as hp
from hpgraph import backend, program
from hpgraph.engine import codegen
from hpgraph.exceptions import DeviceUnavailable

from examples.bfs import BFSDepth
from examples.out_degree import OutDegree, WeightedOutDegree
from examples.pagerank import PageRank
from examples.sssp import SSSP, SSSP64
from examples.widest_path import MinLabelBelow, WidestPath


def _nvrtc_or_skip():
    try:
        backend.compile_ptx('extern "C" __global__ void k(int* a) { a[0] = 1; }', "probe.cu")
    except DeviceUnavailable as exc:
        pytest.skip(f"NVRTC unavailable: {exc}")


def _graph(weighted, index_dtype="int32"):
    rng = np.random.default_rng(3)
    s, d = rng.integers(0, 40, 200), rng.integers(0, 40, 200)
    w = rng.integers(1, 9, 200).astype(np.float32) if weighted else None
    return hp.Graph.from_edges(s, d, w, num_vertices=41, index_dtype=index_dtype)


class _AllMonoids(hp.VertexProgram):
    properties = {"x": "int32"}
    reduce = "max"

    def gather(src, edge, dst):
        return src.x

    def update(v, y):
        return max(v.x, y)


def _variants():
    out = []
    for red, dt in [("plus", "float32"), ("plus", "int64"), ("plus", "uint32"), ("min", "uint64"),
                    ("max", "int32"), ("any", "uint32"), ("land", "bool"), ("times", "float64"),
                    ("min", "int8"), ("lor", "bool"), ("max", "float32")]:
        cls = type(f"M_{red}_{dt}", (_AllMonoids,), {"reduce": red, "properties": {"x": dt}})
        out.append(pytest.param(cls, id=f"{red}[{dt}]"))
    return out


PROGRAMS = [SSSP, SSSP64, BFSDepth, OutDegree, WeightedOutDegree, PageRank, WidestPath,
            MinLabelBelow]


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("weighted", [True, False], ids=["weighted", "pattern"])
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_examples_compile(prog, weighted, index_dtype):
    _nvrtc_or_skip()
    G = _graph(weighted, index_dtype)
    bp = program.bind(prog, G, {})
    src = codegen.program_source(bp, np.dtype(index_dtype))
    ptx = backend.compile_ptx(src, f"{prog.__name__}.cu")
    for k in codegen.KERNELS:
        assert k in ptx


@pytest.mark.parametrize("prog", _variants())
def test_monoid_atomics_compile(prog):
    _nvrtc_or_skip()
    bp = program.bind(prog, _graph(True), {})
    src = codegen.program_source(bp, np.dtype(np.int32))
    backend.compile_ptx(src, "m.cu")
    mon = bp.monoid
    if mon.atomic is None:
        assert "__trap" in src
    elif mon.atomic == "cas":
        assert "atomicCAS" in src or "signbit" in src


def test_atomic_forms():
    from hpgraph.ops import lookup_monoid

    assert "atomicAdd(p, v)" in codegen.atomic_body(lookup_monoid("plus", np.float32))
    assert "atomicMin((int*)p" in codegen.atomic_body(lookup_monoid("min", np.int32))
    assert "atomicMax((unsigned long long*)p" in codegen.atomic_body(lookup_monoid("max", np.uint64))
    # float min/max: sign-split native atomics, not a CAS loop
    body = codegen.atomic_body(lookup_monoid("min", np.float32))
    assert "atomicMin((int*)p, __float_as_int(v))" in body and "atomicCAS" not in body
    assert "atomicMin((unsigned long long*)p" in codegen.atomic_body(lookup_monoid("max", np.float64))


def test_change_test_matches_numpy():
    # the C change test is the NumPy one: spot-check the text of both forms
    assert codegen.change_test("d", np.dtype(np.float32), None).count("!=") == 2
    assert "fabs" in codegen.change_test("d", np.dtype(np.float32), 1e-3)


@pytest.mark.parametrize("name, idt, want", [
    ("SSSPNearFar", np.int32, {1, 2, 4, 5, 6}),   # packed winners: no witness pass; relaxes
    ("SSSPNearFar", np.int64, {1, 2, 3, 4, 6}),   # no relaxation: hp_push in unit 2
    ("SSSP", np.int32, {1, 2, 4, 5, 6, 7}),
    ("BFSParents", np.int32, {1, 2, 4, 5, 6, 7}),    # `any` on int32: packed; claims
    ("BFSParents", np.int64, {1, 2, 3, 4, 5, 6, 7})])
def test_units_compile_alone(name, idt, want):
    """Each compile unit (``-DHP_UNIT=k``) holds exactly its kernels, and together they hold
    every kernel of the program (the host compiles them in parallel); the block loop (unit 7,
    persistent mode) exists for programs that push and apply to receivers, without priority;
    the witness pass (unit 3) for witnesses whose winners are not packed; a fused program's
    plain push is unit 5 (deferred), apart from its fused push in unit 2."""
    _nvrtc_or_skip()
    import examples.bfs
    import examples.sssp

    prog = getattr(examples.sssp, name, None) or getattr(examples.bfs, name)
    bp = program.bind(prog, _graph(True), {})
    src = codegen.program_source(bp, np.dtype(idt))
    units = codegen.kernel_units(bp, np.dtype(idt))
    assert sorted(n for names in units.values() for n in names) == \
        sorted(codegen.kernel_names(bp, np.dtype(idt)))
    assert set(units) == want
    for u, names in units.items():
        ptx = backend.compile_ptx(src, f"unit{u}.cu", options=codegen.unit_options(u)[1:])
        entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
        assert entries == set(names), (u, entries)
    # the device loop's unit (compiled with these where a run asks for the device loop)
    assert codegen.LOOP_UNIT not in units
    ptx = backend.compile_ptx(src, "loop.cu", options=codegen.unit_options(codegen.LOOP_UNIT)[1:])
    assert set(re.findall(r"\.entry\s+(\w+)", ptx)) == {"hp_loop"}


def test_pack_ok_only_for_min_max_witness_on_32_bit_values_and_ids():
    """Exact winners (value key and sender in one 64-bit word) need a witness, a built-in
    min / max monoid (or ``any`` on integers), a 32-bit y and 32-bit vertex ids."""
    import examples.bfs
    import examples.sssp

    G = _graph(True)
    bp = program.bind(examples.sssp.SSSPNearFar, G, {})
    assert codegen.pack_ok(bp, np.dtype(np.int32))
    assert not codegen.pack_ok(bp, np.dtype(np.int64))
    src = codegen.program_source(bp, np.dtype(np.int32))
    assert "#define HP_PACK 1" in src
    bp = program.bind(examples.sssp.SSSP, G, {})                      # no witness
    assert not codegen.pack_ok(bp, np.dtype(np.int32))
    assert "#define HP_PACK 0" in codegen.program_source(bp, np.dtype(np.int32))
    bp = program.bind(examples.bfs.BFSParents, G, {})                 # any on int32
    assert codegen.pack_ok(bp, np.dtype(np.int32)) and not codegen.pack_ok(bp, np.dtype(np.int64))
    FloatAny = type("FloatAny", (examples.bfs.BFSParents,),            # any on float32: a NaN
                    {"properties": {"depth": ("float32", -1.0), "parent": ("int64", -1)}})
    assert not codegen.pack_ok(program.bind(FloatAny, G, {}), np.dtype(np.int32))
    W64 = type("W64", (examples.sssp.SSSPNearFar,),
               {"properties": {"dist": ("float64", np.inf), "pred": ("int64", -1)},
                "edge_dtype": "float64"})
    assert not codegen.pack_ok(program.bind(W64, G, {}), np.dtype(np.int32))
