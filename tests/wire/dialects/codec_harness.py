"""What the dialect tests share: a codec behind a mock transport, read by the real SDKs.

Each test module subclasses `CodecServer` with its codec and SDK client; how the fake
parses, records and answers is the same for all, so a fix to it lands in every dialect's
tests at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import anthropic
import httpx2
import openai

from conformance.wire.dialects._base import DialectCodec, ReplyIds, SseEvent, WireFormatError
from conformance.wire.ir import AssistantReply, RequestIR

IDS = ReplyIds(seq=7, created=1_700_000_000)
Handler = Callable[[httpx2.Request], httpx2.Response]


def payloads(events: Iterable[SseEvent]) -> list[Any]:
    """The decoded `data` of each event, skipping OpenAI's `[DONE]` terminator."""
    return [json.loads(event.data) for event in events if event.data != "[DONE]"]


def _wiring(handler: Handler, *, sync: bool = False) -> dict[str, Any]:
    """SDK client arguments sending every request to `handler`, retries off."""
    transport = httpx2.MockTransport(handler)
    http_client = (
        httpx2.Client(transport=transport) if sync else httpx2.AsyncClient(transport=transport)
    )
    return {"api_key": "k", "http_client": http_client, "max_retries": 0}


def openai_client(handler: Handler) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url="http://fake.test/v1", **_wiring(handler))


def openai_sync_client(handler: Handler) -> openai.OpenAI:
    return openai.OpenAI(base_url="http://fake.test/v1", **_wiring(handler, sync=True))


def anthropic_client(handler: Handler) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url="http://fake.test", **_wiring(handler))


# Status -> (SDK exception, `error.type`) for both OpenAI dialects: one error body serves both.
OPENAI_ERROR_CASES: list[tuple[int, type[openai.APIStatusError], str]] = [
    (400, openai.BadRequestError, "invalid_request_error"),
    (401, openai.AuthenticationError, "invalid_request_error"),
    (404, openai.NotFoundError, "invalid_request_error"),
    (429, openai.RateLimitError, "requests"),
    (500, openai.InternalServerError, "server_error"),
    (503, openai.InternalServerError, "service_unavailable_error"),
]


class CodecServer:
    """A one-route provider: parse what the SDK sent with `codec`, answer with `codec`.

    It answers `replies` in turn, the last one again once the others are used up (a plain
    "ok" when none are given), or `error` (status, message) to every request; a body the
    codec refuses gets the codec's 400. A stream is `events` when given, else the codec's
    rendering, broken by a mid-stream `stream_error` after `kept_before_error` events when
    one is set. `bodies`, `requests` and `streams` record what arrived and what was
    streamed (a body that fails to parse is in `bodies` only). Each dialect's subclass
    names its codec and its SDK client.
    """

    codec: DialectCodec
    kept_before_error = 2

    def __init__(
        self,
        *replies: AssistantReply,
        error: tuple[int, str] | None = None,
        stream_error: str | None = None,
        events: list[SseEvent] | None = None,
    ) -> None:
        self.replies = list(replies) or [AssistantReply(text="ok")]
        self.error = error
        self.stream_error = stream_error
        self.events = events
        self.bodies: list[Any] = []
        self.requests: list[RequestIR] = []
        self.streams: list[list[SseEvent]] = []

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == self.codec.path
        body = json.loads(request.content)
        self.bodies.append(body)
        try:
            ir = self.codec.parse_request(body)
        except WireFormatError as exc:
            return httpx2.Response(400, json=self.codec.render_error(400, str(exc)))
        self.requests.append(ir)
        if self.error is not None:
            return httpx2.Response(self.error[0], json=self.codec.render_error(*self.error))
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if not ir.stream:
            return httpx2.Response(200, json=self.codec.render_json(reply, ir, IDS))
        events = self.events or self.codec.render_sse(reply, ir, IDS)
        if self.stream_error is not None:
            events = events[: self.kept_before_error]
            events += self.codec.render_stream_error(self.stream_error, IDS)
        self.streams.append(events)
        stream = b"".join(event.encode() for event in events)
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=stream)
