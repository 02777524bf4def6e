"""The session runtime in the test's own event loop (uvicorn on a real loopback socket)
against the loopback fake, and its client over real HTTP and WebSocket connections."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from conformance._prompt_server import PromptServer
from conformance._tls import SHARED_TLS
from conformance.wire import ScriptedProvider
from reference_impl import make_provider
from reference_impl.sessions import ServedSessions, SessionEvent, SessionRuntime, serve_sessions
from reference_impl.sessions.client import ClientTool, Session, SessionClient
from reference_impl.store import sqlite_runtime_store
from tests.conftest import API_KEY

MODEL = "sessions-model"

Runtime = Callable[..., Any]


@pytest.fixture
def runtime(loopback_provider: ScriptedProvider, tmp_path: Path) -> Runtime:
    """`async with runtime(store=..., runtime_class=..., provider=...) as (served, client)`:
    a session runtime on a fresh store (`store=` to reuse one)."""

    @asynccontextmanager
    async def serve(
        *,
        store: Path | None = None,
        runtime_class: type[SessionRuntime] = SessionRuntime,
        provider: Any = None,
    ) -> AsyncIterator[tuple[ServedSessions, SessionClient]]:
        model_api = provider or make_provider(
            "openai-chat", base_url=loopback_provider.base_url, api_key=API_KEY, tls=SHARED_TLS
        )
        core = runtime_class(
            store=sqlite_runtime_store(store or tmp_path / "sessions.db"),
            provider=model_api,
            model=MODEL,
        )
        async with (  # the suite's server and TLS context, as the adapter wing passes them
            serve_sessions(core, server_class=PromptServer) as served,
            SessionClient(served.url, tls=SHARED_TLS) as client,
        ):
            yield served, client

    return serve


def echo_tool(calls: list[dict[str, Any]] | None = None) -> ClientTool:
    """The catalog's echo as a client tool, recording its calls."""

    def run(arguments: dict[str, Any]) -> str:
        if calls is not None:
            calls.append(arguments)
        return str(arguments.get("text", ""))

    return ClientTool(
        name="echo",
        fn=run,
        description="Echo the text back.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    )


async def open_session(client: SessionClient, **options: Any) -> tuple[Any, Session]:
    """A new agent and a session on its default conversation (`options` go to the resume)."""
    agent = await client.create_agent()
    return agent, await client.resume_session(agent.id, **options)


async def one_pass(session: Session) -> list[SessionEvent]:
    """The events of one pass of the session's stream, up to its result."""
    return [event async for event in session.stream()]


def receipt_states(path: Path, conversation_id: str) -> list[str]:
    """The receipt states the SQLite file holds for a conversation, read on a handle of its own."""
    store = sqlite_runtime_store(path)
    try:
        return [receipt.state for receipt in store.receipts(conversation_id)]
    finally:
        store.close()
