"""The guard around an in-process session door: every op round-trips, refusals pass
through typed, deadlines (stream's own: wait + the call timeout) fire as TIMEOUT, a wrong
result is a contract error naming its path, a declared capability's NotImplementedError
is a FAIL, and an object that is no backend or session is a contract error."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter import (
    AssistantEvent,
    BackendSpec,
    BackendUnderTest,
    QueueEvent,
    RefusalKind,
    Refused,
    ResultEvent,
    SessionAgentSpec,
    SessionOptions,
    StoredMessage,
    StreamPass,
    ToolCallEvent,
)
from conformance.errors import AdapterContractError, AdapterTimeout, DeclaredButMissing
from conformance.runner.guard import GuardedBackend, GuardedImplementation, GuardedSession

from .double import DoubleSessions

TIMEOUT = 0.3


def spec(tmp_path: Path, name: str = "store") -> BackendSpec:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    return BackendSpec(base_url="http://127.0.0.1:9/v1", api_key="k", store=str(folder))


async def open_backend(
    tmp_path: Path, name: str = "store", double: DoubleSessions | None = None
) -> BackendUnderTest:
    guarded = GuardedImplementation(double or DoubleSessions(), timeout=TIMEOUT)
    return await guarded.open_backend(spec(tmp_path, name))


async def test_every_op_round_trips_through_the_guard(tmp_path: Path) -> None:
    double = DoubleSessions()
    backend = await open_backend(tmp_path, double=double)
    assert isinstance(backend, GuardedBackend)
    agent = await backend.create_agent(SessionAgentSpec(system="s", memory={"human": "Ada"}))
    assert agent.startswith("agent-")
    session = await backend.resume_session(agent, options=SessionOptions(tools=("echo",)))
    assert isinstance(session, GuardedSession)
    ids = await session.ids()
    assert ids.agent_id == agent and ids.session_id == f"{agent}:{ids.conversation_id}"
    item = await session.send("Book me a table.")
    first = await session.stream()
    assert first.ended == "result" and first.result is not None
    assert first.events[0] == QueueEvent(action="dequeued", item_ids=(item,))
    assert first.result.text == "echo: Book me a table."
    assert [type(e) for e in first.events] == [QueueEvent, AssistantEvent, ResultEvent]
    await session.send("one")
    queued = await session.send("two")
    assert await session.remove_queued(queued) is True
    assert await session.remove_queued(queued) is False
    await session.abort()
    await session.send("approve")
    asked = await session.stream()
    assert asked.ended == "approval"
    (pending,) = (await session.state()).pending_approvals
    await session.decide(pending.tool_call_id, True)
    decided = await session.stream()
    assert decided.result is not None and decided.result.text == "the tool said hi"
    listed = await session.list_messages()
    assert all(isinstance(m, StoredMessage) for m in listed)
    assert next(m.text for m in listed if m.role == "user") == "Book me a table."
    other = await backend.create_session(agent)
    assert (await other.ids()).conversation_id != ids.conversation_id
    conversations = await backend.list_conversations(agent)
    assert ids.conversation_id in conversations and len(conversations) == 2
    assert await backend.list_messages(ids.conversation_id) == listed
    await session.break_connection("drop")
    await session.close()
    await other.close()
    await backend.kill()
    (toy,) = double.backends
    assert toy.ended == "kill" and all(s.closed for s in toy.sessions)


async def test_refusals_pass_through_typed(tmp_path: Path) -> None:
    backend = await open_backend(tmp_path)
    agent = await backend.create_agent(SessionAgentSpec())
    with pytest.raises(Refused) as unknown:
        await backend.resume_session("conv-never-made")
    assert unknown.value.kind is RefusalKind.UNKNOWN_ID
    session = await backend.resume_session(agent)
    await session.break_connection("drop")
    for call in (session.send("again"), session.stream()):
        with pytest.raises(Refused) as unusable:
            await call
        assert unusable.value.kind is RefusalKind.SESSION_UNUSABLE


async def test_an_end_is_made_once(tmp_path: Path) -> None:
    """A fixture's teardown ends what a law may have ended itself: the second end is
    not the adapter's to answer."""
    double = DoubleSessions()
    backend = await open_backend(tmp_path, double=double)
    session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
    await backend.close()
    await backend.kill()
    await session.close()
    await session.close()
    assert double.backends[0].ended == "close"


async def test_a_pass_may_wait_its_wait_beyond_the_call_deadline(tmp_path: Path) -> None:
    backend = await open_backend(tmp_path)
    session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
    await session.send("hang")
    began = time.monotonic()
    waited = await session.stream(wait=TIMEOUT * 2)
    assert waited.ended == "waiting" and waited.events == ()
    assert time.monotonic() - began >= TIMEOUT * 2


@pytest.mark.parametrize(
    ("message", "wait"), [("hang", None), ("stuck", TIMEOUT)], ids=["no-wait", "past-its-wait"]
)
async def test_a_pass_past_its_deadline_is_a_timeout(
    tmp_path: Path, message: str, wait: float | None
) -> None:
    backend = await open_backend(tmp_path)
    session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
    await session.send(message)
    began = time.monotonic()
    with pytest.raises(AdapterTimeout, match=r"stream\(\) did not return within"):
        await session.stream(wait=wait)
    assert time.monotonic() - began >= TIMEOUT + (wait or 0)


