"""A run that fails after a model call hands back the last good checkpoint."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.wire import Fault, ScriptedProvider, text, tool_call
from reference_impl import RunFailedError, ToolLoopLimitError


async def test_failure_after_a_model_call_carries_a_continuable_checkpoint(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script(
        [
            tool_call("echo", {"text": "x"}),
            Fault(status=400, message="model fell over"),
            text("Recovered."),
        ]
    )
    agent = new_agent().build()
    with pytest.raises(RunFailedError, match="model fell over") as raised:
        await agent.run("Echo x.")
    checkpoint = raised.value.checkpoint
    assert [t.role for t in checkpoint.history] == ["user", "assistant", "tool"]
    retry = await agent.run("Try again.", continue_from=checkpoint)
    assert retry.answer == "Recovered."
    assert [m.role for m in wire.wire.last.messages] == ["user", "assistant", "tool", "user"]


async def test_a_failure_before_any_model_call_is_the_original_error(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([Fault(status=400, message="bad request")])
    agent = new_agent().build()
    with pytest.raises(Exception, match="bad request") as raised:
        await agent.run("hello")
    assert not isinstance(raised.value, RunFailedError)


async def test_the_tool_loop_is_bounded(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script([tool_call("echo", {"text": str(i)}) for i in range(3)])
    agent = new_agent().max_tool_rounds(3).build()
    with pytest.raises(ToolLoopLimitError, match="3 rounds"):
        await agent.run("loop forever")
