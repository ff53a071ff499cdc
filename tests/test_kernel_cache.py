"""hpgraph's on-disk cubin cache (hpgraph.kernel_cache)."""

from __future__ import annotations

import pytest

import hpgraph as hp
from hpgraph import kernel_cache
from hpgraph.exceptions import CompileError, DeviceUnavailable

SRC = 'extern "C" __global__ void k(int* a) { a[threadIdx.x] = HP_VALUE + (int)threadIdx.x; }'


def _nvrtc_or_skip():
    try:
        kernel_cache._nvrtc()
    except DeviceUnavailable as exc:
        pytest.skip(f"NVRTC unavailable: {exc}")


def test_cubin_without_gpu():
    _nvrtc_or_skip()
    data = kernel_cache.cubin(SRC, ("-DHP_VALUE=7",), "sm_90")
    assert data[:4] == b"\x7fELF"


def test_compile_error_carries_source_and_log():
    _nvrtc_or_skip()
    with pytest.raises(CompileError) as info:
        kernel_cache.cubin("this is not CUDA", (), "sm_90")
    assert info.value.source == "this is not CUDA"
    assert "error" in info.value.log


def test_key_depends_on_everything():
    _nvrtc_or_skip()
    base = kernel_cache._key(SRC, ("-DHP_VALUE=1",), "sm_90")
    assert base == kernel_cache._key(SRC, ("-DHP_VALUE=1",), "sm_90")
    assert base != kernel_cache._key(SRC + " ", ("-DHP_VALUE=1",), "sm_90")
    assert base != kernel_cache._key(SRC, ("-DHP_VALUE=2",), "sm_90")
    assert base != kernel_cache._key(SRC, ("-DHP_VALUE=1",), "sm_80")


def test_cache_dir_from_config(tmp_path):
    with hp.config.set(kernel_cache=str(tmp_path / "k")):
        assert kernel_cache.cache_dir() == tmp_path / "k"
        assert (tmp_path / "k").is_dir()


