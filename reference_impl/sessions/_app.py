"""The session runtime on Starlette: HTTP for agents and conversations, one WebSocket
per session.

This module only translates (bodies and frames in, the runtime's answers and refusals
out); what a request does is the `SessionRuntime`'s. A session's socket is served by two
tasks: this handler reads the client's frames, and one writer sends the session's
outbox in order (events, replies, tool requests), so a reply never overtakes an event
the runtime emitted before it. When the socket ends, however it ends, the session is
closed in the runtime and its turns go on.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from ..store import AgentRecord, ConversationRecord
from ._errors import InvalidSessionRequestError, SessionRuntimeRefusal
from ._runtime import SessionRuntime
from ._session import RuntimeSession, SessionOptions
from ._wire import (
    CLIENT_FRAME,
    AbortFrame,
    AgentBody,
    ClientFrame,
    ConversationBody,
    ConversationsBody,
    CreateAgentBody,
    CreateConversationBody,
    DecideFrame,
    DoneValue,
    ErrorBody,
    MessagesBody,
    OpenedFrame,
    OpenFrame,
    RefusedFrame,
    RemoveQueuedFrame,
    ReplyFrame,
    SendFrame,
    SentValue,
    StateFrame,
    ToolOutputFrame,
)

_M = TypeVar("_M", bound=BaseModel)

REFUSED_CLOSE = 4400
"""The close code after a refused `open` (a 4xxx code is the application's own)."""


def build_app(runtime: SessionRuntime) -> Starlette:
    """The ASGI app serving `runtime`."""

    async def create_agent(request: Request) -> Response:
        body = _parsed(CreateAgentBody, await request.body())
        record = await runtime.create_agent(body.system, body.memory, body.model)
        return _json(_agent_body(runtime, record))

    async def retrieve_agent(request: Request) -> Response:
        record = await runtime.agent(request.path_params["agent_id"])
        return _json(_agent_body(runtime, record))

    async def create_conversation(request: Request) -> Response:
        body = _parsed(CreateConversationBody, await request.body())
        return _json(_conversation_body(await runtime.create_conversation(body.agent_id)))

    async def list_conversations(request: Request) -> Response:
        agent_id = request.query_params.get("agent_id")
        if agent_id is None:
            raise InvalidSessionRequestError("name the agent: GET /conversations?agent_id=…")
        records = await runtime.conversations(agent_id)
        return _json(ConversationsBody(conversations=tuple(map(_conversation_body, records))))

    async def retrieve_conversation(request: Request) -> Response:
        record = await runtime.conversation(request.path_params["conversation_id"])
        return _json(_conversation_body(record))

    async def list_messages(request: Request) -> Response:
        messages = await runtime.messages(request.path_params["conversation_id"])
        return _json(MessagesBody(messages=messages))

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def session_socket(websocket: WebSocket) -> None:
        await _serve_session(runtime, websocket)

    return Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/agents", create_agent, methods=["POST"]),
            Route("/agents/{agent_id}", retrieve_agent, methods=["GET"]),
            Route("/conversations", create_conversation, methods=["POST"]),
            Route("/conversations", list_conversations, methods=["GET"]),
            Route("/conversations/{conversation_id}", retrieve_conversation, methods=["GET"]),
            Route("/conversations/{conversation_id}/messages", list_messages, methods=["GET"]),
            WebSocketRoute("/session", session_socket),
        ],
        exception_handlers={SessionRuntimeRefusal: _refused, Exception: _crashed},
    )


# --- the session's socket -----------------------------------------------------------------


