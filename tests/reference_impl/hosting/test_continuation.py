"""`reference_impl.continuation`, transport-free: the one restoration path a host (HTTP
today, another session model later) serves a stored conversation through."""

from __future__ import annotations

import pytest

from conformance.wire import ScriptedProvider, text, tool_call
from reference_impl import PendingQuestionError
from reference_impl.continuation import NoPendingAskError, TurnRequest, continue_session
from reference_impl.store import memory_sessions

from .conftest import agent_for


async def test_hydrate_continue_persist(loopback_provider: ScriptedProvider) -> None:
    wire = loopback_provider
    wire.script([text("Booked."), text("Three it is.")])
    sessions = memory_sessions()
    await continue_session(agent_for(wire), sessions, TurnRequest("s", message="Book."))
    fresh = agent_for(wire)  # a later process: only the store remembers
    result = await continue_session(fresh, sessions, TurnRequest("s", message="Three."))
    assert result.answer == "Three it is."
    assert wire.wire.last.turns() == [
        ("user", "Book."),
        ("assistant", "Booked."),
        ("user", "Three."),
    ]
    row = sessions.load("s")
    assert row is not None and row.revision == 2
    assert fresh.last_run is not None and fresh.last_run.identity_source == "session"


async def test_a_pause_is_the_agents_own_refusal_and_a_decision_resumes_it(
    loopback_provider: ScriptedProvider,
) -> None:
    wire = loopback_provider
    wire.script([tool_call("approve_refund", {"order": 3}), text("Refunded.")])
    sessions = memory_sessions()
    paused = await continue_session(agent_for(wire), sessions, TurnRequest("s", message="Refund."))
    assert paused.pending is not None
    with pytest.raises(PendingQuestionError):
        await continue_session(agent_for(wire), sessions, TurnRequest("s", message="Other."))
    done = await continue_session(agent_for(wire), sessions, TurnRequest("s", decision="yes"))
    assert done.answer == "Refunded." and len(wire.wire) == 2


async def test_a_decision_with_nothing_paused_runs_nothing(
    loopback_provider: ScriptedProvider,
) -> None:
    with pytest.raises(NoPendingAskError):
        await continue_session(
            agent_for(loopback_provider), memory_sessions(), TurnRequest("s", decision="yes")
        )
    assert len(loopback_provider.wire) == 0


async def test_a_principal_names_the_runs_identity(loopback_provider: ScriptedProvider) -> None:
    loopback_provider.script([text("Hi.")])
    sessions = memory_sessions()
    agent = agent_for(loopback_provider)
    await continue_session(agent, sessions, TurnRequest("s", message="Hi.", principal="ann"))
    assert agent.last_run is not None
    assert agent.last_run.identity.model_dump(exclude_none=True) == {
        "conversation_id": "s",
        "principal": "ann",
    }
    assert sessions.owner("s") == "ann"


def test_a_request_is_a_message_or_a_decision() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        TurnRequest("s")
    with pytest.raises(ValueError, match="exactly one"):
        TurnRequest("s", message="m", decision="d")