async def test_an_open_that_never_answers_is_a_timeout(tmp_path: Path) -> None:
    guarded = GuardedImplementation(DoubleSessions(), timeout=0.05)
    with pytest.raises(AdapterTimeout, match="open_backend"):
        await guarded.open_backend(spec(tmp_path, "hang"))


async def test_a_garbage_pass_is_a_contract_error_naming_the_path(tmp_path: Path) -> None:
    backend = await open_backend(tmp_path)
    session = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
    await session.send("garbage")
    with pytest.raises(AdapterContractError) as raised:
        await session.stream()
    assert raised.value.where == "stream()"
    assert raised.value.problem.startswith("stream().events[1].text: Input should be a valid")


class _Wrong:
    """A session whose every call returns what it is given."""

    def __init__(self, returns: Any) -> None:
        self.returns = returns

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            return self.returns

        return call


@pytest.mark.parametrize(
    ("method", "args", "returns", "said"),
    [
        ("stream", (), {"events": [], "ended": "result"}, "returned a dict, not a StreamPass"),
        ("send", ("hi",), 7, "returned an int, not a str or None"),
        ("remove_queued", ("item-1",), "yes", "returned a str, not a bool"),
        (
            "list_messages",
            (),
            [StoredMessage(role="user"), {"role": "user"}],
            "list_messages()[1] is a dict, not a StoredMessage",
        ),
        (
            "ids",
            (),
            ResultEvent(success=True),
            "returned a ResultEvent, not a SessionIds",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and value.isidentifier() else "",
)
async def test_a_wrong_result_is_a_contract_error(
    method: str, args: tuple[Any, ...], returns: Any, said: str
) -> None:
    session = GuardedSession(_Wrong(returns), TIMEOUT, frozenset())
    with pytest.raises(AdapterContractError) as raised:
        await getattr(session, method)(*args)
    assert raised.value.problem == said


async def test_an_open_tool_arguments_value_must_be_json() -> None:
    odd = StreamPass(
        events=(ToolCallEvent(tool_call_id="c", tool_name="echo", arguments={"x": {1, 2}}),),
        ended="result",
    )
    session = GuardedSession(_Wrong(odd), TIMEOUT, frozenset())
    with pytest.raises(AdapterContractError, match=r"stream\(\)\.events\[0\]\.arguments\['x'\]"):
        await session.stream()


async def test_a_declared_capability_that_raises_not_implemented_is_a_fail(
    tmp_path: Path,
) -> None:
    backend = await open_backend(tmp_path)
    session = await backend.resume_session(
        await backend.create_agent(SessionAgentSpec(system="nostate"))
    )
    with pytest.raises(DeclaredButMissing, match=r"state\(\) raised NotImplementedError") as raised:
        await session.state()
    assert isinstance(raised.value, AssertionError)


async def test_what_is_no_backend_or_session_is_a_contract_error(tmp_path: Path) -> None:
    with pytest.raises(AdapterContractError, match="lacks the BackendUnderTest methods create"):
        await open_backend(tmp_path, "nomethods")
    backend = await open_backend(tmp_path)
    agent = await backend.create_agent(SessionAgentSpec(system="nomethods"))
    with pytest.raises(AdapterContractError, match="lacks the SessionUnderTest methods ids, send"):
        await backend.create_session(agent)


async def test_a_backend_lacking_a_method_is_killed_before_the_error(tmp_path: Path) -> None:
    killed: list[bool] = []

    class HalfBackend:
        async def kill(self) -> None:
            killed.append(True)

    class Opens(DoubleSessions):
        async def open_backend(self, spec: BackendSpec) -> Any:
            return HalfBackend()

    with pytest.raises(AdapterContractError, match="lacks the BackendUnderTest methods"):
        await open_backend(tmp_path, double=Opens())
    assert killed == [True]


async def test_sessions_declared_without_a_door_is_declared_but_missing(tmp_path: Path) -> None:
    class NoDoor:
        name = "no door"
        capabilities = DoubleSessions().capabilities

        async def create_agent(self, spec: Any) -> None:
            raise NotImplementedError

    guarded = GuardedImplementation(NoDoor(), timeout=TIMEOUT)  # type: ignore[arg-type]
    with pytest.raises(DeclaredButMissing, match="open_backend"):
        await guarded.open_backend(spec(tmp_path))


async def test_the_store_persists_beyond_the_backend(tmp_path: Path) -> None:
    """The double is honest: the same store opened again is the same backend."""
    first = await open_backend(tmp_path)
    agent = await first.create_agent(SessionAgentSpec())
    session = await first.resume_session(agent)
    await session.send("remember me")
    await session.stream()
    await session.close()
    await first.close()
    again = await open_backend(tmp_path)
    resumed = await again.resume_session(agent)
    assert [m.text for m in await resumed.list_messages()] == ["remember me", "echo: remember me"]
