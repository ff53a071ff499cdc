"""The backend seam: resolving backend=, moving arrays, NVRTC compilation, typed errors."""

import io

import numpy as np
import pytest

from hpgraph import backend
from hpgraph.exceptions import CompileError, DeviceUnavailable, InvalidValue


def test_resolve_cpu_and_auto(monkeypatch):
    monkeypatch.delenv("HPGRAPH_BACKEND", raising=False)
    assert backend.resolve("cpu") == "cpu"
    assert backend.resolve("CPU") == "cpu"
    assert backend.resolve("auto") == ("gpu" if backend.has_gpu() else "cpu")
    assert backend.resolve(None) == backend.resolve("auto")
    assert backend.resolve("auto", np.zeros(3)) == backend.resolve("auto")


def test_resolve_reads_environment(monkeypatch):
    monkeypatch.setenv("HPGRAPH_BACKEND", "cpu")
    assert backend.resolve(None) == "cpu"
    monkeypatch.setenv("HPGRAPH_BACKEND", "tpu")
    with pytest.raises(InvalidValue, match="backend must be one of"):
        backend.resolve(None)


@pytest.mark.parametrize("bad", ["tpu", 3, "", None.__class__])
def test_resolve_rejects_unknown(bad):
    with pytest.raises(InvalidValue, match="backend must be one of"):
        backend.resolve(bad)


def test_gpu_unavailable_says_why():
    if backend.has_gpu():
        pytest.skip("a GPU is visible here")
    why = backend.gpu_unavailable_reason()
    assert why
    with pytest.raises(DeviceUnavailable, match="backend='gpu' was requested but") as err:
        backend.resolve("gpu")
    assert why in str(err.value)
    assert isinstance(err.value, RuntimeError)


def test_host_helpers_pass_host_data_through():
    a = np.arange(4)
    assert backend.to_host(a) is a
    assert backend.to_host(None) is None
    assert backend.get_array_module(a, None) is np
    assert not backend.is_device_array(a)
    b = backend.asarray([1, 2], "cpu", dtype=np.int32)
    assert b.dtype == np.int32 and isinstance(b, np.ndarray)
    assert backend.xp_for("cpu") is np


def test_out_of_memory_guard_lets_other_errors_through():
    with pytest.raises(ValueError):
        with backend.out_of_memory_guard("testing"):
            raise ValueError("not a memory error")


def _nvrtc():
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")


def test_compile_ptx_compiles_without_gpu():
    _nvrtc()
    src = ('extern "C" __global__ void hp_k(const float* __restrict__ x, float* y) '
           "{ y[threadIdx.x] = fminf(__ldg(x + threadIdx.x), __int_as_float(0x7f800000)); }")
    ptx = backend.compile_ptx(src, "k.cu")
    assert ".entry hp_k" in ptx


def test_compile_error_carries_source_and_log():
    _nvrtc()
    src = 'extern "C" __global__ void broken(float* y) {\n  y[0] = undefined_name;\n}\n'
    with pytest.raises(CompileError) as err:
        backend.compile_ptx(src, "broken.cu")
    e = err.value
    assert e.source == src and "undefined_name" in e.log and e.name == "broken.cu"
    assert e.numbered_source().splitlines()[1] == "2   y[0] = undefined_name;"
    out = io.StringIO()
    e.dump(out)
    assert "undefined_name" in out.getvalue()


class _FakeOOM(Exception):
    pass


class _FakeCupy:
    """Just enough of cupy for out_of_memory_guard: the OOM class and memGetInfo."""

    class cuda:
        class memory:
            OutOfMemoryError = _FakeOOM

        class runtime:
            @staticmethod
            def memGetInfo():
                return (1 * 2**30, 80 * 2**30)


def test_out_of_memory_is_explained(monkeypatch):
    from hpgraph.exceptions import DeviceOutOfMemory

    monkeypatch.setattr(backend, "has_gpu", lambda: True)
    monkeypatch.setattr(backend, "cupy", lambda: _FakeCupy)
    with pytest.raises(DeviceOutOfMemory) as err:
        with backend.out_of_memory_guard("copying a graph to the GPU"):
            raise _FakeOOM("Out of memory allocating 4,294,967,296 bytes")
    msg = str(err.value)
    assert "copying a graph to the GPU" in msg and "1.00 GiB free of 80.00 GiB" in msg
    assert "backend='cpu'" in msg and isinstance(err.value, MemoryError)


def test_num_sms_is_read_once_per_device(monkeypatch):
    calls = []

    class runtime:
        @staticmethod
        def getDevice():
            return 0

        @staticmethod
        def getDeviceProperties(dev):
            calls.append(dev)
            return {"multiProcessorCount": 132}

    class FakeCupy:
        cuda = type("cuda", (), {"runtime": runtime})

    monkeypatch.setattr(backend, "cupy", lambda: FakeCupy)
    monkeypatch.setattr(backend, "_SM_COUNT", {})
    assert backend.num_sms() == 132 and backend.num_sms() == 132
    assert calls == [0]
