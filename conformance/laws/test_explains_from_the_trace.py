"""Self-explain reads the trace, not the transcript: after a completed run, the trace tool
tells the model which tool ran and with what arguments.

Asked from a new conversation (`run`), there is no transcript to read the answer from:
what the model is told can only come from the trace of the last completed run.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    SYSTEM,
    AgentFactory,
    Implementation,
    ScriptedProvider,
    premise,
    text,
    tool_call,
)

pytestmark = pytest.mark.asyncio

WHEN = "Friday 8pm"


@pytest.mark.law("self-explain.reads-the-trace")
async def test_the_trace_tool_says_which_tool_ran_with_what_arguments(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    tool = str(getattr(implementation, "trace_tool", "") or "")
    premise(
        "self-explain.trace-tools-say-so",
        bool(tool),
        "the implementation declares self_explain but names no trace tool",
    )
    fake.script(
        [
            tool_call("echo", {"text": WHEN}),
            text("Booked for Friday 8pm."),
            tool_call(tool),
            text("Because the booking tool said Friday 8pm."),
        ]
    )
    agent = await new_agent(system=SYSTEM, tools=("echo",), self_explain=True)
    await agent.run(BOOK)
    await agent.run("Why did you book Friday 8pm?")
    asked = fake.wire.last
    calls = [c.id for m in asked.messages for c in m.tool_calls if c.name == tool]
    shown = {m.tool_call_id: m.text for m in asked.messages if m.role == "tool"}
    told = shown.get(calls[-1], "") if calls else ""
    assert "echo" in told and WHEN in told, (
        "after a completed run that called echo with "
        f"{{'text': {WHEN!r}}}, the trace tool {tool!r} did not say which tool ran with what "
        f"arguments; it told the model {told[:300]!r}"
    )
