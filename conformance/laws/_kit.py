"""What a law test imports: the one surface between the laws and the rest of the suite.

A law reads like the seed's sentence it checks, so everything it needs is named here:
the adapter protocol's types (the session door's values and Protocols included), the
fake and its script steps, the fixtures' types and key (`new_backend`'s
`BackendFactory` and `RunningBackend`), `LawViolation` for a test that judges several
laws, premises (and `case_needs`, for a case needing a capability), and the seed's
walkthrough messages. Law modules import nothing else from `conformance`
(tests/architecture/test_law_imports.py checks it), so the runner's internals can change
without touching a law, and a law author never learns them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from ..adapter import (
    AgentSpec,
    AgentUnderTest,
    ApprovalRequestEvent,
    AssistantEvent,
    BackendSpec,
    BackendUnderTest,
    BreakHow,
    Capability,
    CompactionSpec,
    ErrorEvent,
    HostSpec,
    IdentitySpec,
    Implementation,
    PassEnd,
    PendingApproval,
    QueueEvent,
    ReasoningEvent,
    RefusalKind,
    Refused,
    ResultEvent,
    RetryEvent,
    RunFailed,
    RunOutcome,
    SessionAgentSpec,
    SessionEvent,
    SessionIds,
    SessionImplementation,
    SessionOptions,
    SessionState,
    SessionUnderTest,
    StoredMessage,
    StreamPass,
    ToolCallEvent,
    ToolName,
    ToolResultEvent,
)
from ..errors import AdapterFailure as _AdapterFailure
from ..errors import AdapterReportedError as _AdapterReportedError
from ..hosting import AwaitingQuestion, HostClient, HostReply, HostUnreachable, NotTheWire
from ..replay.hypothesis_examples import reproducing
from ..runner.capability_words import needs_sentence as _needs_sentence
from ..runner.fixtures import FAKE_KEY, AgentFactory
from ..runner.host_fixtures import HostFactory, RunningHost
from ..runner.machine_threads import off_the_loop
from ..runner.outcomes import NOT_APPLICABLE_PREFIX, LawViolation, PremiseNotMet
from ..runner.session_fixtures import BackendFactory, RunningBackend
from ..wire import (
    Call,
    Exchange,
    Fault,
    Hold,
    MintedValues,
    React,
    RequestIR,
    ScriptedProvider,
    StreamError,
    Text,
    ToolCalls,
    parallel_calls,
    text,
    text_blocks,
    tool_call,
)
from ..wire.ir import Dialect
from ..wire.script import Step
from ._session_kit import (
    DEFAULT_CONVERSATION,
    EITHER_ID,
    NEW_CONVERSATION,
    ONE_RESULT,
    RUN_EVENTS,
    TURN_WAIT,
    Said,
    answer_of,
    conversation_shown,
    final_text_problem,
    first_carrying,
    last_carrying,
    last_user_carries,
    open_new,
    open_resumed,
    opened_by_the_law,
    requests_carrying,
    results_in,
    run_id_problems,
    take_turn,
    words,
)

# --- the seed's walkthrough ----------------------------------------------------------

BOOK = "Book me a table for two on Friday."
THREE = "Make it three."
SYSTEM = "You take restaurant bookings. Be brief."


def long_turn(message: str, size: int = 600) -> str:
    """`message` followed by order notes up to about `size` characters.

    Window and compaction laws script long turns, so that a runtime which replaces what it
    drops with a shorter notice (or budgets by size) still has a reason to drop them."""
    notes: list[str] = []
    while len(message) + sum(len(note) + 2 for note in notes) < size:
        notes.append(f"note {len(notes) + 1}: a quiet table by the window, no nuts, the usual wine")
    return f"{message} (Order notes. {'; '.join(notes)}.)"


# --- premises and plain facts ----------------------------------------------------------


def declares(implementation: Implementation, capability: Capability) -> bool:
    """Does the implementation declare `capability`? (A law needing an undeclared one
    is skipped by the runner; this is for a law whose *details* depend on one.)"""
    return str(capability) in {str(c) for c in implementation.capabilities}


def case_needs(implementation: Implementation, *capabilities: Capability, case: str) -> None:
    """End this case NOT_APPLICABLE unless the implementation declares every one of
    `capabilities`: for a law whose single cases need more than the law does (breaking
    a connection by `drop` needs session_drop, by `kill` session_kill). `case` says
    what the case does, as the report shows it: "breaking a connection by dropping it
    needs the session_drop capability"."""
    missing = [c.value for c in capabilities if not declares(implementation, c)]
    if missing:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}{case} {_needs_sentence(missing)}")


