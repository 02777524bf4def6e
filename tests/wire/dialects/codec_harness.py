"""What the dialect tests share: a codec behind a mock transport, read by the real SDKs.

Each test module subclasses `CodecServer` with its own reply and failure policy; the
receive-parse-record step, the JSON/SSE answer and the SDK clients are the same for all,
so a fix to how the fake answers lands in every dialect's tests at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import anthropic
import httpx2
import openai

from conformance.wire.dialects._base import DialectCodec, ReplyIds, SseEvent
from conformance.wire.ir import AssistantReply, RequestIR

IDS = ReplyIds(seq=7, created=1_700_000_000)
Handler = Callable[[httpx2.Request], httpx2.Response]


def sse_response(events: Iterable[SseEvent]) -> httpx2.Response:
    """A 200 event stream carrying `events` as encoded."""
    return httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=b"".join(event.encode() for event in events),
    )


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
    """A one-route provider: parse what the SDK sent with the codec, answer with the codec.

    Each subclass writes its transport handler from `receive`, `answer` and
    `error_response`; `bodies` and `requests` record what arrived (a body that fails to
    parse is in `bodies` only).
    """

    def __init__(self, codec: DialectCodec) -> None:
        self.codec = codec
        self.bodies: list[Any] = []
        self.requests: list[RequestIR] = []

    def receive(self, request: httpx2.Request) -> RequestIR:
        """Check the route, record the body, parse it (WireFormatError propagates)."""
        assert request.url.path == self.codec.path
        body = json.loads(request.content)
        self.bodies.append(body)
        ir = self.codec.parse_request(body)
        self.requests.append(ir)
        return ir

    def answer(
        self, reply: AssistantReply, ir: RequestIR, events: list[SseEvent] | None = None
    ) -> httpx2.Response:
        """The JSON body, or for a stream `events` (the codec's own rendering by default)."""
        if not ir.stream:
            return httpx2.Response(200, json=self.codec.render_json(reply, ir, IDS))
        return sse_response(events or self.codec.render_sse(reply, ir, IDS))

    def error_response(self, status: int, message: str) -> httpx2.Response:
        """A non-2xx response with the codec's error body."""
        return httpx2.Response(status, json=self.codec.render_error(status, message))
