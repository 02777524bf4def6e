"""The adapter's end of a killable session runtime: spawn `python -m reference_impl.sessions
serve` on the backend's store and hand back what the suite kills (SIGKILL) or stops.

The model API key travels in the child's environment (`TURNLAW_API_KEY`), never on its
command line, which other users of the machine can read. The runtime class is the
adapter's own argument (an import path), never read from the store.
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

from ._host_process import LISTENING, START_DEADLINE, HostStartError, _end, _tail
from ._launcher import ServerProcess, exit_words, spawn

if TYPE_CHECKING:
    from conformance.adapter import BackendSpec


class SessionRuntimeProcess:
    """A running session runtime process: its URL, and the two ways to end it."""

    def __init__(self, process: ServerProcess, url: str, folder: Path) -> None:
        self.process = process
        self.url = url
        self._folder = folder

    async def kill(self) -> None:
        """SIGKILL: nothing flushed; the store keeps what was committed."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)

    async def stop(self) -> None:
        """SIGTERM: turns in play are aborted and settled, then it exits."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        await self.process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)


async def start_session_runtime(
    spec: BackendSpec, *, runtime_class: str | None = None
) -> SessionRuntimeProcess:
    """Spawn the runtime for `spec` and wait (at most START_DEADLINE) for its URL."""
    folder = Path(tempfile.mkdtemp(prefix="turnlaw-sessions-"))
    log = folder / "stderr.log"
    argv = ["serve", "--store", spec.store, "--provider-url", spec.base_url]
    argv += ["--dialect", spec.dialect.value, "--model", spec.model]
    if not spec.stream:
        argv.append("--whole")
    if runtime_class is not None:
        argv += ["--runtime-class", runtime_class]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
        TURNLAW_API_KEY=spec.api_key,
    )
    process = await spawn("reference_impl.sessions", argv, env=env, stderr=log)
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
    return SessionRuntimeProcess(process, text.removeprefix(LISTENING), folder)
