"""hpgraph.labels: renumbering vertex ids of any kind and mapping results back.

Oracle: plain Python (sorted(set(...)), dict look-ups) and NumPy.
"""

import sys

import numpy as np
import pytest

from hpgraph.exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidGraph, InvalidValue, \
    VertexNotFound
from hpgraph.labels import VertexLabels, renumber


def _random_words(rng, k, length=6):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789_é"))
    return ["".join(rng.choice(letters, size=rng.integers(1, length + 1))) for _ in range(k)]


def _check_renumber(src, dst, vertices=None):
    s_ids, d_ids, labels = renumber(src, dst, vertices)
    everything = list(src) + list(dst) + ([] if vertices is None else list(vertices))
    expected = sorted(set(everything))
    assert list(labels) == expected
    index = {v: i for i, v in enumerate(expected)}
    assert s_ids.dtype == np.int64 and d_ids.dtype == np.int64
    assert s_ids.tolist() == [index[v] for v in src]
    assert d_ids.tolist() == [index[v] for v in dst]
    return labels


@pytest.mark.parametrize("seed", range(4))
def test_string_ids_renumber_to_sorted_labels(seed):
    rng = np.random.default_rng(seed)
    words = _random_words(rng, 40)
    m = int(rng.integers(0, 200))
    src = [words[i] for i in rng.integers(0, len(words), m)]
    dst = [words[i] for i in rng.integers(0, len(words), m)]
    labels = _check_renumber(np.array(src, dtype=object), np.array(dst, dtype=object),
                             vertices=np.array(["zz-isolated", words[0]], dtype=object))
    assert "zz-isolated" in labels


@pytest.mark.parametrize("seed", range(3))
def test_sparse_integer_ids(seed):
    rng = np.random.default_rng(seed)
    pool = rng.integers(-2**62, 2**62, size=30)
    src = pool[rng.integers(0, 30, 100)]
    # seed 2: an int32 column beside an int64 one
    dst = pool[rng.integers(0, 30, 100)] if seed != 2 else rng.integers(-5, 5, 100).astype(np.int32)
    labels = _check_renumber(src, dst)
    assert labels.dtype == np.int64


def test_dense_ids_keep_their_numbers():
    src = np.array([3, 0, 2, 1, 1])
    dst = np.array([0, 4, 4, 2, 3])
    s_ids, d_ids, labels = renumber(src, dst)
    np.testing.assert_array_equal(s_ids, src)
    np.testing.assert_array_equal(d_ids, dst)
    assert list(labels) == [0, 1, 2, 3, 4]


def test_uint64_ids_beyond_int64():
    src = np.array([2**64 - 1, 5], dtype=np.uint64)
    dst = np.array([7, 2**63], dtype=np.uint64)
    labels = _check_renumber(src, dst)
    assert labels.dtype == np.uint64
    assert labels.to_ids(2**64 - 1) == 3


def test_empty_input():
    s, d, labels = renumber(np.array([], np.int64), np.array([], np.int64))
    assert s.shape == (0,) and d.shape == (0,) and len(labels) == 0


def test_caller_arrays_not_modified():
    src = np.array(["b", "a"], dtype=object)
    dst = np.array(["c", "a"], dtype=object)
    before = (src.copy(), dst.copy())
    renumber(src, dst)
    np.testing.assert_array_equal(src, before[0])
    np.testing.assert_array_equal(dst, before[1])


def test_without_pandas_same_result(monkeypatch):
    rng = np.random.default_rng(7)
    words = _random_words(rng, 20)
    src = np.array([words[i] for i in rng.integers(0, 20, 50)], dtype=object)
    dst = np.array([words[i] for i in rng.integers(0, 20, 50)], dtype=object)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    _check_renumber(src, dst)
    _check_renumber(np.array([10, -3, 10**15]), np.array([7, 7, -3]))


