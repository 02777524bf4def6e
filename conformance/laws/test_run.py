"""run() is ONE turn: it seeds the conversation from that message and nothing else.

A request is read against the messages the test sent (`conversation_shown`): text a
runtime wraps around a message of its own accord is not a conversation, but an earlier
message or answer, in a message of its own or smuggled into the new one, is."""

from __future__ import annotations

from typing import Any

import pytest

from ._kit import BOOK, THREE, IdentitySpec, ScriptedProvider, conversation_shown, text

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio


@pytest.mark.law("run.no-history")
async def test_a_second_run_shows_only_its_own_message(
    fake: ScriptedProvider, new_agent: Any
) -> None:
    fake.script([text("Booked."), text("Three what?")])
    agent = await new_agent()
    await agent.run(BOOK)
    await agent.run(THREE)
    shown = conversation_shown(fake.wire.last, [BOOK, THREE])
    assert shown == [("user", THREE)], f"run() carried an earlier conversation: {shown}"


@pytest.mark.law("run.conversation-id-does-not-join")
async def test_the_same_conversation_id_does_not_join_two_runs(
    fake: ScriptedProvider, new_agent: Any
) -> None:
    fake.script([text("Booked."), text("Three what?")])
    agent = await new_agent()
    same = IdentitySpec(conversation_id="c-1")
    await agent.run(BOOK, identity=same)
    await agent.run(THREE, identity=same)
    shown = conversation_shown(fake.wire.last, [BOOK, THREE])
    assert shown == [("user", THREE)], f"the second run joined the first: {shown}"
