"""The session door's op tables: every call the session laws make of a backend and of a
session, once (docs/sessions.md is the contract).

`BACKEND` is opened by the implementation (`open_backend`); its `create_session` and
`resume_session` open instances of `SESSION`, whose instances nothing else opens
(`Op.opens`). The Protocol classes in `_protocols.py` are held to the tables by a test,
and the stdio backend and session ops, their schema, the stdio client and server and the
runner's guard are derived from them. `session_call_deadline` is how long each call may
take, said once for the guard and the connector alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from ._protocols import BackendUnderTest, SessionUnderTest
from ._session_types import (
    BackendSpec,
    BreakHow,
    SessionAgentSpec,
    SessionIds,
    SessionOptions,
    SessionState,
    StoredMessage,
    StreamPass,
)
from ._types import Capability, RefusalKind
from .surface import Op, Surface


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _NoParams(_Params):
    pass


class _OpenParams(_Params):
    spec: BackendSpec


class _CreateAgentParams(_Params):
    spec: SessionAgentSpec


class _CreateSessionParams(_Params):
    agent_id: str
    options: SessionOptions | None = None


class _ResumeSessionParams(_Params):
    id: str
    options: SessionOptions | None = None


class _AgentParams(_Params):
    agent_id: str


class _ConversationParams(_Params):
    conversation_id: str


class _SendParams(_Params):
    message: str


class _StreamParams(_Params):
    wait: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Seconds to wait for the pass's end; None: until it ends (result, approval, close)."""


class _DecideParams(_Params):
    tool_call_id: str
    allow: StrictBool


class _RemoveQueuedParams(_Params):
    item_id: str


class _BreakParams(_Params):
    how: BreakHow


_UNUSABLE = frozenset({RefusalKind.SESSION_UNUSABLE})
_UNKNOWN = frozenset({RefusalKind.UNKNOWN_ID})

SESSION: Surface[None] = Surface(
    name="session",
    handle="session",
    protocol=SessionUnderTest,
    create=None,  # opened by the backend's create_session and resume_session
    methods=(
        Op(
            "ids",
            _NoParams,
            returns=SessionIds,
            reply=SessionIds,
            capability=Capability.SESSIONS,
            refusals=_UNUSABLE,
            stdio_op="session.ids",
            doc="The session's agent, conversation and session ids, once the runtime "
            "resolved them.",
        ),
        Op(
            "send",
            _SendParams,
            returns=str | None,
            reply=str | None,
            capability=Capability.SESSIONS,
            refusals=_UNUSABLE | {RefusalKind.INVALID_INPUT},
            stdio_op="session.send",
            doc="Transmit `message` (the runtime queues it while a turn is active); the "
            "runtime's queue item id for it, or null when it names none.",
        ),
        Op(
            "stream",
            _StreamParams,
            returns=StreamPass,
            reply=StreamPass,
            capability=Capability.SESSIONS,
            refusals=_UNUSABLE,
            stdio_op="session.stream",
            doc="One pass: every event up to and including the next result, or up to an "
            "approval request, the connection's end, or `wait` seconds (null: no limit); "
            "its deadline is `wait` plus the call timeout.",
        ),
        Op(
            "abort",
            _NoParams,
            returns=None,
            reply=None,
            capability=Capability.SESSION_ABORT,
            refusals=_UNUSABLE,
            stdio_op="session.abort",
            doc="Request cancellation of the active turn without closing the session.",
        ),
        Op(
            "decide",
            _DecideParams,
            returns=None,
            reply=None,
            capability=Capability.SESSION_APPROVALS,
            refusals=_UNUSABLE,
            stdio_op="session.decide",
            doc="Answer the approval request for `tool_call_id`: allow it, or deny it.",
        ),
        Op(
            "remove_queued",
            _RemoveQueuedParams,
            returns=StrictBool,  # "no" must not read as a yes or a no
            reply=StrictBool,
            capability=Capability.SESSION_QUEUE_REMOVE,
            refusals=_UNUSABLE,
            stdio_op="session.remove_queued",
            doc="Remove a queued message by its item id; whether the runtime removed it "
            "(its authoritative answer).",
        ),
        Op(
            "list_messages",
            _NoParams,
            returns=list[StoredMessage],
            reply=list[StoredMessage],
            capability=Capability.SESSIONS,
            refusals=_UNUSABLE,
            stdio_op="session.list_messages",
            doc="The session's conversation as the runtime lists it.",
        ),
        Op(
            "state",
            _NoParams,
            returns=SessionState,
            reply=SessionState,
            capability=Capability.SESSION_STATE,
            refusals=_UNUSABLE,
            stdio_op="session.state",
            doc="A consolidated snapshot of the conversation: its messages and pending approvals.",
        ),
        Op(
            "break_connection",
            _BreakParams,
            returns=None,
            reply=None,
            refusals=_UNUSABLE,
            stdio_op="session.break_connection",
            doc="Break the connection the way it really breaks: `drop` kills the client's "
            "connection while the runtime stays up (needs session_drop), `kill` SIGKILLs "
            "the runtime process serving the session (needs session_kill); answer once it "
            "is broken. The session is then used only to show it cannot be.",
        ),
    ),
    close=Op(
        "close",
        _NoParams,
        returns=None,
        reply=None,
        capability=Capability.SESSIONS,
        stdio_op="session.close",
        doc="Release the session (a broken one too); the handle is not used again.",
    ),
)
"""The session surface: the `SessionUnderTest` calls, on a session a backend opened."""

