"""Rogues that break the refusals (a run in flight, a question pending), self-explain,
and one that breaks a door only several steps in."""

from __future__ import annotations

import contextlib
from typing import Any

from reference_impl import AgentRunCheckpoint, RunInFlightError, RunResult, Turn
from reference_impl.agent import Agent, Checkpointish, _last_user_text, _Run
from reference_impl.self_explain import RunTrace


class InFlightGoesAhead(Agent):
    """A second run on a busy agent is not refused: both reach the model."""

    def _refuse_if_busy(self, method: str) -> None:
        return None


class InFlightRefusedAfterSend(Agent):
    """The busy check happens after the request went out: the refusal is real, but
    the model has already been sent the second turn."""

    def _refuse_if_busy(self, method: str) -> None:
        return None

    async def run(self, message: str, **kw: Any) -> RunResult:
        busy = self._in_flight
        if busy is None:
            return await super().run(message, **kw)
        config = self._config
        # the fake answers a request it was not scripted for with an error: ignored
        with contextlib.suppress(Exception):
            await config.provider.complete(
                model=config.model,
                system=config.system,
                turns=[Turn(role="user", text=message)],
                tools=[],
            )
        raise RunInFlightError("run", busy)


class _LiveRun(_Run):
    def __init__(self, agent: Any, *args: Any) -> None:
        super().__init__(agent, *args)
        agent._live = self


class InFlightRefusalCorruptsFirst(Agent):
    """A refused attempt is refused, but its message is left in the running turn's
    conversation, which the first run then stores."""

    _run_class = _LiveRun
    _live: _Run | None = None

    def _spill(self, message: str) -> None:
        if self._in_flight is not None and self._live is not None:
            self._live.history.append(Turn(role="user", text=message))

    async def run(self, message: str, **kw: Any) -> RunResult:
        self._spill(message)
        return await super().run(message, **kw)

    async def follow_up(self, message: str) -> RunResult:
        self._spill(message)
        return await super().follow_up(message)


class PendingQuestionDiscarded(Agent):
    """A new message on a paused agent silently drops the question a person owes."""

    def _admit(self, method: str, handed: Checkpointish | None) -> AgentRunCheckpoint:
        if method == "run" and self._conversation is not None:
            self._conversation = self._conversation.model_copy(update={"pending": None})
        return super()._admit(method, handed)


class AbandonReturnsNothing(Agent):
    """abandon_pause drops the question but does not say what it dropped."""

    def abandon_pause(self) -> dict[str, str] | None:
        super().abandon_pause()
        return None


class ResumeRerunsAskingTool(Agent):
    """resume runs the asking tool again instead of answering it with the decision."""

    async def resume(
        self, paused: Checkpointish, decision: Any, *, session_id: str | None = None
    ) -> RunResult:
        self._refuse_if_busy("resume")
        conversation = self._admit("resume", paused)
        history = list(conversation.history)
        return await self._turn(
            conversation,
            history,
            conversation.turns,
            _last_user_text(history),
            None,
            session_id,
        )


class ExplainsBeforeCompletedRun(Agent):
    """can_explain() says yes as soon as self-explain is on, before any run completed."""

    def can_explain(self) -> bool:
        return self._config.self_explain


class ExplainsWithoutSelfExplain(Agent):
    """can_explain() says yes after any completed run, with self-explain off."""

    def can_explain(self) -> bool:
        return self._last_trace is not None


class _InFlightTraceRun(_Run):
    def _evidence(self) -> RunTrace | None:
        return RunTrace(run_id=self.run_id, steps=tuple(self.trace), answer="")


class TraceToolReadsTheRunInFlight(Agent):
    """The trace tool reports the run in flight (what it did so far), not the last
    completed run: before any run completed it improvises a trace."""

    _run_class = _InFlightTraceRun


class _NeverCompletedTraceRun(_Run):
    def _evidence(self) -> RunTrace | None:
        return None


class TraceToolNeverSeesACompletedRun(Agent):
    """The trace tool always answers that no run has completed, even after one has,
    while can_explain() says yes."""

    _run_class = _NeverCompletedTraceRun


class ThirdFollowUpAfterContinuation(Agent):
    """Every single door is right; but the agent counts follow-ups from the last
    run(continue_from=...), and the third one drops the conversation's oldest exchange.
    Only a sequence of doors finds it."""

    _since_continuation: int | None = None
    _following = False

    async def run(
        self, message: str, *, continue_from: Checkpointish | None = None, **kw: Any
    ) -> RunResult:
        if continue_from is not None and not self._following:
            self._since_continuation = 0
        return await super().run(message, continue_from=continue_from, **kw)

    async def follow_up(self, message: str) -> RunResult:
        self._refuse_if_busy("follow_up")
        checkpoint = self.checkpoint()
        if self._since_continuation is not None:
            self._since_continuation += 1
            users = [i for i, turn in enumerate(checkpoint.history) if turn.role == "user"]
            if self._since_continuation == 3 and len(users) > 1:
                checkpoint = checkpoint.model_copy(
                    update={"history": checkpoint.history[users[1] :]}
                )
        self._following = True
        try:
            return await self.run(message, continue_from=checkpoint)
        finally:
            self._following = False
