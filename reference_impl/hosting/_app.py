"""The seed's HTTP wire on Starlette: `POST /invoke`, `GET /health`, `GET /sessions/{id}`.

This module only translates: a request into an `Incoming`, a `TurnServed` or a refusal into
a reply (JSON, or server-sent events when asked). What a turn does is the
StandingAgent's; nothing here decides it.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ._errors import HostRefusal
from ._protocol import HEAD_LIMIT, head_too_large
from ._standing import Incoming, StandingAgent, TurnServed
from ._wire import (
    Awaiting,
    AwaitingReply,
    ChunkEvent,
    CompleteEvent,
    ErrorReply,
    HealthReply,
    OutputReply,
    SessionReply,
    dump,
    parse_invoke,
)


def build_app(core: StandingAgent) -> Starlette:
    """The ASGI app serving `core`."""

    async def invoke(request: Request) -> Response:
        try:
            body = parse_invoke(await request.body())
        except HostRefusal as refusal:
            return _refused(refusal)
        incoming = Incoming(
            message=body.input,
            decision=body.decision,
            body_session_id=body.session_id,
            headers=request.headers,
            cookies=request.cookies,
        )
        if "text/event-stream" in request.headers.get("accept", ""):
            return await _streamed(core, incoming)
        try:
            served = await core.invoke(incoming)
        except HostRefusal as refusal:
            return _refused(refusal)
        return _reply(core, served)

    async def health(request: Request) -> Response:
        return JSONResponse(dump(HealthReply()))

    async def session(request: Request) -> Response:
        session_id = request.path_params["session_id"]
        try:
            checkpoint = await core.read_session(session_id, request.headers)
        except HostRefusal as refusal:
            return _refused(refusal)
        return JSONResponse(
            dump(SessionReply(session_id=session_id, checkpoint=json.loads(checkpoint)))
        )

    return Starlette(
        routes=[
            Route("/invoke", invoke, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
            _any_text_route("/sessions/", "session_id", session),
        ],
        exception_handlers={Exception: _crashed},
        middleware=[Middleware(_HeadLimit)],
    )


class _HeadLimit:
    """Refuses a request whose head is over HEAD_LIMIT that h11 read anyway: h11 limits
    only a head still incomplete after a read, so a large one that arrived in one piece
    gets here, and would otherwise be answered or refused by how the network cut it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _head_size(scope) > HEAD_LIMIT:
            await _refused(head_too_large())(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _head_size(scope: Scope) -> int:
    """The bytes of the request's head as sent: `METHOD target HTTP/1.1`, then each
    `name: value` line, then the blank line."""
    path: bytes = scope.get("raw_path") or scope["path"].encode()
    query: bytes = scope["query_string"]
    line = (
        len(scope["method"])
        + 1
        + len(path)
        + (len(query) + 1 if query else 0)
        + len(b" HTTP/1.1\r\n")
    )
    return line + sum(len(name) + len(value) + 4 for name, value in scope["headers"]) + 2


def _any_text_route(
    prefix: str, name: str, endpoint: Callable[[Request], Awaitable[Response]]
) -> Route:
    """`GET {prefix}{name}` where the parameter is all the rest of the decoded path, line
    breaks included. Starlette's `{name:path}` is `.*` before `$`: it cannot match an id
    with a line break in it (404), and for one ending in a line break it matches the id
    without it, so `/sessions/a%0A` would have read session "a"."""
    route = Route(f"{prefix}{{{name}:path}}", endpoint, methods=["GET"])
    route.path_regex = re.compile(rf"{re.escape(prefix)}(?P<{name}>.*)\Z", re.DOTALL)
    return route


async def _crashed(request: Request, error: Exception) -> Response:
    """A crash is still the wire's `{error, code}` (500), so a caller can tell it from a
    refusal; it names only the error's type, since its text may hold what it read."""
    reply = ErrorReply(error=f"the host failed: {type(error).__name__}", code="ERR_INTERNAL")
    return JSONResponse(dump(reply), status_code=500)


def _refused(refusal: HostRefusal) -> JSONResponse:
    return JSONResponse(
        dump(ErrorReply(error=str(refusal), code=refusal.code)), status_code=refusal.status
    )


def _body(served: TurnServed) -> tuple[int, dict[str, Any]]:
    """The reply's status and body: 200 with the answer, or 202 with the question."""
    pending = served.result.pending
    if pending is not None and served.session_id is not None:
        awaiting = Awaiting(
            session_id=served.session_id,
            tool=pending.tool_name,
            question=pending.question,
            tool_call_id=pending.tool_call_id,
        )
        return 202, dump(AwaitingReply(awaiting=awaiting))
    reply = OutputReply(output=served.result.answer or "", session_id=served.session_id)
    return 200, dump(reply)


def _reply(core: StandingAgent, served: TurnServed) -> Response:
    status, body = _body(served)
    after = BackgroundTask(served.after) if served.after is not None else None
    response = JSONResponse(body, status_code=status, background=after)
    _issue_cookie(core, served, response)
    return response


def _issue_cookie(core: StandingAgent, served: TurnServed, response: Response) -> None:
    """`Set-Cookie: <name>=<uuid4>; Path=/; HttpOnly; SameSite=Lax` when one was issued."""
    if served.issued_cookie is not None and core.session_cookie is not None:
        response.set_cookie(
            core.session_cookie, served.issued_cookie, path="/", httponly=True, samesite="lax"
        )


_PLAIN_STATUSES = frozenset({400, 401, 404, 409, 503})
"""Refusals a stream answers as plain JSON with their status: the request was refused,
not run. A failure of the run itself (500, 502) is the stream's `error` event."""


async def _streamed(core: StandingAgent, incoming: Incoming) -> Response:
    """The same turn as server-sent events: the chunk, then one terminal event."""
    try:
        served: TurnServed | HostRefusal = await core.invoke(incoming)
    except HostRefusal as refusal:
        if refusal.status in _PLAIN_STATUSES:
            return _refused(refusal)
        served = refusal

    async def events() -> AsyncIterator[ServerSentEvent]:
        if isinstance(served, HostRefusal):
            yield _event("error", dump(ErrorReply(error=str(served), code=served.code)))
            return
        status, body = _body(served)
        if status == 202:
            yield _event("awaiting", body["awaiting"])
            return
        output = served.result.answer or ""
        yield _event("chunk", dump(ChunkEvent(text=output)))
        yield _event("complete", dump(CompleteEvent(output=output, session_id=served.session_id)))

    after = None
    if isinstance(served, TurnServed) and served.after is not None:
        after = BackgroundTask(served.after)
    response = EventSourceResponse(events(), background=after, ping=600)
    if isinstance(served, TurnServed):
        _issue_cookie(core, served, response)
    return response


def _event(name: str, data: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(data), event=name)
