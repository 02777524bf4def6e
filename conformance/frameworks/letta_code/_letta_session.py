"""A Letta Code session: one CLI process on one conversation, driven as the SDK drives it.

`Session.initialize` / `send` / `stream` / `abort` / `listMessages` / `bootstrapState` /
`recoverPendingApprovals` / `close` of `@letta-ai/letta-code-sdk` 0.1.14, over
`LettaProcess`, with the suite's types:

- open: write `initialize`, read up to the `system/init` line (its `agent_id`,
  `conversation_id` and `session_id` are the session's ids), then register the session's
  client tools. A CLI that exits first saying "... not found" is `Refused(unknown_id)`.
- a pump task reads every line: control responses go to whoever asked, the CLI's
  `execute_external_tool` requests are run (`_client_tools`) and answered, and the rest
  become events in arrival order (`_letta_events`).
- `stream()` hands the events out in passes: up to and including a `result` (or a
  permission request, `ended="approval"`), or to the end of stdout (`ended="closed"`,
  the SDK's silent end: no error or result is made up), or until `wait` ran out.
- what is not the SDK's: it does not throw away events that arrived before a `send()`
  (the SDK's `send` clears its unread buffer, and its `stream` skips lines of earlier
  sends and of the previous turn's runs). That is client-side buffering, not the
  runtime: the suite reads every pass in order, so keeping every event hides nothing
  Letta Code emitted and adds nothing it did not.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from dataclasses import dataclass
from typing import Any

from conformance.adapter import (
    ApprovalRequestEvent,
    BreakHow,
    PendingApproval,
    RefusalKind,
    Refused,
    ResultEvent,
    SessionEvent,
    SessionIds,
    SessionOptions,
    SessionState,
    StoredMessage,
    StreamPass,
)

from ._client_tools import run_client_tool, tool_definitions
from ._letta_events import session_event, stored_message
from ._letta_home import LettaHome
from ._letta_lines import (
    CanUseTool,
    ControlReply,
    ControlRequestLine,
    ControlRequestOut,
    ControlResponseLine,
    ControlResponseOut,
    ExecuteExternalTool,
    InitLine,
    JsonObject,
    LettaLineError,
    PermissionAnswer,
    PermissionReply,
    TextPart,
    ToolResultReply,
    UserContent,
    UserLine,
)
from ._letta_process import CLOSED, LettaProcess, StdoutClosed, TransportClosedError

STARTUP_TIMEOUT = 120.0
"""Seconds from spawning the CLI to its `init` line: a ceiling for a loaded machine, not
what a start takes."""

DENIED = "Denied by canUseTool callback"
"""What the SDK answers for a denial that gave no reason: the suite's `decide` gives none."""

PAGE = 100
"""Messages per `list_messages` page."""


class LettaStartError(RuntimeError):
    """The CLI exited (or stayed silent) before its `init` line; the message carries its
    exit code and the tail of its stderr."""


class LettaControlError(RuntimeError):
    """The CLI answered a control request with an error."""


@dataclass(frozen=True)
class SessionPlan:
    """What a session is opened with: the CLI arguments and the session's options."""

    args: tuple[str, ...]
    options: SessionOptions
    base_url: str


