"""Is a process still there? Read from /proc, for tests that check nothing outlives
its adapter (a zombie nobody reaped yet counts as gone)."""

from __future__ import annotations

import os
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


def children_running(script: str) -> list[int]:
    """This process's live children whose command line names `script`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(entry.name)
        if fields is None or int(fields[1]) != os.getpid() or fields[0] in ("Z", "X"):
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if script.encode() in command:
            found.append(int(entry.name))
    return found
