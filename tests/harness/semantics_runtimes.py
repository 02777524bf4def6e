"""Runtimes that honour the laws but read the spec's words as real runtimes do.

Each differs from the reference in one way the suite used to misjudge (issue 13 §4):
they must PASS, so a FAIL against one is a false FAIL of the suite, not of the runtime.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

from conformance.adapter import AgentSpec, RefusalKind, Refused, RunOutcome
from reference_impl import (
    Agent,
    AgentConfig,
    AgentRunCheckpoint,
    ModelReply,
    PendingQuestion,
    ToolSpec,
    Turn,
    TurnInput,
    TurnLoop,
)
from reference_impl.adapter import ReferenceAgent, ReferenceImplementation
from reference_impl.self_explain import TRACE_TOOL_NAME
from reference_impl.tools import Tool, ToolContext

ACTIVATION = "enable_explanations"


class _StampedTurn(TurnLoop):
    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        now = datetime.now(UTC)
        stamp = f"[{self.input.run_id} · {now.isoformat()} · {format_datetime(now, usegmt=True)}]"
        return await super().call_model(f"{system}\n{stamp}", turns, tools)


class _MintsIds(Agent):
    """Stamps every request with an 8-character id minted per agent, the run's id, and
    the time in two common formats (as runtimes that tag requests for tracing do)."""

    turn_loop = _StampedTurn

    def __init__(self, config: AgentConfig) -> None:
        tag = secrets.token_urlsafe(6)[:8]
        super().__init__(replace(config, system=f"{config.system}\n[agent {tag}]"))


class _NeedsActivation(TurnLoop):
    """Offers the trace tool only once the model called the activation tool in this run,
    and the trace tool takes a required, non-empty argument."""

    def __init__(self, turn: TurnInput) -> None:
        super().__init__(turn)
        trace = self.tools.get(TRACE_TOOL_NAME)
        if trace is None:
            return

        def explain(ctx: ToolContext, question: str) -> Any:
            assert len(question) >= 3, "the question is required"
            return trace.fn(ctx)

        def activate(ctx: ToolContext, scope: str) -> str:
            return f"explanations enabled for {scope}"

        self.tools[TRACE_TOOL_NAME] = Tool(
            name=TRACE_TOOL_NAME,
            fn=explain,
            description=trace.description,
            parameters={
                "type": "object",
                "properties": {"question": {"type": "string", "minLength": 3}},
                "required": ["question"],
            },
        )
        self.tools[ACTIVATION] = Tool(
            name=ACTIVATION,
            fn=activate,
            description="Call this before asking why you did something.",
            parameters={
                "type": "object",
                "properties": {"scope": {"enum": ["last_run"]}},
                "required": ["scope"],
            },
        )

    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        activated = any(step.tool == ACTIVATION for step in self.trace)
        offered = [t for t in tools if activated or t.name != TRACE_TOOL_NAME]
        return await super().call_model(system, turns, offered)


class _ActivatedTrace(Agent):
    turn_loop = _NeedsActivation


class _NoticesDroppedTurns(TurnLoop):
    """Where the window dropped turns, the model is told so in a user-role message of the
    runtime's own, as runtimes that replace dropped history with a notice do."""

    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        window = self.input.config.window
        held = sum(turn.role == "user" for turn in self.history)
        shown = sum(turn.role == "user" for turn in turns)
        if window is not None and self.input.config.compaction is None and shown < held:
            notice = Turn(role="user", text=f"[{held - shown} earlier turn(s) are not shown.]")
            turns = [notice, *turns]
        return await super().call_model(system, turns, tools)


class _NoticingAgent(Agent):
    turn_loop = _NoticesDroppedTurns


def _wrapped(output: str) -> str:
    return json.dumps({"result": output})


class _WrapsToolOutputs(TurnLoop):
    """Every tool's output reaches the model wrapped, as `{"result": "<output>"}`."""

    def __init__(self, turn: TurnInput) -> None:
        super().__init__(turn)
        for name, original in list(self.tools.items()):

            async def wrapped(ctx: ToolContext, _tool: Tool = original, **arguments: Any) -> str:
                return _wrapped(await _tool.call(ctx, arguments))

            self.tools[name] = replace(original, fn=wrapped)


class _WrappingAgent(Agent):
    """Tool outputs and a person's decisions alike reach the model wrapped."""

    turn_loop = _WrapsToolOutputs

    def resumed_history(
        self, paused: AgentRunCheckpoint, pending: PendingQuestion, decision: str
    ) -> list[Turn]:
        return super().resumed_history(paused, pending, _wrapped(decision))


SECTIONS = ("tools", "router")


