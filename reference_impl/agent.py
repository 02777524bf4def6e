"""The Agent: one turn per `run`, and every way to continue named explicitly.

`run(message)` seeds a new conversation from that message and nothing else.
`follow_up(message)` is exactly `run(message, continue_from=self.checkpoint())`.
`run(message, continue_from=cp)` continues any conversation handed to it. Every door
goes through `_turn`, so the convenience cannot drift from the mechanism.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._plain_json import unicode_problem
from .checkpoint import AgentRunCheckpoint, PendingQuestion, load_checkpoint
from .context import Compaction, Window, shown_turns
from .conversation import Identity, IdentitySource, ToolCall, Turn
from .errors import (
    ConversationMismatchError,
    InvalidCheckpointError,
    InvalidMessageError,
    MemoryStoreError,
    MemoryWriteError,
    NoConversationError,
    PendingQuestionError,
    RunFailedError,
    RunInFlightError,
    ToolLoopLimitError,
)
from .memory import EpisodicMemory, render_memory_block, system_with_memory
from .providers import ModelProvider, ModelReply
from .self_explain import NO_COMPLETED_RUN, RunTrace, TraceStep, trace_tool
from .tools import AskPerson, Tool, ToolContext

DEFAULT_AGENT_ID = "agent"
"""The id of an agent that did not choose one. It is not a name: it never refuses."""

Checkpointish = AgentRunCheckpoint | dict[str, Any] | str | bytes


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


@dataclass(slots=True)
class _Config:
    provider: ModelProvider
    model: str
    id: str | None
    system: str = ""
    tools: list[Tool] = field(default_factory=list)
    memory: EpisodicMemory | None = None
    window: Window | None = None
    compaction: Compaction | None = None
    self_explain: bool = False
    max_tool_rounds: int = 8


class AgentBuilder:
    """`Agent.create(provider=..., model=...).system(...).tool(...).build()`."""

    def __init__(self, config: _Config, agent_class: type[Agent] | None = None) -> None:
        self._config = config
        self._agent_class = agent_class or Agent

    def system(self, text: str) -> AgentBuilder:
        self._config.system = text
        return self

    def tool(self, *tools: Tool) -> AgentBuilder:
        self._config.tools.extend(tools)
        return self

    def memory(self, memory: EpisodicMemory) -> AgentBuilder:
        self._config.memory = memory
        return self

    def window(self, *, keep_recent_turns: int) -> AgentBuilder:
        self._config.window = Window(keep_recent_turns=keep_recent_turns)
        return self

    def compaction(self, compaction: Compaction) -> AgentBuilder:
        self._config.compaction = compaction
        return self

    def self_explain(self) -> AgentBuilder:
        self._config.self_explain = True
        return self

    def max_tool_rounds(self, rounds: int) -> AgentBuilder:
        if rounds < 1:
            raise ValueError("max_tool_rounds must be at least 1")
        self._config.max_tool_rounds = rounds
        return self

    def build(self) -> Agent:
        names = [t.name for t in self._config.tools]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        return self._agent_class(self._config)


class Agent:
    """One instance answers one turn at a time and keeps its last conversation."""

    _run_class: type[_Run]
    """The tool loop of one turn (set below, once `_Run` exists); a derived runtime may
    swap it, which is how the rogues in tests/rogues/ change one thing at a time."""

    @classmethod
    def create(cls, *, provider: ModelProvider, model: str, id: str | None = None) -> AgentBuilder:
        """A builder for this class: a subclass's `create` builds the subclass."""
        return AgentBuilder(_Config(provider=provider, model=model, id=id), cls)

    def __init__(self, config: _Config) -> None:
        self._config = config
        self._conversation: AgentRunCheckpoint | None = None
        self._in_flight: str | None = None
        self._last_run: RunState | None = None
        self._last_trace: RunTrace | None = None

    @property
    def id(self) -> str:
        return self._config.id or DEFAULT_AGENT_ID

    @property
    def _named(self) -> bool:
        """Choosing the default id is not naming yourself: it never refuses anyone."""
        return self._config.id not in (None, DEFAULT_AGENT_ID)

    @property
    def last_run(self) -> RunState | None:
        return self._last_run

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
        self._refuse_if_busy("run")
        _check_text("run", "message", message)
        conversation = self._admit("run", continue_from)
        if conversation.pending is not None:
            raise _pending_error("run", conversation.pending)
        history = [*conversation.history, Turn(role="user", text=message)]
        turn = conversation.turns + 1
        return await self._turn(conversation, history, turn, message, identity, session_id)

    async def follow_up(self, message: str) -> RunResult:
        """Exactly `run(message, continue_from=self.checkpoint())`."""
        self._refuse_if_busy("follow_up")
        return await self.run(message, continue_from=self.checkpoint())

    def checkpoint(self) -> AgentRunCheckpoint:
        """The last conversation as plain JSON data; NoConversationError before any run."""
        if self._conversation is None:
            raise NoConversationError()
        return self._conversation

    async def resume(
        self, paused: Checkpointish, decision: Any, *, session_id: str | None = None
    ) -> RunResult:
        """Continue a paused run: `decision` becomes the asking tool's result."""
        self._refuse_if_busy("resume")
        conversation = self._admit("resume", paused)
        pending = conversation.pending
        if pending is None:
            raise InvalidCheckpointError(
                "pending", "expected a paused checkpoint (one whose run asked a question)"
            )
        answer = decision if isinstance(decision, str) else json.dumps(decision)
        _check_text("resume", "decision", answer)
        history = [
            *conversation.history,
            Turn(role="tool", tool_call_id=pending.tool_call_id, text=answer),
        ]
        message = _last_user_text(history)
        turn = conversation.turns  # the paused turn goes on
        return await self._turn(conversation, history, turn, message, None, session_id)

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
        for call in _unanswered_calls(history):
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

    # -- one turn --------------------------------------------------------------------

    def _refuse_if_busy(self, method: str) -> None:
        if self._in_flight is not None:
            raise RunInFlightError(method, self._in_flight)

    def _admit(self, method: str, handed: Checkpointish | None) -> AgentRunCheckpoint:
        """Validate a conversation handed in; refuse another agent's, and refuse to walk
        around this agent's pending question."""
        conversation = AgentRunCheckpoint() if handed is None else load_checkpoint(handed)
        mine = self._conversation.pending if self._conversation is not None else None
        if mine is not None and conversation.pending != mine:
            raise _pending_error(method, mine)
        recorded_by = conversation.agent
        if recorded_by is not None and self._named and recorded_by != self.id:
            raise ConversationMismatchError(recorded_by, self.id)
        return conversation

    async def _turn(
        self,
        conversation: AgentRunCheckpoint,
        history: list[Turn],
        turn: int,
        message: str,
        explicit: Identity | None,
        session_id: str | None,
    ) -> RunResult:
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        self._in_flight = run_id
        try:
            identity, source = self._identity(explicit, conversation.identity, session_id, run_id)
            self._last_run = RunState(run_id, identity, source, session_id)
            named = self._published(identity, source)
            run = self._run_class(
                self, run_id, named, identity, session_id, history, conversation, turn
            )
            return await run.play(message)
        finally:
            self._in_flight = None

    def _identity(
        self,
        explicit: Identity | None,
        carried: Identity | None,
        session_id: str | None,
        run_id: str,
    ) -> tuple[Identity, IdentitySource]:
        """The ladder: passed, then carried, then the session, then the run."""
        return _identity_ladder(explicit, carried, session_id, run_id)

    def _published(self, identity: Identity, source: IdentitySource) -> Identity | None:
        """What tools see as `ctx.identity`: only a named identity, never a synthesized one."""
        return identity if source in ("explicit", "carried") else None


