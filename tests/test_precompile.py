"""The shipped compiled kernels (hpgraph.precompile): recording, cubins, the manifest, filing
them under CuPy's own cache keys and hpgraph's (NVRTC only: these run without a GPU) and the
marker."""

from __future__ import annotations

import base64
import gzip
import json
import os

import pytest

import hpgraph as hp
from hpgraph import backend, kernel_cache, precompile
from hpgraph.exceptions import DeviceUnavailable

ARCH = "90"
SRC_A = 'extern "C" __global__ void ahead_a(int* a) { a[threadIdx.x] = 7; }'
SRC_B = 'extern "C" __global__ void ahead_b(float* a) { a[threadIdx.x] *= 2.0f; }'
HP_SRC = 'extern "C" __global__ void ahead_h(int* a) { a[0] = HP_V; }'
HP_OPTIONS = ("-DHP_V=3",)
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def cupy_cache(tmp_path, monkeypatch):
    """Empty CuPy and hpgraph kernel caches for this process (NVRTC needed); the CuPy one."""
    pytest.importorskip("cupy")
    try:
        kernel_cache._nvrtc()
    except DeviceUnavailable as exc:
        pytest.skip(f"NVRTC unavailable: {exc}")
    from cupy.cuda import _compiler_cache, compiler

    # CuPy picks its cache directory when it is imported: point this process's at the test's
    monkeypatch.setattr(compiler, "_kernel_cache_backend",
                        _compiler_cache.DiskKernelCacheBackend(str(tmp_path / "cupy")))
    monkeypatch.setattr(precompile, "_done", set())     # markers this process has seen
    with hp.config.set(kernel_cache=str(tmp_path / "hp")):
        yield tmp_path / "cupy"


def _files(path, pattern="*.cubin"):
    return sorted(p.name for p in path.glob(pattern))


def _record(sources, hpgraph_module=False):
    """Entries of kernels built the way CuPy builds its own (``core.compile_with_cache``), and
    with ``hpgraph_module`` of one module compiled by hpgraph's kernel cache."""
    from cupy._core import core

    with precompile.record(ARCH) as entries:
        for src in sources:
            try:
                core.compile_with_cache(src, arch=ARCH)
            except Exception:  # without a GPU CuPy's own path stops at the device query
                pass
        if hpgraph_module:
            kernel_cache.cubin(HP_SRC, HP_OPTIONS, "sm_" + ARCH)
    return entries


def _hp_path():
    return kernel_cache.cache_dir() / (kernel_cache._key(HP_SRC, HP_OPTIONS, "sm_" + ARCH)
                                       + ".cubin")


def _nvrtc_calls(monkeypatch):
    from cupy.cuda import compiler

    calls = []
    orig = compiler._compile_using_nvrtc_no_warning
    monkeypatch.setattr(compiler, "_compile_using_nvrtc_no_warning",
                        lambda *a, **k: calls.append(1) or orig(*a, **k))
    return calls


def test_record_keeps_first_use_order_without_repeats_or_local_paths(cupy_cache):
    entries = _record([SRC_A, SRC_B, SRC_A], hpgraph_module=True)
    assert [e["kind"] for e in entries] == ["cupy", "cupy", "hpgraph"]
    assert SRC_A in entries[0]["source"] and SRC_B in entries[1]["source"]
    assert entries[2] == {"kind": "hpgraph", "source": HP_SRC, "options": list(HP_OPTIONS)}
    env_options, _ = precompile.cupy_environment(ARCH)
    for e in entries[:2]:
        # CuPy's include directories and headers are placeholders, not this machine's paths
        assert e["extra_source"] == "env"
        assert e["options"] == [precompile._ENV + str(i) for i in range(len(env_options))]
        assert (e["backend"], e["cooperative"], e["name_expressions"], e["jitify"]) == \
            ("nvrtc", False, None, False)


