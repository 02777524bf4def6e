"""Whose conversation is this: ids decide only when both sides named themselves."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.wire import ScriptedProvider, text
from reference_impl import ConversationMismatchError


async def test_one_agent_does_not_answer_anothers_conversation(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Billing here.")])
    billing = new_agent(id="billing").build()
    await billing.run("Where is my invoice?")
    support = new_agent(id="support").build()
    with pytest.raises(
        ConversationMismatchError, match="recorded by agent 'billing', handed to agent 'support'"
    ):
        await support.run("And my refund?", continue_from=billing.checkpoint())
    assert len(wire.wire) == 1, "refused before anything was sent"


@pytest.mark.parametrize(
    ("recorder", "continuer"),
    [(None, "support"), ("billing", None), (None, None), ("billing", "agent")],
)
async def test_a_default_id_is_not_a_name(
    wire: ScriptedProvider, new_agent: Any, recorder: str | None, continuer: str | None
) -> None:
    """Left out or chosen by hand (`agent`), the default id is no name: never recorded."""
    wire.script([text("First."), text("Second.")])
    first = new_agent(id=recorder).build()
    await first.run("one")
    second = new_agent(id=continuer).build()
    await second.run("two", continue_from=first.checkpoint())
    assert wire.wire.last.user_texts() == ["one", "two"]
    if continuer in (None, "agent"):
        assert "agent" not in second.checkpoint().to_data()


async def test_same_id_continues_across_prompt_tools_and_model_changes(
    wire: ScriptedProvider, new_agent: Any, llm: Any
) -> None:
    from reference_impl import Agent

    wire.script([text("First."), text("Second.")])
    before = new_agent(id="billing").build()
    await before.run("one")
    after = (
        Agent.create(provider=llm, model="ref-model-v2", id="billing").system("New prompt.").build()
    )
    await after.run("two", continue_from=before.checkpoint())
    request = wire.wire.last
    assert (request.model, request.system, request.tools) == ("ref-model-v2", "New prompt.", ())
    assert request.turns() == [("user", "one"), ("assistant", "First."), ("user", "two")]
