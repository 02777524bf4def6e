"""Rogues that break the refusals (a run in flight, a question pending), self-explain,
and one that breaks a door only several steps in.

Each overrides one seam of the reference (docs/reference.md lists them).
"""

from __future__ import annotations

import asyncio
import contextlib

from reference_impl import (
    AgentRunCheckpoint,
    Door,
    NoConversationError,
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


# --- refusal tables (issue 13 §2) ---------------------------------------------------------


class InFlightGuardSetLate(Agent):
    """The busy check is right, but a run does an asynchronous start-up (loading its
    state) before it counts as in flight: a door used while the first run is still
    starting is not refused as a run in flight (follow_up finds no conversation yet, run
    goes ahead). Once the first request is held, every door is refused correctly."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        await super().refuse_while_busy(door, message)
        await asyncio.sleep(0.02)  # the start-up, before the turn is marked in flight


class InFlightRefusedAsNoConversation(Agent):
    """A busy agent refuses before sending anything, but says there is no conversation
    (the running turn's has not been committed) instead of that a run is in flight."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        if self.turn_in_flight is not None:
            raise NoConversationError()


class PausedRefusedAsBusy(Agent):
    """A paused agent refuses a new message before sending anything, but as a run in
    flight (the paused run "has not finished") instead of as a pending question."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        await super().refuse_while_busy(door, message)
        with contextlib.suppress(NoConversationError):
            pending = self.checkpoint().pending
            if pending is not None and door != "resume":
                raise RunInFlightError(door, "the paused run")


class CheckpointWhilePausedDropsQuestion(Agent):
    """checkpoint() while paused hands out "the conversation" without its pending
    question (the pause and the asking call are left out): continued on another agent,
    the new message is answered as if nothing had been asked. The paused agent itself
    still refuses, and the paused outcome's own checkpoint still carries the question."""

    def checkpoint(self) -> AgentRunCheckpoint:
        conversation = super().checkpoint()
        pending = conversation.pending
        if pending is None:
            return conversation
        asked = [
            t for t in conversation.history if pending.tool_call_id in {c.id for c in t.tool_calls}
        ]
        history = tuple(t for t in conversation.history if t not in asked)
        return conversation.model_copy(update={"pending": None, "history": history})


class BlankMessageSlipsPastPending(Agent):
    """An empty or blank message is not taken for a message: `run` lets it past the
    pending question, starting a new conversation while a person still owes an answer."""

    blank: bool = False

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        await super().refuse_while_busy(door, message)
        self.blank = door == "run" and isinstance(message, str) and not message.strip()

    def pending_refusal(
        self, door: Door, conversation: AgentRunCheckpoint
    ) -> PendingQuestion | None:
        return None if self.blank else super().pending_refusal(door, conversation)


class ResumeUnguardedWhileInFlight(Agent):
    """run and follow_up refuse while a turn is in flight; resume does not, and its turn
    reaches the model beside the running one."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        if door != "resume":
            await super().refuse_while_busy(door, message)
