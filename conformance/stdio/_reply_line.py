"""One line from an adapter's stdout, read as a protocol v1 reply, or refused saying why.

JSON is parsed by pydantic-core (jiter): strict UTF-8, no lone surrogate escapes, no
NaN or Infinity, and nesting limited to `MAX_DEPTH` levels, where the standard
library's parser would recurse until the thread's stack ran out. Types are strict
(`"seq": "1"` is not seq 1, `"yes"` is not true); only unknown fields are forgiven,
and only without --validate-protocol. The session door's results (conformance.adapter
.BACKEND and SESSION) are read as JSON in pydantic's strict mode, their unknown fields
ignored unless validating: their models are the contract's own (unknown fields
forbidden), and their booleans and numbers must not be read from strings.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json, to_json

from ..adapter import AGENT, BACKEND, DAMAGE_SESSION, HOST, SESSION
from .protocol import REPLIES, RESULTS, Reply, StartResult

MAX_DEPTH = 200
"""Nesting levels a reply line may have (pydantic-core's parser's own limit)."""

_FIELDS = {
    "ok": ("seq", "status", "result"),
    "refused": ("seq", "status", "kind", "message"),
    "failed": ("seq", "status", "message", "checkpoint", "cause"),
    "error": ("seq", "status", "message", "traceback"),
}
"""Without --validate-protocol, unknown reply fields are ignored; with it, refused."""

LENIENT_RESULTS: dict[str, TypeAdapter[Any]] = {
    "start": TypeAdapter(StartResult),
    **{op.op: op.lenient_results() for op in AGENT.ops()},
    # the host's results are read as written (HostStarted ignores unknown fields): its
    # Python type, a running host, is what the connector builds from the reply
    **{op.op: op.strict_results() for op in HOST.ops()},
    DAMAGE_SESSION.op: TypeAdapter(Any),
    **{op.op: op.lenient_results() for surface in (BACKEND, SESSION) for op in surface.ops()},
    "stop": TypeAdapter(Any),
}
"""Without --validate-protocol: the Python type of each op's result (conformance.adapter
.AGENT), so unknown fields are ignored; types stay strict (`"no"` is no boolean)."""

_READ_AS_JSON = frozenset(
    op.op for surface in (BACKEND, SESSION) for op in surface.ops() if op.reply is not None
)
"""The session door's ops with a result, which `read_result` reads as strict JSON in
either mode (their lenient entries above serve only what reads the table directly)."""

_HINTS = {
    "recursion limit exceeded": f"nested deeper than {MAX_DEPTH} levels",
    "surrogate": "a \\u escape that is half a character (a lone surrogate, e.g. \\ud800)",
    "hex escape": "a \\u escape that is half a character (a lone surrogate, e.g. \\ud800)",
    "invalid unicode code point": "bytes that are not UTF-8",
    "number out of range": "a number too long to read",
    "control character": "a control character inside a string (escape it)",
}


class UnreadableReply(ValueError):
    """A stdout line that is not a protocol v1 reply; the message says what is wrong."""


def read_reply(raw: bytes, *, validate: bool) -> Reply:
    """The reply on `raw`, or UnreadableReply naming the problem and quoting the line."""
    try:
        data = from_json(raw, allow_inf_nan=False)
    except ValueError as error:
        reason = str(error)
        hint = next((h for key, h in _HINTS.items() if key in reason), None)
        if hint and hint.startswith("nested"):
            raise UnreadableReply(
                f"the adapter wrote a line {hint} on stdout ({reason}): {clip(raw)}"
            ) from None
        because = f"{reason}: {hint}" if hint else reason
        raise UnreadableReply(
            f"the adapter wrote a line that is not JSON on stdout ({because}): {clip(raw)}"
        ) from None
    candidate = data
    if not validate and isinstance(data, dict):
        status = data.get("status")
        if isinstance(status, str) and status in _FIELDS:
            candidate = {k: v for k, v in data.items() if k in _FIELDS[status]}
    try:
        return REPLIES.validate_python(candidate)
    except ValidationError as error:
        raise UnreadableReply(
            f"the adapter wrote a line that is not a protocol v1 reply on stdout "
            f"({clip(raw)}): {summary(error)}"
        ) from None


def read_result(op: str, result: Any, *, validate: bool) -> Any:
    """An ok reply's result, as the type `op` answers with; ValidationError if not."""
    if op in _READ_AS_JSON:
        return RESULTS[op].validate_json(
            to_json(result), strict=True, extra=None if validate else "ignore"
        )
    return (RESULTS if validate else LENIENT_RESULTS)[op].validate_python(result)


def summary(error: ValidationError, limit: int = 5) -> str:
    """The first `limit` problems of a validation error, each at its field: a reply of a
    million wrong items must not make a million-line report."""
    problems = error.errors(include_url=False)
    lines = []
    for problem in problems[:limit]:
        where = ".".join(str(part) for part in problem["loc"]) or "(the line)"
        given = repr(problem.get("input"))
        if len(given) > 80:
            given = given[:80] + "…"
        lines.append(f"  {where}: {problem['msg']} [given {given}]")
    if len(problems) > limit:
        lines.append(f"  … and {len(problems) - limit} more")
    count = len(problems)
    return f"{count} problem{'s' if count != 1 else ''}:\n" + "\n".join(lines)


def clip(raw: bytes, limit: int = 300) -> str:
    """The start of a line, as evidence: never the whole of a 60 MB one."""
    text = raw[: limit * 4].decode("utf-8", errors="replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "…")
