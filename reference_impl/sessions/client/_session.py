"""One live session of the client: the socket, its reader, the turn's events.

A reader task takes every frame the runtime sends: events go to the session's queue (read
by `stream()` / `next_event()`), replies to the request waiting for them, `execute_tool`
requests to the session's tools (each run in a task of its own, its output sent back).
When the socket ends unexpectedly, the pass that was open gets an `error` and a failed
`result` (seed 003's rule), and every later use raises SessionUnusableError.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import WebSocketException

from .._events import ErrorEvent, QueueEvent, ResultEvent, SessionEvent
from .._wire import (
    SERVER_FRAME,
    AbortFrame,
    DecideFrame,
    DoneValue,
    EventFrame,
    ExecuteToolFrame,
    MessageBody,
    OpenedFrame,
    RefusedFrame,
    RemoveQueuedFrame,
    ReplyFrame,
    SendFrame,
    SentValue,
    StateFrame,
    StateValue,
    ToolDefinition,
    ToolOutputFrame,
)

if TYPE_CHECKING:
    from ._client import SessionClient

_M = TypeVar("_M", bound=BaseModel)

ToolFunction = Callable[[dict[str, Any]], Awaitable[str] | str]
"""A client tool's body: the call's arguments in, the text the model is shown out."""

BROKEN = "the session's connection closed unexpectedly; resume the conversation in a new session"


class SessionClientError(Exception):
    """Something the session runtime's client could not do."""


class SessionRefusedError(SessionClientError):
    """The runtime refused: `code` is its wire code (`ERR_UNKNOWN_ID`, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class SessionUnusableError(SessionClientError):
    """The session's connection is gone (it broke, or was closed): it cannot be reused."""


@dataclass(frozen=True)
class ClientTool:
    """A tool this session offers its agent's model, run here when the model calls it."""

    name: str
    fn: ToolFunction
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object"})

    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            name=self.name, description=self.description, parameters=self.parameters
        )