def _identity_ladder(
    explicit: Identity | None, carried: Identity | None, session_id: str | None, run_id: str
) -> tuple[Identity, IdentitySource]:
    if explicit is not None:
        return explicit, "explicit"
    if carried is not None:
        return carried, "carried"
    if session_id is not None:
        return Identity(conversation_id=session_id), "session"
    return Identity(conversation_id=run_id), "run"


class _Run:
    """The tool loop of one turn, and what it leaves behind."""

    def __init__(
        self,
        agent: Agent,
        run_id: str,
        named: Identity | None,
        namespace: Identity,
        session_id: str | None,
        history: list[Turn],
        conversation: AgentRunCheckpoint,
        turn: int,
    ) -> None:
        self.agent = agent
        self.turn = turn
        self.config = agent._config
        self.run_id = run_id
        self.named = named
        self.namespace = namespace
        self.ctx = ToolContext(run_id=run_id, session_id=session_id, identity=named)
        self.history = history
        self.folded = list(conversation.folded)
        self.model_calls = 0
        self.trace: list[TraceStep] = []
        self.tools = {t.name: t for t in self.config.tools}
        if self.config.self_explain:
            explain = trace_tool(self._evidence)
            self.tools[explain.name] = explain

    def _evidence(self) -> RunTrace | None:
        """What the trace tool reports: the last completed run's trace, never this one's."""
        return self.agent._last_trace

    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        return AgentRunCheckpoint(
            history=tuple(self.history),
            folded=tuple(self.folded),
            identity=self.named,
            agent=self.config.id if self.agent._named else None,
            pending=pending,
            turns=self.turn,
        )

    async def play(self, message: str) -> RunResult:
        try:
            pending = await self._run_tools(_unanswered_calls(self.history))
            if pending is None:
                await self._compact()
                pending = await self._loop(message)
        except ToolLoopLimitError:
            raise
        except Exception as error:
            if self.model_calls == 0:
                raise
            raise RunFailedError(error, self.checkpoint()) from error
        checkpoint = self.checkpoint(pending)
        if pending is not None:
            self.agent._conversation = checkpoint
            return RunResult(self.run_id, None, checkpoint, pending)
        answer = self.history[-1].text
        # Memory first, then the commit: a failed write leaves the agent's conversation
        # as it was before this run, so retrying the same call does not repeat a turn.
        await self._remember(message, answer)
        self.agent._conversation = checkpoint
        self.agent._last_trace = RunTrace(
            run_id=self.run_id, steps=tuple(self.trace), answer=answer
        )
        return RunResult(self.run_id, answer, checkpoint)

    async def _remember(self, message: str, answer: str) -> None:
        """Store the completed turn; any failure is a typed MemoryStoreError."""
        memory = self.config.memory
        if memory is None:
            return
        try:
            await memory.remember(self.namespace.namespace(), self.turn, message, answer)
        except MemoryStoreError:
            raise
        except Exception as error:  # a store of the host's own: still typed, still uncommitted
            raise MemoryWriteError(type(memory.store).__name__, repr(error)) from error

    async def _loop(self, message: str) -> PendingQuestion | None:
        system = await self._system(message)
        specs = [t.spec() for t in self.tools.values()]
        for _ in range(self.config.max_tool_rounds):
            reply = await self._call(system, shown_turns(self.history, self.config.window), specs)
            self.history.append(
                Turn(role="assistant", text=reply.text, tool_calls=reply.tool_calls)
            )
            if not reply.tool_calls:
                return None
            pending = await self._run_tools(reply.tool_calls)
            if pending is not None:
                return pending
        raise ToolLoopLimitError(self.config.max_tool_rounds, self.checkpoint())

    async def _call(self, system: str, turns: Sequence[Turn], specs: Sequence[Any]) -> ModelReply:
        reply = await self.config.provider.complete(
            model=self.config.model, system=system, turns=turns, tools=specs
        )
        self.model_calls += 1
        return reply

    async def _system(self, message: str) -> str:
        memory = self.config.memory
        if memory is None:
            return self.config.system
        entries = await memory.recall(self.namespace.namespace(), message)
        return system_with_memory(self.config.system, render_memory_block(entries))

    async def _run_tools(self, calls: Sequence[ToolCall]) -> PendingQuestion | None:
        for call in calls:
            tool = self.tools.get(call.name)
            if tool is None:
                result, is_error = f"unknown tool {call.name!r}", True
            else:
                try:
                    result, is_error = await tool.call(self.ctx, call.arguments), False
                except AskPerson as ask:
                    return PendingQuestion(
                        tool_name=call.name, tool_call_id=call.id, question=ask.question
                    )
                except Exception as error:  # the model sees the failure and can react
                    result, is_error = f"tool error: {error}", True
            self.trace.append(TraceStep(tool=call.name, arguments=call.arguments, result=result))
            self.history.append(
                Turn(role="tool", tool_call_id=call.id, text=result, is_error=is_error)
            )
        return None

    async def _compact(self) -> None:
        compaction = self.config.compaction
        if compaction is None or not compaction.needs_folding(self.history):
            return
        span = compaction.span_to_fold(self.history, self.folded)
        if span is None:
            return
        start, end = span
        system, turns = compaction.summary_request(self.history[start:end])
        summary = await self._call(system, turns, [])
        history, folded = compaction.fold(self.history, self.folded, start, end, summary.text)
        self.history, self.folded = list(history), list(folded)