_CREATE_SESSION = Op(
    "create_session",
    _CreateSessionParams,
    returns=SessionUnderTest,
    reply=None,
    capability=Capability.SESSIONS,
    refusals=_UNKNOWN,
    stdio_op="backend.create_session",
    opens=SESSION,
    doc="Open a session on a NEW conversation of agent `agent_id`, with `options` (the "
    "session's client tools, approval policy and model); later requests name it by "
    "`session`. An agent id the backend never made is refused as unknown_id.",
)
_RESUME_SESSION = Op(
    "resume_session",
    _ResumeSessionParams,
    returns=SessionUnderTest,
    reply=None,
    capability=Capability.SESSIONS,
    refusals=_UNKNOWN,
    stdio_op="backend.resume_session",
    opens=SESSION,
    doc="Open a session on an existing conversation: an agent id resumes its default "
    "conversation, a conversation id that conversation; later requests name it by "
    "`session`.",
)
_KILL = Op(
    "kill",
    _NoParams,
    returns=None,
    reply=None,
    capability=Capability.SESSIONS,
    stdio_op="backend.kill",
    doc="SIGKILL every runtime process the backend started (the store stays); answer "
    "once they are gone. The handle is not used again.",
)

BACKEND: Surface[Op] = Surface(
    name="backend",
    handle="backend",
    protocol=BackendUnderTest,
    create=Op(
        "open_backend",
        _OpenParams,
        returns=BackendUnderTest,
        reply=None,
        capability=Capability.SESSIONS,
        stdio_op="backend.open",
        doc="Open a backend of the session model against the fake, keeping everything at "
        "`spec.store` (the same store again is the same backend in another process); "
        "`spec.killable`: the suite will SIGKILL it, so it runs in a process of its own. "
        "Later requests name it by `backend`.",
    ),
    methods=(
        Op(
            "create_agent",
            _CreateAgentParams,
            returns=str,
            reply=str,
            capability=Capability.SESSIONS,
            stdio_op="backend.create_agent",
            doc="Create an agent (and its default conversation); its id. Memory blocks "
            "need session_memory.",
        ),
        _CREATE_SESSION,
        _RESUME_SESSION,
        Op(
            "list_conversations",
            _AgentParams,
            returns=list[str],
            reply=list[str],
            capability=Capability.CONVERSATIONS_API,
            refusals=_UNKNOWN,
            stdio_op="backend.list_conversations",
            doc="The ids of the agent's conversations, without a session.",
        ),
        Op(
            "list_messages",
            _ConversationParams,
            returns=list[StoredMessage],
            reply=list[StoredMessage],
            capability=Capability.CONVERSATIONS_API,
            refusals=_UNKNOWN,
            stdio_op="backend.list_messages",
            doc="A conversation's messages, without a session.",
        ),
        _KILL,
    ),
    close=Op(
        "close",
        _NoParams,
        returns=None,
        reply=None,
        capability=Capability.SESSIONS,
        stdio_op="backend.close",
        doc="End the backend gracefully; answer once its processes are gone. The handle "
        "is not used again.",
    ),
)
"""The backend surface: `SessionImplementation.open_backend`, then the
`BackendUnderTest` calls (two of which open sessions)."""

_STARTS_OR_ENDS_PROCESSES = (BACKEND.create, _CREATE_SESSION, _RESUME_SESSION, _KILL, BACKEND.close)


def session_call_deadline(op: Op, values: Mapping[str, Any], call: float, start: float) -> float:
    """Seconds one session-door call may take. An op that starts or ends runtime
    processes (opening a backend or a session, killing or closing a backend) has the
    start-up deadline `start`: a runtime may be a process that imports as much as an
    adapter does. `stream` has its `wait` on top of the call deadline `call`, since the
    law asked it to wait that long for events. Every other op has `call`."""
    if any(op is slow for slow in _STARTS_OR_ENDS_PROCESSES):
        return start
    wait = values.get("wait") if op is SESSION.by_op["session.stream"] else None
    return call + (wait or 0.0)
