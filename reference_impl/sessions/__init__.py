"""Seed 003's session model, served: agents with memory, conversations on them, and
sessions (a client's live connection) that send messages and stream each turn's events
(docs/sessions.md, "The reference session runtime").

    runtime = SessionRuntime(store=sqlite_runtime_store("sessions.db"),
                             provider=make_provider("openai-chat", url, key), model="m")
    async with serve_sessions(runtime) as served:
        async with SessionClient(served.url) as client:
            agent = await client.create_agent(system="...", memory={"human": "Ann"})
            session = await client.resume_session(agent.id)
            await session.send("Hi.")
            async for event in session.stream(): ...

or `python -m reference_impl.sessions serve --store DIR --provider-url URL`. The client
is `reference_impl.sessions.client`.
"""

from ._errors import (
    InvalidSessionRequestError,
    SessionRuntimeRefusal,
    ShuttingDownError,
    StoreUnusableError,
    UnknownIdError,
)
from ._events import (
    ApprovalRequestEvent,
    AssistantEvent,
    ErrorEvent,
    QueueEvent,
    ResultEvent,
    RetryEvent,
    SessionEvent,
    StopReason,
    ToolCallEvent,
    ToolResultEvent,
)
from ._lane import ActiveTurn, ConversationLane, PendingApproval, QueuedMessage
from ._runtime import SessionRuntime
from ._serving import STORE_FILE, ServedSessions, open_runtime, serve_sessions
from ._session import RuntimeSession, SessionOptions
from ._turns import TurnSlot
from ._wire import MessageBody, StateValue, ToolDefinition

__all__ = [
    "STORE_FILE",
    "ActiveTurn",
    "ApprovalRequestEvent",
    "AssistantEvent",
    "ConversationLane",
    "ErrorEvent",
    "InvalidSessionRequestError",
    "MessageBody",
    "PendingApproval",
    "QueueEvent",
    "QueuedMessage",
    "ResultEvent",
    "RetryEvent",
    "RuntimeSession",
    "ServedSessions",
    "SessionEvent",
    "SessionOptions",
    "SessionRuntime",
    "SessionRuntimeRefusal",
    "ShuttingDownError",
    "StateValue",
    "StopReason",
    "StoreUnusableError",
    "ToolCallEvent",
    "ToolDefinition",
    "ToolResultEvent",
    "TurnSlot",
    "UnknownIdError",
    "open_runtime",
    "serve_sessions",
]
