"""The Agent: one turn per `run`, and every way to continue named explicitly.

`run(message)` seeds a new conversation from that message and nothing else.
`follow_up(message)` is exactly `run(message, continue_from=self.checkpoint())`.
`run(message, continue_from=cp)` continues any conversation handed to it. Every door
goes through `_turn`, so the convenience cannot drift from the mechanism.

Each decision a door makes is a named method (the seams, listed in docs/reference.md):
which conversation it continues, whether it refuses, under whose identity it runs. A
runtime derived from the reference overrides one of them and changes that decision
only; the turn itself is played by `turn_loop` (see `_turn`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from ._plain_json import unicode_problem
from ._turn import AgentConfig, TurnInput, TurnLoop, TurnOutcome, unanswered_calls
from .checkpoint import AgentRunCheckpoint, PendingQuestion, load_checkpoint
from .context import Compaction, Window
from .conversation import Identity, IdentitySource, Turn
from .errors import (
    ConversationMismatchError,
    DecisionRefusedError,
    InvalidCheckpointError,
    InvalidMessageError,
    MemoryStoreError,
    MemoryWriteError,
    NoConversationError,
    PendingQuestionError,
    RunInFlightError,
)
from .memory import EpisodicMemory
from .providers import ModelProvider
from .self_explain import NO_COMPLETED_RUN, RunTrace
from .tools import Tool

DEFAULT_AGENT_ID = "agent"
"""The id of an agent that did not choose one. It is not a name: it never refuses."""

Checkpointish = AgentRunCheckpoint | dict[str, Any] | str | bytes
Door = Literal["run", "follow_up", "resume"]
"""The door a turn came through, as the seams are told it."""


@dataclass(frozen=True, slots=True)
class RunState:
    """A read-only view of the last run, for tests and debugging."""

    run_id: str
    identity: Identity
    identity_source: IdentitySource
    session_id: str | None


@dataclass(frozen=True, slots=True)
class RunResult:
    """What a run produced. A paused run has no answer and a pending question."""

    run_id: str
    answer: str | None
    checkpoint: AgentRunCheckpoint
    pending: PendingQuestion | None = None

    @property
    def paused(self) -> bool:
        return self.pending is not None


class AgentBuilder:
    """`Agent.create(provider=..., model=...).system(...).tool(...).build()`."""

    def __init__(self, config: AgentConfig, agent_class: type[Agent] | None = None) -> None:
        self._config = config
        self._agent_class = agent_class or Agent

    def _set(self, **changes: Any) -> AgentBuilder:
        self._config = replace(self._config, **changes)
        return self

    def system(self, text: str) -> AgentBuilder:
        return self._set(system=text)

    def tool(self, *tools: Tool) -> AgentBuilder:
        return self._set(tools=(*self._config.tools, *tools))

    def memory(self, memory: EpisodicMemory) -> AgentBuilder:
        return self._set(memory=memory)

    def window(self, *, keep_recent_turns: int) -> AgentBuilder:
        return self._set(window=Window(keep_recent_turns=keep_recent_turns))

    def compaction(self, compaction: Compaction) -> AgentBuilder:
        return self._set(compaction=compaction)

    def self_explain(self) -> AgentBuilder:
        return self._set(self_explain=True)

    def max_tool_rounds(self, rounds: int) -> AgentBuilder:
        if rounds < 1:
            raise ValueError("max_tool_rounds must be at least 1")
        return self._set(max_tool_rounds=rounds)

    def build(self) -> Agent:
        names = [t.name for t in self._config.tools]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        return self._agent_class(self._config)


class Agent:
    """One instance answers one turn at a time and keeps its last conversation."""

    turn_loop: ClassVar[type[TurnLoop]] = TurnLoop
    """What plays one turn; a derived runtime swaps in a subclass to change a loop seam."""

    @classmethod
    def create(cls, *, provider: ModelProvider, model: str, id: str | None = None) -> AgentBuilder:
        """A builder for this class: a subclass's `create` builds the subclass."""
        return AgentBuilder(AgentConfig(provider=provider, model=model, id=id), cls)

    def __init__(self, config: AgentConfig) -> None:
        self._config = config
        self._conversation: AgentRunCheckpoint | None = None
        self._in_flight: TurnLoop | None = None
        self._last_run: RunState | None = None
        self._last_trace: RunTrace | None = None

    @property
    def id(self) -> str:
        return self._config.id or DEFAULT_AGENT_ID

    @property
    def config(self) -> AgentConfig:
        return self._config

    @property
    def last_run(self) -> RunState | None:
        return self._last_run

    @property
    def last_trace(self) -> RunTrace | None:
        """The last completed run's trace (what the trace tool reports); None before."""
        return self._last_trace

    @property
    def turn_in_flight(self) -> TurnLoop | None:
        """The turn being played right now, if any."""
        return self._in_flight

    # -- the doors -------------------------------------------------------------------

    async def run(
        self,
        message: str,
        *,
        continue_from: Checkpointish | None = None,
        identity: Identity | None = None,
        session_id: str | None = None,
    ) -> RunResult:
        """ONE turn. Without `continue_from` the conversation is this message alone."""
        await self.refuse_while_busy("run", message)
        handed = self.conversation_to_continue("run", continue_from)
        return await self._new_message("run", message, handed, identity, session_id)

    async def follow_up(self, message: str) -> RunResult:
        """Exactly `run(message, continue_from=self.checkpoint())`."""
        await self.refuse_while_busy("follow_up", message)
        handed = self.conversation_to_continue("follow_up", None)
        return await self._new_message("follow_up", message, handed, None, None)

    def checkpoint(self) -> AgentRunCheckpoint:
        """The last conversation as plain JSON data; NoConversationError before any run."""
        if self._conversation is None:
            raise NoConversationError()
        return self._conversation

    async def resume(
        self, paused: Checkpointish, decision: Any, *, session_id: str | None = None
    ) -> RunResult:
        """Continue a paused run: `decision` becomes the asking tool's result."""
        await self.refuse_while_busy("resume", decision)
        handed = self.conversation_to_continue("resume", paused)
        conversation = self._admit("resume", "resume", handed)
        if conversation.pending is None:
            raise InvalidCheckpointError(
                "pending", "expected a paused checkpoint (one whose run asked a question)"
            )
        pending = conversation.pending
        problem = _decision_problem(decision)
        if problem is not None:
            self._conversation = self.kept_after_failure("resume", self._conversation, None)
            raise DecisionRefusedError(
                pending.tool_name, pending.tool_call_id, pending.question, problem
            )
        answer = decision if isinstance(decision, str) else json.dumps(decision)
        history = self.resumed_history(conversation, pending, answer)
        message = _last_user_text(history)
        turn = conversation.turns  # the paused turn goes on
        return await self._turn("resume", conversation, history, turn, message, None, session_id)

    def abandon_pause(self) -> dict[str, str] | None:
        """Drop the pending question, say what was dropped; None when nothing was pending.

        The dropped call (and any call after it that never ran) gets a result saying so,
        so the conversation stays well formed for the next turn.
        """
        conversation = self._conversation
        if conversation is None or conversation.pending is None:
            return None
        pending = conversation.pending
        history = list(conversation.history)
        for call in unanswered_calls(history):
            why = (
                "abandoned: the person was not asked"
                if call.id == pending.tool_call_id
                else ("not run: the paused run was abandoned")
            )
            history.append(Turn(role="tool", tool_call_id=call.id, text=why, is_error=True))
        self._conversation = conversation.model_copy(
            update={"history": tuple(history), "pending": None}
        )
        return {
            "tool_name": pending.tool_name,
            "tool_call_id": pending.tool_call_id,
            "question": pending.question,
        }

    def can_explain(self) -> bool:
        """True only with `.self_explain()` and after a turn completed."""
        return self._config.self_explain and self._last_trace is not None

    # -- the seams: what each door decides ---------------------------------------------

    @property
    def named(self) -> bool:
        """Whether this agent chose its id. Choosing the default id is not naming
        yourself: only a named agent records conversations and refuses others'."""
        return self._config.id not in (None, DEFAULT_AGENT_ID)

    async def refuse_while_busy(self, door: Door, message: object) -> None:
        """What a door does while a turn is in flight: refuse, before anything is sent."""
        if self._in_flight is not None:
            raise RunInFlightError(door, self._in_flight.input.run_id)

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        """Which conversation a door continues; None starts a new one. `run` continues
        what `continue_from` handed it, `resume` the paused checkpoint, and `follow_up`
        (handed nothing) `self.checkpoint()`, refusing before the first run."""
        return self.checkpoint() if door == "follow_up" else handed

    def pending_refusal(
        self, door: Door, conversation: AgentRunCheckpoint
    ) -> PendingQuestion | None:
        """The question that refuses this door: this agent's own pending question, unless
        the conversation handed in is that very paused one (resuming it)."""
        mine = self._conversation.pending if self._conversation is not None else None
        return mine if mine is not None and conversation.pending != mine else None

    def mismatch(self, conversation: AgentRunCheckpoint | None) -> ConversationMismatchError | None:
        """The refusal of a conversation another agent recorded (None: nothing handed in).
        Only a named agent refuses, and only a conversation a differently named one
        recorded."""
        recorded_by = None if conversation is None else conversation.agent
        if recorded_by is None or not self.named or recorded_by == self.id:
            return None
        return ConversationMismatchError(recorded_by, self.id)

    def resumed_history(
        self, paused: AgentRunCheckpoint, pending: PendingQuestion, decision: str
    ) -> list[Turn]:
        """What a resumed turn continues with: the person's decision as the asking call's
        result (the calls after it in the paused turn then run)."""
        return [
            *paused.history,
            Turn(role="tool", tool_call_id=pending.tool_call_id, text=decision),
        ]

    def kept_after_failure(
        self, door: Door, kept: AgentRunCheckpoint | None, failed: TurnLoop | None
    ) -> AgentRunCheckpoint | None:
        """This agent's own conversation after a door failed (the provider failed, a
        stream broke, a decision was refused; `failed` is the turn that was playing, if
        one was). The one it had, unchanged: a follow-up continues the last *completed*
        run, and a question still owed stays owed until it is answered or abandoned."""
        return kept

    def loaded_checkpoint(self, handed: Checkpointish) -> AgentRunCheckpoint:
        """A checkpoint handed in, read: validated whole (`load_checkpoint`), so a
        malformed one is refused with InvalidCheckpointError before anything is sent."""
        return load_checkpoint(handed)

    def identity_for(
        self,
        explicit: Identity | None,
        carried: Identity | None,
        session_id: str | None,
        run_id: str,
    ) -> tuple[Identity, IdentitySource]:
        """The ladder: passed, then carried, then the session, then the run."""
        if explicit is not None:
            return explicit, "explicit"
        if carried is not None:
            return carried, "carried"
        if session_id is not None:
            return Identity(conversation_id=session_id), "session"
        return Identity(conversation_id=run_id), "run"

    def published_identity(self, identity: Identity, source: IdentitySource) -> Identity | None:
        """What tools see as `ctx.identity`, and the checkpoint carries: only a named
        identity, never a synthesized one."""
        return identity if source in ("explicit", "carried") else None

    def memory_namespace(self, identity: Identity) -> str:
        """Whose memory a turn reads and writes: the whole identity's namespace."""
        return identity.namespace()

    # -- one turn --------------------------------------------------------------------

    async def _new_message(
        self,
        door: Door,
        message: str,
        handed: Checkpointish | None,
        identity: Identity | None,
        session_id: str | None,
    ) -> RunResult:
        """run and follow_up from here on are one path (refusals still say `run`)."""
        _check_text("run", "message", message)
        conversation = self._admit(door, "run", handed)
        if conversation.pending is not None:
            raise _pending_error("run", conversation.pending)
        history = [*conversation.history, Turn(role="user", text=message)]
        turn = conversation.turns + 1
        return await self._turn(door, conversation, history, turn, message, identity, session_id)

    def _admit(self, door: Door, method: str, handed: Checkpointish | None) -> AgentRunCheckpoint:
        """Validate a conversation handed in; refuse another agent's, and refuse to walk
        around this agent's pending question."""
        loaded = None if handed is None else self.loaded_checkpoint(handed)
        conversation = AgentRunCheckpoint() if loaded is None else loaded
        owed = self.pending_refusal(door, conversation)
        if owed is not None:
            raise _pending_error(method, owed)
        refusal = self.mismatch(loaded)
        if refusal is not None:
            raise refusal
        return conversation

    async def _turn(
        self,
        door: Door,
        conversation: AgentRunCheckpoint,
        history: Sequence[Turn],
        turn: int,
        message: str,
        explicit: Identity | None,
        session_id: str | None,
    ) -> RunResult:
        """Freeze the turn's input, play it, commit its outcome: the one place a turn
        changes this agent."""
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        identity, source = self.identity_for(explicit, conversation.identity, session_id, run_id)
        self._last_run = RunState(run_id, identity, source, session_id)
        loop = self.turn_loop(
            TurnInput(
                run_id=run_id,
                config=self._config,
                message=message,
                history=tuple(history),
                folded=conversation.folded,
                turns=turn,
                identity=identity,
                published=self.published_identity(identity, source),
                session_id=session_id,
                recorded_by=self._config.id if self.named else None,
                memory_namespace=self.memory_namespace(identity),
                last_trace=self._last_trace,
            )
        )
        self._in_flight = loop
        try:
            try:
                outcome = await loop.play()
            except BaseException:
                self._conversation = self.kept_after_failure(door, self._conversation, loop)
                raise
            return await self._commit(outcome)
        finally:
            self._in_flight = None

    async def _commit(self, outcome: TurnOutcome) -> RunResult:
        """Memory first, then the conversation: a failed write leaves the agent's
        conversation as it was before this run, so retrying the same call does not
        repeat a turn."""
        write, memory = outcome.remember, self._config.memory
        if write is not None and memory is not None:
            try:
                await memory.remember(write.namespace, write.turn, write.message, write.answer)
            except MemoryStoreError:
                raise
            except Exception as error:  # a store of the host's own: typed, uncommitted
                raise MemoryWriteError(type(memory.store).__name__, repr(error)) from error
        self._conversation = outcome.checkpoint
        if outcome.trace is not None:
            self._last_trace = outcome.trace
        return RunResult(outcome.run_id, outcome.answer, outcome.checkpoint, outcome.pending)


def _check_text(method: str, field: str, value: object) -> None:
    if not isinstance(value, str):
        raise InvalidMessageError(method, field, f"expected text, got {type(value).__name__}")
    problem = unicode_problem(value)
    if problem is not None:
        raise InvalidMessageError(method, field, f"not valid Unicode text: {problem}")


def _decision_problem(decision: object) -> str | None:
    """Why `decision` cannot answer a question (None: it can). No decision is not an
    answer; anything else is sent as text (JSON for non-text), which must be valid."""
    if decision is None:
        return "no decision was given"
    answer = decision if isinstance(decision, str) else json.dumps(decision)
    problem = unicode_problem(answer)
    return None if problem is None else f"the decision is not valid Unicode text: {problem}"


def _last_user_text(history: Sequence[Turn]) -> str:
    return next((t.text for t in reversed(history) if t.role == "user"), "")


def _pending_error(method: str, pending: PendingQuestion) -> PendingQuestionError:
    return PendingQuestionError(method, pending.tool_name, pending.tool_call_id, pending.question)


__all__ = [
    "DEFAULT_AGENT_ID",
    "NO_COMPLETED_RUN",
    "Agent",
    "AgentBuilder",
    "Checkpointish",
    "Door",
    "RunResult",
    "RunState",
]
