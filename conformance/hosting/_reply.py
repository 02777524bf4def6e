"""A host's reply as a law reads it, and the two ways a reply can fail to be one.

`HostReply` is what every `HostClient` answers with, whatever wire it speaks: the law
judges status, output, the paused question and the error code, never the bytes. A reply
that is not the wire (a body that is not JSON, a status the wire has no row for, a field
missing) is `NotTheWire`: the host's own fault, so an AssertionError, which the runner
reports as the law's FAIL. A host that cannot be reached at all is `HostUnreachable`:
the harness cannot judge what never answered, so it is an ERROR (a CRASH), as an adapter
process that died is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import AdapterCrashed


class NotTheWire(AssertionError):
    """The host answered, but not in the seed's wire: a finding against the host."""

    def __init__(self, what: str, evidence: str) -> None:
        super().__init__(f"the host's reply is not the seed's wire: {what} ({evidence})")
        self.what = what
        self.evidence = evidence


class HostUnreachable(AdapterCrashed):
    """The host did not answer at all (its process is gone, or it never listened)."""


class AwaitingQuestion(NamedTuple):
    """A paused turn's question (a 202's `awaiting`, or an SSE `awaiting` event)."""

    session_id: str
    tool: str
    question: str
    tool_call_id: str


@dataclass(frozen=True)
class HostReply:
    """One reply: `status` (for a stream, the HTTP status it was served with), and what
    the body said. `output` for an answered turn, `awaiting` for a paused one, `code`
    and `error` for a refusal; `events` the server-sent events of a stream, terminal last
    (empty otherwise), with `output`/`awaiting`/`code` read from the terminal one.
    `issued_cookie` is the session cookie value this reply set (None: it set none);
    `set_cookie_header` the raw Set-Cookie headers, joined."""

    status: int
    output: str | None = None
    awaiting: AwaitingQuestion | None = None
    code: str | None = None
    error: str | None = None
    issued_cookie: str | None = None
    set_cookie_header: str | None = None
    events: list[tuple[str, Any]] = field(default_factory=list)
    body: Any = None
    """The parsed JSON body (a session read's `checkpoint` is in it); None for a stream."""

    @property
    def answered(self) -> bool:
        return self.output is not None and self.code is None

    @property
    def checkpoint(self) -> Any:
        """A session read's stored conversation, or None."""
        return self.body.get("checkpoint") if isinstance(self.body, dict) else None
