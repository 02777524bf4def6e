"""The adapter's end of the hosting door: spawn the reference host process
(`python -m reference_impl.adapter._host_server`) and hand back the handle the suite kills
and stops. Kept apart from the process's own module, which builds agents through the
adapter: the adapter imports this, and this imports nothing of the runtime.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from .._listening import LISTENING
from ._launcher import ServerProcess, exit_words, spawn

if TYPE_CHECKING:
    from conformance.adapter._hosting_types import HostSpec

START_DEADLINE = 30.0
"""Seconds a host may take to print its URL before the start is a failure."""


class HostStartError(RuntimeError):
    """The host process died or never printed its URL; `stderr` is the tail of what it
    said, which is where the reason is."""

    def __init__(self, problem: str, stderr: str) -> None:
        self.problem = problem
        self.stderr = stderr
        super().__init__(f"the reference host did not start: {problem}\n--- stderr ---\n{stderr}")


class HostProcess:
    """A running host process: its URL, and the two ways to end it."""

    def __init__(self, process: ServerProcess, base_url: str, log: Path) -> None:
        self.process = process
        self.base_url = base_url
        self._log = log

    async def kill(self) -> None:
        """Hard: SIGKILL, nothing flushed, nothing persisted that was not already."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()
        shutil.rmtree(self._log.parent, ignore_errors=True)

    async def stop(self) -> None:
        """Graceful: SIGTERM; running turns finish and persist, then it exits."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        await self.process.wait()
        shutil.rmtree(self._log.parent, ignore_errors=True)


async def start_host_process(
    spec: HostSpec, *, agent_class: str | None = None, host_class: str | None = None
) -> HostProcess:
    """Spawn the host for `spec` and wait (at most START_DEADLINE) for its URL."""
    folder = Path(tempfile.mkdtemp(prefix="turnlaw-host-"))
    spec_file = folder / "spec.json"
    spec_file.write_text(spec.model_dump_json(), encoding="utf-8")
    log = folder / "stderr.log"
    argv = ["--spec-file", str(spec_file)]
    if agent_class is not None:
        argv += ["--agent-class", agent_class]
    if host_class is not None:
        argv += ["--host-class", host_class]
    process, url = await start_listening("reference_impl.adapter._host_server", argv, {}, folder)
    spec_file.unlink(missing_ok=True)
    return HostProcess(process, url, log)


async def start_listening(
    module: str, argv: list[str], env: dict[str, str], folder: Path
) -> tuple[ServerProcess, str]:
    """Spawn `python -m <module> <argv>` (`env` added to ours, stderr into `folder`'s
    stderr.log) and wait at most START_DEADLINE for its LISTENING line: the process and
    its URL. A start that fails leaves no process and no folder behind."""
    log = folder / "stderr.log"
    path = os.pathsep.join(p for p in sys.path if p)
    process = await spawn(module, argv, env=dict(os.environ, PYTHONPATH=path, **env), stderr=log)
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), START_DEADLINE)
    except BaseException as error:  # the deadline, or the caller gave up: leave no process
        await _end(process)
        said = _tail(log)
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(error, TimeoutError):
            raise HostStartError(f"no URL within {START_DEADLINE:g}s", said) from None
        raise
    text = line.decode("utf-8", "replace").strip()
    if not text.startswith(LISTENING):
        await _end(process)
        problem = exit_words(process) if not text else f"it printed {text!r}"
        said = _tail(log)
        shutil.rmtree(folder, ignore_errors=True)
        raise HostStartError(problem, said)
    return process, text.removeprefix(LISTENING)


async def _end(process: ServerProcess) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    await process.wait()


def _tail(log: Path, limit: int = 4000) -> str:
    try:
        return log.read_bytes()[-limit:].decode("utf-8", "replace")
    except OSError:
        return ""
