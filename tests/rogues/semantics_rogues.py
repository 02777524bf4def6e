"""Rogues for spec semantics (issue 13 §4): what the suite's tolerance must not swallow.

The two-doors law masks what a runtime mints per agent or per run, learned from a
control pair. That tolerance must stop at the door: a value only follow_up sends is not
minted, it is follow_up drifting from run(continue_from=checkpoint()).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from contextvars import ContextVar

from reference_impl import Agent, Door, ModelReply, ToolSpec, Turn, TurnLoop
from reference_impl.agent import Checkpointish

_DOOR: ContextVar[Door | None] = ContextVar("door", default=None)


class _StampedTurn(TurnLoop):
    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        if _DOOR.get() == "follow_up":
            system = f"{system}\n(follow-up {secrets.token_urlsafe(6)[:8]})".strip()
        return await super().call_model(system, turns, tools)


class FollowUpStampsItsOwnId(Agent):
    """follow_up tags its requests with a fresh random id that run(continue_from=...)
    never sends: a per-door difference that looks minted but is the door's own."""

    turn_loop = _StampedTurn

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        _DOOR.set(door)  # this task's turn only: a context variable, not agent state
        return super().conversation_to_continue(door, handed)


__all__ = ["FollowUpStampsItsOwnId"]
