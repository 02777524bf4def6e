"""The session door over JSON lines, both sides: the connector against a stdio adapter of
the session double (conformance.stdio.serve) — every op round-trips, refusals cross
typed, a pass waits its wait, a pass past its deadline is a TIMEOUT (and what the
stopped adapter held is gone), a garbage pass is a PROTOCOL error naming the path — and
the server's side alone: what a stopping adapter holds is ended."""

from __future__ import annotations

import dataclasses
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from conformance.adapter import (
    BackendSpec,
    RefusalKind,
    Refused,
    SessionAgentSpec,
    SessionOptions,
    StoredMessage,
    StreamPass,
)
from conformance.errors import AdapterCrashed, AdapterProtocolError, AdapterTimeout
from conformance.stdio import ConnectorOptions, StdioBackend, StdioImplementation, StdioSession
from conformance.stdio._reply_line import read_result
from conformance.stdio.protocol import ImplementationInfo
from conformance.stdio.serve import serve_async
from tests.stdio.hang_deadline import deadline_for_the_hang

from .double import DoubleSessions

ROOT = Path(__file__).resolve().parents[2]
REPLY = 3.0
"""The reply deadline while a pass waits its wait: shorter than the wait, so the pass
outlives it; seconds, because the reply after the wait must still make it in time."""


def spec(tmp_path: Path, name: str = "store") -> BackendSpec:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    return BackendSpec(base_url="http://127.0.0.1:9/v1", api_key="k", store=str(folder))


def start(validate: bool) -> StdioImplementation:
    """The double over stdio, with the connector's own deadlines: no op that answers
    comes near them on a busy machine (a test meant to miss one shortens it around the
    hanging op only)."""
    options = ConnectorOptions(cwd=ROOT, validate=validate)
    return StdioImplementation([sys.executable, "-m", "tests.session_door.double"], options)


@pytest.fixture(scope="module")
def adapter() -> Iterator[StdioImplementation]:
    """One adapter for the module's tests that do not stop it (starting one takes a
    second): they validate every message both ways."""
    implementation = start(validate=True)
    yield implementation
    implementation.stop()


@pytest.mark.parametrize("validate", [True, False], ids=["validating", "lenient"])
async def test_every_op_round_trips_over_stdio(tmp_path: Path, validate: bool) -> None:
    implementation = start(validate)
    try:
        backend = await implementation.open_backend(spec(tmp_path))
        assert isinstance(backend, StdioBackend)
        agent = await backend.create_agent(SessionAgentSpec(memory={"human": "Ada"}))
        assert agent.startswith("agent-")
        session = await backend.resume_session(agent, options=SessionOptions(tools=("echo",)))
        assert isinstance(session, StdioSession)
        ids = await session.ids()
        assert ids.session_id == f"{agent}:{ids.conversation_id}"
        item = await session.send("Book me a table.")
        assert isinstance(item, str)
        passed = await session.stream()
        assert isinstance(passed, StreamPass) and passed.ended == "result"
        assert passed.result is not None and passed.result.text == "echo: Book me a table."
        assert passed.result.run_ids == (passed.events[1].run_id,)  # type: ignore[union-attr]
        await session.send("one")
        assert await session.remove_queued(await session.send("two") or "") is True
        await session.abort()
        await session.send("approve")
        assert (await session.stream()).ended == "approval"
        (pending,) = (await session.state()).pending_approvals
        await session.decide(pending.tool_call_id, False)
        denied = await session.stream()
        assert denied.result is not None and denied.result.text == "the tool said denied"
        listed = await session.list_messages()
        assert all(isinstance(m, StoredMessage) for m in listed)
        other = await backend.create_session(agent)
        assert (await other.ids()).conversation_id != ids.conversation_id
        assert len(await backend.list_conversations(agent)) == 2
        assert await backend.list_messages(ids.conversation_id) == listed
        await session.break_connection("drop")
        with pytest.raises(Refused) as unusable:
            await session.send("again")
        assert unusable.value.kind is RefusalKind.SESSION_UNUSABLE
        await session.close()
        await other.close()
        await backend.kill()
        await backend.kill()  # its adapter forgot it: the connector says nothing
    finally:
        implementation.stop()


async def test_refusals_cross_stdio_typed(adapter: StdioImplementation, tmp_path: Path) -> None:
    backend = await adapter.open_backend(spec(tmp_path))
    for call in (backend.resume_session("conv-nope"), backend.list_messages("conv-nope")):
        with pytest.raises(Refused) as unknown:
            await call
        assert unknown.value.kind is RefusalKind.UNKNOWN_ID
    await backend.close()


