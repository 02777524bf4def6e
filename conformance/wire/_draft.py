"""What the provider learns about one request before its exchange is built, and the
replies it makes without a script: a refusal, the models list.

Kept apart from `provider.py`, whose one job is the decision under its lock: these are
plain values and pure functions it reports to and renders with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._plan import BodyCut
from .ir import RequestIR
from .wirelog import FindingKind, StepRef


@dataclass(slots=True)
class Draft:
    """What parsing and refusing learned about a request, before its `Exchange` is built:
    the one place they report to (an exception halfway keeps what was learned so far)."""

    body: Any = None
    ir: RequestIR | None = None
    aborted: str | None = None
    step: StepRef | None = None
    problems: list[tuple[FindingKind, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Refusal:
    kind: FindingKind
    message: str
    status: int
    allow: str = ""  # a 405's Allow header


def describe_abort(cut: BodyCut) -> str:
    declared = f" of {cut.declared}" if cut.declared is not None else ""
    detail = cut.detail or "the client closed the connection"
    return f"{detail} after {cut.received}{declared} body bytes; no step was used"


def describe_too_large(cut: BodyCut | None, size: int, limit: int) -> str:
    if cut is not None and cut.declared is not None:
        amount = f"{cut.declared} bytes declared (Content-Length)"
    elif cut is not None:
        amount = f"more than {limit} bytes sent"
    else:
        amount = f"{size} bytes sent"
    return (
        f"turnlaw: request body too large: {amount}; the limit is {limit} bytes "
        "(ScriptedProvider(max_body=...), serve --max-body)"
    )


def models_body(models: Sequence[str], headers: Sequence[tuple[str, str]]) -> Any:
    anthropic = any(name.lower() == "anthropic-version" for name, _ in headers)
    if anthropic:
        data = [
            {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
            for m in models
        ]
        return {"data": data, "has_more": False, "first_id": models[0], "last_id": models[-1]}
    return {
        "object": "list",
        "data": [{"id": m, "object": "model", "created": 0, "owned_by": "turnlaw"} for m in models],
    }


def generic_error(message: str) -> Any:
    return {"error": {"message": message, "type": "invalid_request_error"}}
