"""Self-explain reads the trace of the last completed run, never the one in flight."""

from __future__ import annotations

import json
from typing import Any

from conformance.wire import ScriptedProvider, text, tool_call
from reference_impl import NO_COMPLETED_RUN


async def test_can_explain_needs_self_explain_and_a_completed_turn(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Booked."), text("Booked.")])
    plain = new_agent().build()
    await plain.run("Book it.")
    assert not plain.can_explain()
    explaining = new_agent().self_explain().build()
    assert not explaining.can_explain()
    await explaining.run("Book it.")
    assert explaining.can_explain()


async def test_the_trace_tool_answers_honestly_before_any_completed_run(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([tool_call("explain_last_run"), text("Nothing to explain yet.")])
    agent = new_agent().self_explain().build()
    await agent.run("Why did you book Friday?")
    assert "explain_last_run" in [t.name for t in wire.wire.requests[0].tools]
    (result,) = [m for m in wire.wire.last.messages if m.role == "tool"]
    assert result.text == NO_COMPLETED_RUN
    assert not agent.can_explain() or agent.last_run is not None


async def test_the_trace_tool_reports_what_the_last_run_did(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script(
        [
            tool_call("echo", {"text": "Friday"}),
            text("Booked Friday."),
            tool_call("explain_last_run"),
            text("Because echo said Friday."),
        ]
    )
    agent = new_agent().self_explain().build()
    first = await agent.run("Book it.")
    await agent.follow_up("Why Friday?")
    (_, result) = [m for m in wire.wire.last.messages if m.role == "tool"]
    trace = json.loads(result.text)
    assert trace["run_id"] == first.run_id
    assert trace["tools_called"] == [
        {"tool": "echo", "arguments": {"text": "Friday"}, "result": "Friday"}
    ]
    assert trace["answer"] == "Booked Friday."