async def _serve_session(runtime: SessionRuntime, websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        session = await _open(runtime, await _next_text(websocket))
    except SessionRuntimeRefusal as refusal:
        refused = RefusedFrame(error=str(refusal), code=refusal.code)
        with contextlib.suppress(Exception):
            await websocket.send_text(refused.model_dump_json())
            await websocket.close(code=REFUSED_CLOSE)
        return
    except _Closed:
        return
    opened = OpenedFrame(
        agent_id=session.agent_id,
        conversation_id=session.conversation_id,
        session_id=session.session_id,
    )
    session.emit(opened)
    writer = asyncio.ensure_future(_write(websocket, session))
    try:
        while True:
            await _handle(runtime, session, await _next_text(websocket))
    except _Closed:
        pass
    finally:
        runtime.close_session(session)
        with contextlib.suppress(Exception):
            await writer


class _Closed(Exception):
    """The client's socket ended."""


async def _next_text(websocket: WebSocket) -> str:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise _Closed()
    text = message.get("text")
    return text if isinstance(text, str) else ""


async def _open(runtime: SessionRuntime, text: str) -> RuntimeSession:
    opening = _parsed(OpenFrame, text.encode())
    options = SessionOptions(
        tools=opening.tools,
        needs_approval=frozenset(opening.needs_approval),
        model=opening.model,
    )
    if opening.new_conversation:
        return await runtime.create_session(opening.target, options)
    return await runtime.resume_session(opening.target, options)


async def _write(websocket: WebSocket, session: RuntimeSession) -> None:
    """Send the session's outbox in order until it ends (or the socket does)."""
    while True:
        frame = await session.outbox.get()
        try:
            if frame is None:
                return
            await websocket.send_text(frame.model_dump_json())
        finally:
            session.outbox.task_done()  # `SessionRuntime.stop` waits for the outbox to drain


async def _handle(runtime: SessionRuntime, session: RuntimeSession, text: str) -> None:
    try:
        frame: ClientFrame = CLIENT_FRAME.validate_json(text)
    except ValidationError as error:
        problem = InvalidSessionRequestError(f"invalid frame: {_problems(error)}")
        session.emit(RefusedFrame(error=str(problem), code=problem.code))
        return
    if isinstance(frame, ToolOutputFrame):
        session.tool_output(frame)
        return
    try:
        value = await _answer(runtime, session, frame)
    except SessionRuntimeRefusal as refusal:
        session.emit(
            ReplyFrame(request_id=frame.request_id, ok=False, error=str(refusal), code=refusal.code)
        )
        return
    session.emit(ReplyFrame(request_id=frame.request_id, value=value))


async def _answer(
    runtime: SessionRuntime,
    session: RuntimeSession,
    frame: SendFrame | AbortFrame | DecideFrame | RemoveQueuedFrame | StateFrame,
) -> Any:
    if isinstance(frame, SendFrame):
        return SentValue(item_id=await runtime.send(session, frame.text))
    if isinstance(frame, AbortFrame):
        return DoneValue(done=await runtime.abort(session))
    if isinstance(frame, DecideFrame):
        return DoneValue(done=await runtime.decide(session, frame.tool_call_id, frame.allow))
    if isinstance(frame, RemoveQueuedFrame):
        return DoneValue(done=await runtime.remove_queued(session, frame.item_id))
    return await runtime.state(session)


# --- HTTP ---------------------------------------------------------------------------------


def _parsed(model: type[_M], raw: bytes) -> _M:
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise InvalidSessionRequestError(f"invalid body: {_problems(error)}") from None


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in error.errors()
    )


def _agent_body(runtime: SessionRuntime, record: AgentRecord) -> AgentBody:
    return AgentBody(
        id=record.id,
        system=record.system,
        memory=dict(record.memory),
        model=runtime.model_of(record),
        default_conversation_id=record.default_conversation,
    )


def _conversation_body(record: ConversationRecord) -> ConversationBody:
    return ConversationBody(id=record.id, agent_id=record.agent_id)


def _json(body: BaseModel, status: int = 200) -> JSONResponse:
    return JSONResponse(body.model_dump(mode="json"), status_code=status)


async def _refused(request: Request, error: Exception) -> Response:
    assert isinstance(error, SessionRuntimeRefusal)
    return _json(ErrorBody(error=str(error), code=error.code), error.status)


async def _crashed(request: Request, error: Exception) -> Response:
    """A crash is still `{error, code}`; it names only the error's type (its text may
    hold what it read)."""
    body = ErrorBody(
        error=f"the session runtime failed: {type(error).__name__}", code="ERR_INTERNAL"
    )
    return _json(body, 500)
