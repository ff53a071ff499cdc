"""Host memory checks: refuse an allocation that cannot fit before NumPy tries it.

An absurd size (``num_vertices=10**12``, a file header promising 10^11 entries) would
otherwise surface as a bare ``MemoryError`` from deep inside NumPy, or, with memory
overcommit, as a process the kernel kills later.  :func:`check_host_bytes` compares the
bytes an operation will need with the machine's memory and raises
:class:`~hpgraph.exceptions.HostOutOfMemory` naming the size; :func:`host_memory_guard`
turns a ``MemoryError`` that still happens into the same typed error.
"""

from __future__ import annotations

import os

from .exceptions import HostOutOfMemory

__all__ = ["host_memory_bytes", "check_host_bytes", "host_memory_guard", "format_bytes"]


def host_memory_bytes() -> int:
    """The most host memory one allocation can get, in bytes.

    Physical memory plus free swap (``/proc/meminfo``, else ``os.sysconf``), lowered to the
    process's address-space limit (``ulimit -v``) when one is set; an unknown size gives 2^62
    (no limit from this check; the guard still types a ``MemoryError``).
    """
    total = _machine_bytes()
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY and soft > 0:
            total = min(total, int(soft))
    except (ImportError, OSError, ValueError):
        pass
    return total


def _machine_bytes() -> int:
    try:
        with open("/proc/meminfo", "rb") as f:
            info = {}
            for line in f:
                key, _, rest = line.partition(b":")
                parts = rest.split()
                if parts:
                    info[key.strip()] = int(parts[0]) * 1024
        total = info.get(b"MemTotal")
        if total:
            return int(total + info.get(b"SwapFree", 0))
    except (OSError, ValueError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def format_bytes(n: int) -> str:
    """``n`` bytes as a short human string (``"7.3 TiB"``)."""
    x = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if x < 1024 or unit == "PiB":
            return f"{x:.1f} {unit}" if unit != "B" else f"{int(x)} B"
        x /= 1024
    return f"{n} B"  # pragma: no cover


def check_host_bytes(nbytes: int, what: str, hint: str = "") -> None:
    """Raise :class:`HostOutOfMemory` if ``nbytes`` exceed this machine's memory.

    Parameters
    ----------
    nbytes : int
        Bytes the operation is about to allocate (a lower bound is enough).
    what : str
        What is being built, with the argument that set its size (for the message).
    hint : str
        A suggestion appended to the message.
    """
    limit = host_memory_bytes()
    if int(nbytes) > limit:
        msg = (f"{what} needs at least {format_bytes(nbytes)} ({int(nbytes):,} bytes) of host memory, "
               f"more than this machine has ({format_bytes(limit)})")
        raise HostOutOfMemory(msg + (f"; {hint}" if hint else ""))


class host_memory_guard:
    """Context manager turning a bare ``MemoryError`` into :class:`HostOutOfMemory` about ``what``."""

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None or not issubclass(exc_type, MemoryError) or issubclass(exc_type, HostOutOfMemory):
            return False
        from .exceptions import DeviceOutOfMemory

        if issubclass(exc_type, DeviceOutOfMemory):
            return False
        raise HostOutOfMemory(f"out of host memory while {self.what} ({exc})") from None