class LettaSession:
    """One live session (implements `SessionUnderTest`)."""

    def __init__(self, process: LettaProcess, init: InitLine, plan: SessionPlan) -> None:
        self.process = process
        self.init = init
        self.plan = plan
        self._events: asyncio.Queue[SessionEvent | LettaLineError | StdoutClosed] = asyncio.Queue()
        self._waiters: dict[str, asyncio.Future[ControlReply]] = {}
        self._permissions: dict[str, str] = {}
        """Open permission requests: tool call id -> the CLI's request id."""
        self._allowed: set[str] = set()
        self._tool_tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)
        self._closed = False
        self._stream_ended = False
        self._pump = asyncio.create_task(self._run_pump())

    @classmethod
    async def open(cls, home: LettaHome, plan: SessionPlan) -> LettaSession:
        """Spawn the CLI, wait for `init`, register the session's tools."""
        process = await LettaProcess.start(home, plan.args)
        try:
            process.write(ControlRequestOut(request_id="init_1", request={"subtype": "initialize"}))
            init = await _await_init(process)
        except BaseException:
            await process.kill()
            raise
        session = cls(process, init, plan)
        if plan.options.tools:
            tools = [tool.model_dump() for tool in tool_definitions(plan.options.tools)]
            try:
                await session._control("register_external_tools", tools=tools)
            except BaseException:
                await session.reap()
                raise
        return session

    # -- the pump ---------------------------------------------------------------------

    async def _run_pump(self) -> None:
        while True:
            try:
                line = await self.process.next_line()
            except LettaLineError as error:
                self._events.put_nowait(error)
                continue
            if isinstance(line, StdoutClosed):
                for unanswered in self._waiters.values():
                    if not unanswered.done():
                        unanswered.set_exception(self._unusable("closed before it answered"))
                self._waiters.clear()
                self._events.put_nowait(CLOSED)
                return
            if isinstance(line, ControlResponseLine):
                asked = line.response.request_id or ""
                waiter = self._waiters.pop(asked) if asked in self._waiters else None
                if waiter is not None and not waiter.done():  # no waiter: dropped, as the SDK
                    waiter.set_result(line.response)
                continue
            if isinstance(line, ControlRequestLine):
                if isinstance(line.request, ExecuteExternalTool):
                    self._start_tool(line.request_id, line.request)
                    continue
                if isinstance(line.request, CanUseTool):
                    self._permissions[line.request.tool_call_id] = line.request_id
            event = session_event(line)
            if event is not None:
                self._events.put_nowait(event)

    def _start_tool(self, request_id: str, request: ExecuteExternalTool) -> None:
        task = asyncio.create_task(self._answer_tool(request_id, request))
        self._tool_tasks.add(task)
        task.add_done_callback(self._tool_tasks.discard)

    async def _answer_tool(self, request_id: str, request: ExecuteExternalTool) -> None:
        try:
            text, is_error = await run_client_tool(
                request.tool_name,
                request.input,
                offered=self.plan.options.tools,
                base_url=self.plan.base_url,
                allowed=request.tool_call_id in self._allowed,
            )
        except Exception as error:  # the SDK answers any throw as the tool's error
            text, is_error = f"Tool execution error: {error}", True
        reply = ToolResultReply(
            request_id=request_id,
            tool_call_id=request.tool_call_id,
            content=[TextPart(text=text)],
            is_error=is_error,
        )
        with contextlib.suppress(TransportClosedError):
            self.process.write(ControlResponseOut(response=reply))

    async def _control(self, subtype: str, **fields: Any) -> JsonObject:
        """Send a control request and wait for its answer (the CLI answers them between
        turns, and not while it waits for a permission answer)."""
        request_id = f"turnlaw-{subtype}-{next(self._ids)}"
        waiter: asyncio.Future[ControlReply] = asyncio.get_running_loop().create_future()
        self._waiters[request_id] = waiter
        try:
            request = {"subtype": subtype, **fields}
            self._write(ControlRequestOut(request_id=request_id, request=request))
        except Refused:
            self._waiters.pop(request_id, None)
            raise
        reply = await waiter
        if reply.subtype != "success":
            raise LettaControlError(f"{subtype}: {reply.error or reply.subtype}")
        return reply.response or {}

    # -- the session door ---------------------------------------------------------------

    def _unusable(self, why: str) -> Refused:
        return Refused(
            RefusalKind.SESSION_UNUSABLE,
            f"session on {self.init.conversation_id} ({why}); resume_session to continue",
        )

    def _write(self, line: UserLine | ControlRequestOut | ControlResponseOut) -> None:
        if self._closed:
            raise self._unusable("closed")
        try:
            self.process.write(line)
        except TransportClosedError as error:
            raise self._unusable(str(error)) from error

    async def ids(self) -> SessionIds:
        return SessionIds(
            agent_id=self.init.agent_id,
            conversation_id=self.init.conversation_id,
            session_id=self.init.session_id,
        )

    async def send(self, message: str) -> str | None:
        """The message goes to the CLI at once; its queue item id is not known yet (the
        CLI names it in `queue_item_enqueued` only when it takes the message up)."""
        self._write(UserLine(message=UserContent(content=message)))
        return None

    async def stream(self, wait: float | None = None) -> StreamPass:
        if self._closed or self._stream_ended:
            raise self._unusable("its connection ended")
        loop = asyncio.get_running_loop()
        deadline = None if wait is None else loop.time() + wait
        events: list[SessionEvent] = []
        while True:
            left = None if deadline is None else max(0.0, deadline - loop.time())
            try:
                item = await asyncio.wait_for(self._events.get(), left)
            except TimeoutError:
                return StreamPass(events=tuple(events), ended="waiting")
            if isinstance(item, StdoutClosed):
                self._stream_ended = True
                return StreamPass(events=tuple(events), ended="closed")
            if isinstance(item, LettaLineError):
                raise item
            events.append(item)
            if isinstance(item, ResultEvent):
                return StreamPass(events=tuple(events), ended="result")
            if isinstance(item, ApprovalRequestEvent):
                return StreamPass(events=tuple(events), ended="approval")

    async def abort(self) -> None:
        """The SDK's `abort()`: an `interrupt` control request, not waited for."""
        request_id = f"interrupt-{next(self._ids)}"
        self._write(ControlRequestOut(request_id=request_id, request={"subtype": "interrupt"}))

    async def decide(self, tool_call_id: str, allow: bool) -> None:
        """Answer the CLI's open permission request for the call as the SDK's
        `canUseTool` callback would. With none open (the request died with an earlier
        process) a denial is the SDK's `recoverPendingApprovals()`, which denies every
        pending approval of the conversation; an allow has no way to reach the CLI, so it
        is NotImplementedError: a declared capability that cannot do what was asked, which
        the suite judges a FAIL of the law that asked (not the adapter's crash)."""
        request_id = self._permissions.pop(tool_call_id, None)
        if request_id is not None:
            if allow:
                self._allowed.add(tool_call_id)
                answer = PermissionAnswer(behavior="allow", updatedPermissions=[])
            else:
                answer = PermissionAnswer(behavior="deny", message=DENIED, interrupt=False)
            self._write(
                ControlResponseOut(response=PermissionReply(request_id=request_id, response=answer))
            )
            return
        if allow:
            raise NotImplementedError(
                f"decide({tool_call_id!r}, allow=True): Letta Code has no open permission "
                "request for that call in this session, and its headless protocol has no "
                "way to approve an approval left by an earlier process"
            )
        await self._control(
            "recover_pending_approvals",
            agent_id=self.init.agent_id,
            conversation_id=self.init.conversation_id,
        )

    async def remove_queued(self, item_id: str) -> bool:
        raise NotImplementedError(
            "Letta Code's headless protocol (CLI 0.34.12, SDK 0.1.14) has no request that "
            "removes a queued message; session_queue_remove is not declared"
        )

    async def _messages(self, first: JsonObject) -> list[StoredMessage]:
        """A first page (newest first) and every older page after it, oldest first."""
        records: list[Any] = list(first.get("messages") or [])
        page = first
        while page.get("has_more") and page.get("next_before") and page.get("messages"):
            page = await self._control("list_messages", before=page["next_before"], limit=PAGE)
            records.extend(page.get("messages") or [])
        return [stored_message(record) for record in reversed(records) if isinstance(record, dict)]

    async def list_messages(self) -> list[StoredMessage]:
        return await self._messages(await self._control("list_messages", limit=PAGE))

    async def state(self) -> SessionState:
        """`bootstrap_session_state`: the conversation's messages and whether an approval
        is pending. The CLI says only *that* one is; which calls wait is read from its own
        listing: the tool calls it lists with no tool return after them."""
        snapshot = await self._control("bootstrap_session_state", limit=PAGE)
        messages = await self._messages(snapshot)
        pending: list[PendingApproval] = []
        if snapshot.get("has_pending_approval"):
            returned = {m.tool_call_id for m in messages if m.role == "tool_result"}
            pending = [
                PendingApproval(tool_call_id=m.tool_call_id, tool_name=m.tool_name or "?")
                for m in messages
                if m.role == "tool_call" and m.tool_call_id and m.tool_call_id not in returned
            ]
        return SessionState(
            agent_id=str(snapshot.get("agent_id") or self.init.agent_id),
            conversation_id=str(snapshot.get("conversation_id") or self.init.conversation_id),
            messages=tuple(messages),
            pending_approvals=tuple(pending),
        )

    async def break_connection(self, how: BreakHow) -> None:
        if how == "drop":
            await self.process.drop()
        else:
            await self.process.kill()

    async def close(self) -> None:
        """The SDK's `close()`: stdin ended, SIGTERM (SIGKILL if it lingers)."""
        self._closed = True
        await self.process.close()
        await self._stop_tasks()

    async def reap(self) -> None:
        """Make sure the process is gone (SIGKILL), whatever state the session is in."""
        self._closed = True
        await self.process.kill()
        await self._stop_tasks()

    async def _stop_tasks(self) -> None:
        tasks = [*self._tool_tasks, self._pump]
        for task in tasks:
            if not task.done():
                task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _await_init(process: LettaProcess) -> InitLine:
    """Read up to the `init` line; the CLI's own refusal if it exits first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STARTUP_TIMEOUT
    while True:
        try:
            line = await process.next_line(max(0.0, deadline - loop.time()))
        except TimeoutError:
            raise LettaStartError(
                f"Letta Code wrote no init line within {STARTUP_TIMEOUT:g}s; stderr: "
                f"{process.stderr_tail()}"
            ) from None
        if isinstance(line, InitLine):
            return line
        if isinstance(line, StdoutClosed):
            code = await process.wait_exit(5.0)
            stderr = process.stderr_tail().strip()
            # The CLI's refusals of an id that names nothing it holds: "Agent X not found",
            # "Conversation X not found", and "--conv default requires --agent" (the
            # default conversation's id names no conversation without its agent).
            if "not found" in stderr or "requires --agent" in stderr:
                raise Refused(RefusalKind.UNKNOWN_ID, stderr)
            raise LettaStartError(f"Letta Code exited ({code}) before its init line: {stderr}")


__all__ = ["LettaControlError", "LettaSession", "LettaStartError", "SessionPlan"]
