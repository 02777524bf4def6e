"""Adapter-specific checks for conformance.frameworks.openai_agents, on the loopback fake.

The laws judge the SDK; these pin what the adapter itself must get right: the SDK is
imported only when the adapter is, and its tracing is off; the column names the installed
release and does not claim follow_up; follow_up is only the SDK's manual pattern (a plain
first run before any run) and an impossible call is a plain error, never a refusal the
SDK did not make; pause checkpoints are the SDK's own RunState JSON (without the key); the
SDK's own refusal of another agent's paused state reaches the suite as MISMATCH, and the
caveat the notes state (it refuses an unnamed side too) still holds; abandoning leaves the
SDK's own rejection as the dropped call's only result. Skipped (not passed) when
openai-agents is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from typing import Any

import pytest

from conformance.adapter import AgentSpec, Capability, RefusalKind, Refused
from conformance.wire import ScriptedProvider, text, tool_call
from conformance.wire.ir import Dialect

pytest.importorskip("agents", reason="openai-agents is not installed (pip install openai-agents)")

from conformance.frameworks.openai_agents import implementation

KEY = "sk-turnlaw-openai-agents-SECRET-42"
QUESTION = "Approve a refund for order 7?"


def spec(provider: ScriptedProvider, **fields: Any) -> AgentSpec:
    return AgentSpec(
        base_url=provider.base_url or "",
        api_key=KEY,
        dialect=Dialect.OPENAI_RESPONSES,
        **fields,
    )


def test_the_package_does_not_import_the_sdk_until_the_adapter_is_loaded() -> None:
    probe = "import sys, conformance.frameworks; print('agents' in sys.modules)"
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "False", "importing conformance.frameworks imported openai-agents"


def test_loading_the_adapter_turned_the_sdks_tracing_off() -> None:
    from agents import trace
    from agents.tracing.traces import NoOpTrace

    with trace("turnlaw") as current:
        assert isinstance(current, NoOpTrace), "tracing is on: spans would be exported"


def test_the_column_names_the_installed_release_and_claims_no_follow_up() -> None:
    assert (implementation.name, implementation.version) == (
        "openai-agents",
        version("openai-agents"),
    )
    assert Capability.FOLLOW_UP not in implementation.capabilities, (
        "follow_up is declared, but an SDK Agent holds no conversation to follow up on"
    )
    assert any("Run state agent not found" in note for note in implementation.notes), (
        "the notes no longer explain what the MISMATCH refusal is"
    )


async def test_follow_up_before_any_run_is_a_plain_first_run_and_nothing_is_refused(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([text("Booked.")])
    agent = await implementation.create_agent(spec(loopback_provider))
    try:
        with pytest.raises(LookupError, match="has not run yet"):
            await agent.checkpoint()
        with pytest.raises(Refused, match="Run state JSON must be an object"):
            await agent.resume([], "approved")  # the SDK's own refusal, as invalid_checkpoint
        assert len(loopback_provider.wire) == 0, "an impossible call reached the model"
        outcome = await agent.follow_up("Book me a table.")
    finally:
        await agent.close()
    assert outcome.answer == "Booked."
    assert loopback_provider.wire.last.turns() == [("user", "Book me a table.")], (
        "follow_up before any run did not send just its message"
    )


async def test_a_pause_checkpoint_is_the_sdks_run_state_json_without_the_key(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION})])
    agent = await implementation.create_agent(spec(loopback_provider, tools=("ask_person",)))
    try:
        paused = await agent.run("Refund order 7, please.")
    finally:
        await agent.close()
    assert paused.paused is not None and paused.paused.question == QUESTION
    checkpoint = paused.checkpoint
    assert isinstance(checkpoint, dict) and "$schemaVersion" in checkpoint, (
        "a paused run's checkpoint is not RunState.to_json()"
    )
    assert json.loads(json.dumps(checkpoint)) == checkpoint
    assert KEY not in json.dumps(checkpoint), "the pause checkpoint carries the API key"


async def test_another_named_agent_restoring_a_paused_state_is_refused_as_mismatch(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION})])
    billing = await implementation.create_agent(
        spec(loopback_provider, id="billing", tools=("ask_person",))
    )
    support = await implementation.create_agent(
        spec(loopback_provider, id="support", tools=("ask_person",))
    )
    try:
        paused = await billing.run("Refund order 7, please.")
        with pytest.raises(Refused) as raised:
            await support.resume(paused.checkpoint, "approved")
    finally:
        await billing.close()
        await support.close()
    assert raised.value.kind is RefusalKind.MISMATCH, raised.value.message
    assert len(loopback_provider.wire) == 1, "the refused resume still reached the model"


@pytest.mark.parametrize(("recorder", "continuer"), [("billing", None), (None, "support")])
async def test_the_sdk_refuses_a_paused_state_across_an_unnamed_side_too(
    loopback_provider: ScriptedProvider, recorder: str | None, continuer: str | None
) -> None:
    """The caveat in the notes: RunState.from_json looks the paused agent up by name, so a
    move between 'billing' and an unnamed agent (named "agent") is refused as well."""
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION})])
    first = await implementation.create_agent(
        spec(loopback_provider, id=recorder, tools=("ask_person",))
    )
    second = await implementation.create_agent(
        spec(loopback_provider, id=continuer, tools=("ask_person",))
    )
    try:
        paused = await first.run("Refund order 7, please.")
        with pytest.raises(Refused) as raised:
            await second.resume(paused.checkpoint, "approved")
    finally:
        await first.close()
        await second.close()
    assert raised.value.kind is RefusalKind.MISMATCH, raised.value.message
    assert "Run state agent not found in agent map" in raised.value.message
    assert len(loopback_provider.wire) == 1, "the refused resume still reached the model"


async def test_abandoning_leaves_the_sdks_rejection_as_the_only_result(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION}), text("Okay.")])
    agent = await implementation.create_agent(spec(loopback_provider, tools=("ask_person",)))
    try:
        paused = await agent.run("Refund order 7, please.")
        assert paused.paused is not None
        dropped = await agent.abandon_pause()
        again = await agent.abandon_pause()
        await agent.follow_up("Make it three.")
    finally:
        await agent.close()
    assert dropped is not None and dropped["tool_call_id"] == paused.paused.tool_call_id
    assert again is None, "the SDK's rejection record did not mark the call as decided"
    results = [m.text for m in loopback_provider.wire.last.messages if m.role == "tool"]
    assert results == ["Tool execution was not approved."], (
        f"the dropped call was not closed by the SDK's own rejection message: {results}"
    )
