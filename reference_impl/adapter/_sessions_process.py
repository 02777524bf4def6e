"""The adapter's end of a killable session runtime: spawn the runtime's command line
(`python -m reference_impl.sessions serve`, as `_sessions_server` runs it) on the
backend's store and hand back what the suite kills (SIGKILL) or stops.

The model API key travels in the child's environment (`TURNLAW_API_KEY`), never on its
command line, which other users of the machine can read. The runtime class is the
adapter's own argument (an import path), never read from the store.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ._host_process import start_listening
from ._launcher import ServerProcess

if TYPE_CHECKING:
    from conformance.adapter import BackendSpec


SERVER_MODULE = "reference_impl.adapter._sessions_server"
"""The module spawned: the runtime's command line with the suite's server and TLS."""


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
    argv = ["serve", "--store", spec.store, "--provider-url", spec.base_url]
    argv += ["--dialect", spec.dialect.value, "--model", spec.model]
    if not spec.stream:
        argv.append("--whole")
    if runtime_class is not None:
        argv += ["--runtime-class", runtime_class]
    # the key travels in the environment, never on the command line others can read
    env = {"TURNLAW_API_KEY": spec.api_key}
    process, url = await start_listening(SERVER_MODULE, argv, env, folder)
    return SessionRuntimeProcess(process, url, folder)
