"""Structural checks of vertex programs (:mod:`hpgraph.engine.program`).

A malformed ``hp.VertexProgram`` must fail with a typed error whose message names the program
class, the offending attribute and what was expected or given.  These tests pin exactly that:

* class-statement checks (``__init_subclass__``): ``edges``, ``apply_to``, ``gather_from``,
  ``max_iterations``, ``properties``, ``tolerance``, dtypes, ordering attributes, callback
  shapes and ``converged``;
* completeness checks (``validate()`` / ``run()``): empty properties, missing ``reduce`` or
  callbacks, unsupported callback syntax, ``reduce`` resolution and the ``witness`` monoid;
* documented behaviour of valid programs on the CPU backend, compared with hand-computed
  results or SciPy: defaults, ``(function, identity)`` monoids, static-method callbacks,
  ``converged`` hooks, run parameters, and revalidation after a class attribute changes.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

import hpgraph as hp
from hpgraph.engine.program import _checked
from hpgraph.exceptions import InvalidProgram, InvalidValue, UdfTypeError, UnsupportedSyntax

INF = np.inf
# 0 -> 1 -> 3 and 0 -> 2 -> 3 (the first path is shorter); vertex 4 is unreachable
SRC, DST, W = [0, 0, 1, 2], [1, 2, 3, 3], [1.0, 5.0, 1.0, 1.0]


@pytest.fixture
def G():
    return hp.Graph.from_edges(SRC, DST, np.float32(W), num_vertices=5)


def expected_dist(source=0):
    a = csr_matrix((W, (SRC, DST)), shape=(5, 5))
    return dijkstra(a, directed=True, indices=source).astype(np.float32)


# --- callbacks used to assemble programs --------------------------------------------------

def gather_ok(src, edge, dst):
    return src.x + edge


def update_ok(v, y):
    return min(v.x, y)


def gather_default(src, edge, dst=1):
    return src.x


def gather_varargs(src, *rest):
    return src.x


def update_one(v):
    return v.x


def mask_two(v, y):
    return True


def update_loop(v, y):
    total = 0
    for k in range(3):
        total += k
    return total


def mask_loop(v):
    total = 0
    while total < 3:
        total += 1
    return True


def smaller(a, b):
    return a if a < b else b


def make(**attrs):
    """A VertexProgram subclass named ``Prog`` with ``attrs`` (checks run at creation)."""
    return type("Prog", (hp.VertexProgram,), attrs)


def complete(**attrs):
    """``make`` with one float property ``x`` and working gather/update/reduce."""
    base = {"properties": {"x": ("float32", INF)}, "reduce": "min",
            "gather": gather_ok, "update": update_ok}
    return make(**{**base, **attrs})


def raises(exc, fn, *fragments):
    with pytest.raises(exc) as ei:
        fn()
    msg = str(ei.value)
    for f in fragments:
        assert f in msg, f"{f!r} not in {msg!r}"
    return msg


X = {"x": "float32"}
XI = {"x": "int32"}

CLASS_ERRORS = [
    ({"edges": "sideways"}, "Prog.edges must be one of ('in', 'out', 'all'), got 'sideways'"),
    ({"apply_to": "some"}, "Prog.apply_to must be one of ('all', 'received'), got 'some'"),
    ({"gather_from": "none"}, "Prog.gather_from must be one of ('active', 'all'), got 'none'"),
    ({"max_iterations": -1}, "Prog.max_iterations must be a non-negative int or None, got -1"),
    ({"max_iterations": 2.5}, "Prog.max_iterations must be a non-negative int or None, got 2.5"),
    ({"max_iterations": "3"}, "Prog.max_iterations must be a non-negative int or None, got '3'"),
    ({"max_iterations": True}, "Prog.max_iterations must be a non-negative int or None, got True"),
    ({"properties": ["x"]}, "Prog.properties must be a dict {name: dtype}, got list"),
    # the declared object is named, not what attribute access makes of it
    ({"properties": staticmethod(dict)}, "Prog.properties must be a dict {name: dtype}, "
                                         "got staticmethod"),
    ({"properties": {"_x": "int32"}}, "Prog.properties: property name '_x' must be a Python "
                                      "identifier not starting with '_'"),
    ({"properties": {"class": "int32"}}, "property name 'class' must be a Python identifier"),
    ({"properties": {1: "int32"}}, "property name 1 must be a Python identifier"),
    ({"properties": {"x": ("int32", 0, 1)}},
     "Prog.properties['x'] must be a dtype or (dtype, default), got ('int32', 0, 1)"),
    ({"properties": {"x": ("int32", [1, 2])}},
     "Prog.properties['x']: default must be a scalar convertible to int32"),
    ({"properties": {"x": ("float32", "abc")}},
     "Prog.properties['x']: default must be a scalar convertible to float32"),
    ({"properties": {"x": "complex128"}}, "Prog.properties['x']: unsupported dtype 'complex128'"),
    ({"properties": X, "tolerance": -1},
     "Prog.tolerance must be a finite number >= 0 (or a dict of them), got -1"),
    ({"properties": X, "tolerance": True}, "Prog.tolerance must be a finite number >= 0"),
    ({"properties": X, "tolerance": {"x": INF}}, "Prog.tolerance must be a finite number >= 0 "
                                                 "(or a dict of them), got inf"),
    ({"properties": X, "tolerance": {"y": 0.1}},
     "Prog.tolerance names unknown property 'y'; properties are ['x']"),
    ({"y_dtype": "nosuch"}, "Prog.y_dtype: unknown dtype 'nosuch'"),
    ({"edge_dtype": "complex64"}, "Prog.edge_dtype: unsupported dtype 'complex64'"),
    ({"properties": X, "priority": "y"},
     "Prog.priority must name one of its properties ['x'], got 'y'"),
    ({"properties": {"b": "bool"}, "priority": "b"},
     "Prog.priority: property 'b' has dtype bool, which cannot be ordered by buckets; "
     "expected an integer or floating-point property"),
    ({"properties": X, "priority": "x", "gather_from": "all"},
     "Prog.priority needs gather_from='active' (with gather_from='all' every vertex sends "
     "every superstep, so there is nothing to order)"),
    ({"priority_order": "up"}, "Prog.priority_order must be one of ('min', 'max'), got 'up'"),
    ({"properties": XI, "priority": "x", "priority_delta": 0.5},
     "Prog.priority_delta must be a whole number for the integer property 'x', got 0.5"),
    ({"properties": XI, "witness": "y"},
     "Prog.witness must name one of its properties ['x'], got 'y'"),
    ({"properties": X, "witness": "x"},
     "Prog.witness: property 'x' has dtype float32; a witness holds vertex ids, expected an "
     "integer property (e.g. 'int32' or 'int64')"),
    ({"gather": classmethod(gather_ok)},
     "Prog.gather must be a plain function, not a classmethod"),
    ({"update": 3}, "Prog.update must be a function, got int"),
    ({"gather": gather_default}, "Prog.gather: parameters must be plain positional names "
                                 "without defaults, got (src, edge, dst=1)"),
    ({"gather": gather_varargs}, "Prog.gather: parameters must be plain positional names "
                                 "without defaults, got (src, *rest)"),
    ({"update": update_one}, "Prog.update must take (v, y) (optionally after self), "
                             "got update(v)"),
    ({"mask": mask_two}, "Prog.mask must take (v) (optionally after self), got mask(v, y)"),
    ({"converged": 5}, "Prog.converged must be a method converged(self, stats)"),
]


@pytest.mark.parametrize("attrs, message", CLASS_ERRORS,
                         ids=[f"{i}-{next(iter(a))}" for i, (a, _) in enumerate(CLASS_ERRORS)])
def test_class_statement_errors(attrs, message):
    raises(InvalidProgram, lambda: make(**attrs), message)


@pytest.mark.parametrize("delta", [0, -1.0, INF, float("nan"), True, "1"])
def test_priority_delta_must_be_positive_finite_number(delta):
    raises(InvalidProgram, lambda: make(properties=X, priority="x", priority_delta=delta),
           "Prog.priority_delta must be a finite number > 0 or None, got " + repr(delta))


@pytest.mark.parametrize("attrs", [
    {"max_iterations": 0}, {"max_iterations": 5}, {"max_iterations": np.int64(3)},
    {"properties": X, "tolerance": 0}, {"properties": X, "tolerance": {"x": 0.5}},
    {"properties": XI, "priority": "x", "priority_delta": 2},
    {"properties": X, "priority": "x", "priority_delta": 0.5, "priority_order": "max"},
    {"properties": XI, "witness": "x"}, {"y_dtype": "float64", "edge_dtype": int},
    {"gather": staticmethod(gather_ok)},
], ids=lambda a: "-".join(a))
def test_valid_attributes_are_accepted(attrs):
    assert issubclass(make(**attrs), hp.VertexProgram)


def test_documented_defaults():
    P = hp.VertexProgram
    assert (P.edges, P.apply_to, P.gather_from, P.priority_order) == ("in", "all", "active", "min")
    assert P.max_iterations is None and P.tolerance is None and P.witness is None
    assert P.reduce is None and P.priority is None and P.priority_delta is None


# --- completeness: validate() and run() ---------------------------------------------------

NO_CALLBACK = "; a vertex program needs gather(src, edge, dst) and update(v, y)"


@pytest.mark.parametrize("attrs, message", [
    ({"properties": {}}, "Prog.properties is empty: declare at least one property, "
                         "e.g. properties = {'dist': 'float32'}"),
    ({"reduce": None}, "Prog has no reduce: set reduce to a monoid name ('min', 'plus', ...), "
                       "an hp.Monoid, or a (function, identity) pair"),
    ({"gather": None}, "Prog defines no gather(src, edge, dst)" + NO_CALLBACK),
    ({"update": None}, "Prog defines no update(v, y)" + NO_CALLBACK),
], ids=["no-properties", "no-reduce", "no-gather", "no-update"])
def test_incomplete_program(attrs, message):
    P = complete(**attrs)              # fine as an (abstract) class statement
    raises(InvalidProgram, P.validate, message)


@pytest.mark.parametrize("attrs, quoted", [
    ({"update": update_loop}, "for k in range(3)"),
    ({"mask": mask_loop}, "while total < 3"),
], ids=["update", "mask"])
def test_validate_checks_callback_syntax(attrs, quoted):
    P = complete(**attrs)
    raises(UnsupportedSyntax, P.validate, quoted)


@pytest.mark.parametrize("reduce, fragments", [
    (5, ["Prog.reduce: ", "got int"]),
    ("nosuch", ["Prog.reduce: ", "unknown monoid 'nosuch'"]),
    (smaller, ["Prog.reduce is a bare function; give its identity too: "
               "reduce = (func, identity)"]),
    ((smaller,), ["Prog.reduce as a tuple must be (function, identity), got (<function smaller"]),
    ((smaller, INF, 1), ["Prog.reduce as a tuple must be (function, identity), got ("]),
    ((INF, smaller), ["Prog.reduce as a tuple must be (function, identity), got (inf, "]),
    ((smaller, None), ["Prog.reduce: ", "identity"]),
], ids=["int", "unknown-name", "bare-function", "1-tuple", "3-tuple", "swapped", "no-identity"])
def test_reduce_errors(G, reduce, fragments):
    P = complete(reduce=reduce)
    msg = raises(InvalidProgram, lambda: hp.run(P, G, backend="cpu"), *fragments)
    if not callable(reduce):
        assert "bare function" not in msg


def test_reduce_pair_needs_a_plain_function(G):
    # a callable without a __name__ is rejected by the monoid itself, with its own type error
    P = complete(reduce=(functools.partial(smaller), INF))
    raises(UdfTypeError, lambda: hp.run(P, G, backend="cpu"),
           "expected a Python function (lambda or def), got partial")


@pytest.mark.parametrize("reduce, name", [
    ("plus", "plus"),
    (hp.monoid.times, "times"),
    ((smaller, INF), "smaller"),
    ((lambda a, b: a if a < b else b, INF), "reduce"),          # a lambda is called "reduce"
    (hp.Monoid(smaller, INF, name="min"), "min"),                 # user-defined, not built-in
], ids=["plus", "times-object", "def", "lambda", "user-min"])
def test_witness_needs_selecting_builtin_reduce(G, reduce, name):
    P = complete(properties={"x": ("float32", INF), "p": ("int32", -1)}, witness="p",
                 reduce=reduce)
    raises(InvalidProgram, lambda: hp.run(P, G, backend="cpu"),
           "Prog.witness = 'p' needs a selecting reduce (one of ('min', 'max', 'any'): the "
           "winner is the sender whose value the reduction kept); reduce is " + repr(name))


# --- valid programs on the CPU backend ----------------------------------------------------

class SSSP(hp.VertexProgram):
    properties = {"x": ("float32", INF)}
    reduce = "min"
    apply_to = "received"

    def init(self, graph, source=0):
        x = np.full(graph.num_vertices, INF, np.float32)
        x[source] = 0
        return {"x": x}, [source]

    def gather(src, edge, dst):
        return src.x + edge

    def update(v, y):
        return min(v.x, y)


@pytest.mark.parametrize("reduce", [
    (smaller, INF), (lambda a, b: min(a, b), INF), hp.Monoid(smaller, INF),
], ids=["def", "lambda", "Monoid"])
def test_function_identity_reduce_matches_dijkstra(G, reduce):
    P = type("TupleSSSP", (SSSP,), {"reduce": reduce})
    np.testing.assert_array_equal(hp.run(P, G, backend="cpu").x, expected_dist())


def test_staticmethod_callbacks(G):
    class Static(SSSP):
        @staticmethod
        def gather(src, edge, dst):
            return src.x + edge

        @staticmethod
        def update(v, y):
            return min(v.x, y)

        @staticmethod
        def mask(v):
            return True

    np.testing.assert_array_equal(hp.run(Static, G, backend="cpu", source=0).x,
                                  expected_dist())


def test_default_edges_gather_over_in_edges(G):
    # no ``edges`` attribute: distances flow along edge directions (0 reaches 1, 2, 3)
    assert "edges" not in SSSP.__dict__
    np.testing.assert_array_equal(hp.run(SSSP, G, backend="cpu", source=0).x,
                                  [0, 1, 5, 2, INF])


def test_undeclared_defaults_fill_properties(G):
    class Defaults(hp.VertexProgram):
        # 2**53 + 1 is not a float64: the default must be converted to int64 exactly
        properties = {"a": "int32", "b": ("float32", 2.5), "c": ("int64", 2**53 + 1)}
        reduce = "min"
        max_iterations = 0

        def gather(src, edge, dst):
            return src.a

        def update(v, y):
            return {"a": y}

    r = hp.run(Defaults, G, backend="cpu")
    assert r.supersteps == 0
    np.testing.assert_array_equal(r.a, np.zeros(5, np.int32))
    np.testing.assert_array_equal(r.b, np.full(5, 2.5, np.float32))
    np.testing.assert_array_equal(r.c, np.full(5, 9007199254740993, np.int64))


def test_converged_hook_is_accepted_and_called(G):
    class Once(SSSP):
        def converged(self, stats):
            return True

    assert Once.validate() is Once
    r = hp.run(Once, G, backend="cpu", source=0)
    assert r.supersteps == 1 and r.converged
    np.testing.assert_array_equal(r.x, [0, 1, 5, INF, INF])      # one relaxation round


def test_default_init_rejects_run_parameters(G):
    P = complete()
    raises(InvalidValue, lambda: hp.run(P, G, backend="cpu", beta=2, alpha=1),
           "Prog takes no run parameters (its init() is the default); got alpha, beta")


def test_init_with_var_keywords_receives_parameters(G):
    class Kw(SSSP):
        def init(self, graph, **params):
            return SSSP.init(self, graph, source=params["start"])

    np.testing.assert_array_equal(hp.run(Kw, G, backend="cpu", start=2).x,
                                  expected_dist(2))


# --- revalidation and the per-class cache -------------------------------------------------

@pytest.mark.parametrize("attr, value, message", [
    ("properties", {"_x": "float32"}, "property name '_x'"),
    ("edges", "up", "Cls.edges must be one of"),
    ("tolerance", {"x": -1.0}, "Cls.tolerance must be a finite number >= 0"),
    ("reduce", "nosuch", "Cls.reduce: unknown monoid 'nosuch'"),
])
def test_changed_class_attribute_is_rechecked(G, attr, value, message):
    Cls = type("Cls", (SSSP,), {})
    hp.run(Cls, G, backend="cpu")
    setattr(Cls, attr, value)        # bypasses the class-statement check
    raises(InvalidProgram, lambda: hp.run(Cls, G, backend="cpu"), message)


def test_checks_are_cached_while_attributes_are_unchanged():
    Cls = type("Cls", (SSSP,), {})
    first = _checked(Cls)
    assert _checked(Cls) is first
    assert first.init_params == (False, ("self", "graph", "source"))
    Cls.reduce = "max"
    second = _checked(Cls)
    assert second is not first and second.monoid.name == "max"


def test_witness_check_accepts_typed_builtin_monoid():
    # the typed monoid is judged by its built-in parent (hp.monoid.min)
    Cls = complete(properties={"x": ("float32", INF), "p": ("int32", -1)}, witness="p",
                   reduce=hp.monoid.min["float32"])
    assert _checked(Cls).monoid.name == "min"


def test_typed_monoid_reduce_runs(G):
    """A typed monoid stands for its operator (the program's dtypes type it)."""
    P = type("TypedSSSP", (SSSP,), {"reduce": hp.monoid.min["float32"]})
    np.testing.assert_array_equal(hp.run(P, G, backend="cpu").x, expected_dist())


def test_unhashable_attribute_values_are_checked_on_every_call():
    """What cannot be snapshotted (a 0-d array as a property default: unhashable) is not
    cached: the checks run again, and see an in-place change."""
    d = np.array(INF, dtype=np.float32)
    Cls = complete(properties={"x": ("float32", d)})
    first = _checked(Cls)
    assert first.specs[0].default == INF
    assert _checked(Cls) is not first
    d[()] = 2.5
    assert _checked(Cls).specs[0].default == np.float32(2.5)


def test_typed_monoid_without_untyped_parent():
    """A typed monoid stands for its untyped parent; one without a parent is rejected."""
    import dataclasses

    orphan = dataclasses.replace(hp.monoid.min["float32"], parent=None)
    Cls = complete(reduce=orphan)
    raises(InvalidProgram, lambda: _checked(Cls), "Prog.reduce: ",
           " has no untyped monoid; give the monoid itself (for example hp.monoid.min)")


def test_binary_op_reduce_typed_or_not(G):
    """A binary op with a known monoid stands for it, typed (callable) or not; a plain
    function still needs its identity."""
    for red in (hp.binary.min, hp.binary.min["float32"]):
        P = type("BinOpSSSP", (SSSP,), {"reduce": red})
        assert _checked(P).monoid.name == "min"
        np.testing.assert_array_equal(hp.run(P, G, backend="cpu").x, expected_dist())
    raises(InvalidProgram, lambda: _checked(complete(reduce=min)), "Prog.reduce is a bare function")


class _Reach(hp.VertexProgram):
    """Hops from the initial vertices ``sources`` (a list or tuple as given), as a rule."""

    properties = {"hops": ("int32", -1)}
    reduce = "min"
    apply_to = "received"

    def init(self, graph, sources=(0,), start=0):
        return {"hops": hp.Seeded(-1, start)}, sources

    def gather(src, edge, dst):
        return src.hops + 1

    def update(v, y):
        return y if v.hops < 0 else v.hops


@pytest.mark.parametrize("sources, want", [
    ([3, 0, 3], [0, 1, 1, 0, -1]), ((np.int64(2),), [-1, -1, 0, 1, -1]),
    ([], [-1] * 5), ([4, np.uint8(1)], [-1, 0, -1, 1, 0])])
def test_initial_vertices_as_a_short_list(G, sources, want):
    """A short list or tuple of ids (the fast path of the initial frontier): duplicates and
    order do not matter; NumPy integers are ids; the empty list starts nothing."""
    from hpgraph.engine.bind import bind

    r = hp.run(_Reach, G, backend="cpu", sources=sources)
    np.testing.assert_array_equal(r.hops, np.array(want, np.int32))
    ids = bind(_Reach, G, {"sources": sources}).init_active
    assert ids.dtype == np.int64 and ids.tolist() == sorted(set(int(x) for x in sources))


@pytest.mark.parametrize("sources, bad", [([0, 5], 5), ((-1, 7), -1), ([2, 9, -3], 9)])
def test_initial_vertex_out_of_range_names_the_first(G, sources, bad):
    with pytest.raises(hp.exceptions.IndexOutOfBound,
                       match=rf"_Reach\.init: active vertex {bad} is outside \[0, 5\)"):
        hp.run(_Reach, G, backend="cpu", sources=sources)


def test_initial_vertices_as_bools_are_a_mask_not_ids(G):
    """A list of bools is a mask of all vertices, never ids 0 and 1."""
    r = hp.run(_Reach, G, backend="cpu", sources=[False, True, False, False, False])
    np.testing.assert_array_equal(r.hops, np.array([-1, 0, -1, 1, -1], np.int32))
    with pytest.raises(InvalidProgram, match="active bool array has shape"):
        hp.run(_Reach, G, backend="cpu", sources=[True, False])


def test_seeded_values_cast_alike_on_every_call(G):
    """Rules are cast once and reused (bind's seed cache), keyed by value and type: a value
    that casts differs from one that does not, and a refused value is refused every time."""
    from hpgraph.engine.bind import bind

    for _ in range(2):
        s = bind(_Reach, G, {"start": 2.9}).init_props["hops"]
        assert (s.default, s.at_active) == (-1, 2) and s.at_active.dtype == np.int32
        s = bind(_Reach, G, {"start": 3}).init_props["hops"]
        assert s.at_active == 3 and s.at_active.dtype == np.int32
        with pytest.raises(InvalidProgram, match="Seeded at_active"):
            bind(_Reach, G, {"start": "x"})
        with pytest.raises(InvalidProgram, match="Seeded at_active"):
            bind(_Reach, G, {"start": [1, 2]})
        with pytest.raises(InvalidProgram, match=r"Seeded at_active 1099511627776 is not a "
                                                 r"scalar convertible to int32"):
            bind(_Reach, G, {"start": 2**40})
    np.testing.assert_array_equal(hp.run(_Reach, G, backend="cpu", start=4).hops,
                                  np.array([4, 5, 5, 6, -1], np.int32))


def test_seeded_cache_keeps_the_sign_of_zero(G):
    """0.0 and -0.0 are equal (and hash alike) but are different starts."""
    from hpgraph.engine.bind import bind

    P = type("SignedStart", (_Reach,), {"properties": {"hops": ("float32", -1.0)}})
    for x in (0.0, -0.0, np.float32(0.0), np.float32(-0.0), 0.0):
        s = bind(P, G, {"start": x}).init_props["hops"]
        assert np.signbit(s.at_active) == np.signbit(x) and s.at_active.dtype == np.float32


def _fresh_cast(prog, G, x):
    """bind's cast of start ``x`` with its seed cache emptied first: (value, sign) or the
    exception's type."""
    from hpgraph.engine import bind as bind_mod

    bind_mod._SEEDS.clear()
    try:
        s = bind_mod.bind(prog, G, {"start": x}).init_props["hops"]
    except InvalidProgram:
        return InvalidProgram
    return (float(s.at_active), bool(np.signbit(s.at_active)))


@pytest.mark.filterwarnings("ignore:Casting complex values:numpy.exceptions.ComplexWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_seeded_cache_tells_equal_non_scalars_apart(G):
    """Values that compare equal but cast differently -- tuples or complex numbers holding 0.0
    or -0.0, an int or a float beyond the dtype -- are never served another's cast."""
    from hpgraph.engine.bind import bind

    P = type("SignedStart", (_Reach,), {"properties": {"hops": ("float32", -1.0)}})
    for prog, seq in ((P, [(0.0,), (-0.0,), complex(0.0), complex(-0.0, 0.0)]),
                      (_Reach, [(2.0**40,), (2**40,), (3.0,), (3,)])):
        want = [_fresh_cast(prog, G, x) for x in seq]
        for x, w in zip(seq * 2, want * 2):     # warm cache: each after the others
            try:
                s = bind(prog, G, {"start": x}).init_props["hops"]
                got = (float(s.at_active), bool(np.signbit(s.at_active)))
            except InvalidProgram:
                got = InvalidProgram
            assert got == w, x


@pytest.mark.parametrize("big", [2**63, 2**64, 2**70])
def test_initial_vertex_beyond_int64_is_out_of_range(G, big):
    with pytest.raises(hp.exceptions.IndexOutOfBound, match=f"active vertex {big} is outside"):
        hp.run(_Reach, G, backend="cpu", sources=[0, big])


@pytest.mark.parametrize("value", [2**40, "x"])
def test_scalar_start_out_of_the_dtype_is_a_typed_error(G, value):
    """A scalar init value the property's dtype cannot hold: InvalidProgram naming both."""
    P = type("ScalarStart", (_Reach,), {
        "init": lambda self, graph, v=0: ({"hops": v}, [0])})
    with pytest.raises(InvalidProgram, match=r"ScalarStart\.init: property 'hops' value .* is "
                                             r"not a scalar convertible to int32"):
        hp.run(P, G, backend="cpu", v=value)
