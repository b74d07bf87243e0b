"""How much memory this machine can give the solver's tables: the commands' ``--memory`` check.

The memory a process may use is the smaller of the machine's physical memory
and the limit of the control group it runs in (a container's ``--memory``,
a systemd unit's ``MemoryMax``): past a control group's limit the kernel
kills the process, however much the machine has. Both cgroup versions are
read: v2's ``memory.max`` and v1's ``memory.limit_in_bytes``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import click

CGROUP_ROOT: Final = Path("/sys/fs/cgroup")
PROC_CGROUP: Final = Path("/proc/self/cgroup")

MIN_MEMORY_MIB: Final = 1
"""The smallest table --memory allows. A table that small fills within a few thousand
positions, and the rollouts then search alone, which is still a search."""

_LIMIT_FILE_BYTES: Final = 64
"""A limit file holds one number (or ``max``): what is read of it, and of nothing more."""
_PROC_CGROUP_BYTES: Final = 64 * 1024
"""/proc/self/cgroup holds a line per controller: a few hundred bytes."""


def machine_memory_mib(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP
                       ) -> int | None:
    """The MiB this process may use: the physical memory, or its control group's limit
    when that is smaller; None where the system tells neither."""
    try:
        physical: int | None = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        physical = None
    limits = [limit for limit in (_read_limit(path) for path in _limit_files(root, proc_cgroup))
              if limit is not None]
    if physical is not None:
        limits.append(physical)
    return min(limits) >> 20 if limits else None


def _limit_files(root: Path, proc_cgroup: Path) -> list[Path]:
    """The files that may hold this process's memory limit, its own group's first.

    ``/proc/self/cgroup`` names the group: ``0::/PATH`` under v2, ``N:memory:/PATH``
    under v1. Inside a container the group's path is often not mounted where it says,
    and the container's own limit is at the root: both are read.
    """
    files: list[Path] = []
    try:
        with proc_cgroup.open("rb") as handle:
            text = handle.read(_PROC_CGROUP_BYTES).decode("utf-8", "replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, group = parts
        group = group.lstrip("/")
        if controllers == "":
            files.append(root / group / "memory.max")
        elif "memory" in controllers.split(","):
            files.append(root / "memory" / group / "memory.limit_in_bytes")
    files += [root / "memory.max", root / "memory" / "memory.limit_in_bytes"]
    return files


def _read_limit(path: Path) -> int | None:
    """The limit in ``path`` in bytes; None for no limit (``max``), or where the file is
    missing or holds no number. (v1's "no limit" is a number far above any machine's
    memory, which the physical memory then undercuts.)"""
    try:
        with path.open("rb") as handle:
            text = handle.read(_LIMIT_FILE_BYTES).strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def check_memory(mib: int, processes: int = 1, flag: str = "--memory") -> None:
    """Refuse ``processes`` searches of ``mib`` MiB of tables each when they need more than
    three quarters of the memory this process may use: a process holds about a sixth more
    than its tables' estimate (a 200 MiB cap, 234 MiB resident), the system needs the rest,
    and a bigger table would swap or be killed before the search could answer."""
    machine = machine_memory_mib()
    if machine is None or mib * processes <= machine * 3 // 4:
        return
    each = f"{processes} workers' {mib} MiB each ({mib * processes} MiB)" if processes > 1 \
        else f"{mib} MiB"
    raise click.BadParameter(
        f"{each} is more than this machine's {machine} MiB of memory can give the tables: "
        f"at most three quarters of it, {machine * 3 // 4} MiB in all (the search needs some "
        f"more than its tables, and the system the rest)", param_hint=flag)
