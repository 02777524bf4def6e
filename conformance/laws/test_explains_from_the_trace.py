"""Self-explain reads the trace, not the transcript: after a completed run, the trace tool
tells the model which tool ran and with what arguments.

Asked from a new conversation (`run`), there is no transcript to read the answer from:
what the model is told can only come from the trace of the last completed run.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    SYSTEM,
    AgentFactory,
    Capability,
    Implementation,
    ScriptedProvider,
    declares,
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


SERVICE_KEY = "table-7-friday"
SERVICE_REPLY = "Confirmed."
"""The call's argument and its result differ, so a trace that names the tool and quotes
only its result does not pass for one that says with what arguments it ran."""


@pytest.mark.law("self-explain.reads-the-trace")
async def test_the_trace_says_the_arguments_not_only_what_came_back(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    if not declares(implementation, Capability.CALL_SERVICE):
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}a tool whose result is not its argument needs "
            f"{Capability.CALL_SERVICE.value}"
        )
    tool = str(getattr(implementation, "trace_tool", "") or "")
    premise(
        "self-explain.trace-tools-say-so",
        bool(tool),
        "the implementation declares self_explain but names no trace tool",
    )
    fake.service(SERVICE_KEY, reply=SERVICE_REPLY)
    fake.script(
        [
            tool_call("call_service", {"key": SERVICE_KEY}),
            text("Booked table 7."),
            tool_call(tool),
            text("Because the booking service confirmed table 7."),
        ]
    )
    agent = await new_agent(system=SYSTEM, tools=("call_service",), self_explain=True)
    first = await agent.run(BOOK)
    premise("smoke.one-turn", first.answer == "Booked table 7.", "the first run did not complete")
    await agent.run("Why did you book table 7?")
    asked = fake.wire.last
    calls = [c.id for m in asked.messages for c in m.tool_calls if c.name == tool]
    shown = {m.tool_call_id: m.text for m in asked.messages if m.role == "tool"}
    told = shown.get(calls[-1], "") if calls else ""
    assert "call_service" in told and SERVICE_KEY in told, (
        f"after a completed run that called call_service with {{'key': {SERVICE_KEY!r}}} "
        f"(which returned {SERVICE_REPLY!r}), the trace tool {tool!r} did not say which tool "
        f"ran with what arguments; it told the model {told[:300]!r}"
    )
