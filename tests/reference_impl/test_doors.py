"""run() is ONE turn; follow_up() and continue_from are the two named ways to continue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.wire import ScriptedProvider, text
from reference_impl import (
    AgentRunCheckpoint,
    Identity,
    InvalidCheckpointError,
    NoConversationError,
)

BOOK, THREE = "Book me a table for two on Friday.", "Make it three."


async def test_run_is_one_turn(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script([text("Booked."), text("Three what?")])
    agent = new_agent().build()
    await agent.run(BOOK)
    await agent.run(THREE)
    assert wire.wire.last.turns() == [("user", THREE)]


async def test_same_conversation_id_does_not_join_runs(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Booked."), text("Three what?")])
    agent = new_agent().build()
    same = Identity(conversation_id="c-1")
    await agent.run(BOOK, identity=same)
    await agent.run(THREE, identity=same)
    assert wire.wire.last.turns() == [("user", THREE)]


async def test_follow_up_shows_the_last_answer(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script([text("Booked for two."), text("Three it is.")])
    agent = new_agent().build()
    first = await agent.run(BOOK)
    second = await agent.follow_up(THREE)
    assert (first.answer, second.answer) == ("Booked for two.", "Three it is.")
    assert wire.wire.last.turns() == [
        ("user", BOOK),
        ("assistant", "Booked for two."),
        ("user", THREE),
    ]
    assert wire.wire.last.system == "You take restaurant bookings. Be brief."


async def test_follow_up_before_any_run_refuses_and_sends_nothing(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    agent = new_agent().build()
    with pytest.raises(NoConversationError, match="no completed run"):
        await agent.follow_up(THREE)
    assert len(wire.wire) == 0


async def test_follow_up_is_exactly_continue_from_checkpoint(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Booked."), text("Three."), text("Booked."), text("Three.")])
    a = new_agent().build()
    await a.run(BOOK)
    await a.follow_up(THREE)
    b = new_agent().build()
    await b.run(BOOK)
    await b.run(THREE, continue_from=b.checkpoint())
    bodies = [e.body for e in wire.wire]
    assert bodies[1] == bodies[3]
    assert a.checkpoint() == b.checkpoint()


async def test_continue_from_a_stored_checkpoint_on_another_agent(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Booked."), text("Three it is.")])
    first = new_agent().build()
    await first.run(BOOK)
    stored = first.checkpoint().to_json()  # plain JSON: a store, a queue, another machine
    second = new_agent().build()
    result = await second.run(THREE, continue_from=json.loads(stored))
    assert result.answer == "Three it is."
    assert wire.wire.last.turns() == [("user", BOOK), ("assistant", "Booked."), ("user", THREE)]


async def test_checkpoint_is_plain_json_with_the_final_answer(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Booked."), text("Booked.")])
    unnamed = new_agent().build()
    await unnamed.run(BOOK)
    checkpoint = unnamed.checkpoint()
    data = json.loads(checkpoint.to_json())
    assert AgentRunCheckpoint.model_validate(data) == checkpoint
    assert [t["role"] for t in data["history"]] == ["user", "assistant"]
    assert data["history"][-1]["text"] == "Booked."
    assert "identity" not in data and "agent" not in data  # nobody named either
    named = new_agent(id="booking").build()
    await named.run(BOOK, identity=Identity(conversation_id="c-9"))
    data = named.checkpoint().to_data()
    assert data["agent"] == "booking"
    assert data["identity"] == {"conversation_id": "c-9"}


async def test_nothing_trims_history_on_the_way_to_storage(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text(f"answer {i}") for i in range(6)])
    agent = new_agent().window(keep_recent_turns=2).build()
    await agent.run("message 0")
    for i in range(1, 6):
        await agent.follow_up(f"message {i}")
    assert len(agent.checkpoint().history) == 12
    assert wire.wire.last.user_texts() == ["message 4", "message 5"]  # the window bounds the wire


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"version": 2, "history": []}, "version"),
        ({"history": [{"role": "robot", "text": "x"}]}, "history.0.role"),
        ({"history": "everything"}, "history"),
        (
            {"history": [{"role": "tool", "tool_call_id": "nope", "text": "r"}]},
            "history.0.tool_call_id",
        ),
        ({"history": [], "folded": [{"at": 3, "turns": 1, "summary": "s"}]}, "folded.0.at"),
        ({"history": [], "surprise": True}, "surprise"),
        ("{not json", "(document)"),
        ([1, 2], "(document)"),
    ],
)
async def test_malformed_checkpoints_are_refused_naming_the_field(
    wire: ScriptedProvider, new_agent: Any, bad: Any, field: str
) -> None:
    agent = new_agent().build()
    with pytest.raises(InvalidCheckpointError) as raised:
        await agent.run(THREE, continue_from=bad)
    assert raised.value.field == field
    assert f"'{field}'" in str(raised.value)
    assert len(wire.wire) == 0
