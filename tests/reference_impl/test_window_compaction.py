"""Bounding what the model is shown: window and compaction, never the stored history."""

from __future__ import annotations

from typing import Any

from conformance.wire import ScriptedProvider, text, tool_call
from reference_impl import Compaction


async def test_window_keeps_recent_turns_whole(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script([text("a0"), tool_call("echo", {"text": "x"}), text("a1"), text("a2")])
    agent = new_agent().window(keep_recent_turns=2).build()
    await agent.run("m0")
    await agent.follow_up("m1")
    await agent.follow_up("m2")
    request = wire.wire.last
    assert request.user_texts() == ["m1", "m2"]
    assert [m.role for m in request.messages] == ["user", "assistant", "tool", "assistant", "user"]


def compacting(**options: Any) -> Compaction:
    return Compaction(trigger_turns=2, keep_recent_turns=1, **options)


async def test_compaction_folds_the_oldest_span_through_a_model_call(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("a0"), text("a1"), text("SUMMARY: two bookings"), text("a2")])
    agent = new_agent().compaction(compacting()).build()
    await agent.run("m0")
    await agent.follow_up("m1")
    await agent.follow_up("m2")
    summary_request = wire.wire.requests[2]
    assert "m0" in summary_request.messages[0].text and summary_request.tools == ()
    shown = wire.wire.last
    assert shown.messages[0].role == "user"
    assert "SUMMARY: two bookings" in shown.messages[0].text
    assert "m0" not in [m.text for m in shown.messages]
    checkpoint = agent.checkpoint()
    (span,) = checkpoint.folded
    assert span.summary == "SUMMARY: two bookings" and span.originals is None
    assert checkpoint.history[span.at].text.startswith("<summary of earlier turns>")


async def test_folded_spans_survive_continue_from_on_any_agent(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("a0"), text("a1"), text("SUMMARY"), text("a2"), text("a3")])
    agent = new_agent().compaction(compacting(keep_originals=True)).build()
    await agent.run("m0")
    await agent.follow_up("m1")
    await agent.follow_up("m2")
    stored = agent.checkpoint().to_json()
    other = new_agent().build()
    await other.run("m3", continue_from=stored)
    (span,) = other.checkpoint().folded
    assert span.originals is not None and span.originals[0].text == "m0"
    assert "SUMMARY" in wire.wire.last.messages[0].text
