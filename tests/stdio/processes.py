"""Is a process still there? Read from /proc, for tests that check nothing outlives
its adapter (a zombie nobody reaped yet counts as gone)."""

from __future__ import annotations

import time
from pathlib import Path


def _stat(pid: int | str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()  # state, ppid, pgrp, ...


def running(pid: int) -> bool:
    """Is `pid` a live process (not gone, not a zombie)?"""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def gone(pid: int, within: float = 10.0) -> bool:
    """Does `pid` stop running within `within` seconds? (A SIGKILL is delivered at once,
    but its target is reaped by its parent, or by init, a moment later.)"""
    deadline = time.monotonic() + within
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def group_members(pgid: int) -> list[int]:
    """The live processes in process group `pgid`."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(entry.name)
            if fields is not None and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def process_group_is_empty(pgid: int) -> bool:
    return not group_members(pgid)
