"""What every dialect provides: parse a request into the IR, render a reply back.

A dialect is pure: bytes-free, clock-free, transport-free. Transports hand it a parsed
JSON body and write out what it returns, so the same rendering serves respx and the
loopback server, and the same parsing feeds the recorder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic_core import to_json

from ..ir import AssistantReply, Dialect, RequestIR

TEXT_PIECE = 32  # the longest text delta any dialect streams: SDKs must join several


def compact_json(value: Any) -> str:
    """JSON without spaces, as the real providers put it in bodies and argument strings."""
    return json.dumps(value, separators=(",", ":"))


def arguments_text(arguments: Any) -> str:
    """A call's arguments as the OpenAI APIs carry them: compact JSON, or the scripted text
    itself when a script gives text (a model's arguments that are not JSON)."""
    return arguments if isinstance(arguments, str) else compact_json(arguments)


def json_body(value: Any) -> bytes:
    """A reply body or event payload as compact UTF-8 JSON.

    pydantic-core's encoder, not `json.dumps`: every reply goes through here, and it is
    the cheaper of the two. Non-ASCII text is sent as UTF-8, as the real APIs send it.
    """
    return to_json(value)


def text_pieces(text: str) -> list[str]:
    """`text` in `TEXT_PIECE`-long deltas (none for empty text), so accumulators must join."""
    return [text[k : k + TEXT_PIECE] for k in range(0, len(text), TEXT_PIECE)]


def halves(text: str, *, first_longer: bool = True) -> list[str]:
    """Argument JSON in at most two non-empty deltas, so accumulators must join partial JSON.

    Which half takes an odd length's extra character is part of each dialect's byte
    output (and so of its recordings): OpenAI's streams put it first, Anthropic's second.
    """
    mid = (len(text) + 1) // 2 if first_longer else len(text) // 2
    return [piece for piece in (text[:mid], text[mid:]) if piece]


class WireFormatError(ValueError):
    """A request body the real provider would also have refused.

    `field` is a dotted path into the body (`messages.2.tool_calls.0.id`) so the 400
    the runtime receives says exactly where it went wrong.
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One server-sent event. `event` is omitted from the wire when None."""

    data: str
    event: str | None = None

    def encode(self) -> bytes:
        head = f"event: {self.event}\n" if self.event is not None else ""
        return f"{head}data: {self.data}\n\n".encode()

    @classmethod
    def of(cls, payload: Any, event: str | None = None) -> SseEvent:
        return cls(data=json_body(payload).decode(), event=event)


@dataclass(frozen=True, slots=True)
class ReplyIds:
    """Deterministic ids for one exchange, so recordings are stable by construction.

    `seq` is the exchange's sequence number in the provider; `created` is a unix time
    the caller chooses (the provider passes the real clock; exports normalize it).
    """

    seq: int
    created: int

    def response_id(self, prefix: str) -> str:
        return f"{prefix}{self.seq:06d}"

    def tool_call_id(self, prefix: str, index: int) -> str:
        return f"{prefix}{self.seq:04d}_{index}"


class DialectCodec(Protocol):
    """The contract each dialect module implements."""

    dialect: Dialect
    path: str  # e.g. "/v1/chat/completions", relative to the server root

    def parse_request(self, body: Any) -> RequestIR:
        """Normalize a request body; raise WireFormatError naming the bad field."""
        ...

    def check_roles(self, request: RequestIR) -> list[str]:
        """Dialect-specific role-order problems in `request.raw` (empty when well formed)."""
        ...

    def render_json(self, reply: AssistantReply, request: RequestIR, ids: ReplyIds) -> Any:
        """The non-streaming response body."""
        ...

    def render_sse(
        self, reply: AssistantReply, request: RequestIR, ids: ReplyIds
    ) -> list[SseEvent]:
        """The full event sequence of a streamed response, terminator included."""
        ...

    def render_error(self, status: int, message: str) -> Any:
        """An error body in the provider's own shape, for a non-2xx response."""
        ...

    def render_stream_error(self, message: str, ids: ReplyIds) -> list[SseEvent]:
        """The events that report a failure in the middle of a stream."""
        ...
