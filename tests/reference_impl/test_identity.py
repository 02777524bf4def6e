"""The identity ladder: named identities win; synthesized ones never reach tools."""

from __future__ import annotations

import json
from typing import Any

from conformance.wire import ScriptedProvider, text, tool_call
from reference_impl import Identity


def seen_by_tool(wire: ScriptedProvider) -> dict[str, Any]:
    """What the `whoami` tool returned, read off the wire: the tool result the model got."""
    (result,) = [m for m in wire.wire.last.messages if m.role == "tool"]
    seen: dict[str, Any] = json.loads(result.text)
    return seen


def ask_whoami(final: str = "Done.") -> list[Any]:
    return [tool_call("whoami"), text(final)]


async def test_explicit_identity_wins_and_reaches_tools(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script(ask_whoami())
    agent = new_agent().build()
    named = Identity(conversation_id="c-1", tenant="acme")
    await agent.run("who am I?", identity=named, session_id="s-1")
    seen = seen_by_tool(wire)
    assert seen["identity"] == {"conversation_id": "c-1", "tenant": "acme"}
    assert seen["session_id"] == "s-1"
    assert agent.last_run.identity == named and agent.last_run.identity_source == "explicit"
    assert seen["run_id"] == agent.last_run.run_id


async def test_session_id_becomes_the_namespace_but_is_not_published(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script(ask_whoami())
    agent = new_agent().build()
    await agent.run("who am I?", session_id="s-7")
    seen = seen_by_tool(wire)
    assert seen["identity"] is None, "a synthesized namespace is never ctx.identity"
    assert seen["session_id"] == "s-7"
    assert agent.last_run.identity == Identity(conversation_id="s-7")
    assert agent.last_run.identity_source == "session"
    assert "identity" not in agent.checkpoint().to_data()


async def test_neither_gives_per_run_isolation(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script(ask_whoami() + ask_whoami())
    agent = new_agent().build()
    await agent.run("one")
    first = agent.last_run
    await agent.run("two")
    assert first.identity_source == agent.last_run.identity_source == "run"
    assert first.identity == Identity(conversation_id=first.run_id)
    assert first.run_id != agent.last_run.run_id
    seen = seen_by_tool(wire)
    assert seen["identity"] is None and seen["session_id"] is None
    assert seen["run_id"] == agent.last_run.run_id


async def test_a_continued_conversation_carries_its_identity(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Hi."), *ask_whoami()])
    first = new_agent().build()
    await first.run("hello", identity=Identity(conversation_id="c-42"))
    second = new_agent().build()
    await second.run("who am I?", continue_from=first.checkpoint(), session_id="s-1")
    assert seen_by_tool(wire)["identity"] == {"conversation_id": "c-42"}
    assert second.last_run.identity_source == "carried"
    assert second.checkpoint().identity == Identity(conversation_id="c-42")


async def test_the_calls_identity_overrides_the_carried_one(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Hi."), *ask_whoami()])
    agent = new_agent().build()
    await agent.run("hello", identity=Identity(conversation_id="old"))
    await agent.run(
        "who?", continue_from=agent.checkpoint(), identity=Identity(conversation_id="new")
    )
    assert seen_by_tool(wire)["identity"] == {"conversation_id": "new"}
    assert agent.checkpoint().identity == Identity(conversation_id="new")
