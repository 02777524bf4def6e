"""A session as the runtime core sees it: one connected client on one conversation.

The core never touches a transport: it puts frames in the session's `outbox` (the
transport's one writer sends them in order) and asks the client to run a tool by
awaiting `run_tool`, which the transport answers with `tool_output`. When the connection
goes, `detach` makes the session silent: events are dropped (nothing is replayed later),
and a tool call still waiting on the client gets an error output instead of waiting
forever. Turns belong to the conversation, not to the session, so they keep running.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ._events import SessionEvent
from ._wire import EventFrame, ExecuteToolFrame, ServerFrame, ToolDefinition, ToolOutputFrame

GONE = "the session's connection closed before the client ran this tool; it did not run"


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """What the seed scopes to one session: its client tools, which of them pause for a
    person's approval, and a model update (which persists on the agent)."""

    tools: tuple[ToolDefinition, ...] = ()
    needs_approval: frozenset[str] = field(default_factory=frozenset)
    model: str | None = None


class RuntimeSession:
    """One connected client on one conversation."""

    def __init__(self, agent_id: str, conversation_id: str, options: SessionOptions) -> None:
        self.agent_id = agent_id
        self.conversation_id = conversation_id
        self.options = options
        self.outbox: asyncio.Queue[ServerFrame | None] = asyncio.Queue()
        """What the transport sends, in order; None: the session is over."""
        self.attached = True
        self._tool_waiters: dict[str, asyncio.Future[ToolOutputFrame]] = {}

    @property
    def session_id(self) -> str:
        """Seed 003: `"<agentId>:<conversationId>"`."""
        return f"{self.agent_id}:{self.conversation_id}"

    def emit(self, frame: ServerFrame) -> None:
        """Send a frame to the client; a detached session drops it (no replay)."""
        if self.attached:
            self.outbox.put_nowait(frame)

    def event(self, event: SessionEvent) -> None:
        self.emit(EventFrame(event=event))

    async def run_tool(
        self, tool_call_id: str, tool_name: str, arguments: dict[str, Any]
    ) -> ToolOutputFrame:
        """Ask the client to run one of its tools and wait for the output."""
        if not self.attached:
            return ToolOutputFrame(tool_call_id=tool_call_id, content=GONE, is_error=True)
        waiter: asyncio.Future[ToolOutputFrame] = asyncio.get_running_loop().create_future()
        self._tool_waiters[tool_call_id] = waiter
        self.emit(
            ExecuteToolFrame(tool_call_id=tool_call_id, tool_name=tool_name, arguments=arguments)
        )
        try:
            return await waiter
        finally:
            self._tool_waiters.pop(tool_call_id, None)

    def tool_output(self, output: ToolOutputFrame) -> bool:
        """The client's answer to `run_tool`; False when nothing waits for it."""
        waiter = self._tool_waiters.get(output.tool_call_id)
        if waiter is None or waiter.done():
            return False
        waiter.set_result(output)
        return True

    def detach(self) -> None:
        """The connection is gone: no more frames, and no tool waits on this client."""
        if not self.attached:
            return
        self.attached = False
        for tool_call_id, waiter in list(self._tool_waiters.items()):
            if not waiter.done():
                waiter.set_result(
                    ToolOutputFrame(tool_call_id=tool_call_id, content=GONE, is_error=True)
                )
        self.outbox.put_nowait(None)
