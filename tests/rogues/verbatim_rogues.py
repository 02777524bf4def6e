"""Rogues that replay less than was said: the conversation is not verbatim.

Each overrides one seam of the reference (docs/reference.md lists them), here
`TurnLoop.checkpoint`, the conversation a turn leaves for the next one.
"""

from __future__ import annotations

from reference_impl import Agent, AgentRunCheckpoint, PendingQuestion, TurnLoop


class _NoTextBesideCallsTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        kept = super().checkpoint(pending)
        history = tuple(
            turn.model_copy(update={"text": ""}) if turn.tool_calls else turn
            for turn in kept.history
        )
        return kept.model_copy(update={"history": history})


class CheckpointDropsTextBesideCalls(Agent):
    """The checkpoint keeps an assistant turn's calls but not what it said beside them."""

    turn_loop = _NoTextBesideCallsTurn
