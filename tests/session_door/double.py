"""A session implementation test double: an honest toy runtime of the session model, in
memory and in one JSON file per store, for the door's tests only (it calls no model).

Agents have a default conversation; a session sends into its conversation's queue (each
message its own turn, an item id each), and one pass of `stream()` plays the next turn:
a `queue` event, then an assistant echo and a `result` carrying the turn's run id. What
a store holds survives the backend (the same store opened again shows it). A broken or
closed session refuses reuse as `session_unusable`; a resume of an id the backend never
made is refused as `unknown_id`.

What the door must survive is asked for by name: a store named `hang*` never opens,
`nomethods*` opens an object that is no backend; an agent whose system is `nomethods`
opens sessions that are no sessions, `nostate` has a `state()` that raises
NotImplementedError; the message `garbage` makes a pass of the wrong shape, `hang` a
turn that never ends (a pass with `wait` ends "waiting"), `stuck` a pass that ignores
`wait`, `approve` a turn that asks for approval first.

Run as `python -m tests.session_door.double`, it is a stdio adapter of the same double.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from pathlib import Path
from typing import Any

from conformance.adapter import (
    AgentSpec,
    AgentUnderTest,
    ApprovalRequestEvent,
    AssistantEvent,
    BackendSpec,
    BackendUnderTest,
    BreakHow,
    Capability,
    PendingApproval,
    QueueEvent,
    RefusalKind,
    Refused,
    ResultEvent,
    SessionAgentSpec,
    SessionEvent,
    SessionIds,
    SessionOptions,
    SessionState,
    SessionUnderTest,
    StoredMessage,
    StreamPass,
    ToolResultEvent,
)
from conformance.stdio.protocol import ImplementationInfo
from conformance.stdio.serve import serve

DECLARED = frozenset(
    {
        Capability.SESSIONS,
        Capability.SESSION_ABORT,
        Capability.SESSION_STATE,
        Capability.SESSION_QUEUE_REMOVE,
        Capability.SESSION_APPROVALS,
        Capability.SESSION_MEMORY,
        Capability.SESSION_DROP,
        Capability.CONVERSATIONS_API,
    }
)


class ToyStore:
    """Agents and conversations, kept in `<store>/toy.json` after every change."""

    def __init__(self, folder: str) -> None:
        self.path = Path(folder) / "toy.json"
        data = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.agents: dict[str, dict[str, Any]] = data.get("agents", {})
        self.conversations: dict[str, dict[str, Any]] = data.get("conversations", {})

    def save(self) -> None:
        data = {"agents": self.agents, "conversations": self.conversations}
        self.path.write_text(json.dumps(data))

    def new_conversation(self, agent_id: str) -> str:
        conversation_id = f"conv-{uuid.uuid4()}"
        self.conversations[conversation_id] = {"agent": agent_id, "messages": []}
        self.save()
        return conversation_id

    def say(self, conversation_id: str, role: str, text: str) -> None:
        self.conversations[conversation_id]["messages"].append({"role": role, "text": text})
        self.save()

    def messages(self, conversation_id: str) -> list[StoredMessage]:
        listed = self.conversations[conversation_id]["messages"]
        return [StoredMessage.model_validate(message) for message in listed]


class ToySession:
    def __init__(self, store: ToyStore, agent_id: str, conversation_id: str) -> None:
        self._store = store
        self._agent_id = agent_id
        self._conversation_id = conversation_id
        self._queue: list[tuple[str, str]] = []
        self._items = itertools.count(1)
        self._pending: ApprovalRequestEvent | None = None
        self._decided: bool | None = None
        self.broken: str | None = None
        self.closed = False

    def _usable(self) -> None:
        if self.closed or self.broken:
            why = "it was closed" if self.closed else f"its connection broke ({self.broken})"
            raise Refused(RefusalKind.SESSION_UNUSABLE, f"this session cannot be used: {why}")

    async def ids(self) -> SessionIds:
        session_id = f"{self._agent_id}:{self._conversation_id}"
        return SessionIds(
            agent_id=self._agent_id, conversation_id=self._conversation_id, session_id=session_id
        )

    async def send(self, message: str) -> str | None:
        self._usable()
        item_id = f"item-{next(self._items)}"
        self._queue.append((item_id, message))
        self._store.say(self._conversation_id, "user", message)
        return item_id

    async def stream(self, *, wait: float | None = None) -> StreamPass:
        self._usable()
        if self._pending is not None:
            return self._after_decision(self._pending)
        if not self._queue:
            return StreamPass(events=(), ended="closed")
        item_id, message = self._queue[0]
        if message == "stuck":
            await asyncio.sleep(3600)
        if message == "hang":
            if wait is None:
                await asyncio.sleep(3600)
            await asyncio.sleep(wait or 0)
            return StreamPass(events=(), ended="waiting")
        self._queue.pop(0)
        dequeued = QueueEvent(action="dequeued", item_ids=(item_id,))
        if message == "garbage":
            wrong = AssistantEvent.model_construct(text=3, type="assistant")
            return StreamPass.model_construct(events=(dequeued, wrong), ended="result")
        run_id = f"run-{uuid.uuid4()}"
        if message == "approve":
            self._pending = ApprovalRequestEvent(
                tool_call_id="call-1", tool_name="echo", arguments={"text": "hi"}, run_id=run_id
            )
            return StreamPass(events=(dequeued, self._pending), ended="approval")
        return self._turn([dequeued], f"echo: {message}", run_id)

    def _after_decision(self, asked: ApprovalRequestEvent) -> StreamPass:
        if self._decided is None:
            return StreamPass(events=(), ended="approval")
        self._pending = None
        said = "hi" if self._decided else "denied"
        self._decided = None
        result = ToolResultEvent(tool_call_id=asked.tool_call_id, content=said, run_id=asked.run_id)
        return self._turn([result], f"the tool said {said}", asked.run_id or "")

    def _turn(self, before: list[SessionEvent], text: str, run_id: str) -> StreamPass:
        self._store.say(self._conversation_id, "assistant", text)
        events = [
            *before,
            AssistantEvent(text=text, run_id=run_id),
            ResultEvent(
                success=True, text=text, stop_reason="end_turn", duration_ms=1.0, run_ids=(run_id,)
            ),
        ]
        return StreamPass(events=tuple(events), ended="result")

    async def abort(self) -> None:
        self._usable()
        self._queue.clear()

    async def decide(self, tool_call_id: str, allow: bool) -> None:
        self._usable()
        if self._pending is None or self._pending.tool_call_id != tool_call_id:
            raise LookupError(f"no approval pending for {tool_call_id}")
        self._decided = allow

    async def remove_queued(self, item_id: str) -> bool:
        self._usable()
        kept = [(item, said) for item, said in self._queue if item != item_id]
        removed = len(kept) < len(self._queue)
        self._queue = kept
        return removed

    async def list_messages(self) -> list[StoredMessage]:
        self._usable()
        return self._store.messages(self._conversation_id)

    async def state(self) -> SessionState:
        self._usable()
        if self._store.agents[self._agent_id]["system"] == "nostate":
            raise NotImplementedError("no snapshot")
        pending = self._pending
        return SessionState(
            agent_id=self._agent_id,
            conversation_id=self._conversation_id,
            messages=tuple(self._store.messages(self._conversation_id)),
            pending_approvals=()
            if pending is None
            else (PendingApproval(tool_call_id=pending.tool_call_id, tool_name="echo"),),
        )

    async def break_connection(self, how: BreakHow) -> None:
        self._usable()
        self.broken = how

    async def close(self) -> None:
        self.closed = True


class ToyBackend:
    def __init__(self, spec: BackendSpec) -> None:
        self.spec = spec
        self.store = ToyStore(spec.store)
        self.sessions: list[ToySession] = []
        self.ended: str | None = None

    async def create_agent(self, spec: SessionAgentSpec) -> str:
        agent_id = f"agent-{uuid.uuid4()}"
        self.store.agents[agent_id] = {"system": spec.system, "memory": spec.memory}
        self.store.agents[agent_id]["default"] = self.store.new_conversation(agent_id)
        self.store.save()
        return agent_id

    def _open(self, agent_id: str, conversation_id: str) -> SessionUnderTest:
        if self.store.agents[agent_id]["system"] == "nomethods":
            return object()  # type: ignore[return-value]
        session = ToySession(self.store, agent_id, conversation_id)
        self.sessions.append(session)
        return session

    async def create_session(
        self, agent_id: str, *, options: SessionOptions | None = None
    ) -> SessionUnderTest:
        if agent_id not in self.store.agents:
            raise Refused(RefusalKind.UNKNOWN_ID, f"no agent {agent_id}")
        return self._open(agent_id, self.store.new_conversation(agent_id))

    async def resume_session(
        self, id: str, *, options: SessionOptions | None = None
    ) -> SessionUnderTest:
        if id in self.store.agents:
            return self._open(id, self.store.agents[id]["default"])
        if id in self.store.conversations:
            return self._open(self.store.conversations[id]["agent"], id)
        raise Refused(RefusalKind.UNKNOWN_ID, f"no agent or conversation {id}")

    async def list_conversations(self, agent_id: str) -> list[str]:
        if agent_id not in self.store.agents:
            raise Refused(RefusalKind.UNKNOWN_ID, f"no agent {agent_id}")
        listed = self.store.conversations.items()
        return [conversation for conversation, held in listed if held["agent"] == agent_id]

    async def list_messages(self, conversation_id: str) -> list[StoredMessage]:
        if conversation_id not in self.store.conversations:
            raise Refused(RefusalKind.UNKNOWN_ID, f"no conversation {conversation_id}")
        return self.store.messages(conversation_id)

    async def kill(self) -> None:
        self.ended = "kill"
        for session in self.sessions:
            session.broken = session.broken or "kill"

    async def close(self) -> None:
        self.ended = "close"


class DoubleSessions:
    name = "session double"

    def __init__(self, capabilities: frozenset[Capability] = DECLARED) -> None:
        self.capabilities = capabilities
        self.backends: list[ToyBackend] = []

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        raise NotImplementedError("a double of the session door only")

    async def open_backend(self, spec: BackendSpec) -> BackendUnderTest:
        name = Path(spec.store).name
        if name.startswith("hang"):
            await asyncio.sleep(3600)
        if name.startswith("nomethods"):
            return object()  # type: ignore[return-value]
        backend = ToyBackend(spec)
        self.backends.append(backend)
        return backend


DOUBLE = DoubleSessions()
"""The double as `--impl tests.session_door.double:DOUBLE` names it."""
UNDECLARED = DoubleSessions(frozenset())
"""The same double declaring no capability: its session laws are NOT_APPLICABLE."""

if __name__ == "__main__":
    serve(DoubleSessions(), ImplementationInfo(name="session double", language="python"))
