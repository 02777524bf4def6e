"""Adapter-specific checks for conformance.frameworks.pydantic_ai, on the loopback fake.

The laws judge pydantic-ai; these pin what the adapter itself must get right: the
framework is imported only when the adapter is; whoami reports RunContext's own
conversation_id (so a made-up one shows); a continued run with an identity is not turned
into pydantic-ai's "passing both is ambiguous" UserError; the only refusals are
pydantic-ai's own errors renamed, and where it has nothing to refuse the error is plain;
abandoning closes the call with pydantic-ai's own repair. Skipped (not passed) when
pydantic-ai is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conformance.adapter import AgentSpec, IdentitySpec, RefusalKind, Refused
from conformance.wire import ScriptedProvider, text, tool_call
from conformance.wire.ir import Dialect, RequestIR

pytest.importorskip(
    "pydantic_ai", reason="pydantic-ai is not installed (pip install turnlaw[pydantic-ai])"
)

from conformance.frameworks.pydantic_ai import implementation

QUESTION = "Approve a refund for order 7?"
WHO = IdentitySpec(conversation_id="c-named", tenant="acme", principal="ana")


def spec(provider: ScriptedProvider, **fields: Any) -> AgentSpec:
    return AgentSpec(
        base_url=provider.base_url or "",
        api_key="sk-turnlaw-pydantic-ai-test",
        dialect=Dialect.OPENAI_CHAT,
        **fields,
    )


def whoami_said(request: RequestIR) -> Any:
    """The identity the last whoami result showed the model."""
    results = [m.text for m in request.messages if m.role == "tool"]
    assert results, "the model was shown no tool result"
    return json.loads(results[-1])["identity"]


def test_the_package_does_not_import_pydantic_ai_until_the_adapter_is_loaded() -> None:
    probe = "import sys, conformance.frameworks; print('pydantic_ai' in sys.modules)"
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "False", "importing conformance.frameworks imported pydantic-ai"


def test_loading_the_adapter_turned_pydantic_ais_instrumentation_off() -> None:
    from pydantic_ai import Agent

    assert Agent._instrument_default is False, "agents built by the adapter would be instrumented"


async def test_whoami_reports_the_conversation_id_pydantic_ai_made_up(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([tool_call("whoami"), text("Done.")])
    agent = await implementation.create_agent(spec(loopback_provider, tools=("whoami",)))
    try:
        outcome = await agent.run("Book a table.")
    finally:
        await agent.close()
    made_up = outcome.checkpoint["conversation_id"]
    assert isinstance(made_up, str) and made_up, "the Conversation carries no conversation_id"
    assert whoami_said(loopback_provider.wire.last) == {"conversation_id": made_up}, (
        "whoami did not report RunContext.conversation_id, the id pydantic-ai gave the run"
    )


async def test_a_continued_run_with_an_identity_keeps_the_conversations_id(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([text("Booked."), tool_call("whoami"), text("Done.")])
    recorder = await implementation.create_agent(spec(loopback_provider))
    agent = await implementation.create_agent(spec(loopback_provider, tools=("whoami",)))
    try:
        first = await recorder.run("Book a table.")
        stored = json.loads(json.dumps(first.checkpoint))
        continued = await agent.run("Make it three.", continue_from=stored, identity=WHO)
    finally:
        await recorder.close()
        await agent.close()
    assert continued.answer == "Done.", "the continued run with an identity did not complete"
    last = loopback_provider.wire.last
    assert last.user_texts() == ["Book a table.", "Make it three."], "history was not continued"
    assert whoami_said(last) == {
        "conversation_id": stored["conversation_id"],
        "tenant": "acme",
        "principal": "ana",
    }, "the tool was not told the Conversation's own id with the identity's tenant/principal"


async def test_checkpoint_before_any_run_is_a_plain_error_not_a_refusal(
    loopback_provider: ScriptedProvider,
) -> None:
    agent = await implementation.create_agent(spec(loopback_provider))
    try:
        with pytest.raises(LookupError) as raised:
            await agent.checkpoint()
    finally:
        await agent.close()
    assert not isinstance(raised.value, Refused), "an adapter-made refusal"
    assert len(loopback_provider.wire) == 0


async def test_a_checkpoint_pydantic_ai_cannot_validate_is_refused_as_invalid(
    loopback_provider: ScriptedProvider,
) -> None:
    agent = await implementation.create_agent(spec(loopback_provider))
    try:
        with pytest.raises(Refused) as raised:
            await agent.run("Hello.", continue_from={"messages": "not a list"})
    finally:
        await agent.close()
    assert raised.value.kind is RefusalKind.INVALID_CHECKPOINT
    assert "validation error" in raised.value.message, "not pydantic-ai's ValidationError"
    assert len(loopback_provider.wire) == 0, "the refused continuation still reached the model"


async def test_a_new_prompt_on_the_paused_conversation_is_pydantic_ais_refusal(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION})])
    agent = await implementation.create_agent(spec(loopback_provider, tools=("ask_person",)))
    try:
        paused = await agent.run("Refund order 7, please.")
        assert paused.paused is not None and paused.paused.question == QUESTION
        with pytest.raises(Refused) as raised:
            await agent.run("Never mind.", continue_from=paused.checkpoint)
    finally:
        await agent.close()
    assert raised.value.kind is RefusalKind.PENDING_QUESTION
    assert "unprocessed tool calls" in raised.value.message, "not pydantic-ai's UserError"
    assert len(loopback_provider.wire) == 1, "the refused prompt still reached the model"


async def test_abandoning_closes_the_call_with_pydantic_ais_repair(
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
    assert again is None, "the held Conversation still waits on the dropped call"
    last = loopback_provider.wire.last
    closed = [m for m in last.messages if m.role == "tool"]
    assert [m.tool_call_id for m in closed] == [paused.paused.tool_call_id], (
        "the dropped call was not closed by exactly one tool result"
    )
    assert last.user_texts() == ["Refund order 7, please.", "Make it three."]