def test_build_cubins_compiles_without_writing_the_cache(cupy_cache):
    entries = _record([SRC_A, SRC_B], hpgraph_module=True)
    bad = dict(entries[0], source=entries[0]["source"] + "\nthis is not CUDA")
    bad_hp = dict(entries[2], source="this is not CUDA")
    cubins = precompile.build_cubins([entries[0], bad, entries[1], entries[2], bad_hp], ARCH)
    assert [c is not None for c in cubins] == [True, False, True, True, False]
    assert all(c[:4] == b"\x7fELF" for c in (cubins[0], cubins[2], cubins[3]))
    assert cubins[0] != cubins[2]
    assert _files(cupy_cache) == [] and not _hp_path().exists()
    assert "CUPY_CACHE_IN_MEMORY" not in os.environ


def _doc(entries, arch=ARCH):
    cubins = precompile.build_cubins(entries, arch)
    return {"entries": entries, "cupy_env_size": precompile._env_size(entries),
            "cubins": {arch: [base64.b64encode(c).decode() for c in cubins]}}


def _cupy_lookup(src, monkeypatch):
    """The names CuPy's own ``core.compile_with_cache`` looks up for ``src`` (sm_90, no
    device: the -arch option given, modules not loaded); raises if it had to compile."""
    from cupy._core import core
    from cupy.cuda import compiler

    names = []
    backend = compiler._kernel_cache_backend
    orig_load = backend.load
    monkeypatch.setattr(backend, "load", lambda name: names.append(name) or orig_load(name))
    monkeypatch.setattr(compiler, "_get_arch_for_options_for_nvrtc",
                        lambda arch=None: ("-arch=sm_90", "cubin"))
    monkeypatch.setattr(compiler, "function", precompile._StoreOnly)

    def no_nvrtc(*a, **k):
        raise AssertionError("CuPy compiled: the filed cubin was not under its key")

    monkeypatch.setattr(compiler, "_compile_using_nvrtc_no_warning", no_nvrtc)
    try:
        core.compile_with_cache(src, arch=ARCH)
    except AssertionError:
        raise
    except Exception:  # after the look-up CuPy asks the stand-in module for more
        pass
    return names


def test_install_files_cubins_under_cupys_own_keys(cupy_cache, monkeypatch):
    entries = _record([SRC_A, SRC_B], hpgraph_module=True)
    doc = _doc(entries)
    calls = _nvrtc_calls(monkeypatch)
    hp_calls = []
    orig_cubin = kernel_cache.cubin
    monkeypatch.setattr(kernel_cache, "cubin", lambda *a: hp_calls.append(1) or orig_cubin(*a))
    counts = precompile.install(doc, ARCH)
    assert calls == [] and hp_calls == []   # nothing compiled: the shipped cubins were filed
    assert counts == {"stored": 3, "cached": 0, "missing": 0, "failed": []}
    # hpgraph's look-up finds its module where its cache looks (the same bytes)
    assert _hp_path().read_bytes() == base64.b64decode(doc["cubins"][ARCH][2])
    assert len(_files(cupy_cache)) == 2
    again = precompile.install(doc, ARCH)
    assert (again["stored"], again["cached"]) == (0, 3)
    # an entry without a cubin for the architecture is left to compile on first use
    doc["cubins"][ARCH][1] = None
    assert precompile.install(doc, ARCH)["missing"] == 1
    assert precompile.install(doc, "80")["missing"] == 3
    # CuPy's own look-up of a recorded kernel finds it filed (its key, not ours)
    names = _cupy_lookup(SRC_A, monkeypatch)
    assert names and all(n in _files(cupy_cache) for n in names)


def test_install_skips_cupy_kernels_of_another_environment(cupy_cache):
    """CuPy entries recorded with another number of CuPy's own options (an installation
    without a CUDA include directory, say) would be filed under keys CuPy never looks up:
    they are left to compile; hpgraph's modules are still filed."""
    entries = _record([SRC_A], hpgraph_module=True)
    doc = _doc(entries)
    doc["cupy_env_size"] += 1
    counts = precompile.install(doc, ARCH)
    assert (counts["stored"], counts["missing"]) == (1, 1)
    assert _files(cupy_cache) == [] and _hp_path().exists()