def premise(law: str, holds: bool, message: str) -> None:
    """Check what this test rests on before judging its own law: `law` is the law whose
    statement the premise is (its own tests judge it). A premise that does not hold
    ends the test as ERROR "premise not met: <law>", never as a FAIL of the law under
    test."""
    if not holds:
        raise PremiseNotMet(law, message)


def untyped(error: BaseException) -> bool:
    """Is `error` one a runtime must not raise at a door: neither a refusal nor a failed
    run, but the runtime's own crash (in-process, or reported by a `cmd:` adapter)? The
    harness's own failures (a timeout, a crash of the adapter process) are not: they
    stay ERROR and TIMEOUT, never a law's FAIL."""
    if isinstance(error, Refused | RunFailed):
        return False
    return isinstance(error, _AdapterReportedError) or not isinstance(error, _AdapterFailure)


def roundtrip(checkpoint: Any) -> Any:
    """What a store hands back: the checkpoint as JSON text, parsed again."""
    return json.loads(json.dumps(checkpoint, allow_nan=False))


# --- what a request shows -----------------------------------------------------------------


def shown_anywhere(request: RequestIR, said: str, *, in_call_arguments: bool = False) -> bool:
    """Is `said` shown to the model: in the system prompt or a message's text, and with
    `in_call_arguments` also in a tool call's arguments (where a folded span may put it)."""
    return (
        said in request.system
        or any(said in m.text for m in request.messages)
        or (
            in_call_arguments
            and any(said in str(c.arguments) for m in request.messages for c in m.tool_calls)
        )
    )