async def test_a_pass_may_wait_beyond_the_reply_timeout(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    backend = await adapter.open_backend(spec(tmp_path))
    session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
    await session.send("hang")
    with deadline_for_the_hang(adapter, REPLY):  # the double answers once the wait is over
        assert (await session.stream(wait=REPLY + 1)).ended == "waiting"
    await session.close()
    await backend.close()


async def test_a_garbage_pass_is_a_protocol_error_naming_the_path(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    backend = await adapter.open_backend(spec(tmp_path))
    session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
    await session.send("garbage")
    with pytest.raises(AdapterProtocolError, match=r"events\.1\.assistant\.text: Input should"):
        await session.stream()
    await session.close()
    await backend.close()


async def test_a_pass_past_its_deadline_is_a_timeout_and_loses_what_the_adapter_held(
    tmp_path: Path,
) -> None:
    implementation = start(validate=True)
    try:
        backend = await implementation.open_backend(spec(tmp_path))
        session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
        await session.send("stuck")
        with (
            deadline_for_the_hang(implementation, 0.5),
            pytest.raises(AdapterTimeout, match=r"session\.stream"),
        ):
            await session.stream(wait=0.5)
        with pytest.raises(AdapterCrashed, match=r"session\.send on session 's\d+'.*is gone"):
            await session.send("after")
        with pytest.raises(AdapterCrashed, match=r"backend\.create_agent on backend 'b\d+'"):
            await backend.create_agent(SessionAgentSpec())
        await session.close()  # gone with its process: nothing to end
        await backend.kill()
        again = await implementation.open_backend(spec(tmp_path))  # a restarted adapter
        assert (await again.create_agent(SessionAgentSpec())).startswith("agent-")
    finally:
        implementation.stop()


async def test_an_open_that_never_answers_is_a_timeout(tmp_path: Path) -> None:
    implementation = start(validate=True)
    try:
        implementation.options = dataclasses.replace(implementation.options, start_timeout=0.5)
        with pytest.raises(AdapterTimeout, match=r"backend\.open"):
            await implementation.open_backend(spec(tmp_path, "hang"))
    finally:
        implementation.stop()


def test_session_results_are_strict_json_and_lenient_only_about_unknown_fields() -> None:
    result = {"type": "result", "success": True, "run_ids": ["r"], "said": "more"}
    passed = {"events": [result], "ended": "result"}
    read = read_result("session.stream", passed, validate=False)
    assert isinstance(read, StreamPass) and read.events[0].run_ids == ("r",)  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match="said"):
        read_result("session.stream", passed, validate=True)
    for wrong in ({"success": "yes"}, {"duration_ms": "3"}):
        garbled = {"events": [{**result, **wrong}], "ended": "result"}
        with pytest.raises(ValidationError):
            read_result("session.stream", garbled, validate=False)
    with pytest.raises(ValidationError):
        read_result("session.remove_queued", "true", validate=False)
    assert read_result("session.abort", {"anything": 1}, validate=False) == {"anything": 1}


async def test_a_stopping_adapter_closes_its_sessions_and_kills_its_backends(
    tmp_path: Path,
) -> None:
    store = spec(tmp_path).model_dump(mode="json")
    lines = [
        {"op": "backend.open", "seq": 1, "backend": "b1", "spec": store},
        {"op": "backend.create_agent", "seq": 2, "backend": "b1", "spec": {}},
    ]
    double = DoubleSessions()
    out = io.StringIO()
    first = "\n".join(json.dumps(line) for line in lines) + "\n"
    await serve_async(
        double, ImplementationInfo(name="d", language="python"), io.StringIO(first), out
    )
    agent = json.loads(out.getvalue().splitlines()[1])["result"]
    more = [
        *lines[:1],
        {"op": "backend.resume_session", "seq": 3, "backend": "b1", "session": "s2", "id": agent},
        {"op": "session.ids", "seq": 4, "session": "s2"},
        {"op": "session.send", "seq": 5, "session": "s9", "message": "hi"},
        {"op": "stop", "seq": 6},
    ]
    out = io.StringIO()
    text = "\n".join(json.dumps(line) for line in more) + "\n"
    await serve_async(
        double, ImplementationInfo(name="d", language="python"), io.StringIO(text), out
    )
    replies = {reply["seq"]: reply for reply in map(json.loads, out.getvalue().splitlines())}
    assert replies[4]["result"]["agent_id"] == agent
    assert replies[5]["status"] == "error" and "no open session 's9'" in replies[5]["message"]
    first_backend, second_backend = double.backends
    assert first_backend.ended == second_backend.ended == "kill"  # at EOF, and at stop
    assert [s.closed for s in second_backend.sessions] == [True]
