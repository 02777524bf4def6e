"""Two refusals: a second run while one is in flight, a message while a person owes an answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conformance.wire import Hold, ScriptedProvider, parallel_calls, text, tool_call
from reference_impl import PendingQuestionError, RunInFlightError
from tests.reference_impl.conftest import REFUND_CALLS


async def test_a_second_run_in_flight_is_refused_before_anything_is_sent(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    hold = Hold(then=text("First answer."))
    wire.script([hold])
    agent = new_agent().build()
    first = asyncio.create_task(agent.run("first"))
    await hold.arrived()
    for door in (agent.run("second"), agent.follow_up("second")):
        with pytest.raises(RunInFlightError, match="already running"):
            await door
    with pytest.raises(RunInFlightError):
        await agent.resume({"history": []}, "yes")
    assert len(wire.wire) == 1, "the refused runs sent nothing"
    hold.release()
    result = await first
    assert result.answer == "First answer."
    assert [t.text for t in agent.checkpoint().history] == ["first", "First answer."]


async def test_two_agents_run_at_once(wire: ScriptedProvider, new_agent: Any) -> None:
    hold = Hold(then=text("one"))
    wire.script([hold, text("two")])
    a, b = new_agent().build(), new_agent().build()
    first = asyncio.create_task(a.run("a"))
    await hold.arrived()
    assert (await b.run("b")).answer == "two"
    hold.release()
    assert (await first).answer == "one"


def refund_script(*after: Any) -> list[Any]:
    return [tool_call("approve_refund", {"order": 7}), *after]


async def test_a_paused_run_returns_the_question_and_a_resumable_checkpoint(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script(refund_script(text("Refunded.")))
    agent = new_agent().build()
    paused = await agent.run("Refund order 7.")
    assert paused.paused and paused.answer is None
    assert paused.pending is not None
    assert (paused.pending.tool_name, paused.pending.question) == (
        "approve_refund",
        "Approve a refund for order 7?",
    )
    assert paused.checkpoint.pending == paused.pending
    done = await agent.resume(paused.checkpoint, "approved")
    assert done.answer == "Refunded."
    tool_results = [m for m in wire.wire.last.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.text) for m in tool_results] == [
        (paused.pending.tool_call_id, "approved")
    ]
    assert len(REFUND_CALLS) == 1, "the asking tool is not run again"


async def test_any_new_message_is_refused_while_a_question_is_pending(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script(refund_script())
    agent = new_agent().build()
    paused = await agent.run("Refund order 7.")
    for door in (
        agent.run("never mind"),
        agent.follow_up("never mind"),
        agent.run("never mind", continue_from=paused.checkpoint),
    ):
        with pytest.raises(PendingQuestionError, match="approve_refund") as raised:
            await door
        assert "resume(" in str(raised.value) and "abandon_pause()" in str(raised.value)
    other = new_agent().build()  # the gate travels with the checkpoint, to any agent
    with pytest.raises(PendingQuestionError):
        await other.run("never mind", continue_from=paused.checkpoint)
    assert len(wire.wire) == 1


async def test_resume_does_not_rerun_earlier_tools(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script(
        [
            parallel_calls(
                ("echo", {"text": "before"}),
                ("approve_refund", {"order": 1}),
                ("echo", {"text": "after"}),
            ),
            text("All done."),
        ]
    )
    agent = new_agent().build()
    paused = await agent.run("Do all three.")
    other = new_agent().build()  # resumed elsewhere, from the checkpoint alone
    done = await other.resume(paused.checkpoint.to_json(), {"approved": True})
    assert done.answer == "All done."
    results = [m.text for m in wire.wire.last.messages if m.role == "tool"]
    assert results == ["before", '{"approved": true}', "after"]
    assert len(REFUND_CALLS) == 1


async def test_abandon_pause_says_what_it_dropped(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script(refund_script(text("Sure, what else?")))
    agent = new_agent().build()
    assert agent.abandon_pause() is None
    paused = await agent.run("Refund order 7.")
    assert paused.pending is not None
    dropped = agent.abandon_pause()
    assert dropped == {
        "tool_name": "approve_refund",
        "tool_call_id": paused.pending.tool_call_id,
        "question": "Approve a refund for order 7?",
    }
    assert agent.abandon_pause() is None
    await agent.follow_up("never mind, different question")
    roles = [m.role for m in wire.wire.last.messages]
    assert roles == ["user", "assistant", "tool", "user"]  # well formed: the call is answered
    assert "abandoned" in wire.wire.last.messages[2].text
