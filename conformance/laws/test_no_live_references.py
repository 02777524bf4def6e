"""No live references: a checkpoint taken earlier never changes when the agent goes on.

Taken before a follow-up and compared while that follow-up is held at the fake and after
it, the copy held is still the conversation it was (checkpoint.plain-json); and a fresh
`checkpoint()` taken while the follow-up is held is the last completed run's, since the
turn in flight is nobody's conversation yet (failure.checkpoint-is-last-completed). One
scene, two tests: each judges its own law.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

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


@dataclass
class Scene:
    """A checkpoint taken after a completed run, then a follow-up held at the model."""

    kept: str
    """The checkpoint as taken, as JSON text."""
    while_held: str
    """The copy held, as JSON text, while the follow-up was at the model."""
    during: object
    """What checkpoint() returned while the follow-up was at the model (None if refused)."""
    refused: RefusalKind | None
    after: str
    """The copy held, as JSON text, once the follow-up had completed."""


async def checkpoint_through_a_follow_up(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> Scene:
    if not declares(implementation, Capability.FOLLOW_UP):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a follow-up in flight needs follow_up")
    hold = Hold(then=text("Three it is."), label="follow-up")
    fake.script([text("Booked."), hold, text("Noted.")], allow_unused=True)
    agent = await new_agent()
    await agent.run(BOOK)
    taken = await agent.checkpoint()
    kept = json.dumps(taken, sort_keys=True)
    going_on = asyncio.create_task(agent.follow_up(THREE))
    during: object = None
    refused: RefusalKind | None = None
    try:
        await hold.arrived()
        while_held = json.dumps(taken, sort_keys=True)
        try:
            during = await agent.checkpoint()
        except Refused as refusal:  # refusing while a turn is in flight is honest
            refused = refusal.kind
    finally:
        hold.release()
        await asyncio.wait({going_on}, timeout=10)
    await going_on
    return Scene(kept, while_held, during, refused, json.dumps(taken, sort_keys=True))


@pytest.mark.law("checkpoint.plain-json")
async def test_a_checkpoint_does_not_change_while_the_agent_goes_on(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """No live references: the copy held is the conversation as it was when taken."""
    scene = await checkpoint_through_a_follow_up(fake, new_agent, implementation)
    assert scene.while_held == scene.kept, (
        "a checkpoint taken before a follow-up changed while the follow-up was in flight "
        f"({where_they_differ(scene.kept, scene.while_held)})"
    )
    assert scene.after == scene.kept, (
        "a checkpoint taken before a follow-up changed after the follow-up completed "
        f"({where_they_differ(scene.kept, scene.after)})"
    )
    other = await new_agent()
    await other.run("And a high chair.", continue_from=json.loads(scene.kept))
    shown = fake.wire.last.user_texts()
    assert shown[:1] == [BOOK] and shown[-1:] == ["And a high chair."], (
        f"the checkpoint taken before the follow-up did not continue as that conversation: {shown}"
    )


@pytest.mark.law("failure.checkpoint-is-last-completed")
async def test_checkpoint_during_a_turn_in_flight_is_the_last_completed_run(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """checkpoint() is this instance's last completed run: the turn in flight is nobody's
    conversation yet. Refusing it as a run in flight is honest too."""
    scene = await checkpoint_through_a_follow_up(fake, new_agent, implementation)
    assert scene.refused in (None, RefusalKind.RUN_IN_FLIGHT), (
        f"checkpoint() during a turn in flight was refused as {scene.refused}"
    )
    if scene.refused is None:
        now = json.dumps(scene.during, sort_keys=True)
        assert now == scene.kept, (
            "checkpoint() while a follow-up was held at the model was not the last "
            f"completed run's conversation: it handed out the turn in flight "
            f"({where_they_differ(scene.kept, now)})"
        )
