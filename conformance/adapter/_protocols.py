"""The adapter protocol as Python classes: what an adapter implements.

Written by hand, for type checkers and `isinstance`; the op table
(`conformance.adapter.AGENT`) is the definition everything else derives from, and a
test holds these signatures to it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._hosting_types import HostSpec
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
from ._types import JSON, AgentSpec, Capability, IdentityReport, IdentitySpec, RunOutcome


@runtime_checkable
class AgentUnderTest(Protocol):
    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome: ...

    async def follow_up(self, message: str) -> RunOutcome: ...

    async def checkpoint(self) -> JSON: ...

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome: ...

    async def abandon_pause(self) -> dict[str, str] | None: ...

    async def can_explain(self) -> bool: ...

    async def last_identity(self) -> IdentityReport | None: ...

    async def close(self) -> None: ...


@runtime_checkable
class Implementation(Protocol):
    """An agent runtime under test: its name, what it declares, how to build an agent.

    Optional attributes: `dialects` (default: Chat Completions only); `version`, the
    release under test, and `notes`, what a reader of its results must know (a setting
    the adapter turned on, say), which the results header records for the conformance
    matrix; `trace_tool`, the name of the tool a self-explain agent offers its model to
    read the trace (required with `self_explain`: the suite has the model call it);
    `agent_id_pattern`, a Python `re` expression every agent id the runtime accepts
    fully matches (the laws then hand it only ids matching both it and
    `SAFE_AGENT_ID_PATTERN`; checked when the run starts, `declared_agent_id_pattern`).
    An implementation declaring `hosting` is also a `HostingImplementation`
    (`start_host`, `damage_session`), and may set `host_client` (a `HostClientFactory`,
    conformance.hosting) when its host speaks another wire than the seed's."""

    name: str
    capabilities: frozenset[Capability]

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest: ...


@runtime_checkable
class HostUnderTest(Protocol):
    """A running host of the runtime's own, serving the seed's HTTP wire at `base_url`
    (http://127.0.0.1:PORT or http://localhost:PORT). `kill` is a crash (SIGKILL,
    nothing flushed); `stop` is a graceful shutdown. Either ends it."""

    @property
    def base_url(self) -> str: ...

    async def kill(self) -> None: ...

    async def stop(self) -> None: ...


@runtime_checkable
class HostingImplementation(Implementation, Protocol):
    """An implementation that declares `hosting`: it starts hosts (the same `store`
    again is a restart) and, with `hosting_damage`, damages one stored session."""

    async def start_host(self, spec: HostSpec) -> HostUnderTest: ...

    async def damage_session(self, store: str, session_id: str) -> None: ...


@runtime_checkable
class SessionUnderTest(Protocol):
    """One live session (seed 003): the connection a client sends on and streams from.

    `send` transmits a message (the runtime queues it when a turn is active) and answers
    the runtime's queue item id for it when the runtime names one; `stream` is one pass,
    every event up to and including the next `result` (or an `approval_request`, the
    connection's end, or `wait` seconds, when given); `decide` answers an approval
    request; `break_connection` breaks the connection the way it really breaks
    (docs/sessions.md), after which the session is not used again except to show that it
    cannot be. Refusals are `Refused` with the
    suite's kind (`session_unusable`, `unknown_id`)."""

    async def ids(self) -> SessionIds: ...

    async def send(self, message: str) -> str | None: ...

    async def stream(self, *, wait: float | None = None) -> StreamPass: ...

    async def abort(self) -> None: ...

    async def decide(self, tool_call_id: str, allow: bool) -> None: ...

    async def remove_queued(self, item_id: str) -> bool: ...

    async def list_messages(self) -> list[StoredMessage]: ...

    async def state(self) -> SessionState: ...

    async def break_connection(self, how: BreakHow) -> None: ...

    async def close(self) -> None: ...


@runtime_checkable
class BackendUnderTest(Protocol):
    """Where a session-model runtime keeps its agents and conversations, opened against
    the fake on a store (the same store again is the same backend in a new process).
    `kill` SIGKILLs every runtime process it started (the store stays); `close` ends it
    gracefully. Either ends the handle."""

    async def create_agent(self, spec: SessionAgentSpec) -> str: ...

    async def create_session(
        self, agent_id: str, *, options: SessionOptions | None = None
    ) -> SessionUnderTest: ...

    async def resume_session(
        self, id: str, *, options: SessionOptions | None = None
    ) -> SessionUnderTest: ...

    async def list_conversations(self, agent_id: str) -> list[str]: ...

    async def list_messages(self, conversation_id: str) -> list[StoredMessage]: ...

    async def kill(self) -> None: ...

    async def close(self) -> None: ...


@runtime_checkable
class SessionImplementation(Implementation, Protocol):
    """An implementation that declares `sessions`: it opens backends of the seed's
    agent / conversation / session model."""

    async def open_backend(self, spec: BackendSpec) -> BackendUnderTest: ...
