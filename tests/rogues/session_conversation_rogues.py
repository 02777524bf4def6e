"""Session runtimes that break the seed's model: which conversation an id opens, the ids
a session shows, and what is the agent's, the conversation's or the session's.

Each is the reference `SessionRuntime` with the seams one change needs overridden
(docs/reference.md, "The session seams"), its docstring that change in words. The
reference adapter serves it by import path, in the suite's process or, when a law
SIGKILLs the runtime, in a process of its own, against the suite's fake.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reference_impl import continuation
from reference_impl.agent import Agent, RunResult
from reference_impl.continuation import TurnRequest
from reference_impl.sessions import (
    ActiveTurn,
    ConversationLane,
    RuntimeSession,
    SessionOptions,
    SessionRuntime,
    ToolDefinition,
)
from reference_impl.store import (
    AgentRecord,
    ConversationRecord,
    MemorySessions,
    SqliteRuntimeStore,
    StoredSession,
    memory_sessions,
)

# -- which conversation an id opens ------------------------------------------------------


class DefaultIsTheLatestConversation(SessionRuntime):
    """Resuming by the agent id continues the agent's latest conversation, not its
    default one: once a session was created on the agent, the agent id opens that."""

    async def conversation_to_resume(self, target: str) -> ConversationRecord:
        if target.startswith("agent-"):
            return (await self.conversations(target))[-1]
        return await super().conversation_to_resume(target)


class AgentIdOpensANewConversation(SessionRuntime):
    """Resuming by the agent id opens a new conversation each time: the agent's default
    conversation is never gone back to."""

    async def conversation_to_resume(self, target: str) -> ConversationRecord:
        if target.startswith("agent-"):
            await self.agent(target)
            return await self.create_conversation(target)
        return await super().conversation_to_resume(target)


class CreatedSessionJoinsTheDefault(SessionRuntime):
    """`create_session` opens a session on the agent's default conversation instead of
    a new one."""

    async def create_session(self, agent_id: str, options: SessionOptions) -> RuntimeSession:
        record = await self.agent(agent_id)
        return await self.open_session(
            await self.conversation(record.default_conversation), options
        )


class CreatedConversationForksTheDefault(SessionRuntime):
    """`create_session` makes a new conversation (a new id) that starts as a copy of
    the agent's default conversation, not empty."""

    async def create_session(self, agent_id: str, options: SessionOptions) -> RuntimeSession:
        record = await self.agent(agent_id)
        conversation = await self.create_conversation(agent_id)
        store = self.store

        def fork() -> None:
            default = store.load(record.default_conversation)
            if default is not None:
                store.save(conversation.id, default.checkpoint, owner=None)

        await asyncio.to_thread(fork)
        return await self.open_session(conversation, options)


class ConversationIdResumesTheDefault(SessionRuntime):
    """Resuming by a conversation id continues the agent's default conversation,
    whichever of the agent's conversations the id names."""

    async def conversation_to_resume(self, target: str) -> ConversationRecord:
        if target.startswith("conv-"):
            named = await self.conversation(target)
            record = await self.agent(named.agent_id)
            return await self.conversation(record.default_conversation)
        return await super().conversation_to_resume(target)


class DefaultLeftOutOfTheList(SessionRuntime):
    """Listing an agent's conversations leaves out its default conversation: only the
    ones sessions created are listed."""

    async def conversations(self, agent_id: str) -> list[ConversationRecord]:
        record = await self.agent(agent_id)
        listed = await super().conversations(agent_id)
        return [c for c in listed if c.id != record.default_conversation]


# -- the ids a session shows -------------------------------------------------------------


class _NamedByItsAgent(RuntimeSession):
    @property
    def session_id(self) -> str:
        return self.agent_id


class SessionIdIsTheAgentId(SessionRuntime):
    """A session's id is its agent's id, not `"<agentId>:<conversationId>"` (as Letta
    Code reports it): every session of an agent has one id."""

    async def open_session(
        self, conversation: ConversationRecord, options: SessionOptions
    ) -> RuntimeSession:
        if options.model is not None:
            await self.apply_model_update(conversation.agent_id, options.model)
        session = _NamedByItsAgent(conversation.agent_id, conversation.id, options)
        self.sessions.add(session)
        return session