Agent._run_class = _Run


def _unanswered_calls(history: Sequence[Turn]) -> list[ToolCall]:
    """Calls of the last assistant turn that have no result yet (a resumed pause)."""
    for index in range(len(history) - 1, -1, -1):
        turn = history[index]
        if turn.role == "assistant":
            answered = {t.tool_call_id for t in history[index + 1 :] if t.role == "tool"}
            return [c for c in turn.tool_calls if c.id not in answered]
        if turn.role == "user":
            return []
    return []


def _check_text(method: str, field: str, value: object) -> None:
    if not isinstance(value, str):
        raise InvalidMessageError(method, field, f"expected text, got {type(value).__name__}")
    problem = unicode_problem(value)
    if problem is not None:
        raise InvalidMessageError(method, field, f"not valid Unicode text: {problem}")


def _last_user_text(history: Sequence[Turn]) -> str:
    return next((t.text for t in reversed(history) if t.role == "user"), "")


def _pending_error(method: str, pending: PendingQuestion) -> PendingQuestionError:
    return PendingQuestionError(method, pending.tool_name, pending.tool_call_id, pending.question)


__all__ = ["DEFAULT_AGENT_ID", "NO_COMPLETED_RUN", "Agent", "AgentBuilder", "RunResult", "RunState"]
