"""Rogues that break the refusals (a run in flight, a question pending), self-explain,
and one that breaks a door only several steps in.

Each overrides one seam of the reference (docs/reference.md lists them).
"""

from __future__ import annotations

import contextlib

from reference_impl import (
    AgentRunCheckpoint,
    Door,
    PendingQuestion,
    RunInFlightError,
    Turn,
    TurnLoop,
)
from reference_impl.agent import Agent, Checkpointish
from reference_impl.self_explain import RunTrace


class InFlightGoesAhead(Agent):
    """A second run on a busy agent is not refused: both reach the model."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        return None


class InFlightRefusedAfterSend(Agent):
    """The busy check happens after the request went out: the refusal is real, but
    the model has already been sent the second turn."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        busy = self.turn_in_flight
        if busy is None:
            return
        config = self.config
        # the fake answers a request it was not scripted for with an error: ignored
        with contextlib.suppress(Exception):
            await config.provider.complete(
                model=config.model,
                system=config.system,
                turns=[Turn(role="user", text=str(message))],
                tools=[],
            )
        raise RunInFlightError(door, busy.input.run_id)


class InFlightRefusalCorruptsFirst(Agent):
    """A refused attempt is refused, but its message is left in the running turn's
    conversation, which the first run then stores."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        busy = self.turn_in_flight
        if busy is not None:
            busy.history.append(Turn(role="user", text=str(message)))
        await super().refuse_while_busy(door, message)


class PendingQuestionDiscarded(Agent):
    """A new message on a paused agent silently drops the question a person owes."""

    def pending_refusal(
        self, door: Door, conversation: AgentRunCheckpoint
    ) -> PendingQuestion | None:
        if door == "run":  # follow_up continues the paused conversation itself: refused anyway
            return None
        return super().pending_refusal(door, conversation)


class AbandonReturnsNothing(Agent):
    """abandon_pause drops the question but does not say what it dropped."""

    def abandon_pause(self) -> dict[str, str] | None:
        super().abandon_pause()
        return None


class ResumeRerunsAskingTool(Agent):
    """resume runs the asking tool again instead of answering it with the decision."""

    def resumed_history(
        self, paused: AgentRunCheckpoint, pending: PendingQuestion, decision: str
    ) -> list[Turn]:
        return list(paused.history)


class ExplainsBeforeCompletedRun(Agent):
    """can_explain() says yes as soon as self-explain is on, before any run completed."""

    def can_explain(self) -> bool:
        return self.config.self_explain


class ExplainsWithoutSelfExplain(Agent):
    """can_explain() says yes after any completed run, with self-explain off."""

    def can_explain(self) -> bool:
        return self.last_trace is not None


class _InFlightTraceTurn(TurnLoop):
    def trace_evidence(self) -> RunTrace | None:
        return RunTrace(run_id=self.input.run_id, steps=tuple(self.trace), answer="")


class TraceToolReadsTheRunInFlight(Agent):
    """The trace tool reports the run in flight (what it did so far), not the last
    completed run: before any run completed it improvises a trace."""

    turn_loop = _InFlightTraceTurn


class _NeverCompletedTraceTurn(TurnLoop):
    def trace_evidence(self) -> RunTrace | None:
        return None


class TraceToolNeverSeesACompletedRun(Agent):
    """The trace tool always answers that no run has completed, even after one has,
    while can_explain() says yes."""

    turn_loop = _NeverCompletedTraceTurn


class ThirdFollowUpAfterContinuation(Agent):
    """Every single door is right; but the agent counts follow-ups from the last
    run(continue_from=...), and the third one drops the conversation's oldest exchange.
    Only a sequence of doors finds it."""

    follow_ups_since_continuation: int | None = None

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        continued = super().conversation_to_continue(door, handed)
        if door == "run" and handed is not None:
            self.follow_ups_since_continuation = 0
        elif door == "follow_up" and self.follow_ups_since_continuation is not None:
            self.follow_ups_since_continuation += 1
            checkpoint = self.checkpoint()
            users = [i for i, turn in enumerate(checkpoint.history) if turn.role == "user"]
            if self.follow_ups_since_continuation == 3 and len(users) > 1:
                return checkpoint.model_copy(update={"history": checkpoint.history[users[1] :]})
        return continued