def strings_in(data: Any) -> list[str]:
    """Every string anywhere in a JSON value, keys too: a runtime records a checkpoint in
    its own shape, so a law looks for what was said without knowing where it is kept."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for key, inner in data.items() for s in [str(key), *strings_in(inner)]]
    if isinstance(data, list | tuple):
        return [s for inner in data for s in strings_in(inner)]
    return []


def pairing_problems(request: RequestIR) -> list[str]:
    """Tool calls shown without their results, or results shown without their calls."""
    calls = {c.id for m in request.messages for c in m.tool_calls}
    results = {m.tool_call_id for m in request.messages if m.role == "tool"}
    return [f"call {c} without its result" for c in sorted(calls - results)] + [
        f"result for {r} without its call" for r in sorted(str(r) for r in results - calls)
    ]


def numbered_calls(exchanges: Sequence[Exchange]) -> list[Any]:
    """The raw request bodies with every tool-call id the model was shown numbered by
    first appearance: the fake mints them from its sequence number, so they differ
    between two otherwise equal conversations, and numbering them keeps the check that a
    call and its result still pair up. Everything else a runtime mints is learned from a
    control pair (`MintedValues`), not guessed."""
    names: dict[str, str] = {}
    for exchange in exchanges:
        assert exchange.ir is not None, f"request #{exchange.seq} was not a model request"
        for message in exchange.ir.messages:
            for call in message.tool_calls:
                names.setdefault(call.id, f"<call-{len(names) + 1}>")

    def value(item: Any) -> Any:
        if isinstance(item, str):
            return names.get(item, item)
        if isinstance(item, dict):
            return {key: value(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [value(inner) for inner in item]
        return item

    return [value(exchange.body) for exchange in exchanges]


# --- the trace tool: what a self-explain runtime declares, and calls matching it --------


def trace_tool_of(implementation: Implementation) -> str:
    """The tool a self-explain agent offers its model; naming it is part of declaring it."""
    name = getattr(implementation, "trace_tool", None)
    if not isinstance(name, str) or not name:
        pytest.fail(
            f"{implementation.name} declares {Capability.SELF_EXPLAIN.value} but names no "
            "trace tool: set `trace_tool` on the Implementation (or in the stdio `start` "
            "reply) to the name of the tool its model calls to read the trace"
        )
    return name


def trace_activation_of(implementation: Implementation) -> str | None:
    """The tool the model calls first, in each run, before the runtime offers its trace
    tool (`trace_activation`); None when the trace tool is offered from the start."""
    name = getattr(implementation, "trace_activation", None)
    return name if isinstance(name, str) and name else None


def value_for(schema: Any) -> Any:
    """A value a JSON Schema accepts, for a call the scripted model makes: a const, the
    first enum member, the default, or the least value of the type."""
    if not isinstance(schema, dict):
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return value_for(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        return "why".ljust(int(schema.get("minLength", 0)), ".")
    if kind in ("integer", "number"):
        return schema.get("minimum", 1 if "exclusiveMinimum" in schema else 0)
    if kind == "boolean":
        return False
    if kind == "array":
        return [value_for(schema.get("items", {})) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: value_for(properties.get(name, {})) for name in schema.get("required", [])}
    return None


def calling(tool: str) -> React:
    """A model step that calls `tool` with arguments matching the schema the request
    offered it with (`{}` when it takes none, or when it was not offered at all, which
    the law then reports)."""

    def call(request: RequestIR) -> ToolCalls:
        offered = next((t for t in request.tools if t.name == tool), None)
        arguments = value_for(offered.parameters) if offered is not None else {}
        return tool_call(tool, arguments if isinstance(arguments, dict) else {})

    return React(fn=call, label=f"call {tool}")


def trace_results(request: RequestIR, tool: str) -> list[str]:
    """What the model was shown for each of its calls to `tool`, in call order."""
    calls = [c.id for m in request.messages for c in m.tool_calls if c.name == tool]
    shown = {m.tool_call_id: m.text for m in request.messages if m.role == "tool"}
    return [shown.get(call_id, "") for call_id in calls]


__all__ = [
    "BOOK",
    "DEFAULT_CONVERSATION",
    "EITHER_ID",
    "FAKE_KEY",
    "NEW_CONVERSATION",
    "NOT_APPLICABLE_PREFIX",
    "ONE_RESULT",
    "RUN_EVENTS",
    "SYSTEM",
    "THREE",
    "TURN_WAIT",
    "AgentFactory",
    "AgentSpec",
    "AgentUnderTest",
    "ApprovalRequestEvent",
    "AssistantEvent",
    "AwaitingQuestion",
    "BackendFactory",
    "BackendSpec",
    "BackendUnderTest",
    "BreakHow",
    "Call",
    "Capability",
    "CompactionSpec",
    "Dialect",
    "ErrorEvent",
    "Exchange",
    "Fault",
    "Hold",
    "HostClient",
    "HostFactory",
    "HostReply",
    "HostSpec",
    "HostUnreachable",
    "IdentitySpec",
    "Implementation",
    "LawViolation",
    "MintedValues",
    "NotTheWire",
    "PassEnd",
    "PendingApproval",
    "PremiseNotMet",
    "QueueEvent",
    "React",
    "ReasoningEvent",
    "RefusalKind",
    "Refused",
    "RequestIR",
    "ResultEvent",
    "RetryEvent",
    "RunFailed",
    "RunOutcome",
    "RunningBackend",
    "RunningHost",
    "Said",
    "ScriptedProvider",
    "SessionAgentSpec",
    "SessionEvent",
    "SessionIds",
    "SessionImplementation",
    "SessionOptions",
    "SessionState",
    "SessionUnderTest",
    "Step",
    "StoredMessage",
    "StreamError",
    "StreamPass",
    "Text",
    "ToolCallEvent",
    "ToolCalls",
    "ToolName",
    "ToolResultEvent",
    "answer_of",
    "calling",
    "case_needs",
    "conversation_shown",
    "declares",
    "final_text_problem",
    "first_carrying",
    "last_carrying",
    "last_user_carries",
    "long_turn",
    "numbered_calls",
    "off_the_loop",
    "open_new",
    "open_resumed",
    "opened_by_the_law",
    "pairing_problems",
    "parallel_calls",
    "premise",
    "reproducing",
    "requests_carrying",
    "results_in",
    "roundtrip",
    "run_id_problems",
    "shown_anywhere",
    "strings_in",
    "take_turn",
    "text",
    "text_blocks",
    "tool_call",
    "trace_activation_of",
    "trace_results",
    "trace_tool_of",
    "untyped",
    "value_for",
    "words",
]