def test_unusable_cache_dir_falls_back(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with hp.config.set(kernel_cache=str(blocker / "sub")):
        d = kernel_cache.cache_dir()
    assert d != blocker / "sub"
    assert d.is_dir()


def test_modules_load_cooperative_ones_cooperatively(tmp_path):
    """Option sets listed in ``cooperative`` load as modules whose kernels launch with
    cuLaunchCooperativeKernel (CuPy's ``enable_cooperative_groups``), the others not; the same
    cubin loaded both ways gives two modules.  A stand-in for CuPy: no GPU needed."""
    import types

    _nvrtc_or_skip()
    made = []

    def raw_module(path, enable_cooperative_groups=False):
        made.append((path, enable_cooperative_groups))
        return types.SimpleNamespace(path=path, coop=enable_cooperative_groups)

    cp = types.SimpleNamespace(
        RawModule=raw_module,
        cuda=types.SimpleNamespace(Device=lambda: types.SimpleNamespace(compute_capability="90"),
                                   runtime=types.SimpleNamespace(getDevice=lambda: 0)))
    plain, coop = ("-DHP_VALUE=1",), ("-DHP_VALUE=2",)
    with hp.config.set(kernel_cache=str(tmp_path)):
        a, b = kernel_cache.modules(cp, SRC, [plain, coop], cooperative=[coop])
        assert (a.coop, b.coop) == (False, True)
        (c,) = kernel_cache.modules(cp, SRC, [coop])              # same cubin, not cooperative
        assert c.coop is False and c.path == b.path and c is not b
        (d,) = kernel_cache.modules(cp, SRC, [coop], cooperative=[coop])
        assert d is b                                          # loaded once per kind
    assert len(made) == 3 and len(list(tmp_path.glob("*.cubin"))) == 2


def test_deferred_miss_requested_twice_compiles_once(tmp_path, monkeypatch):
    """Two callers asking for the same deferred miss while its compile runs (two run states of
    one program) share that compile; once it has failed, a new request compiles again.  A
    stand-in for CuPy and a slow stand-in for NVRTC: no GPU needed."""
    import threading
    import types

    calls, gate = [], threading.Event()

    def slow_cubin(source, options, arch):
        calls.append(options)
        gate.wait(10)
        if source == "bad":
            raise CompileError("fails (stand-in)", source=source, log="")
        return b"\x7fELF stand-in"

    monkeypatch.setattr(kernel_cache, "cubin", slow_cubin)
    monkeypatch.setattr(kernel_cache, "_nvrtc", lambda: (None, "12.9"))
    cp = types.SimpleNamespace(
        RawModule=lambda path, enable_cooperative_groups=False: types.SimpleNamespace(path=path),
        cuda=types.SimpleNamespace(Device=lambda: types.SimpleNamespace(compute_capability="90"),
                                   runtime=types.SimpleNamespace(getDevice=lambda: 0)))
    opts = ("-DHP_VALUE=3",)
    with hp.config.set(kernel_cache=str(tmp_path)):
        (a,) = kernel_cache.modules(cp, SRC, [opts], defer=[opts])
        (b,) = kernel_cache.modules(cp, SRC, [opts], defer=[opts])
        assert not a.ready() and not b.ready()
        gate.set()
        kernel_cache.wait()
        assert a.module().path == b.module().path and len(calls) == 1
        gate.clear()
        (c,) = kernel_cache.modules(cp, "bad", [opts], defer=[opts])
        gate.set()
        with pytest.raises(CompileError):
            c.module()
        (d,) = kernel_cache.modules(cp, "bad", [opts], defer=[opts])   # after a failure: again
        with pytest.raises(CompileError):
            d.module()
    assert len(calls) == 3


@pytest.mark.gpu
def test_modules_compile_once_then_load(tmp_path, monkeypatch):
    import cupy as cp

    with hp.config.set(kernel_cache=str(tmp_path)):
        mods = kernel_cache.modules(cp, SRC, [("-DHP_VALUE=10",), ("-DHP_VALUE=20",)])
        a = cp.zeros(32, cp.int32)
        mods[1].get_function("k")((1,), (32,), (a,))
        assert cp.asnumpy(a).tolist() == list(range(20, 52))
        assert len(list(tmp_path.glob("*.cubin"))) == 2
        # a second lookup (as a new process would) loads without compiling
        kernel_cache._loaded.clear()
        monkeypatch.setattr(kernel_cache, "cubin", lambda *a: pytest.fail("recompiled"))
        mods = kernel_cache.modules(cp, SRC, [("-DHP_VALUE=10",)])
        mods[0].get_function("k")((1,), (32,), (a,))
        assert cp.asnumpy(a).tolist() == list(range(10, 42))


@pytest.mark.gpu
def test_deferred_module_compiles_in_background(tmp_path, monkeypatch):
    """A deferred miss comes back as a Deferred, usable once its compile ends; a deferred hit
    is loaded like the others; a failed background compile raises from module()."""
    import threading

    import cupy as cp

    gate = threading.Event()
    real = kernel_cache.cubin

    def slow(source, options, arch):
        if "-DHP_VALUE=30" in options:
            gate.wait(10)
        return real(source, options, arch)

    monkeypatch.setattr(kernel_cache, "cubin", slow)
    with hp.config.set(kernel_cache=str(tmp_path)):
        opts = [("-DHP_VALUE=10",), ("-DHP_VALUE=30",)]
        mods = kernel_cache.modules(cp, SRC, opts, defer=[opts[1]])
        assert hasattr(mods[0], "get_function")
        assert isinstance(mods[1], kernel_cache.Deferred) and not mods[1].ready()
        gate.set()
        a = cp.zeros(32, cp.int32)
        mods[1].module().get_function("k")((1,), (32,), (a,))
        assert mods[1].ready()
        assert cp.asnumpy(a).tolist() == list(range(30, 62))
        again = kernel_cache.modules(cp, SRC, opts, defer=[opts[1]])
        assert hasattr(again[1], "get_function")           # in the cache now: loaded at once
        bad = kernel_cache.modules(cp, "this is not CUDA", [("-DX=1",)], defer=[("-DX=1",)])
        with pytest.raises(hp.exceptions.CompileError):
            bad[0].module()


def test_wait_returns_after_earlier_background_compiles():
    """wait() blocks until every compile submitted to the background worker has ended."""
    import threading
    import time

    kernel_cache.wait()                      # no worker yet, or an idle one: returns
    gate = threading.Event()
    done = []

    def job():
        gate.wait(10)
        time.sleep(0.05)
        done.append(1)

    kernel_cache._background().submit(job)
    threading.Timer(0.05, gate.set).start()
    kernel_cache.wait()
    assert done == [1]
