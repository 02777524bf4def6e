"""A tiny Starlette app served on the loopback by uvicorn, for the caller's tests: it
answers each reply kind of the seed's wire, and some replies that are not the wire."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from conformance._prompt_server import PromptServer

COOKIE = "sid"
SEEN: list[dict[str, Any]] = []
"""What the app was sent: each request's body, session source and headers."""


def _sse(*events: tuple[str, Any]) -> StreamingResponse:
    async def lines() -> AsyncIterator[str]:
        for name, data in events:
            payload = data if isinstance(data, str) else json.dumps(data)
            yield f"event: {name}\ndata: {payload}\n\n"

    return StreamingResponse(lines(), media_type="text/event-stream")


async def invoke(request: Request) -> Response:
    raw = await request.body()
    try:
        body = json.loads(raw)
    except ValueError:
        return JSONResponse({"error": "bad json", "code": "ERR_INVALID_REQUEST"}, 400)
    sid = body.get("sessionId") or request.headers.get("x-session-id")
    sid = sid or request.cookies.get(COOKIE)
    SEEN.append({"body": body, "sid": sid, "headers": dict(request.headers)})
    said = body.get("input") or body.get("decision") or ""
    stream = request.headers.get("accept") == "text/event-stream"
    issued = None if sid else str(uuid.uuid4())
    reply: Response
    if said == "pause":
        awaiting = {
            "sessionId": sid or "",
            "tool": "ask_person",
            "question": "Which day?",
            "toolCallId": "call_1",
        }
        reply = (
            _sse(("awaiting", awaiting)) if stream else JSONResponse({"awaiting": awaiting}, 202)
        )
    elif said == "busy":
        reply = JSONResponse({"error": f"{sid} busy", "code": "ERR_CONCURRENT_RUN"}, 409)
    elif said == "text":
        reply = PlainTextResponse("hello", 200)
    elif said == "teapot":
        reply = JSONResponse({"output": "x"}, 418)
    elif said == "missing":
        reply = JSONResponse({"answer": "x"}, 200)
    elif said == "badcode":
        reply = JSONResponse({"error": "x", "code": "ERR_NOPE"}, 409)
    elif said == "unterminated" and stream:
        reply = _sse(("chunk", {"text": "a"}))
    elif said == "twice" and stream:
        reply = _sse(("complete", {"output": "a"}), ("complete", {"output": "b"}))
    elif said == "notjson" and stream:
        reply = _sse(("chunk", "{nope"), ("complete", {"output": "a"}))
    elif said == "auth":
        who = request.headers.get("authorization")
        reply = JSONResponse({"output": who or "nobody"})
    elif stream:
        reply = _sse(
            ("chunk", {"text": "Booked "}),
            ("chunk", {"text": "for Friday."}),
            ("complete", {"output": "Booked for Friday.", "sessionId": sid}),
        )
    else:
        reply = JSONResponse({"output": f"echo {said}", "sessionId": sid})
    if issued is not None and body.get("input") != "nocookie":
        reply.set_cookie(COOKIE, issued, path="/", httponly=True, samesite="lax")
    return reply


async def session(request: Request) -> Response:
    sid = request.path_params["sid"]
    if sid == "missing":
        return JSONResponse({"error": "no", "code": "ERR_SESSION_NOT_FOUND"}, 404)
    return JSONResponse({"sessionId": sid, "checkpoint": {"messages": [sid]}})


APP = Starlette(
    routes=[Route("/invoke", invoke, methods=["POST"]), Route("/sessions/{sid}", session)]
)


class RunningApp:
    """`app` served by uvicorn on a free loopback port, in this event loop."""

    def __init__(self, app: Any = APP) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        self._server = PromptServer(config)  # stops at once: a test ends many
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> str:
        self._task = asyncio.create_task(self._server.serve(sockets=[self._sock]))
        while not self._server.started:
            await asyncio.sleep(0.01)
        return self.url

    async def end(self) -> None:
        self._server.should_exit = True
        if self._task is not None:
            await self._task
        self._sock.close()


@asynccontextmanager
async def served(app: Any = APP) -> AsyncIterator[str]:
    """`app` on http://127.0.0.1:PORT (a free port), for the duration."""
    running = RunningApp(app)
    try:
        yield await running.start()
    finally:
        await running.end()
