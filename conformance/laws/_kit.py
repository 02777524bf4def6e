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
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ..adapter import (
    SAFE_AGENT_ID_PATTERN,
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
    agent_id_fits,
    declaration_of,
    declared_agent_id_pattern,
)
from ..errors import AdapterFailure as _AdapterFailure
from ..errors import AdapterReportedError as _AdapterReportedError
from ..hosting import (
    UNANSWERED,
    AwaitingQuestion,
    HostClient,
    HostOutcome,
    HostReply,
    HostUnreachable,
    NotTheWire,
    assert_said,
    describe,
    refused,
)
from ..replay.hypothesis_examples import reproducing
from ..runner.fixtures import FAKE_KEY, AgentFactory, BackendFactory, RunningBackend, off_the_loop
from ..runner.host_fixtures import HostFactory, RunningHost
from ..verdicts import NOT_APPLICABLE_PREFIX, LawViolation, PremiseNotMet
from ..verdicts import needs_sentence as _needs_sentence
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
from ._trace_kit import (
    calling,
    consultations,
    consulting,
    trace_activation_of,
    trace_results,
    trace_tool_of,
    value_for,
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


def newest_is(message: str) -> Callable[[RequestIR], bool]:
    """A script matcher routing a request by its newest user turn (a tool round keeps
    it): for turns that reach the fake in an order the test does not choose, or scripts
    that must not serve each other's turns."""
    return lambda request: request.user_texts()[-1:] == [message]


def has_next_turn(implementation: Implementation) -> bool:
    """Can an agent's own conversation be continued at all: follow_up or continue_from?"""
    return declares(implementation, Capability.FOLLOW_UP) or declares(
        implementation, Capability.CONTINUE_FROM
    )


async def next_turn(
    agent: AgentUnderTest,
    implementation: Implementation,
    message: str,
    *,
    through_checkpoint: bool = False,
) -> RunOutcome:
    """The next turn of `agent`'s own conversation through whichever door it declares:
    `follow_up`, or `run(message, continue_from=checkpoint())` (first, with
    `through_checkpoint`, for a law about what the checkpoint holds). For a law that needs
    a second turn but is not about the door, so that lacking one door never hides it."""
    by_checkpoint = declares(implementation, Capability.CONTINUE_FROM)
    if by_checkpoint and (through_checkpoint or not declares(implementation, Capability.FOLLOW_UP)):
        return await agent.run(message, continue_from=roundtrip(await agent.checkpoint()))
    return await agent.follow_up(message)


def premise(law: str, holds: bool, message: str) -> None:
    """Check what this test rests on before judging its own law: `law` is the law whose
    statement the premise is (its own tests judge it). A premise that does not hold
    ends the test as ERROR "premise not met: <law>", never as a FAIL of the law under
    test."""
    if not holds:
        raise PremiseNotMet(law, message)


def last_said(request: RequestIR) -> str:
    """The text of a request's last message: the new user message, or a decision given
    to resume as the asking call's result."""
    return request.messages[-1].text if request.messages else ""


def answer_attempts(fake: ScriptedProvider, attempted: Sequence[str]) -> None:
    """Answer every request whose last message is one of `attempted` (a door tried where
    it must refuse), before any other script: a runtime that lets it through gets an
    answer, so the law tells what reached the model in its own words instead of the
    fake reporting an exhausted script. Call it before the test's other scripts."""
    said = set(attempted)
    if said:
        fake.script(
            [text("Went ahead.")] * 8,
            name="attempts that went ahead",
            when=lambda request: (
                last_said(request) in said
                or any(holds_output(last_said(request), s) for s in said if s.strip())
            ),
            allow_unused=True,
        )


def kinds_for(message: str, kind: RefusalKind) -> frozenset[RefusalKind]:
    """The refusal kinds a refusal-kind law accepts for `message`: `kind`, and for an
    empty or whitespace message also `invalid_input`, the runtime refusing the input
    itself before anything was sent (the core, judged by the law's own core test)."""
    return frozenset({kind, RefusalKind.INVALID_INPUT} if not message.strip() else {kind})


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


def _outputs_in(shown: str, depth: int = 4) -> list[Any]:
    """`shown` and what its JSON holds, nested values and JSON inside strings included (a
    runtime may wrap a tool's output: `{"result": "<output>"}`), down to `depth`."""
    found: list[Any] = [shown]
    if depth == 0:
        return found
    try:
        decoded = json.loads(shown)
    except ValueError:
        return found
    stack = [decoded]
    while stack:
        value = stack.pop()
        found.append(value)
        if isinstance(value, dict):
            stack += list(value.values())
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, str) and value != shown:
            found += _outputs_in(value, depth - 1)[1:]
    return found


