"""The SessionRuntime: seed 003's agents, conversations and sessions, with no transport.

Agents and conversations live in the store's directory; each conversation's history is
its checkpoint, restored by the one path every stored conversation takes
(`reference_impl.continuation`: hydrate → the agent's own door → persist). Each
conversation has one FIFO queue owned by the runtime: a message sent while a turn plays
waits, and each message is its own turn, in order. A turn is played by an `Agent` built
from the agent record (its system prompt with the memory blocks, its model) and the
sending session's client tools, in a task of its own, so `abort` cancels it (and its
model request with it) and a session whose connection drops leaves it running.

Every decision is a named method (the session seams in docs/reference.md), so a runtime
derived from the reference changes one decision by overriding one method, as the agent's
and the host's rogues do. The turn's mechanics (`_work`, `_one_turn`) are not seams.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar
from xml.sax.saxutils import quoteattr

from .. import continuation
from ..agent import Agent, RunResult
from ..continuation import TurnRequest
from ..providers import ModelProvider
from ..store import (
    AgentRecord,
    ConversationRecord,
    SessionStoreError,
    SqliteRuntimeStore,
    UnknownRecordError,
    UnstorableSessionError,
)
from ._errors import (
    InvalidSessionRequestError,
    ShuttingDownError,
    StoreUnusableError,
    UnknownIdError,
)
from ._events import ApprovalRequestEvent, QueueEvent, ResultEvent
from ._lane import ActiveTurn, ConversationLane, PendingApproval, QueuedMessage
from ._messages import listed_messages
from ._session import RuntimeSession, SessionOptions
from ._turn_tools import EventedProvider, client_tool
from ._turns import TurnPlayer, TurnSlot
from ._wire import MessageBody, PendingApprovalBody, StateValue

_T = TypeVar("_T")

FLUSH_DEADLINE = 2.0
"""Seconds a stopping runtime waits for its sessions' last frames to be sent."""


