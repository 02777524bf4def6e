"""`standing_agent(...)`: a StandingAgent served by a host, as an async context manager.

    async with standing_agent(agent=agent, sessions=sqlite_sessions("sessions.db"),
                              host=uvicorn_host(port=8080)) as served:
        print(served.url)
        await served.wait_stopped()

Leaving the block stops the host gracefully: new requests are refused with 503, running
turns finish and persist, then the store is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import uvicorn

from ..agent import Agent
from ..store import SessionStore
from ._app import build_app
from ._lanes import AgentFactory, ConcurrentInvoke
from ._protocol import HEAD_LIMIT, WireH11Protocol
from ._standing import IdentityVerifier, StandingAgent


@dataclass(frozen=True, slots=True)
class UvicornHost:
    """Where and how to serve: an address, and cookie mode's cookie name (None: off)."""

    host: str = "127.0.0.1"
    port: int = 0
    session_cookie: str | None = None


def uvicorn_host(
    host: str = "127.0.0.1", port: int = 0, session_cookie: str | None = None
) -> UvicornHost:
    """Serve on uvicorn at `host:port` (port 0: any free port; `served.url` says which)."""
    return UvicornHost(host=host, port=port, session_cookie=session_cookie)


class Served:
    """A running host: its URL, the StandingAgent behind it, and how to stop it."""

    def __init__(
        self, core: StandingAgent, server: uvicorn.Server, task: asyncio.Task[None]
    ) -> None:
        self.core = core
        self._server = server
        self._task = task

    @property
    def url(self) -> str:
        sockets = self._server.servers[0].sockets
        host, port = sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Begin a graceful stop: 503 to new requests, running turns finish and persist."""
        self.core.begin_shutdown()
        self._server.should_exit = True

    async def wait_stopped(self) -> None:
        """Until the server has stopped (after `stop`, or when it failed)."""
        await asyncio.shield(self._task)


@asynccontextmanager
async def standing_agent(
    *,
    agent: Agent | None = None,
    agent_factory: AgentFactory | None = None,
    sessions: SessionStore,
    host: UvicornHost | None = None,
    on_concurrent_invoke: ConcurrentInvoke = "reject",
    max_active_sessions: int = 100,
    identity: IdentityVerifier | None = None,
    standing_class: type[StandingAgent] = StandingAgent,
    server_class: type[uvicorn.Server] = uvicorn.Server,
) -> AsyncIterator[Served]:
    """Serve conversations until the block ends; `standing_class` is the core (a host
    derived from the reference overrides its seams), `server_class` the uvicorn server
    that runs it (a subclass may start or stop its own way)."""
    where = host or uvicorn_host()
    core = standing_class(
        agent=agent,
        agent_factory=agent_factory,
        sessions=sessions,
        on_concurrent_invoke=on_concurrent_invoke,
        max_active_sessions=max_active_sessions,
        identity=identity,
        session_cookie=where.session_cookie,
    )
    config = uvicorn.Config(
        build_app(core),
        host=where.host,
        port=where.port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        http=WireH11Protocol,
        h11_max_incomplete_event_size=HEAD_LIMIT,
        timeout_graceful_shutdown=None,
    )
    server = server_class(config)
    task = asyncio.ensure_future(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()  # it failed to start: say why
                raise RuntimeError(f"the host did not start on {where.host}:{where.port}")
            await asyncio.sleep(0.005)
        served = Served(core, server, task)
        yield served
    finally:
        core.begin_shutdown()
        server.should_exit = True
        with contextlib.suppress(Exception):
            await task
        sessions.close()
