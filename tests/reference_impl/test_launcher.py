"""The warm launcher (reference_impl/adapter/_launcher.py): a host it forks is a real process of
its own that a SIGKILL ends, with its exit status reported as asyncio would; a request
naming anything but its entries starts nothing; without it, a new interpreter starts."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from conformance.adapter import AgentSpec
from conformance.adapter._hosting_types import HostSpec
from conformance.wire import ScriptedProvider, text
from reference_impl.adapter import _launcher, implementation
from reference_impl.adapter._launcher import LaunchedProcess, ServerProcess, spawn
from reference_impl.adapter._sdk_warmup import exercise
from tests.conftest import API_KEY

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the launcher forks on Linux")


async def _help(stderr: Path) -> ServerProcess:
    """`python -m reference_impl.sessions --help`: a launcher entry that exits at once."""
    return await spawn(
        "reference_impl.adapter._sessions_server", ["--help"], env=dict(os.environ), stderr=stderr
    )


async def _help_exits_cleanly(stderr: Path, made_by: type) -> None:
    """`--help` started, by a launcher (`LaunchedProcess`) or the slow way (a subprocess)."""
    started = await _help(stderr)
    assert isinstance(started, made_by)
    assert await started.wait() == 0


@pytest.fixture
def launcher(monkeypatch: pytest.MonkeyPatch) -> _launcher._Launcher:
    """The shared launcher, its failure count reset so a test that ends one gets another."""
    monkeypatch.setattr(_launcher._Launcher, "_failures", 0)
    shared = _launcher._Launcher.shared()
    assert shared is not None
    return shared


def _parent_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    raise AssertionError(f"no PPid line for {pid}")


async def test_a_launched_host_is_a_process_of_its_own_ended_by_sigkill(
    loopback_provider: ScriptedProvider, tmp_path: Path, launcher: _launcher._Launcher
) -> None:
    loopback_provider.script([text("Booked.")])
    agent = AgentSpec(base_url=loopback_provider.base_url or "", api_key=API_KEY)
    host = await implementation.start_host(HostSpec(agent=agent, store=str(tmp_path / "s.db")))
    process = host.process
    assert isinstance(process, LaunchedProcess)
    assert process.pid not in (os.getpid(), launcher.process.pid)
    assert _parent_of(process.pid) == launcher.process.pid
    async with httpx.AsyncClient(base_url=host.base_url) as client:
        reply = await client.post("/invoke", json={"input": "Book.", "sessionId": "s"})
    assert reply.json()["output"] == "Booked."
    await host.kill()
    assert process.returncode == -signal.SIGKILL
    assert not Path(f"/proc/{process.pid}").exists()


async def test_the_launcher_starts_nothing_but_its_entries(
    tmp_path: Path, launcher: _launcher._Launcher
) -> None:
    read_end, write_end = os.pipe()
    try:
        with (tmp_path / "log").open("wb") as log:
            # _ask closes what it is handed (the child has copies): hand it copies
            fds = os.dup(write_end), os.dup(log.fileno())
        with pytest.raises(OSError, match="not a start"):
            launcher._ask("os", ["-c", "raise SystemExit(3)"], {}, *fds)
        with launcher.lock:  # not JSON at all, and no descriptors
            launcher.control.send(b"\x00garbage")
            answer = json.loads(launcher.control.recv(65536))
        assert "error" in answer
    finally:
        os.close(read_end)
        os.close(write_end)
    # and it goes on starting what it may
    started = await _help(tmp_path / "err")
    assert isinstance(started, LaunchedProcess)
    assert started.stdout is not None
    said = await asyncio.wait_for(started.stdout.read(), 30)
    assert await started.wait() == 0
    assert b"serve" in said


async def test_without_the_launcher_a_new_interpreter_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_launcher, "_ENABLED", False)
    await _help_exits_cleanly(tmp_path / "err", asyncio.subprocess.Process)


@pytest.mark.timeout(300)  # a launcher process, starting: past 60 s on a busy machine
def test_a_closed_control_socket_ends_the_launcher() -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with theirs:
        process = subprocess.Popen(
            [sys.executable, "-m", "reference_impl.adapter._launcher", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
        )
    ours.close()
    assert process.wait(timeout=240) == 0


@pytest.mark.timeout(300)  # launchers and interpreters started: past 60 s when busy
async def test_a_dead_launcher_is_dropped_and_the_start_still_made(
    tmp_path: Path, launcher: _launcher._Launcher
) -> None:
    launcher.process.kill()
    launcher.process.wait()
    await _help_exits_cleanly(tmp_path / "err", asyncio.subprocess.Process)  # the slow way
    await _help_exits_cleanly(tmp_path / "err2", LaunchedProcess)  # by a new launcher
    assert _launcher._Launcher.shared() is not launcher


async def test_a_reply_out_of_turn_is_never_taken_for_this_start(
    tmp_path: Path, launcher: _launcher._Launcher
) -> None:
    """A late reply (a start that timed out) would hand this start another child's pid."""
    read_end, write_end = os.pipe()
    late = {
        "id": -1,
        "module": "reference_impl.adapter._sessions_server",
        "argv": ["--help"],
        "env": {},
    }
    with (tmp_path / "late").open("wb") as log, launcher.lock:  # asked, never read
        socket.send_fds(launcher.control, [json.dumps(late).encode()], [write_end, log.fileno()])
    os.close(write_end)
    os.close(read_end)
    await _help_exits_cleanly(tmp_path / "err", asyncio.subprocess.Process)  # dropped, slow way
    assert _launcher._Launcher.shared() is not launcher


def test_the_launchers_warm_up_makes_every_kind_of_call_through_the_fake() -> None:
    """Its failures are swallowed (a child then pays the first-use cost itself), so a
    warm-up that broke would go unseen but for this: three dialects, whole and
    streamed, a tool call and text each, all answered and none malformed."""
    assert asyncio.run(exercise()) == 12
