"""The memory the commands' --memory is checked against: the machine's, or a control group's
limit when smaller (a container's, a service's or slice's, a batch job's)."""

from __future__ import annotations

import os
from pathlib import Path

from gapgrid.api.machine_memory import MemoryLimit, memory_limit

PHYSICAL_MIB = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
SMALL_MIB = min(256, PHYSICAL_MIB // 2)
"""A limit below this machine's memory, whatever the machine."""


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


def limited(mib: int) -> MemoryLimit:
    return MemoryLimit(mib, control_group=True, machine_mib=PHYSICAL_MIB)


def test_a_cgroup_v2_limit_below_the_machine_is_the_memory(tmp_path: Path) -> None:
    """Under cgroup v2, the group /proc names has a memory.max below the machine's."""
    root, proc = cgroup_tree(tmp_path, "0::/system.slice/gapgrid.service\n",
                             {"system.slice/gapgrid.service/memory.max": f"{SMALL_MIB << 20}\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)


def test_a_limit_on_a_group_above_binds_too(tmp_path: Path) -> None:
    """A limit on a parent group (a systemd user slice under v2, a batch job under v1's
    job/step/task groups) binds the process as much as its own group's."""
    root, proc = cgroup_tree(
        tmp_path / "v2", "0::/user.slice/user-1000.slice/session-3.scope\n",
        {"user.slice/user-1000.slice/memory.max": f"{SMALL_MIB << 20}\n",
         "user.slice/user-1000.slice/session-3.scope/memory.max": "max\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)
    root, proc = cgroup_tree(
        tmp_path / "v1", "5:memory:/slurm/job_1/step_0/task_0\n",
        {"memory/slurm/job_1/memory.limit_in_bytes": f"{SMALL_MIB << 20}\n",
         "memory/slurm/job_1/step_0/task_0/memory.limit_in_bytes": "9223372036854771712\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)


def test_a_containers_limit_at_the_root_is_the_memory(tmp_path: Path) -> None:
    """In a container the group's own path is not mounted, and its limit is at the root of
    the cgroup file system: v2's memory.max, v1's memory controller's limit."""
    root, proc = cgroup_tree(tmp_path / "v2", "0::/\n", {"memory.max": f"{SMALL_MIB << 20}\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)
    root, proc = cgroup_tree(tmp_path / "v1", "4:memory:/docker/abc123\n3:cpu:/\n",
                             {"memory/memory.limit_in_bytes": f"{SMALL_MIB << 20}\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)


def test_an_absurdly_long_group_path_is_read_at_its_root_only(tmp_path: Path) -> None:
    """A group path longer than PATH_MAX is no real group: only the root's limit is read,
    instead of a walk up tens of thousands of levels (minutes and gigabytes of paths)."""
    root, proc = cgroup_tree(tmp_path, "0::/" + "a/" * 30_000 + "\n",
                             {"memory.max": f"{SMALL_MIB << 20}\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)


def test_a_cgroup_v1_limit_on_its_own_group_is_the_memory(tmp_path: Path) -> None:
    """Under cgroup v1, the memory controller's group /proc names has the limit."""
    root, proc = cgroup_tree(tmp_path, "7:cpu,cpuacct:/x\n4:memory:/x/y\n",
                             {"memory/x/y/memory.limit_in_bytes": f"{SMALL_MIB << 20}\n"})
    assert memory_limit(root, proc) == limited(SMALL_MIB)


def test_no_limit_leaves_the_physical_memory(tmp_path: Path) -> None:
    """v2's "max", v1's "no limit" number, files that hold nothing sensible or do not
    exist, a path that would climb out of the cgroup file system: the machine's memory."""
    cases = [
        ("0::/\n", {"memory.max": "max\n"}),
        ("4:memory:/x\n", {"memory/x/memory.limit_in_bytes": "9223372036854771712\n"}),
        ("0::/\n", {"memory.max": "lots\n"}),
        ("garbage without colons\n", {}),
        ("0::/../../etc\n", {}),
    ]
    machine = MemoryLimit(PHYSICAL_MIB, control_group=False, machine_mib=PHYSICAL_MIB)
    for number, (lines, files) in enumerate(cases):
        root, proc = cgroup_tree(tmp_path / str(number), lines, files)
        assert memory_limit(root, proc) == machine, (lines, files)
    assert memory_limit(tmp_path / "none", tmp_path / "no-proc") == machine
    root, proc = cgroup_tree(tmp_path / "above", "0::/\n",
                             {"memory.max": f"{(PHYSICAL_MIB + 4096) << 20}\n"})
    assert memory_limit(root, proc) == machine  # a limit above the machine makes no more


def test_messages_say_where_the_limit_comes_from() -> None:
    """A user told "this machine's 2,048 MiB" on a 64 GiB host would be puzzled: a control
    group's limit is named as such, with the machine's memory beside it."""
    assert MemoryLimit(24105, False, 24105).describe() == "this machine's 24,105 MiB"
    assert MemoryLimit(2048, True, 65536).describe() == (
        "the 2,048 MiB its control group allows (the machine has 65,536)")
