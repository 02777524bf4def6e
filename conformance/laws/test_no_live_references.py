"""No live references: a checkpoint taken earlier never changes when the agent goes on.

Taken before a follow-up and compared while that follow-up is held at the fake and after
it, both the copy held and a fresh `checkpoint()` must still be the last completed run's
conversation: the turn in flight is nobody's conversation yet.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    Capability,
    Hold,
    Implementation,
    RefusalKind,
    Refused,
    ScriptedProvider,
    declares,
    text,
)

pytestmark = pytest.mark.asyncio


def where_they_differ(kept: str, now: str) -> str:
    """The first difference of two JSON texts, with a little context, for the message."""
    at = next((i for i, (a, b) in enumerate(zip(kept, now, strict=False)) if a != b), None)
    at = min(len(kept), len(now)) if at is None else at
    return f"was ...{kept[max(0, at - 60) : at + 80]!r}, now ...{now[max(0, at - 60) : at + 80]!r}"


@pytest.mark.law("checkpoint.plain-json")
async def test_a_checkpoint_does_not_change_while_the_agent_goes_on(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    if not declares(implementation, Capability.FOLLOW_UP):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}checkpoint.plain-json here needs follow_up")
    hold = Hold(then=text("Three it is."), label="follow-up")
    fake.script([text("Booked."), hold, text("Noted.")])
    agent = await new_agent()
    await agent.run(BOOK)
    taken = await agent.checkpoint()
    kept = json.dumps(taken, sort_keys=True)
    going_on = asyncio.create_task(agent.follow_up(THREE))
    try:
        await hold.arrived()
        assert json.dumps(taken, sort_keys=True) == kept, (
            "a checkpoint taken before a follow-up changed while the follow-up was in flight"
        )
        during: object = None
        kind: RefusalKind | None
        try:
            during = await agent.checkpoint()
        except Refused as refused:  # refusing while a turn is in flight is honest
            kind = refused.kind
        else:
            kind = None
        assert kind in (None, RefusalKind.RUN_IN_FLIGHT), (
            f"checkpoint() during a turn in flight was refused as {kind}"
        )
        if kind is None:
            now = json.dumps(during, sort_keys=True)
            assert now == kept, (
                "checkpoint() while a follow-up was held at the model was not the last "
                "completed run's conversation: it handed out the turn in flight "
                f"({where_they_differ(kept, now)})"
            )
    finally:
        hold.release()
        await asyncio.wait({going_on}, timeout=10)
    await going_on
    assert json.dumps(taken, sort_keys=True) == kept, (
        "a checkpoint taken before a follow-up changed after the follow-up completed"
    )
    other = await new_agent()
    await other.run("And a high chair.", continue_from=json.loads(kept))
    assert fake.wire.last.user_texts() == [BOOK, "And a high chair."], (
        "the checkpoint taken before the follow-up did not continue as that conversation: "
        f"{fake.wire.last.user_texts()}"
    )
