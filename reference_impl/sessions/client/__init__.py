"""The session runtime's client, shaped like seed 003's SDK.

    async with SessionClient(url) as client:
        agent = await client.create_agent(system="You take bookings.", memory={"human": "Ann"})
        session = await client.create_session(agent.id)      # a NEW conversation
        session = await client.resume_session(agent.id)      # its default conversation
        session = await client.resume_session(conversation_id)
        item_id = await session.send("Book a table.")
        async for event in session.stream():                 # ends after the result
            ...
        await session.close()
        await client.conversations.list(agent.id)

`session.stream()` yields the turn's typed events and ends after its `result`; a tool the
session registered (`ClientTool`) is run here when the model calls it, and its output is
sent back. A socket that closes unexpectedly makes the pass that was open yield an
`error` and then a failed `result` (the SDK's rule), and the session then refuses reuse
with `SessionUnusableError`: resume the conversation in a new session. Nothing missed
while disconnected is replayed; `list_messages()` is how a client reconciles.
"""

from .._events import SessionEvent
from .._wire import AgentBody, ConversationBody, MessageBody, PendingApprovalBody, StateValue
from ._client import Conversations, SessionClient
from ._session import (
    ClientTool,
    Session,
    SessionClientError,
    SessionRefusedError,
    SessionUnusableError,
    ToolFunction,
)

__all__ = [
    "AgentBody",
    "ClientTool",
    "ConversationBody",
    "Conversations",
    "MessageBody",
    "PendingApprovalBody",
    "Session",
    "SessionClient",
    "SessionClientError",
    "SessionEvent",
    "SessionRefusedError",
    "SessionUnusableError",
    "StateValue",
    "ToolFunction",
]
