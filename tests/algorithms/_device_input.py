"""Test scaffolding: an input declared to live on the device, without a GPU.

:func:`declare_device_input` makes each module's ``prepare`` report that the caller's graph
lived on the device and replaces ``backend.to_device`` by a recorder returning
:class:`OnDevice`, so a test sees which results an algorithm moves back to the device."""

import numpy as np

import hpgraph as hp


class OnDevice:
    """What the recording ``backend.to_device`` returns: the host array it was given."""

    def __init__(self, a):
        self.a = np.asarray(a)


def declare_device_input(monkeypatch, *modules):
    """Inside the test, ``prepare`` of every module in ``modules`` reports a device input."""
    monkeypatch.setattr(hp.backend, "to_device", lambda a, dtype=None: OnDevice(a))
    for mod in modules:
        real = mod.prepare

        def prepare(G, backend=None, real=real):
            G, side, _ = real(G, backend)
            return G, side, True                 # the caller's graph lived on the device

        monkeypatch.setattr(mod, "prepare", prepare)
