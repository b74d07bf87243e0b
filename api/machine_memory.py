"""How much memory this machine can give the solver's tables: the commands' ``--memory`` check.

The memory a process may use is the smaller of the machine's physical memory
and the limits of the control group it runs in and of every group above it
(a container's ``--memory``, a systemd slice's ``MemoryMax``, a batch job's
allocation): past any of them the kernel kills the process, however much
the machine has. Both cgroup versions are read: v2's ``memory.max`` and
v1's ``memory.limit_in_bytes``.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Final

import attrs
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
_GROUP_PATH_MAX: Final = 4096
"""The longest group path read (the system's PATH_MAX): a longer one is no real group, and
walking up its levels would cost time and memory quadratic in its length."""


@attrs.frozen
class MemoryLimit:
    """The memory this process may use, and where that figure comes from."""

    mib: int
    control_group: bool
    """Whether a control group's limit, below the machine's memory, sets it."""
    machine_mib: int | None
    """The machine's physical memory (None where the system does not tell)."""

    def describe(self) -> str:
        """``this machine's 24,105 MiB``, or ``the 2,048 MiB its control group allows (the
        machine has 65,536)``: for messages."""
        if not self.control_group:
            return f"this machine's {self.mib:,} MiB"
        machine = f" (the machine has {self.machine_mib:,})" if self.machine_mib else ""
        return f"the {self.mib:,} MiB its control group allows{machine}"


def memory_limit(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP
                 ) -> MemoryLimit | None:
    """The memory this process may use: the physical memory, or the smallest limit of its
    control group and the groups above it when that is smaller; None where the system
    tells neither."""
    try:
        physical: int | None = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        physical = None
    limits = [limit for limit in (_read_limit(path) for path in _limit_files(root, proc_cgroup))
              if limit is not None]
    group = min(limits) if limits else None
    machine_mib = physical >> 20 if physical is not None else None
    if group is not None and (physical is None or group < physical):
        return MemoryLimit(group >> 20, control_group=True, machine_mib=machine_mib)
    if machine_mib is None:
        return None
    return MemoryLimit(machine_mib, control_group=False, machine_mib=machine_mib)


def _limit_files(root: Path, proc_cgroup: Path) -> list[Path]:
    """The files that may hold a memory limit on this process.

    ``/proc/self/cgroup`` names the group: ``0::/PATH`` under v2, ``N:memory:/PATH``
    under v1. A limit on any group above it binds too, so every level from the group
    up to the root is read; inside a container the group's path is often not mounted
    where it says, and the container's own limit is at that root.
    """
    try:
        with proc_cgroup.open("rb") as handle:
            text = handle.read(_PROC_CGROUP_BYTES).decode("utf-8", "replace")
    except OSError:
        text = ""
    files: list[Path] = []
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, group = parts
        if len(group) > _GROUP_PATH_MAX:
            group = "/"  # only the root's limit, which a container's is
        if controllers == "":
            base, name = root, "memory.max"
        elif "memory" in controllers.split(","):
            base, name = root / "memory", "memory.limit_in_bytes"
        else:
            continue
        level = PurePosixPath("/", group)
        for folder in (level, *level.parents):  # the group, then each one above it
            relative = folder.relative_to("/")
            if ".." not in relative.parts:
                files.append(base / relative / name)
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


def check_memory(mib: int, workers: int | None = None) -> None:
    """Refuse ``--memory`` of ``mib`` MiB of tables for one search, or for each of
    ``workers`` processes, when they need more than three quarters of the memory this
    process may use: a process holds about a sixth more than its tables' estimate (a
    200 MiB cap, 234 MiB resident), the system needs the rest, and a bigger table would
    swap or be killed before the search could answer."""
    limit = memory_limit()
    if limit is None:
        return
    room = limit.mib * 3 // 4
    if mib * (workers or 1) <= room:
        return
    advice = "the search needs some more than its tables, and the system the rest"
    if workers is None or workers == 1:
        raise click.BadParameter(
            f"{mib:,} MiB is more than {limit.describe()} can give the tables: at most "
            f"three quarters of it, {room:,} MiB ({advice})", param_hint="--memory")
    raise click.BadParameter(
        f"{workers} workers' {mib:,} MiB each ({mib * workers:,} MiB) is more than "
        f"{limit.describe()} can give the tables: at most three quarters of it, "
        f"{room:,} MiB in all ({advice}); give fewer --workers, or at most "
        f"{max(room // workers, MIN_MEMORY_MIB):,} MiB each", param_hint="--memory / --workers")
