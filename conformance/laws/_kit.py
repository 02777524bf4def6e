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
from ._hosting_kit import BOOKED, CONTINUES, OTHER, REPLIES, answered, fresh, request_for
from ._machine_kit import LawMachine, explore
from ._refusal_kit import DOORS, attempt, door_call, judge_refusals, skip_cell_without
from ._request_kit import (
    answers_to,
    holds_output,
    holds_outputs,
    is_summary_call,
    numbered_calls,
    pairing_problems,
    shown_anywhere,
    strings_in,
    tool_results,
    user_turns_in_a_row,
    whoami_report,
)
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


COMPACTING_TURNS = [
    long_turn(BOOK),
    long_turn(THREE),
    long_turn("Make it Saturday.", 4000),  # this turn alone trips a size trigger
]
"""Three turns that trip every trigger of `COMPACTION_TRIGGERS` when the third arrives."""
COMPACTION_TRIGGERS = {
    # Both fold when the third message arrives, not the second. In characters: about 1,340
    # before the third message, 5,340 with it, so a token budget of a quarter of 2,700
    # trips on the same turn with a tokenizer off by up to 1.9 times either way.
    "turns": CompactionSpec(trigger_turns=2, keep_recent_turns=1),
    "chars": CompactionSpec(trigger_chars=2700, keep_recent_turns=1),
}
"""The compaction the folding laws ask for, by the trigger a runtime honours."""


OUTLASTS_RETRIES = 16
"""Faults scripted for a call the law makes fail: more than any SDK's default retries
(the official SDKs retry 429 and 5xx twice)."""


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


async def continue_handed_back(
    agent: AgentUnderTest, message: str, checkpoint: Any, *, cannot: str
) -> RunOutcome:
    """Continue a checkpoint a failed run handed back, after a store's round trip, on
    `agent`: a refusal is the law's FAIL, said as `cannot` ("the checkpoint ... cannot be
    continued") with the refusal."""
    try:
        return await agent.run(message, continue_from=roundtrip(checkpoint))
    except Refused as refusal:
        raise AssertionError(
            f"{cannot} (refused as {refusal.kind.value}: {refusal.message})"
        ) from refusal


__all__ = [
    "BOOK",
    "BOOKED",
    "COMPACTING_TURNS",
    "COMPACTION_TRIGGERS",
    "CONTINUES",
    "DEFAULT_CONVERSATION",
    "DOORS",
    "EITHER_ID",
    "FAKE_KEY",
    "NEW_CONVERSATION",
    "NOT_APPLICABLE_PREFIX",
    "ONE_RESULT",
    "OTHER",
    "OUTLASTS_RETRIES",
    "REPLIES",
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
    "LawMachine",
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
    "answered",
    "answers_to",
    "assert_said",
    "attempt",
    "calling",
    "case_needs",
    "consultations",
    "consulting",
    "continue_handed_back",
    "conversation_shown",
    "declaration_of",
    "declared_agent_id_pattern",
    "declares",
    "describe",
    "door_call",
    "explore",
    "final_text_problem",
    "first_carrying",
    "fresh",
    "has_next_turn",
    "holds_output",
    "holds_outputs",
    "is_summary_call",
    "judge_refusals",
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
    "request_for",
    "requests_carrying",
    "results_in",
    "roundtrip",
    "run_id_problems",
    "shown_anywhere",
    "skip_cell_without",
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
