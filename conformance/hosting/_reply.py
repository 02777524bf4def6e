"""A host's reply as a law reads it, and the two ways a reply can fail to be one.

`HostReply` is what every `HostClient` answers with, whatever wire it speaks: `said`
holds the outcomes its wire profile classifies it as (empty: none), and the laws judge
that, the answer's text and the paused question, never the bytes. A reply that is not
one at all (over the size limit, a stream that cannot be read) is `NotTheWire`: the
host's own fault, so an AssertionError, which the runner reports as the law's FAIL. A
host that cannot be reached is `HostUnreachable`: the harness cannot judge what never
answered, so it is an ERROR (a CRASH), as an adapter process that died is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..adapter._host_profile import HostOutcome
from ..errors import AdapterCrashed


class NotTheWire(AssertionError):
    """The host answered, but with nothing a law can read: a finding against the host."""

    def __init__(self, what: str, evidence: str) -> None:
        super().__init__(f"the host's reply cannot be read: {what} ({evidence})")
        self.what = what
        self.evidence = evidence


class HostUnreachable(AdapterCrashed):
    """The host did not answer at all (its process is gone, or it never listened)."""


class AwaitingQuestion(NamedTuple):
    """A paused turn's question; `tool` and `session_id` when the host says them."""

    session_id: str | None
    tool: str | None
    question: str
    tool_call_id: str


@dataclass(frozen=True)
class HostReply:
    """One reply. `status` is the HTTP status (for a stream, the one it was served
    with); `said` the outcomes it says (HostWireProfile); `output` an answered turn's
    text; `awaiting` a paused turn's question; `events` a stream's server-sent events,
    last one last; `body` the parsed JSON body (None: a stream, or not JSON);
    `checkpoint` a session read's stored conversation. `issued_cookie` is the session
    cookie value this reply set (None: it set none), `set_cookie_header` the raw
    Set-Cookie headers, joined. `evidence` is the reply as a FAIL shows it. `note` takes
    information about the host's wire (outside the score): the caller that made the
    reply wires it to the test's record."""

    status: int
    said: frozenset[HostOutcome] = frozenset()
    output: str | None = None
    awaiting: AwaitingQuestion | None = None
    issued_cookie: str | None = None
    set_cookie_header: str | None = None
    events: list[tuple[str, Any]] = field(default_factory=list)
    body: Any = None
    checkpoint: Any = None
    evidence: str = ""
    note: Callable[[str], None] | None = field(default=None, compare=False, repr=False)

    @property
    def answered(self) -> bool:
        return HostOutcome.ANSWERED in self.said and self.output is not None

    @property
    def found(self) -> bool:
        """A session read that served the stored conversation."""
        return HostOutcome.ANSWERED in self.said and self.checkpoint is not None

    @property
    def shown(self) -> str:
        """The reply in a few words: what it said, then what it was."""
        words = (
            " / ".join(sorted(s.words for s in self.said))
            or "a reply its profile does not classify"
        )
        return f"{words} ({self.evidence or f'status {self.status}'})"
