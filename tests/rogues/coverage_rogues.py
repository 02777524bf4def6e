"""Rogues for the classes the hidden mutants survived (issue 13 §3), one per class.

Each overrides one seam of the reference (docs/reference.md lists them), and each breaks
its law only where the older law tests never looked: a pause raised on a follow-up turn,
a second tool round, two anonymous runs of a memory agent, a checkpoint read while the
next turn is in flight, a reply delivered whole, two agents running at once. The older
suite passes all of them; the law modules written for these classes fail each one.
"""

from __future__ import annotations

import dataclasses
import weakref

from reference_impl import (
    AgentRunCheckpoint,
    Identity,
    PendingQuestion,
    Turn,
    TurnLoop,
)
from reference_impl.agent import Agent, Checkpointish, Door
from reference_impl.errors import RunInFlightError
from reference_impl.self_explain import RunTrace


class ResumeForgetsEarlierTurns(Agent):
    """A resumed turn continues only the paused turn, not the turns before it: harmless
    when the pause came on the first turn, a lost conversation when it came later."""

    def resumed_history(
        self, paused: AgentRunCheckpoint, pending: PendingQuestion, decision: str
    ) -> list[Turn]:
        history = super().resumed_history(paused, pending, decision)
        last_user = max(i for i, turn in enumerate(history) if turn.role == "user")
        return history[last_user:]


class _LastRoundOnlyTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        full = super().checkpoint(pending)
        history = list(full.history)
        last_user = max((i for i, t in enumerate(history) if t.role == "user"), default=-1)
        calls = [i for i, t in enumerate(history) if i > last_user and t.tool_calls]
        if len(calls) < 2:
            return full
        kept = history[: last_user + 1] + history[calls[-1] :]
        return full.model_copy(update={"history": tuple(kept)})


class SecondToolRoundForgetsFirst(Agent):
    """The checkpoint keeps only the last tool round of the turn: a one-round turn is
    stored whole, a two-round turn loses its first round on the way to storage."""

    turn_loop = _LastRoundOnlyTurn


class AnonymousRunsShareMemory(Agent):
    """Runs nobody named (rung 3) read and write one shared memory namespace instead of
    one per run."""

    def memory_namespace(self, identity: Identity) -> str:
        if self.last_run is not None and self.last_run.identity_source == "run":
            return "anonymous"
        return super().memory_namespace(identity)


class CheckpointFollowsTheTurnInFlight(Agent):
    """`checkpoint()` hands out the turn in flight's working history: a conversation
    that changes as the agent goes on, and one no model answered yet."""

    def checkpoint(self) -> AgentRunCheckpoint:
        stored = super().checkpoint()
        playing = self.turn_in_flight
        if playing is None:
            return stored
        return stored.model_copy(update={"history": tuple(playing.history)})


class WholeRepliesDropLastAnswer(Agent):
    """Only when replies come whole (not streamed), a follow-up continues the
    conversation without its final answer: a bug of the path the suite never took."""

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        chosen = super().conversation_to_continue(door, handed)
        streams = bool(getattr(self.config.provider, "stream", True))
        if door != "follow_up" or streams or not isinstance(chosen, AgentRunCheckpoint):
            return chosen
        history = chosen.history
        if history and history[-1].role == "assistant" and not history[-1].tool_calls:
            history = history[:-1]
        return chosen.model_copy(update={"history": history})


_AGENTS: weakref.WeakSet[Agent] = weakref.WeakSet()
"""Every agent of this rogue that used a door: the rogue's one process-wide guard."""


class InFlightGuardSharedByAllAgents(Agent):
    """One guard for the whole process: a second agent is refused while the first runs,
    so "two turns at once: build two agents" does not work."""

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        await super().refuse_while_busy(door, message)
        for other in list(_AGENTS):
            playing = other.turn_in_flight
            if other is not self and playing is not None:
                raise RunInFlightError(door, playing.input.run_id)
        _AGENTS.add(self)


class _AnswerOnlyTraceTurn(TurnLoop):
    def trace_evidence(self) -> RunTrace | None:
        trace = super().trace_evidence()
        return None if trace is None else dataclasses.replace(trace, steps=())


class TraceKeepsOnlyTheAnswer(Agent):
    """The trace tool reports the last completed run's answer but not what it did: no tool,
    no arguments, so "why did you…" can only be improvised."""

    turn_loop = _AnswerOnlyTraceTurn


class _IdentityForTwoTurnsTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        full = super().checkpoint(pending)
        return full if full.turns < 2 else full.model_copy(update={"identity": None})


class IdentityCarriedOneHop(Agent):
    """The identity is carried one hop: the second turn runs under it, but from the second
    turn on the checkpoint no longer carries it, so the third turn is anonymous."""

    turn_loop = _IdentityForTwoTurnsTurn
