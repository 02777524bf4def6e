"""The session runtime as a real process: the command line prints its URL first and
stops cleanly on SIGTERM, and a SessionRuntime subclass named by import path (a session
rogue's one seam) is what the adapter serves, in this process and spawned."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest

from conformance.adapter import BackendSpec, SessionAgentSpec
from conformance.wire import Hold, ScriptedProvider, text
from reference_impl.adapter import ReferenceImplementation
from reference_impl.sessions import ResultEvent, SessionRuntime
from reference_impl.sessions.client import SessionClient
from reference_impl.store import AgentRecord, SessionFileError
from tests.conftest import API_KEY

from ..conftest import serve_from_command_line
from .conftest import one_pass, open_session, receipt_states


class SystemPromptWithoutMemory(SessionRuntime):
    """A runtime that leaves the memory blocks out of the system prompt (one seam)."""

    def system_prompt(self, record: AgentRecord) -> str:
        return record.system


async def test_the_command_line_prints_its_url_and_stops_cleanly_on_sigterm(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="turn", then=text("never sent"))])
    process, url = await serve_from_command_line(
        "reference_impl.sessions",
        *["--port", "0", "--store", str(tmp_path / "store")],
        *["--provider-url", wire.base_url or ""],
        env={"TURNLAW_API_KEY": API_KEY, "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)},
    )
    async with SessionClient(url) as client:
        agent, session = await open_session(client)
        await session.send("Book.")
        await wire.hold("turn").arrived()
        process.send_signal(signal.SIGTERM)
        events = await one_pass(session)
    assert await asyncio.wait_for(process.wait(), 20) == 0
    wire.hold("turn").release()
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.stop_reason == "cancelled"
    states = receipt_states(tmp_path / "store" / "sessions.db", agent.default_conversation_id)
    assert states == ["aborted"]


@pytest.mark.parametrize("killable", [False, True], ids=["in-process", "spawned"])
async def test_a_runtime_subclass_is_served_by_import_path(
    loopback_provider: ScriptedProvider, tmp_path: Path, killable: bool
) -> None:
    wire = loopback_provider
    wire.script([text("Hi.")])
    rogue = ReferenceImplementation(
        session_runtime_class=f"{__name__}:{SystemPromptWithoutMemory.__qualname__}"
    )
    spec = BackendSpec(
        base_url=wire.base_url or "", api_key=API_KEY, store=str(tmp_path), killable=killable
    )
    backend = await rogue.open_backend(spec)
    agent_id = await backend.create_agent(SessionAgentSpec(system="Be kind.", memory={"h": "Ann"}))
    session = await backend.resume_session(agent_id)
    await session.send("Hello.")
    await session.stream()
    await backend.close()
    assert wire.wire.last.system == "Be kind."


async def test_a_store_that_is_not_ours_is_refused_untouched(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    (tmp_path / "sessions.db").write_text("not a database\n", encoding="utf-8")
    spec = BackendSpec(
        base_url=loopback_provider.base_url or "", api_key=API_KEY, store=str(tmp_path)
    )
    with pytest.raises(SessionFileError) as raised:
        await ReferenceImplementation().open_backend(spec)
    assert raised.value.reason == "not-sqlite"
    assert (tmp_path / "sessions.db").read_text(encoding="utf-8") == "not a database\n"
