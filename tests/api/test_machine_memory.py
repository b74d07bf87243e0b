"""The memory the commands' --memory is checked against: the machine's, or its control
group's limit when smaller (a container's, a service's)."""

from __future__ import annotations

import os
from pathlib import Path

from gapgrid.api.machine_memory import machine_memory_mib

PHYSICAL_MIB = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20


def cgroup_tree(tmp_path: Path, proc_lines: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A cgroup file system under ``tmp_path`` holding ``files``, and a /proc/self/cgroup
    of ``proc_lines``."""
    root = tmp_path / "cgroup"
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    proc = tmp_path / "proc-cgroup"
    proc.write_text(proc_lines)
    return root, proc


def test_a_cgroup_v2_limit_below_the_machine_is_the_memory(tmp_path: Path) -> None:
    """Under cgroup v2, the group /proc names has memory.max of 256 MiB: that is the memory."""
    root, proc = cgroup_tree(tmp_path, "0::/system.slice/gapgrid.service\n",
                             {"system.slice/gapgrid.service/memory.max": f"{256 << 20}\n"})
    assert machine_memory_mib(root, proc) == min(256, PHYSICAL_MIB)


def test_a_cgroup_v1_limit_at_a_containers_root_is_the_memory(tmp_path: Path) -> None:
    """Under cgroup v1 in a container, the group's path is not mounted where /proc says and
    the container's limit is at the root of the memory controller."""
    root, proc = cgroup_tree(tmp_path, "4:memory:/docker/abc123\n3:cpu:/\n",
                             {"memory/memory.limit_in_bytes": f"{300 << 20}\n"})
    assert machine_memory_mib(root, proc) == min(300, PHYSICAL_MIB)


def test_no_limit_leaves_the_physical_memory(tmp_path: Path) -> None:
    """v2's "max", v1's "no limit" number, files that hold nothing sensible or do not
    exist: the machine's physical memory."""
    cases = [
        ("0::/\n", {"memory.max": "max\n"}),
        ("4:memory:/x\n", {"memory/x/memory.limit_in_bytes": "9223372036854771712\n"}),
        ("0::/\n", {"memory.max": "lots\n"}),
        ("garbage without colons\n", {}),
    ]
    for number, (lines, files) in enumerate(cases):
        root, proc = cgroup_tree(tmp_path / str(number), lines, files)
        assert machine_memory_mib(root, proc) == PHYSICAL_MIB, (lines, files)
    assert machine_memory_mib(tmp_path / "none", tmp_path / "no-proc") == PHYSICAL_MIB


def test_a_limit_above_the_machine_leaves_the_machine(tmp_path: Path) -> None:
    """A limit bigger than the physical memory does not make more of it."""
    root, proc = cgroup_tree(tmp_path, "0::/\n",
                             {"memory.max": f"{(PHYSICAL_MIB + 4096) << 20}\n"})
    assert machine_memory_mib(root, proc) == PHYSICAL_MIB
