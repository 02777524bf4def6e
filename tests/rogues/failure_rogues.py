"""Rogues that get a failure path wrong: the real-runtime bugs issue 13 §1 names.

Each overrides one seam of the reference (docs/reference.md lists them): what the agent
keeps after a door failed, what a failed run's error carries, how a checkpoint handed in
is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from reference_impl import (
    AgentRunCheckpoint,
    Door,
    InvalidCheckpointError,
    ModelReply,
    PendingQuestion,
    ToolSpec,
    Turn,
    TurnLoop,
    load_checkpoint,
)
from reference_impl.agent import Agent, Checkpointish


class _FallbackAnswerLoop(TurnLoop):
    FALLBACK = "Sorry, I could not answer that just now."

    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        try:
            return await super().call_model(system, turns, tools)
        except Exception:  # the provider failed: answer for the model
            return ModelReply(text=self.FALLBACK)


class FailureBecomesAFallbackAnswer(Agent):
    """A model call that fails is answered by the runtime itself ("Sorry, I could not
    answer that just now."): the run completes, and its fallback is kept as the model's
    answer, so the next turn shows the failed message as answered."""

    turn_loop = _FallbackAnswerLoop


class FollowUpContinuesFailedHistory(Agent):
    """A run that failed becomes the agent's conversation anyway: its working history
    (the failed turn's message, unanswered) is what follow_up and checkpoint() continue."""

    def kept_after_failure(
        self, door: Door, kept: AgentRunCheckpoint | None, failed: TurnLoop | None
    ) -> AgentRunCheckpoint | None:
        if failed is None or door == "resume":
            return kept
        return failed.checkpoint()


class FailedResumeClearsPending(Agent):
    """A resume that fails (no decision, a model call that fails) drops the pending
    question, quietly, so the next message walks around it."""

    def kept_after_failure(
        self, door: Door, kept: AgentRunCheckpoint | None, failed: TurnLoop | None
    ) -> AgentRunCheckpoint | None:
        if door != "resume" or kept is None or kept.pending is None:
            return kept
        self._conversation = kept
        self.abandon_pause()  # well formed, but nobody asked for the question to go
        return self._conversation


class _HalfWorkLoop(TurnLoop):
    def failed_checkpoint(self) -> AgentRunCheckpoint:
        history = list(self.history)
        while history and history[-1].role == "tool":
            history.pop()  # the results that came after the last call: never recorded
        return self.checkpoint().model_copy(update={"history": tuple(history)})


class ErrorCheckpointCarriesHalfWork(Agent):
    """A failed run's error carries the turn as it was when the model asked for its
    tools, before their results were recorded: a tool call without its result."""

    turn_loop = _HalfWorkLoop


class AcceptsMalformedCheckpoint(Agent):
    """A checkpoint that fails validation is read leniently instead of refused: every
    turn that still parses is kept, whatever it then pairs with."""

    def loaded_checkpoint(self, handed: Checkpointish) -> AgentRunCheckpoint:
        try:
            return load_checkpoint(handed)
        except InvalidCheckpointError:
            if not isinstance(handed, dict):
                raise
            return _lenient(handed)


def _lenient(data: dict[str, Any]) -> AgentRunCheckpoint:
    raw = data.get("history")
    turns: list[Turn] = []
    for item in raw if isinstance(raw, list) else []:
        try:
            turns.append(Turn.model_validate(item))
        except ValidationError:
            continue
    try:
        pending = PendingQuestion.model_validate(data["pending"]) if data.get("pending") else None
    except ValidationError:
        pending = None
    return AgentRunCheckpoint.model_construct(
        history=tuple(turns),
        folded=(),
        identity=None,
        agent=data.get("agent") if isinstance(data.get("agent"), str) else None,
        pending=pending,
        turns=sum(1 for t in turns if t.role == "user"),
    )
