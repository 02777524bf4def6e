"""`serve_sessions(runtime)`: a SessionRuntime on uvicorn, as an async context manager.

    async with serve_sessions(runtime, port=0) as served:
        print(served.url)
        await served.wait_stopped()

Leaving the block (or `stop()`) stops it: no new sessions or messages, turns still
playing are aborted with their receipts settled, open sockets are closed, the store is
closed. The command line stops it on SIGINT/SIGTERM through its own handlers, which
take the place of uvicorn's.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import uvicorn

from ..providers import ModelProvider
from ..store import sqlite_runtime_store
from ._app import build_app
from ._runtime import SessionRuntime

STORE_FILE = "sessions.db"
"""The one SQLite file a session runtime keeps in its store directory."""


def open_runtime(
    store: str | os.PathLike[str],
    provider: ModelProvider,
    model: str,
    runtime_class: str | None = None,
) -> SessionRuntime:
    """A runtime on the store directory `store` (made if missing): `runtime_class` is an
    import path (`module:attr`) of a SessionRuntime subclass, the operator's own."""
    chosen: Any = SessionRuntime if runtime_class is None else _resolve(runtime_class)
    folder = Path(store)
    folder.mkdir(parents=True, exist_ok=True)
    runtime: SessionRuntime = chosen(
        store=sqlite_runtime_store(folder / STORE_FILE), provider=provider, model=model
    )
    return runtime


def _resolve(path: str) -> Any:
    """`module:attr.attr` -> the object."""
    module, _, attr = path.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


class ServedSessions:
    """A running session runtime: its URL, its core, and how to stop it."""

    def __init__(
        self, runtime: SessionRuntime, server: uvicorn.Server, task: asyncio.Task[None]
    ) -> None:
        self.runtime = runtime
        self._server = server
        self._task = task
        self._stopping: asyncio.Future[None] | None = None

    @property
    def url(self) -> str:
        host, port = self._server.servers[0].sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Begin stopping (see the module docstring): the runtime first, so the sessions
        are told their turns' ends before the sockets close."""
        self.runtime.stopping = True
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())

    async def _stop(self) -> None:
        try:
            await self.runtime.stop()
        finally:
            self._server.should_exit = True

    async def wait_stopped(self) -> None:
        await asyncio.shield(self._task)


@asynccontextmanager
async def serve_sessions(
    runtime: SessionRuntime,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    server_class: type[uvicorn.Server] = uvicorn.Server,
) -> AsyncIterator[ServedSessions]:
    """Serve `runtime` on `host:port` (port 0: any free port) until the block ends;
    `server_class` is the uvicorn server that runs it (a subclass may start or stop its
    own way)."""
    config = uvicorn.Config(
        build_app(runtime),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="websockets-sansio",
        http="h11",
        timeout_graceful_shutdown=5,
    )
    server = server_class(config)
    task = asyncio.ensure_future(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()  # it failed to start: say why
                raise RuntimeError(f"the session runtime did not start on {host}:{port}")
            await asyncio.sleep(0.005)
        yield ServedSessions(runtime, server, task)
    finally:
        with contextlib.suppress(Exception):
            await runtime.stop()
        server.should_exit = True
        with contextlib.suppress(Exception):
            await task
        runtime.store.close()