class Session:
    """One live session: send, stream, abort, decide, close."""

    def __init__(
        self,
        client: SessionClient,
        socket: ClientConnection,
        opened: OpenedFrame,
        tools: dict[str, ClientTool],
    ) -> None:
        self._client = client
        self._socket = socket
        self.agent_id = opened.agent_id
        self.conversation_id = opened.conversation_id
        self.session_id = opened.session_id
        self.tools = tools
        self._events: asyncio.Queue[SessionEvent | None] = asyncio.Queue()
        self._replies: dict[int, asyncio.Future[ReplyFrame]] = {}
        self._next_request = 0
        self._owed_results = 0
        self._mid_turn = False
        self._closing = False
        self.usable = True
        self.refusals: list[RefusedFrame] = []
        """Frames the runtime refused (none, unless this client sent a bad one)."""
        self._tool_runs: set[asyncio.Task[None]] = set()
        self._reader = asyncio.ensure_future(self._read())

    # -- the seed's session ------------------------------------------------------------

    async def send(self, text: str) -> str:
        """Send a message (the runtime queues it behind a turn in play): its item id."""
        reply = await self._request(SendFrame(request_id=self._new_id(), text=text))
        self._owed_results += 1
        return _value(reply, SentValue).item_id

    async def stream(self) -> AsyncIterator[SessionEvent]:
        """The next turn's events, ending after its `result`."""
        while True:
            event = await self.next_event()
            yield event
            if isinstance(event, ResultEvent):
                return

    async def next_event(self) -> SessionEvent:
        """The next event; SessionUnusableError once the connection is gone and every
        event it brought has been read."""
        event = await self._events.get()
        if event is None:
            self._events.put_nowait(None)  # for every later call too
            raise SessionUnusableError(BROKEN if not self._closing else "the session is closed")
        return event

    async def abort(self) -> bool:
        """Cancel the turn in play; keep consuming the stream until its `result`."""
        return _value(await self._request(AbortFrame(request_id=self._new_id())), DoneValue).done

    async def decide(self, tool_call_id: str, allow: bool) -> bool:
        """Answer a pending approval (this session's, or one left by a broken session)."""
        frame = DecideFrame(request_id=self._new_id(), tool_call_id=tool_call_id, allow=allow)
        return _value(await self._request(frame), DoneValue).done

    async def remove_queued(self, item_id: str) -> bool:
        """Take a waiting message off the queue; True when it never reaches the model."""
        frame = RemoveQueuedFrame(request_id=self._new_id(), item_id=item_id)
        removed = _value(await self._request(frame), DoneValue).done
        if removed:
            self._owed_results -= 1
        return removed

    async def state(self) -> StateValue:
        """The conversation's messages and pending approvals (`bootstrapState()`)."""
        return _value(await self._request(StateFrame(request_id=self._new_id())), StateValue)

    async def list_messages(self) -> list[MessageBody]:
        self._check_usable()
        return await self._client.conversations.list_messages(self.conversation_id)

    async def close(self) -> None:
        """Release the session; its turns go on in the runtime."""
        self._closing = True
        self.usable = False
        await self._socket.close()
        await self._ended()

    async def drop(self) -> None:
        """Abort the socket with no close frame, as a network failure would."""
        transport = self._socket.transport
        if transport is not None:
            transport.abort()
        await self._ended()

    async def wait_closed(self) -> None:
        """Until this client has seen its connection end (however it ended)."""
        await self._ended()

    def told_at_break(self) -> tuple[SessionEvent, ...]:
        """What a pass that was open is told when the socket ends unexpectedly: an
        `error`, then a failed `result` (the seed's rule). A seam: a derived client
        changes this one decision by overriding it."""
        return (
            ErrorEvent(message=BROKEN),
            ResultEvent(success=False, stop_reason="connection_closed"),
        )

    # -- the connection ----------------------------------------------------------------

    def _new_id(self) -> int:
        self._next_request += 1
        return self._next_request

    def _check_usable(self) -> None:
        if not self.usable:
            raise SessionUnusableError(BROKEN if not self._closing else "the session is closed")

    async def _request(self, frame: BaseModel) -> ReplyFrame:
        self._check_usable()
        request_id: int = frame.request_id  # type: ignore[attr-defined]
        waiter: asyncio.Future[ReplyFrame] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = waiter
        try:
            await self._socket.send(frame.model_dump_json())
            reply = await waiter
        except WebSocketException as error:
            raise SessionUnusableError(BROKEN) from error
        finally:
            self._replies.pop(request_id, None)
        if not reply.ok:
            raise SessionRefusedError(reply.code or "ERR_UNKNOWN", reply.error or "")
        return reply

    async def _read(self) -> None:
        try:
            async for raw in self._socket:
                self._take(SERVER_FRAME.validate_json(raw))
        except (WebSocketException, OSError, ValidationError):
            pass
        finally:
            self._connection_ended()

    def _take(self, frame: Any) -> None:
        if isinstance(frame, EventFrame):
            event = frame.event
            if isinstance(event, ResultEvent):
                self._owed_results = max(0, self._owed_results - 1)
                self._mid_turn = False
            elif not isinstance(event, QueueEvent):
                self._mid_turn = True
            self._events.put_nowait(event)
        elif isinstance(frame, ReplyFrame):
            waiter = self._replies.get(frame.request_id)
            if waiter is not None and not waiter.done():
                waiter.set_result(frame)
        elif isinstance(frame, ExecuteToolFrame):
            task = asyncio.ensure_future(self._run_tool(frame))
            self._tool_runs.add(task)
            task.add_done_callback(self._tool_runs.discard)
        elif isinstance(frame, RefusedFrame):
            self.refusals.append(frame)

    async def _run_tool(self, call: ExecuteToolFrame) -> None:
        tool = self.tools.get(call.tool_name)
        try:
            if tool is None:
                raise LookupError(f"this session has no tool named {call.tool_name!r}")
            made = tool.fn(dict(call.arguments))
            content, is_error = (await made if inspect.isawaitable(made) else made), False
        except Exception as error:  # the model is shown the failure
            content, is_error = str(error) or type(error).__name__, True
        output = ToolOutputFrame(tool_call_id=call.tool_call_id, content=content, is_error=is_error)
        with contextlib.suppress(WebSocketException, OSError):
            await self._socket.send(output.model_dump_json())

    def _connection_ended(self) -> None:
        """The socket is gone: an open pass ends with an error and a failed result (unless
        the client closed it), and the session refuses reuse."""
        was_usable, self.usable = self.usable, False
        if was_usable and not self._closing and (self._owed_results > 0 or self._mid_turn):
            for event in self.told_at_break():
                self._events.put_nowait(event)
        self._events.put_nowait(None)
        for waiter in self._replies.values():
            if not waiter.done():
                waiter.set_exception(SessionUnusableError(BROKEN))

    async def _ended(self) -> None:
        with contextlib.suppress(Exception):
            await self._reader
        for task in list(self._tool_runs):
            task.cancel()


def _value(reply: ReplyFrame, kind: type[_M]) -> _M:
    if not isinstance(reply.value, kind):
        raise SessionClientError(f"the runtime answered with {type(reply.value).__name__}")
    return reply.value