def test_manifest_round_trip_is_deterministic(cupy_cache, tmp_path):
    entries = _record([SRC_A])
    cubins = {ARCH: precompile.build_cubins(entries, ARCH)}
    p1 = precompile.write_manifest(entries, cubins, tmp_path / "m1.json.gz")
    p2 = precompile.write_manifest(entries, cubins, tmp_path / "m2.json.gz")
    assert p1.read_bytes() == p2.read_bytes()
    data, doc = precompile.read_manifest(p1)
    assert doc["entries"] == entries and data == p1.read_bytes()
    assert base64.b64decode(doc["cubins"][ARCH][0]) == cubins[ARCH][0]
    doc["cupy"] = "0.0.0"  # another CuPy's manifest is not used
    (tmp_path / "other.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert precompile.read_manifest(tmp_path / "other.json.gz") is None
    assert precompile.read_manifest(tmp_path / "missing.json.gz") is None


class CUDADriverError(Exception):
    """Named as CuPy's driver errors are."""


def _device_90(monkeypatch, refusal=None):
    """CuPy sees a compute-capability-9.0 device whose driver loads cubins, or refuses them
    with a driver error whose text holds ``refusal``."""
    from cupy.cuda import compiler, function, runtime

    monkeypatch.setattr(compiler, "_get_arch", lambda: ARCH)
    monkeypatch.setattr(compiler, "_get_arch_for_options_for_nvrtc",
                        lambda arch=None: (f"-arch=sm_{arch}", "cubin"))
    monkeypatch.setattr(runtime, "driverGetVersion", lambda: 12090)

    class Module:
        def load(self, cubin):
            if refusal:
                raise CUDADriverError(refusal)

    monkeypatch.setattr(function, "Module", Module)


def test_ensure_files_once_then_leaves_a_marker(cupy_cache, tmp_path, monkeypatch):
    entries = _record([SRC_A, SRC_B], hpgraph_module=True)
    manifest = precompile.write_manifest(entries, {ARCH: precompile.build_cubins(entries, ARCH)},
                                         tmp_path / "m.json.gz")
    _device_90(monkeypatch)
    with hp.config.set(precompile=False):
        assert precompile.ensure(manifest) is None
    assert precompile.ensure(tmp_path / "none.json.gz") is None
    report = precompile.ensure(manifest)
    assert (report["stored"], report["cached"], report["missing"], report["error"]) == \
        (3, 0, 0, None)
    assert len(_files(cupy_cache)) == 2 and _hp_path().exists()
    markers = _files(cupy_cache, "hpgraph-precompiled-*")
    assert len(markers) == 1
    assert precompile.ensure(manifest) is None                      # this process: no work
    precompile._done.clear()                                        # a new process
    assert precompile.ensure(manifest) is None                      # the marker: no work
    (cupy_cache / markers[0]).unlink()                              # CuPy's cache emptied
    precompile._done.clear()
    again = precompile.ensure(manifest)
    assert (again["stored"], again["cached"]) == (0, 3)
    with hp.config.set(kernel_cache=str(tmp_path / "hp2")):         # another hpgraph cache
        third = precompile.ensure(manifest)
    assert (third["stored"], third["cached"]) == (1, 2)
    monkeypatch.setattr(cupy_runtime(), "driverGetVersion", lambda: 13000)   # new driver
    assert precompile.ensure(manifest)["cached"] == 3
    for var in ("CUPY_CUDA_COMPILE_WITH_DEBUG", "CUPY_CACHE_IN_MEMORY"):
        # CuPy would key (or keep) these kernels otherwise: nothing is filed
        monkeypatch.setenv(var, "1")
        precompile._done.clear()
        for f in cupy_cache.glob("hpgraph-precompiled-*"):
            f.unlink()
        assert precompile.ensure(manifest) is None
        monkeypatch.delenv(var)


def cupy_runtime():
    from cupy.cuda import runtime

    return runtime


def test_damaged_manifest_is_ignored(cupy_cache, tmp_path, monkeypatch):
    """A truncated file or a document of another shape: no manifest, no error."""
    entries = _record([SRC_A])
    good = precompile.write_manifest(entries, {ARCH: precompile.build_cubins(entries, ARCH)},
                                     tmp_path / "m.json.gz").read_bytes()
    _device_90(monkeypatch)
    bad = tmp_path / "bad.json.gz"
    for data in (good[:len(good) // 2], gzip.compress(b"[1, 2]"), b"not gzip"):
        bad.write_bytes(data)
        assert precompile.read_manifest(bad) is None
        assert precompile.ensure(bad) is None
    assert _files(cupy_cache, "*") == []


def test_ensure_without_cubins_for_the_device_does_nothing(cupy_cache, tmp_path, monkeypatch):
    entries = _record([SRC_A])
    manifest = precompile.write_manifest(entries, {"80": precompile.build_cubins(entries, "80")},
                                         tmp_path / "m.json.gz")
    _device_90(monkeypatch)
    assert precompile.ensure(manifest) is None
    assert _files(cupy_cache, "*") == []


def test_ensure_when_the_driver_refuses_the_cubins(cupy_cache, tmp_path, monkeypatch):
    """A driver that cannot run the cubins: nothing filed, and the marker (for this driver)
    keeps later processes from trying again; a failure that may pass (out of memory) leaves
    no marker."""
    entries = _record([SRC_A])
    manifest = precompile.write_manifest(entries, {ARCH: precompile.build_cubins(entries, ARCH)},
                                         tmp_path / "m.json.gz")
    _device_90(monkeypatch, refusal="CUDA_ERROR_OUT_OF_MEMORY: out of memory")
    report = precompile.ensure(manifest)
    assert report["stored"] == 0 and "OUT_OF_MEMORY" in report["error"]
    assert _files(cupy_cache, "*") == []
    _device_90(monkeypatch, refusal="CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image")
    report = precompile.ensure(manifest)
    assert report["stored"] == 0 and "CUDA_ERROR_NO_BINARY_FOR_GPU" in report["error"]
    assert _files(cupy_cache) == []          # nothing filed: the kernels compile on first use
    assert len(_files(cupy_cache, "hpgraph-precompiled-*")) == 1
    precompile._done.clear()
    assert precompile.ensure(manifest) is None


def test_shipped_manifest_matches_its_cupy_version():
    """A shipped manifest names its CuPy version and holds a cubin or None per entry and
    architecture."""
    d = os.path.join(REPO, "hpgraph", "data")
    names = [n for n in os.listdir(d) if n.startswith("kernels-cupy")] if os.path.isdir(d) else []
    assert names, "no manifest shipped"
    for name in names:
        with gzip.open(os.path.join(d, name)) as f:
            doc = json.load(f)
        assert name == f"kernels-cupy{doc['cupy']}.json.gz"
        assert doc["format"] == precompile.MANIFEST_FORMAT and doc["entries"]
        assert doc["cubins"] and all(len(c) == len(doc["entries"]) for c in doc["cubins"].values())
        assert {e["kind"] for e in doc["entries"]} == {"cupy", "hpgraph"}


@pytest.mark.gpu
@pytest.mark.skipif(not backend.has_gpu(), reason="needs a GPU")
def test_gpu_filed_kernels_are_the_ones_cupy_loads(cupy_cache, tmp_path, monkeypatch):
    """On a GPU: after ensure() a kernel of the manifest loads and runs without NVRTC."""
    import cupy as cp
    from cupy._core import core
    from cupy.cuda import compiler

    arch = compiler._get_arch()
    with precompile.record(arch) as entries:
        core.compile_with_cache(SRC_A, arch=arch)
    for f in cupy_cache.glob("*.cubin"):      # the recording compiled it here
        f.unlink()
    manifest = precompile.write_manifest(entries, {arch: precompile.build_cubins(entries, arch)},
                                         tmp_path / "m.json.gz")
    report = precompile.ensure(manifest)
    assert report["stored"] == 1 and report["error"] is None, report
    calls = _nvrtc_calls(monkeypatch)
    mod = core.compile_with_cache(SRC_A, arch=arch)
    a = cp.zeros(32, dtype=cp.int32)
    mod.get_function("ahead_a")((1,), (32,), (a,))
    assert calls == [] and int(a.sum()) == 7 * 32