def holds_output(shown: str, output: str) -> bool:
    """Does a tool result as shown to the model carry the tool's `output`: the text
    itself, or a value its JSON holds (a runtime may wrap the output in an object of its
    own)? Tool results are compared by this, in the laws and in their scripts' `when`s,
    so a runtime that wraps what its tools return is judged on what the model was told."""
    if shown == output:
        return True
    try:
        wanted: Any = json.loads(output)
    except ValueError:
        wanted = output
    return any(value in (output, wanted) for value in _outputs_in(shown))


def holds_outputs(shown: Sequence[str], outputs: Sequence[str]) -> bool:
    """`holds_output` for a list of tool results, pairwise and in order."""
    return len(shown) == len(outputs) and all(map(holds_output, shown, outputs))


def tool_results(request: RequestIR) -> list[str]:
    """Every tool result the request shows the model, as shown, in order."""
    return [m.text for m in request.messages if m.role == "tool"]


def whoami_report(shown: str) -> dict[str, Any] | None:
    """The catalog's whoami report in a tool result (`{"identity": ..., "session_id":
    ...}`), wrapped or not; None when the result holds none."""
    for value in _outputs_in(shown):
        if isinstance(value, dict) and {"identity", "session_id"} <= set(value):
            return value
    return None


def user_turns_in_a_row(request: RequestIR) -> list[int]:
    """The index of every user message that follows another user message: a turn kept
    without what answered it (a failed turn's message, or a dropped answer before it)."""
    roles = [m.role for m in request.messages]
    return [i for i in range(1, len(roles)) if roles[i] == roles[i - 1] == "user"]


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


__all__ = [
    "BOOK",
    "DEFAULT_CONVERSATION",
    "EITHER_ID",
    "FAKE_KEY",
    "NEW_CONVERSATION",
    "NOT_APPLICABLE_PREFIX",
    "ONE_RESULT",
    "RUN_EVENTS",
    "SAFE_AGENT_ID_PATTERN",
    "SYSTEM",
    "THREE",
    "TURN_WAIT",
    "UNANSWERED",
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
    "HostOutcome",
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
    "agent_id_fits",
    "answer_attempts",
    "answer_of",
    "assert_said",
    "calling",
    "case_needs",
    "consultations",
    "consulting",
    "conversation_shown",
    "declaration_of",
    "declared_agent_id_pattern",
    "declares",
    "describe",
    "final_text_problem",
    "first_carrying",
    "has_next_turn",
    "holds_output",
    "holds_outputs",
    "kinds_for",
    "last_carrying",
    "last_said",
    "last_user_carries",
    "long_turn",
    "newest_is",
    "next_turn",
    "numbered_calls",
    "off_the_loop",
    "open_new",
    "open_resumed",
    "opened_by_the_law",
    "pairing_problems",
    "parallel_calls",
    "premise",
    "refused",
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
    "tool_results",
    "trace_activation_of",
    "trace_results",
    "trace_tool_of",
    "untyped",
    "user_turns_in_a_row",
    "value_for",
    "whoami_report",
    "words",
]