class BareUuidConversationIds(SessionRuntime):
    """Conversation ids are bare uuids, with no `conv-` prefix (an id that is not an
    agent's is looked up as a conversation, so every id still resumes)."""

    def new_conversation_id(self) -> str:
        return str(uuid.uuid4())

    async def conversation_to_resume(self, target: str) -> ConversationRecord:
        if target.startswith("agent-"):
            return await super().conversation_to_resume(target)
        return await self.conversation(target)


# -- what outlives a connection, and whose it is -----------------------------------------


class _InMemoryHistory:
    """`continuation`'s store for one turn: the conversation's history in the runtime's
    memory; the message's receipt settled in the store as the reference settles it."""

    def __init__(
        self, histories: MemorySessions, store: SqliteRuntimeStore, receipt_id: str
    ) -> None:
        self.histories = histories
        self.store = store
        self.receipt_id = receipt_id

    def load(self, session_id: str) -> StoredSession | None:
        return self.histories.load(session_id)

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        self.histories.save(session_id, checkpoint, owner=owner)
        self.store.settle([self.receipt_id], "completed")


class HistoryKeptInMemory(SessionRuntime):
    """Each conversation's history is kept in the runtime's memory, not in its store
    (the messages' receipts still are): it is gone with the runtime's process."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.histories = memory_sessions()

    async def play(self, lane: ConversationLane, turn: ActiveTurn) -> RunResult:
        record = await self.agent(lane.agent_id)
        agent = self.build_agent(record, turn)
        turn.agent = agent
        request = TurnRequest(session_id=lane.conversation_id, message=turn.message.text)
        slot = _InMemoryHistory(self.histories, self.store, turn.message.item_id)
        return await continuation.continue_session(agent, slot, request)


class MemoryBlocksKeptInMemory(SessionRuntime):
    """An agent's memory blocks are kept in the runtime's memory, not in its store: a
    runtime opened again on the store plays the agent without them."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.memory_of: dict[str, tuple[tuple[str, str], ...]] = {}

    async def create_agent(
        self, system: str, memory: Mapping[str, str], model: str | None
    ) -> AgentRecord:
        record = await super().create_agent(system, {}, model)
        self.memory_of[record.id] = tuple(memory.items())
        return record.model_copy(update={"memory": self.memory_of[record.id]})

    def system_prompt(self, record: AgentRecord) -> str:
        kept = self.memory_of.get(record.id, record.memory)
        return super().system_prompt(record.model_copy(update={"memory": kept}))


class MemoryOnlyInTheDefaultConversation(SessionRuntime):
    """An agent's memory blocks are in its default conversation's system prompt only:
    the conversations sessions created are played without them."""

    def build_agent(self, record: AgentRecord, turn: ActiveTurn) -> Agent:
        if turn.message.session.conversation_id != record.default_conversation:
            record = record.model_copy(update={"memory": ()})
        return super().build_agent(record, turn)


class ModelUpdateKeptBySession(SessionRuntime):
    """A model passed to a session plays that session's turns but is never written to
    the agent: later sessions opened without one go back to the agent's model."""

    async def apply_model_update(self, agent_id: str, model: str) -> None:
        return None

    def build_agent(self, record: AgentRecord, turn: ActiveTurn) -> Agent:
        model = turn.message.session.options.model
        if model is not None:
            record = record.model_copy(update={"model": model})
        return super().build_agent(record, turn)


class ClientToolsRememberedByConversation(SessionRuntime):
    """The client tools a session registers are remembered by its conversation and
    offered in every later session on it, registered there or not."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.tools_of: dict[str, dict[str, ToolDefinition]] = {}

    async def open_session(
        self, conversation: ConversationRecord, options: SessionOptions
    ) -> RuntimeSession:
        remembered = self.tools_of.setdefault(conversation.id, {})
        remembered.update((tool.name, tool) for tool in options.tools)
        widened = replace(options, tools=tuple(remembered.values()))
        return await super().open_session(conversation, widened)


class ApprovalPolicyRememberedByConversation(SessionRuntime):
    """A session's approval policy is remembered by its conversation: a tool one session
    asked about pauses the turns of every later session on the conversation too."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.asked_by: dict[str, set[str]] = {}

    def needs_approval(self, turn: ActiveTurn, tool_name: str) -> bool:
        session = turn.message.session
        asked = self.asked_by.setdefault(session.conversation_id, set())
        asked |= session.options.needs_approval
        return tool_name in asked
