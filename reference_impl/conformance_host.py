"""The reference host as the suite starts it: a real process per `start_host`.

    python -m reference_impl.conformance_host --spec-file F [--agent-class mod:attr]
                                              [--host-class mod:attr]

`F` holds a `HostSpec` as JSON: data only, nothing in it is imported or run (the class
paths are the adapter's own command-line arguments). Each session's agent is built from
`spec.agent` exactly as the adapter's `create_agent` builds one, with durable memory
beside the session store (`<store>.memory`), so a restart keeps both. The first stdout
line is the URL. The process starts once per test, several times with restarts, so
what it imports is kept to what serving needs: spawn-to-URL time is the suite's time.

`start_host_process` is the other end: the adapter's door, spawning this module and
handing back the handle the suite kills and stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.adapter._hosting_types import HostSpec

LISTENING = "turnlaw-host listening on "
"""The first stdout line's prefix (the same as `python -m reference_impl.hosting`'s)."""

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

    def __init__(self, process: asyncio.subprocess.Process, base_url: str, log: Path) -> None:
        self.process = process
        self.base_url = base_url
        self._log = log

    async def kill(self) -> None:
        """Hard: SIGKILL, nothing flushed, nothing persisted that was not already."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()
        self._log.unlink(missing_ok=True)

    async def stop(self) -> None:
        """Graceful: SIGTERM; running turns finish and persist, then it exits."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        await self.process.wait()
        self._log.unlink(missing_ok=True)


async def start_host_process(
    spec: HostSpec, *, agent_class: str | None = None, host_class: str | None = None
) -> HostProcess:
    """Spawn the host for `spec` and wait (at most START_DEADLINE) for its URL."""
    folder = Path(tempfile.mkdtemp(prefix="turnlaw-host-"))
    spec_file = folder / "spec.json"
    spec_file.write_text(spec.model_dump_json(), encoding="utf-8")
    log = folder / "stderr.log"
    command = [sys.executable, "-m", "reference_impl.conformance_host", "--spec-file", str(spec_file)]
    if agent_class is not None:
        command += ["--agent-class", agent_class]
    if host_class is not None:
        command += ["--host-class", host_class]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    with log.open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=stderr, env=env,
        )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), START_DEADLINE)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise HostStartError(f"no URL within {START_DEADLINE:g}s", _tail(log)) from None
    text = line.decode("utf-8", "replace").strip()
    if not text.startswith(LISTENING):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        problem = f"it exited ({process.returncode})" if not text else f"it printed {text!r}"
        raise HostStartError(problem, _tail(log))
    spec_file.unlink(missing_ok=True)
    return HostProcess(process, text.removeprefix(LISTENING), log)


def _tail(log: Path, limit: int = 4000) -> str:
    try:
        return log.read_bytes()[-limit:].decode("utf-8", "replace")
    except OSError:
        return ""


def _resolve(path: str) -> Any:
    """`module:attr.attr` → the object (the adapter's own argument, never the spec's)."""
    module, _, attr = path.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


def _verifier(principals: dict[str, str] | None) -> Any:
    """`Authorization: Bearer <token>` → principals[token]; anything else refused."""
    if principals is None:
        return None

    def verify(headers: Any) -> str | None:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        return principals.get(token) if scheme.lower() == "bearer" else None

    return verify


async def _serve(spec: HostSpec, agent_class: Any, host_class: Any) -> None:
    from ._sqlite_memory import SqliteMemoryStore
    from .conformance_adapter import ReferenceImplementation
    from .hosting import standing_agent, uvicorn_host
    from .store import sqlite_sessions

    implementation = ReferenceImplementation(agent_class=agent_class)
    memory = SqliteMemoryStore(spec.store + ".memory") if spec.agent.memory else None

    def build() -> Any:
        agent, _provider = implementation.build_agent(spec.agent, memory=memory)
        return agent

    async with standing_agent(
        agent=None if spec.agent_per_session else build(),
        agent_factory=build if spec.agent_per_session else None,
        sessions=sqlite_sessions(spec.store),
        host=uvicorn_host(session_cookie=spec.session_cookie),
        on_concurrent_invoke=spec.on_concurrent_invoke,
        identity=_verifier(spec.principals),
        standing_class=host_class,
    ) as served:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, served.stop)
        print(f"{LISTENING}{served.url}", flush=True)
        await served.wait_stopped()


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m reference_impl.conformance_host")
    parser.add_argument("--spec-file", required=True, type=Path)
    parser.add_argument("--agent-class", default=None, help="module:attr of an Agent class")
    parser.add_argument("--host-class", default=None, help="module:attr of a StandingAgent")
    args = parser.parse_args(argv)
    from conformance.adapter._hosting_types import HostSpec

    spec = HostSpec.model_validate_json(args.spec_file.read_text(encoding="utf-8"))
    if args.agent_class is not None:
        agent_class = _resolve(args.agent_class)
    else:
        from .agent import Agent as agent_class
    if args.host_class is not None:
        host_class = _resolve(args.host_class)
    else:
        from .hosting import StandingAgent as host_class
    asyncio.run(_serve(spec, agent_class, host_class))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