class _InformedTrace(TurnLoop):
    """The trace tool answers only an informed call: it takes a section name, and a call
    naming none it knows is answered with the list of sections, as trace tools that need
    an id or a name from a first answer do."""

    def __init__(self, turn: TurnInput) -> None:
        super().__init__(turn)
        trace = self.tools.get(TRACE_TOOL_NAME)
        if trace is None:
            return

        def read(ctx: ToolContext, section: str) -> Any:
            if section not in SECTIONS:
                return f"Unknown section {section!r}. Sections you can read: {', '.join(SECTIONS)}"
            return trace.fn(ctx) if section == "tools" else "The router took no branch."

        self.tools[TRACE_TOOL_NAME] = Tool(
            name=TRACE_TOOL_NAME,
            fn=read,
            description="Read one section of the last completed run's trace.",
            parameters={
                "type": "object",
                "properties": {"section": {"type": "string"}},
                "required": ["section"],
            },
        )


class _InformedTraceAgent(Agent):
    turn_loop = _InformedTrace


class _NameGrammar(ReferenceImplementation):
    """Agent names follow a grammar (lowercase letters, digits and dashes, a letter
    first), as runtimes that use the name in a path or a URL do; any other id is refused
    at build time with the runtime's own error."""

    GRAMMAR = r"[a-z][a-z0-9-]*"

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        if spec.id is not None and not re.fullmatch(self.GRAMMAR, spec.id):
            raise ValueError(f"invalid agent name {spec.id!r}: use {self.GRAMMAR}")
        return await super().create_agent(spec)


class _BlankRefusingAgent(ReferenceAgent):
    """Refuses an empty or whitespace message (or decision) as invalid input before
    anything else: a runtime that validates its input first, whatever its state."""

    @staticmethod
    def _check(said: str | None) -> None:
        if said is not None and not said.strip():
            raise Refused(RefusalKind.INVALID_INPUT, "a message must have some text")

    async def run(self, message: str, **kwargs: Any) -> RunOutcome:
        self._check(message)
        return await super().run(message, **kwargs)

    async def follow_up(self, message: str) -> RunOutcome:
        self._check(message)
        return await super().follow_up(message)

    async def resume(self, checkpoint: Any, decision: str | None, **kwargs: Any) -> RunOutcome:
        self._check(decision)
        return await super().resume(checkpoint, decision, **kwargs)


class _RefusesBlankInput(ReferenceImplementation):
    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        return _BlankRefusingAgent(*self.build_agent(spec))


class _CompactsBySize(ReferenceImplementation):
    """Compaction folds on a size budget only: a turn-count trigger is not honoured."""

    compaction_triggers: tuple[str, ...] = ("chars",)

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        if spec.compaction is not None and spec.compaction.trigger_chars is None:
            raise AssertionError("this runtime has no turn-count trigger: the suite asked")
        return await super().create_agent(spec)


def _consumed(checkpoint: Any) -> Any:
    """Read a checkpoint the way a loader that pops what it reads does: the dict it was
    handed is empty afterwards."""
    if not isinstance(checkpoint, dict):
        return checkpoint
    loaded = {key: checkpoint.pop(key) for key in list(checkpoint)}
    return loaded


class _ConsumingAgent(ReferenceAgent):
    """Its loader mutates the checkpoint it is handed (it pops every key), at every door
    that takes one: legal, since the checkpoint it was handed is its own."""

    async def run(self, message: str, *, continue_from: Any = None, **kwargs: Any) -> Any:
        return await super().run(message, continue_from=_consumed(continue_from), **kwargs)

    async def resume(self, checkpoint: Any, decision: str | None, **kwargs: Any) -> Any:
        return await super().resume(_consumed(checkpoint), decision, **kwargs)


class _ConsumesCheckpoints(ReferenceImplementation):
    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        return _ConsumingAgent(*self.build_agent(spec))


mints_ids = ReferenceImplementation(_MintsIds, name="mints ids per agent and run")
consumes_checkpoints = _ConsumesCheckpoints(name="loader pops what it reads")
compacts_by_size = _CompactsBySize(name="compacts by size only")
trace_needs_activation = ReferenceImplementation(_ActivatedTrace, name="trace needs activation")
trace_needs_activation.trace_activation = ACTIVATION  # type: ignore[attr-defined]
refuses_blank_input = _RefusesBlankInput(name="refuses blank input first")
name_grammar_undeclared = _NameGrammar(name="a name grammar, undeclared")
name_grammar = _NameGrammar(name="a name grammar, declared")
name_grammar.agent_id_pattern = _NameGrammar.GRAMMAR  # type: ignore[attr-defined]
wraps_tool_outputs = ReferenceImplementation(_WrappingAgent, name="wraps tool outputs")
notices_dropped_turns = ReferenceImplementation(
    _NoticingAgent, name="notices dropped turns as a user message"
)
trace_needs_informed_call = ReferenceImplementation(
    _InformedTraceAgent, name="trace answers an informed call"
)


def main() -> None:
    """`python tests/harness/semantics_runtimes.py NAME`: one of these over stdio, so the
    start reply's `trace_activation` and `compaction_triggers` are tested too."""
    import sys

    from conformance.stdio.protocol import ImplementationInfo
    from conformance.stdio.serve import serve

    implementation = globals()[sys.argv[1]]
    serve(implementation, ImplementationInfo(name=implementation.name, language="python"))


if __name__ == "__main__":
    main()
