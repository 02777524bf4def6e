"""One turn as a frozen input, a loop and an outcome — and the loop's seams.

An `Agent`'s door decides which conversation continues and under whose identity, and
freezes that as a `TurnInput`. A `TurnLoop` plays the turn from it (the asked-for tool
results of a resumed pause, compaction, recall, the model and its tools) and returns a
`TurnOutcome`; the agent commits the outcome in one place. The loop never writes to
the agent, so a runtime derived from the reference changes how a turn plays by
overriding one of the loop's documented seams (`call_model`, `present_memory`,
`checkpoint`, `trace_evidence`) — the rogues in tests/rogues/ do exactly that. The
seams are listed in docs/reference.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .checkpoint import AgentRunCheckpoint, FoldedSpan, PendingQuestion
from .context import Compaction, Window, shown_turns
from .conversation import Identity, ToolCall, ToolSpec, Turn
from .errors import RunFailedError, ToolLoopLimitError
from .memory import EpisodicMemory, render_memory_block, system_with_memory
from .providers import ModelProvider, ModelReply
from .self_explain import RunTrace, TraceStep, trace_tool
from .tools import AskPerson, Tool, ToolContext


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """What an agent was built with; fixed once built, and read by every turn."""

    provider: ModelProvider
    model: str
    id: str | None
    system: str = ""
    tools: tuple[Tool, ...] = ()
    memory: EpisodicMemory | None = None
    window: Window | None = None
    compaction: Compaction | None = None
    self_explain: bool = False
    max_tool_rounds: int = 8


@dataclass(frozen=True, slots=True)
class TurnInput:
    """Everything one turn starts from, decided by the agent before the turn begins."""

    run_id: str
    config: AgentConfig
    message: str
    """The user message this turn answers (a resumed turn: the paused turn's message)."""
    history: tuple[Turn, ...]
    """The conversation so far and what this door adds: the new user turn, or the
    person's decision as the asking call's result."""
    folded: tuple[FoldedSpan, ...]
    turns: int
    """User turns so far, this one included (memory's `turn=`)."""
    identity: Identity
    """Whose turn it is: the namespace the identity ladder chose."""
    published: Identity | None
    """What tools are told (`ctx.identity`) and the checkpoint carries: a named identity."""
    session_id: str | None
    recorded_by: str | None
    """The agent id the checkpoint records; None when the agent did not choose one."""
    memory_namespace: str
    last_trace: RunTrace | None
    """The last completed run's trace, when this turn began: the trace tool's evidence."""


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """A completed turn to remember, written before the turn is committed."""

    namespace: str
    turn: int
    message: str
    answer: str


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """What a turn leaves behind: a paused one has a pending question and nothing else."""

    run_id: str
    checkpoint: AgentRunCheckpoint
    answer: str | None = None
    pending: PendingQuestion | None = None
    remember: MemoryWrite | None = None
    trace: RunTrace | None = None


class TurnLoop:
    """The tool loop of one turn: plays a `TurnInput` into a `TurnOutcome`.

    Its working state (`history`, `folded`, `trace`, `model_calls`) is its own; the
    public methods below are the seams a derived runtime may override.
    """

    def __init__(self, turn: TurnInput) -> None:
        self.input = turn
        self.history = list(turn.history)
        self.folded = list(turn.folded)
        self.model_calls = 0
        self.trace: list[TraceStep] = []
        self.ctx = ToolContext(
            run_id=turn.run_id, session_id=turn.session_id, identity=turn.published
        )
        self.tools = {t.name: t for t in turn.config.tools}
        if turn.config.self_explain:
            explain = trace_tool(self.trace_evidence)
            self.tools[explain.name] = explain

    # -- the seams ---------------------------------------------------------------------

    def trace_evidence(self) -> RunTrace | None:
        """What the trace tool reports: the last completed run's trace, never this one's."""
        return self.input.last_trace

    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        """The conversation this turn leaves (also the one a failed run's error carries):
        the whole history, final answer included, with folded spans, the published
        identity, the recording agent and the turn count."""
        return AgentRunCheckpoint(
            history=tuple(self.history),
            folded=tuple(self.folded),
            identity=self.input.published,
            agent=self.input.recorded_by,
            pending=pending,
            turns=self.input.turns,
        )

    def failed_checkpoint(self) -> AgentRunCheckpoint:
        """The conversation a failed run's error carries: the history up to the last
        completed model call and the tool results that followed it — never a reply cut
        short (it was never appended) and never a call without its result."""
        return self.checkpoint()

    def present_memory(self, system: str, block: str) -> tuple[str, tuple[Turn, ...]]:
        """Where recalled memory is shown: the system prompt and turns to put before the
        conversation. The reference appends the block to the system prompt, no turns."""
        return system_with_memory(system, block), ()

    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        """One model call (the tool loop's, or compaction's summary): what it is sent."""
        config = self.input.config
        reply = await config.provider.complete(
            model=config.model, system=system, turns=turns, tools=tools
        )
        self.model_calls += 1
        return reply

    # -- the turn ----------------------------------------------------------------------

    async def play(self) -> TurnOutcome:
        """Play the turn. A failure after a model call carries the last good checkpoint."""
        try:
            pending = await self._run_tools(unanswered_calls(self.history))
            if pending is None:
                await self._compact()
                pending = await self._loop()
        except ToolLoopLimitError:
            raise
        except Exception as error:
            if self.model_calls == 0:
                raise
            raise RunFailedError(error, self.failed_checkpoint()) from error
        run_id = self.input.run_id
        checkpoint = self.checkpoint(pending)
        if pending is not None:
            return TurnOutcome(run_id, checkpoint, pending=pending)
        answer = self.history[-1].text
        turn = self.input
        remember = (
            None
            if turn.config.memory is None
            else MemoryWrite(turn.memory_namespace, turn.turns, turn.message, answer)
        )
        trace = RunTrace(run_id=run_id, steps=tuple(self.trace), answer=answer)
        return TurnOutcome(run_id, checkpoint, answer=answer, remember=remember, trace=trace)

    async def _loop(self) -> PendingQuestion | None:
        config = self.input.config
        system, lead = await self._system()
        specs = [t.spec() for t in self.tools.values()]
        for _ in range(config.max_tool_rounds):
            shown = shown_turns(self.history, config.window)
            reply = await self.call_model(system, [*lead, *shown] if lead else shown, specs)
            self.history.append(
                Turn(role="assistant", text=reply.text, tool_calls=reply.tool_calls)
            )
            if not reply.tool_calls:
                return None
            pending = await self._run_tools(reply.tool_calls)
            if pending is not None:
                return pending
        raise ToolLoopLimitError(config.max_tool_rounds, self.checkpoint())

    async def _system(self) -> tuple[str, tuple[Turn, ...]]:
        config = self.input.config
        if config.memory is None:
            return config.system, ()
        entries = await config.memory.recall(self.input.memory_namespace, self.input.message)
        return self.present_memory(config.system, render_memory_block(entries))

    async def _run_tools(self, calls: Sequence[ToolCall]) -> PendingQuestion | None:
        for call in calls:
            tool = self.tools.get(call.name)
            if tool is None:
                result, is_error = f"unknown tool {call.name!r}", True
            else:
                try:
                    ctx = replace(self.ctx, tool_call_id=call.id)
                    result, is_error = await tool.call(ctx, call.arguments), False
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
        compaction = self.input.config.compaction
        if compaction is None or not compaction.needs_folding(self.history):
            return
        span = compaction.span_to_fold(self.history, self.folded)
        if span is None:
            return
        start, end = span
        system, turns = compaction.summary_request(self.history[start:end])
        summary = await self.call_model(system, turns, [])
        history, folded = compaction.fold(self.history, self.folded, start, end, summary.text)
        self.history, self.folded = list(history), list(folded)


def unanswered_calls(history: Sequence[Turn]) -> list[ToolCall]:
    """Calls of the last assistant turn that have no result yet (a resumed pause)."""
    for index in range(len(history) - 1, -1, -1):
        turn = history[index]
        if turn.role == "assistant":
            answered = {t.tool_call_id for t in history[index + 1 :] if t.role == "tool"}
            return [c for c in turn.tool_calls if c.id not in answered]
        if turn.role == "user":
            return []
    return []