class SessionRuntime(TurnPlayer):
    """Agents, conversations, sessions and their turns, against one store and provider."""

    agent_class: ClassVar[type[Agent]] = Agent
    """The agent that plays turns; a derived runtime may swap in a subclass."""

    def __init__(self, *, store: SqliteRuntimeStore, provider: ModelProvider, model: str) -> None:
        self.store = store
        self.provider = provider
        self.default_model = model
        self.lanes: dict[str, ConversationLane] = {}
        self.sessions: set[RuntimeSession] = set()
        """Sessions whose connection is open."""
        self.stopping = False

    # -- agents and conversations ------------------------------------------------------

    async def create_agent(
        self, system: str, memory: Mapping[str, str], model: str | None
    ) -> AgentRecord:
        """An agent and its default conversation (usable at once)."""
        self.refuse_if_stopping()
        record = AgentRecord(
            id=self.new_agent_id(),
            system=system,
            memory=tuple(memory.items()),
            model=model,
            default_conversation=self.new_conversation_id(),
        )
        await self._stored(self.store.create_agent, record)
        return record

    async def agent(self, agent_id: str) -> AgentRecord:
        record = await self._stored(self.store.agent, agent_id)
        if record is None:
            raise UnknownIdError("agent", agent_id)
        return record

    async def create_conversation(self, agent_id: str) -> ConversationRecord:
        self.refuse_if_stopping()
        return await self._stored(
            self.store.create_conversation, self.new_conversation_id(), agent_id
        )

    async def conversation(self, conversation_id: str) -> ConversationRecord:
        record = await self._stored(self.store.conversation, conversation_id)
        if record is None:
            raise UnknownIdError("conversation", conversation_id)
        return record

    async def conversations(self, agent_id: str) -> list[ConversationRecord]:
        await self.agent(agent_id)
        return await self._stored(self.store.conversations, agent_id)

    async def messages(self, conversation_id: str) -> tuple[MessageBody, ...]:
        """The conversation's messages (`_messages.listed_messages`)."""
        await self.conversation(conversation_id)

        def read() -> tuple[MessageBody, ...]:
            stored = self.store.load(conversation_id)
            return listed_messages(stored, self.store.receipts(conversation_id))

        return await self._stored(read)

    # -- sessions ------------------------------------------------------------------------

    async def create_session(self, agent_id: str, options: SessionOptions) -> RuntimeSession:
        """A session on a NEW conversation of the agent."""
        conversation = await self.create_conversation(agent_id)
        return await self.open_session(conversation, options)

    async def resume_session(self, target: str, options: SessionOptions) -> RuntimeSession:
        """A session on the conversation `target` names (either kind of id)."""
        self.refuse_if_stopping()
        return await self.open_session(await self.conversation_to_resume(target), options)

    async def open_session(
        self, conversation: ConversationRecord, options: SessionOptions
    ) -> RuntimeSession:
        """A session on `conversation`; a model it passes persists on the agent."""
        if options.model is not None:
            await self.apply_model_update(conversation.agent_id, options.model)
        session = RuntimeSession(conversation.agent_id, conversation.id, options)
        self.sessions.add(session)
        return session

    def close_session(self, session: RuntimeSession) -> None:
        """The session's connection ended (closed or broken): it goes silent. Its turns
        and its pending approvals stay with the conversation while the runtime is up."""
        self.sessions.discard(session)
        session.detach()

    async def send(self, session: RuntimeSession, text: str) -> str:
        """Take a message: its receipt first (it reached the runtime), then the queue.
        Answers its queue item id."""
        self.refuse_if_stopping()
        lane = self.lane_for(session.conversation_id, session.agent_id)
        message = QueuedMessage(self.new_item_id(), text, session, waited=lane.busy)
        await self._stored(self.store.receive, message.item_id, session.conversation_id, text)
        self.enqueue(lane, message)
        return message.item_id

    async def abort(self, session: RuntimeSession) -> bool:
        """Cancel the conversation's turn in play (its model request with it); the queue
        stays. False when no turn plays, or when its final answer is in and only storing
        it is left (too late: it completes)."""
        lane = self.lanes.get(session.conversation_id)
        turn = lane.active if lane is not None else None
        if turn is None or turn.task is None or turn.task.done() or turn.finishing:
            return False
        turn.task.cancel()
        return True

    async def decide(self, session: RuntimeSession, tool_call_id: str, allow: bool) -> bool:
        """Answer a pending approval of the conversation's turn; that turn's events go to
        the answering session from now on (the asking one may be gone)."""
        lane = self.lanes.get(session.conversation_id)
        turn = lane.active if lane is not None else None
        pending = turn.approvals.get(tool_call_id) if turn is not None else None
        if turn is None or pending is None or pending.decision.done():
            return False
        turn.owner = session
        pending.decision.set_result(allow)
        return True

    async def remove_queued(self, session: RuntimeSession, item_id: str) -> bool:
        """Take a waiting message off the queue (its turn never begins)."""
        lane = self.lanes.get(session.conversation_id)
        if lane is None:
            return False
        for message in lane.waiting:
            if message.item_id == item_id:
                lane.waiting.remove(message)
                await self._stored(self.store.settle, [item_id], "removed")
                session.event(QueueEvent(action="removed", item_ids=(item_id,)))
                return True
        return False

    async def state(self, session: RuntimeSession) -> StateValue:
        """The conversation's messages and the approvals its turn waits on."""
        lane = self.lanes.get(session.conversation_id)
        turn = lane.active if lane is not None else None
        pending = () if turn is None else tuple(turn.approvals.values())
        return StateValue(
            agent_id=session.agent_id,
            conversation_id=session.conversation_id,
            messages=await self.messages(session.conversation_id),
            pending_approvals=tuple(
                PendingApprovalBody(
                    tool_call_id=p.tool_call_id, tool_name=p.tool_name, arguments=p.arguments
                )
                for p in pending
            ),
        )

    async def stop(self) -> None:
        """Stop taking work; turns still playing are aborted (their receipts settled,
        their sessions told), and what the sessions were told is given a moment to go
        out before the transport closes them."""
        self.stopping = True
        workers = [lane.worker for lane in self.lanes.values() if lane.worker is not None]
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        drained = [asyncio.ensure_future(s.outbox.join()) for s in self.sessions if s.attached]
        if drained:
            await asyncio.wait(drained, timeout=FLUSH_DEADLINE)
            for waiting in drained:
                waiting.cancel()

    # -- the seams -------------------------------------------------------------------------

    def new_agent_id(self) -> str:
        return f"agent-{uuid.uuid4()}"

    def new_conversation_id(self) -> str:
        return f"conv-{uuid.uuid4()}"

    def new_item_id(self) -> str:
        """A queue item id, which is also the message's receipt id."""
        return f"message-{uuid.uuid4()}"

    def refuse_if_stopping(self) -> None:
        if self.stopping:
            raise ShuttingDownError()

    async def conversation_to_resume(self, target: str) -> ConversationRecord:
        """Which conversation an id resumes: an agent id, its default conversation; a
        conversation id, that one."""
        if target.startswith("agent-"):
            record = await self.agent(target)
            return await self.conversation(record.default_conversation)
        if target.startswith("conv-"):
            return await self.conversation(target)
        raise UnknownIdError("agent or conversation", target)

    async def apply_model_update(self, agent_id: str, model: str) -> None:
        """A session's model update: recorded on the agent, so it outlives the session."""
        await self._stored(self.store.set_model, agent_id, model)

    def model_of(self, record: AgentRecord) -> str:
        """The model a turn asks for: the agent's last update, else the runtime's."""
        return record.model or self.default_model

    def system_prompt(self, record: AgentRecord) -> str:
        """The agent's system prompt: its instructions, then its memory blocks."""
        if not record.memory:
            return record.system
        blocks = "\n".join(
            f"<block label={quoteattr(label)}>\n{value}\n</block>" for label, value in record.memory
        )
        memory = f"<memory_blocks>\n{blocks}\n</memory_blocks>"
        return f"{record.system}\n\n{memory}" if record.system else memory

    def build_agent(self, record: AgentRecord, turn: ActiveTurn) -> Agent:
        """The agent that plays `turn`: the record's prompt and model, the sending
        session's client tools, on the runtime's provider (telling the session)."""
        tools = [client_tool(t, turn, self) for t in turn.message.session.options.tools]
        return (
            self.agent_class.create(
                provider=EventedProvider(self.provider, turn),
                model=self.model_of(record),
                id=record.id,
            )
            .system(self.system_prompt(record))
            .tool(*tools)
            .build()
        )

    def lane_for(self, conversation_id: str, agent_id: str) -> ConversationLane:
        """The conversation's one queue."""
        lane = self.lanes.get(conversation_id)
        if lane is None:
            lane = self.lanes[conversation_id] = ConversationLane(conversation_id, agent_id)
        return lane

    def enqueue(self, lane: ConversationLane, message: QueuedMessage) -> None:
        """Queue a message behind the conversation's turn (each message its own turn)."""
        if message.waited:
            message.session.event(QueueEvent(action="enqueued", item_ids=(message.item_id,)))
        lane.waiting.append(message)
        if lane.worker is None or lane.worker.done():
            lane.worker = asyncio.ensure_future(self._work(lane))

    def next_message(self, lane: ConversationLane) -> QueuedMessage | None:
        """The message whose turn plays next: the oldest waiting one."""
        return lane.waiting.popleft() if lane.waiting else None

    def needs_approval(self, turn: ActiveTurn, tool_name: str) -> bool:
        """Whether a call pauses for a person: the sending session's policy."""
        return tool_name in turn.message.session.options.needs_approval

    async def wait_for_approval(
        self, turn: ActiveTurn, tool_call_id: str, tool_name: str, arguments: dict[str, Any]
    ) -> bool:
        """Ask for a decision (`approval_request`) and wait for it, while the runtime is up."""
        decision: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        pending = PendingApproval(tool_call_id, tool_name, arguments, turn.run_id(), decision)
        turn.approvals[tool_call_id] = pending
        turn.emit(
            ApprovalRequestEvent(
                tool_call_id=tool_call_id,
                tool_name=tool_name,
                arguments=arguments,
                run_id=pending.run_id,
            )
        )
        try:
            return await decision
        finally:
            turn.approvals.pop(tool_call_id, None)

    def denial(self, tool_name: str) -> str:
        """What the model is shown for a call a person denied."""
        return f"the person denied this call to {tool_name}; it did not run"

    async def play(self, lane: ConversationLane, turn: ActiveTurn) -> RunResult:
        """One turn through continuation: hydrate, the agent's door, persist (the
        checkpoint and the message's receipt in one transaction)."""
        record = await self.agent(lane.agent_id)
        agent = self.build_agent(record, turn)
        turn.agent = agent
        request = TurnRequest(session_id=lane.conversation_id, message=turn.message.text)
        slot = TurnSlot(self.store, turn.message.item_id)
        return await continuation.continue_session(agent, slot, request)

    def completed(self, turn: ActiveTurn, result: RunResult) -> ResultEvent:
        return ResultEvent(
            success=True,
            text=result.answer,
            stop_reason="end_turn",
            duration_ms=turn.duration_ms(),
            run_ids=(result.run_id,),
        )

    async def _stored(self, call: Callable[..., _T], *args: Any) -> _T:
        """A store call in a worker thread, its refusals in the runtime's words."""
        try:
            return await asyncio.to_thread(call, *args)
        except UnknownRecordError as error:
            raise UnknownIdError(error.kind, error.record_id) from error
        except UnstorableSessionError as error:
            raise InvalidSessionRequestError(str(error)) from error
        except SessionStoreError as error:
            raise StoreUnusableError(str(error)) from error
