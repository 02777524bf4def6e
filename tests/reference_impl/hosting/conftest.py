"""The reference host over real HTTP against the loopback fake: one fake per test, the
host in the test's own event loop (uvicorn), a real HTTP client with its own cookies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance._prompt_server import PromptServer
from conformance._tls import SHARED_TLS
from conformance.wire import ScriptedProvider
from reference_impl import Agent, make_provider
from reference_impl.hosting import Served, standing_agent, uvicorn_host
from reference_impl.store import sqlite_sessions
from tests.conftest import API_KEY

from ..conftest import approve_refund

MODEL = "host-model"
SYSTEM = "You take restaurant bookings."


def agent_for(wire: ScriptedProvider) -> Agent:
    """A fresh reference agent pointed at the fake."""
    provider = make_provider("openai-chat", base_url=wire.base_url, api_key=API_KEY, tls=SHARED_TLS)
    return Agent.create(provider=provider, model=MODEL).system(SYSTEM).tool(approve_refund).build()


Host = Callable[..., Any]


@pytest.fixture
def host(loopback_provider: ScriptedProvider, tmp_path: Path) -> Host:
    """`async with host(**standing_agent options) as (served, client)`: a host on a fresh
    SQLite store (`store=` to reuse one), a shared agent unless `agent_factory=` is given."""

    @asynccontextmanager
    async def serve(
        *, store: Path | None = None, session_cookie: str | None = None, **options: Any
    ) -> AsyncIterator[tuple[Served, httpx.AsyncClient]]:
        options.setdefault("server_class", PromptServer)  # stops at once: a test ends many
        if "agent_factory" not in options:
            options.setdefault("agent", agent_for(loopback_provider))
        async with (
            standing_agent(
                sessions=sqlite_sessions(str(store or tmp_path / "sessions.db")),
                host=uvicorn_host(session_cookie=session_cookie),
                **options,
            ) as served,
            httpx.AsyncClient(base_url=served.url, timeout=20) as client,
        ):
            yield served, client

    return serve
