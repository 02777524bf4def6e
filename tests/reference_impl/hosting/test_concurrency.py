"""Overlapping requests: a session's second turn refused or queued by policy, a shared
agent's FIFO lane, and an agent per session running in parallel with LRU eviction."""

from __future__ import annotations

import asyncio

import pytest

from conformance.wire import Hold, ScriptedProvider, text
from reference_impl.hosting import AgentPool, StandingAgent
from reference_impl.store import memory_sessions

from .conftest import Host, agent_for


def held(label: str, answer: str) -> Hold:
    return Hold(label=label, then=text(answer))


async def test_reject_refuses_before_anything_is_sent(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([held("first", "Booked.")])
    async with host(on_concurrent_invoke="reject") as (_, client):
        first = asyncio.ensure_future(
            client.post("/invoke", json={"input": "Book.", "sessionId": "s"})
        )
        await wire.hold("first").arrived()
        second = await client.post("/invoke", json={"input": "Cancel.", "sessionId": "s"})
        wire.hold("first").release()
        answered = await first
    assert (second.status_code, second.json()["code"]) == (409, "ERR_CONCURRENT_RUN")
    assert "'s'" in second.json()["error"] and "turn-" in second.json()["error"]
    assert answered.status_code == 200
    assert len(wire.wire) == 1


async def test_enqueue_runs_the_second_after_the_first_persisted(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([held("first", "Booked."), text("Cancelled.")])
    async with host(on_concurrent_invoke="enqueue") as (_, client):
        first = asyncio.ensure_future(
            client.post("/invoke", json={"input": "Book.", "sessionId": "s"})
        )
        await wire.hold("first").arrived()
        second = asyncio.ensure_future(
            client.post("/invoke", json={"input": "Cancel.", "sessionId": "s"})
        )
        await asyncio.sleep(0.2)
        assert len(wire.wire) == 1  # the second waits, it is not sent alongside
        wire.hold("first").release()
        replies = await asyncio.gather(first, second)
    assert [r.json()["output"] for r in replies] == ["Booked.", "Cancelled."]
    assert wire.wire.last.turns() == [
        ("user", "Book."),
        ("assistant", "Booked."),
        ("user", "Cancel."),
    ]


async def test_a_shared_agent_serves_sessions_one_at_a_time_never_refusing(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([held("a", "For a."), text("For b.")])
    async with host() as (_, client):
        a = asyncio.ensure_future(client.post("/invoke", json={"input": "A.", "sessionId": "a"}))
        await wire.hold("a").arrived()
        b = asyncio.ensure_future(client.post("/invoke", json={"input": "B.", "sessionId": "b"}))
        await asyncio.sleep(0.2)
        assert len(wire.wire) == 1  # b waits in the lane
        wire.hold("a").release()
        replies = await asyncio.gather(a, b)
    assert [r.json()["output"] for r in replies] == ["For a.", "For b."]
    assert wire.wire.last.turns() == [("user", "B.")]


async def test_an_agent_per_session_runs_sessions_in_parallel(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([held("one", "first"), held("two", "second")])
    async with host(agent_factory=lambda: agent_for(wire)) as (_, client):
        a = asyncio.ensure_future(client.post("/invoke", json={"input": "A.", "sessionId": "a"}))
        b = asyncio.ensure_future(client.post("/invoke", json={"input": "B.", "sessionId": "b"}))
        await wire.hold("one").arrived()
        await wire.hold("two").arrived()  # both at the fake at once
        wire.hold("one").release()
        wire.hold("two").release()
        replies = await asyncio.gather(a, b)
    assert all(r.status_code == 200 for r in replies)


async def test_the_pool_evicts_the_least_recently_used_idle_agent(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([text("a1"), text("b1"), text("a2")])
    async with host(agent_factory=lambda: agent_for(wire), max_active_sessions=1) as (
        served,
        client,
    ):
        await client.post("/invoke", json={"input": "A one.", "sessionId": "a"})
        await client.post("/invoke", json={"input": "B one.", "sessionId": "b"})
        again = await client.post("/invoke", json={"input": "A two.", "sessionId": "a"})
        pool = served.core.agents
    assert isinstance(pool, AgentPool)
    assert pool.evicted == ["a", "b"] and pool.sessions == ["a"]
    assert again.json()["output"] == "a2"
    assert wire.wire.last.user_texts() == ["A one.", "A two."]  # continued from the store


async def test_a_busy_agent_is_never_evicted() -> None:
    made: list[object] = []

    def factory() -> object:
        made.append(object())
        return made[-1]

    pool = AgentPool(factory, max_active=1)  # type: ignore[arg-type]
    async with pool.lease("a"):
        waiting = asyncio.ensure_future(_lease(pool, "b"))
        await asyncio.sleep(0.05)
        assert not waiting.done() and pool.sessions == ["a"]
    await waiting
    assert pool.evicted == ["a"] and pool.sessions == ["b"]


async def _lease(pool: AgentPool, session_id: str) -> None:
    async with pool.lease(session_id):
        pass


def test_an_unknown_policy_is_refused_at_construction(
    loopback_provider: ScriptedProvider,
) -> None:
    with pytest.raises(ValueError, match="on_concurrent_invoke"):
        StandingAgent(
            agent=agent_for(loopback_provider),
            sessions=memory_sessions(),
            on_concurrent_invoke="drop",  # type: ignore[arg-type]
        )


def test_exactly_one_of_agent_and_factory(loopback_provider: ScriptedProvider) -> None:
    agent = agent_for(loopback_provider)
    with pytest.raises(ValueError, match="exactly one"):
        StandingAgent(agent=agent, agent_factory=lambda: agent, sessions=memory_sessions())
    with pytest.raises(ValueError, match="exactly one"):
        StandingAgent(sessions=memory_sessions())
