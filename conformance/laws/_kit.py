"""What a law test imports: the one surface between the laws and the rest of the suite.

A law reads like the seed's sentence it checks, so everything it needs is named here:
the adapter protocol's types, the fake and its script steps, the fixtures' types and
key, `LawViolation` for a test that judges several laws, premises, and the seed's
walkthrough messages. Law modules import nothing else from `conformance`
(tests/architecture/test_law_imports.py checks it), so the runner's internals can change
without touching a law, and a law author never learns them.
"""

from __future__ import annotations

import json
from typing import Any

from ..adapter import (
    AgentSpec,
    AgentUnderTest,
    Capability,
    CompactionSpec,
    IdentitySpec,
    Implementation,
    RefusalKind,
    Refused,
    RunFailed,
    RunOutcome,
)
from ..errors import AdapterFailure as _AdapterFailure
from ..errors import AdapterReportedError as _AdapterReportedError
from ..replay.hypothesis_examples import reproducing
from ..runner.fixtures import FAKE_KEY, AgentFactory
from ..runner.outcomes import NOT_APPLICABLE_PREFIX, LawViolation, PremiseNotMet
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


__all__ = [
    "BOOK",
    "FAKE_KEY",
    "NOT_APPLICABLE_PREFIX",
    "SYSTEM",
    "THREE",
    "AgentFactory",
    "AgentSpec",
    "AgentUnderTest",
    "Call",
    "Capability",
    "CompactionSpec",
    "Dialect",
    "Exchange",
    "Fault",
    "Hold",
    "IdentitySpec",
    "Implementation",
    "LawViolation",
    "MintedValues",
    "PremiseNotMet",
    "React",
    "RefusalKind",
    "Refused",
    "RequestIR",
    "RunFailed",
    "RunOutcome",
    "ScriptedProvider",
    "Step",
    "StreamError",
    "Text",
    "ToolCalls",
    "declares",
    "long_turn",
    "parallel_calls",
    "premise",
    "reproducing",
    "roundtrip",
    "text",
    "text_blocks",
    "tool_call",
    "untyped",
]