@pytest.mark.parametrize("src, dst, err, words", [
    (np.array(["a", None], dtype=object), np.array(["b", "c"], dtype=object), InvalidGraph, "src[1]"),
    (np.array([1.0, np.nan]), np.array([2.0, 3.0]), InvalidGraph, "NaN"),
    (np.array([1, "a"], dtype=object), np.array([2, 3], dtype=object), DomainMismatch, "mixed"),
    (np.array([1, 2]), np.array(["a", "b"], dtype=object), DomainMismatch, "one kind"),
    (np.array([True, False]), np.array([True, True]), DomainMismatch, "booleans"),
    (np.array([1, 2]), np.array([1, 2, 3]), DimensionMismatch, "same length"),
])
def test_bad_ids(src, dst, err, words):
    with pytest.raises(err, match=words.replace("[", r"\[").replace("]", r"\]")):
        renumber(src, dst)


def test_to_ids_and_to_labels():
    labels = VertexLabels(["ant", "bee", "cat"])
    assert labels.to_ids("cat") == 2
    np.testing.assert_array_equal(labels.to_ids(["cat", "ant", "ant"]), [2, 0, 0])
    np.testing.assert_array_equal(labels.to_ids(np.array([["bee"], ["cat"]])), [[1], [2]])
    assert labels.to_labels(1) == "bee"
    assert labels.to_labels([2, 0]).tolist() == ["cat", "ant"]
    assert labels.to_labels(np.array([2, -1]), missing=None).tolist() == ["cat", None]
    assert labels.to_labels(np.array([], np.int64)).shape == (0,)
    assert labels.to_ids([]).shape == (0,)
    ints = VertexLabels([5, 10, 1000])
    out = ints.to_labels(np.array([0, -1, 2]), missing=-1)
    assert out.dtype == np.int64 and out.tolist() == [5, -1, 1000]
    out = ints.to_labels(np.array([0, -1]), missing=None)
    assert out.tolist() == [5, None]


def test_to_ids_errors():
    labels = VertexLabels(["ant", "bee", "cat"])
    with pytest.raises(VertexNotFound, match="'dog' is not a vertex"):
        labels.to_ids(["ant", "dog"])
    with pytest.raises(KeyError):
        labels.to_ids("zebra")
    with pytest.raises(DomainMismatch, match="integers"):
        VertexLabels([1, 2, 3]).to_ids(["a"])
    assert "bee" in labels and "dog" not in labels and 3 not in labels


def test_to_labels_errors():
    labels = VertexLabels([1, 2, 3])
    with pytest.raises(IndexOutOfBound, match="id 3 is out of range"):
        labels.to_labels([0, 3])
    with pytest.raises(IndexOutOfBound, match="missing="):
        labels.to_labels([-1])
    with pytest.raises(IndexOutOfBound):
        labels.to_labels([5], missing=None)
    with pytest.raises(DomainMismatch, match="integers"):
        labels.to_labels([0.5])


@pytest.mark.parametrize("values, err", [
    ([2, 1], InvalidValue), ([1, 1], InvalidValue), ([[1, 2]], InvalidValue), ([1, "a"], DomainMismatch),
])
def test_vertex_labels_validates(values, err):
    with pytest.raises(err):
        VertexLabels(np.array(values, dtype=object) if err is DomainMismatch else values)


def test_sequence_behaviour_and_read_only():
    src = np.array([10, 20, 30])
    labels = VertexLabels(src)
    src[2] = 0  # the labels hold a copy
    assert len(labels) == 3 and list(labels) == [10, 20, 30] and labels[-1] == 30 and labels[:2] == [10, 20]
    assert type(labels[0]) is int
    with pytest.raises(ValueError):
        labels.values[0] = 5
    assert "n=3" in repr(labels)


def test_frame():
    pd = pytest.importorskip("pandas")
    labels = VertexLabels(["x", "y"])
    df = labels.frame(rank=np.array([0.25, 0.75]))
    assert list(df.columns) == ["vertex", "rank"]
    assert df["vertex"].tolist() == ["x", "y"] and df["rank"].tolist() == [0.25, 0.75]
    assert isinstance(df, pd.DataFrame)
    with pytest.raises(DimensionMismatch, match="'rank'"):
        labels.frame(rank=np.zeros(3))
    with pytest.raises(InvalidValue):
        labels.frame(vertex=np.zeros(2))
