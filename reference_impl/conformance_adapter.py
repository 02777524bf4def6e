"""The reference runtime's adapter for the conformance suite (`--impl` default).

It translates the suite's calls onto `reference_impl`'s own API and maps its errors onto
the suite's refusal kinds. Nothing here adds behaviour the runtime lacks: every law the
suite checks is the runtime's doing.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from conformance.adapter import (
    JSON,
    RETIRED_CAPABILITIES,
    AgentSpec,
    Capability,
    Delivery,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    RunOutcome,
)
from conformance.adapter._hosting_types import HostSpec
from conformance.adapter._session_types import BackendSpec
from conformance.frameworks.kit import (
    Refusal,
    provider_failure,
    refusing,
    reporting_failures,
)
from conformance.wire.ir import Dialect

from . import (
    TRACE_TOOL_NAME,
    Agent,
    ConversationMismatchError,
    Identity,
    InvalidCheckpointError,
    InvalidMessageError,
    MemoryStore,
    NoConversationError,
    PendingQuestionError,
    RunFailedError,
    RunInFlightError,
    RunResult,
    ToolLoopLimitError,
)
from ._host_process import HostProcess, start_host_process
from ._spec_agent import build_spec_agent, spec_provider

if TYPE_CHECKING:
    from .conformance_sessions import ReferenceBackend
    from .sessions.client import SessionClient

# A dialect's SDK is imported when the first agent of that dialect is built (through
# `_spec_agent`), as in the host process: a run of one dialect, and `--collect-only`,
# do not pay for the others (anthropic alone is ~1 s). The import falls inside that first
# call's deadline (30 s), which it does not come near.

_REFUSALS = (
    Refusal(NoConversationError, RefusalKind.NO_CONVERSATION),
    Refusal(ConversationMismatchError, RefusalKind.MISMATCH),
    Refusal(RunInFlightError, RefusalKind.RUN_IN_FLIGHT),
    Refusal(PendingQuestionError, RefusalKind.PENDING_QUESTION),
    Refusal(InvalidMessageError, RefusalKind.INVALID_INPUT),
    Refusal(InvalidCheckpointError, RefusalKind.INVALID_CHECKPOINT),
)
"""The runtime's refusals, in the suite's kinds; anything else propagates."""


def _provider_failed(error: BaseException) -> bool:
    """A run the provider failed: a provider error the runtime let through (before any
    model call completed), or wrapped in its `RunFailedError` (after one)."""
    return provider_failure(error)


def _runtime_failed(error: BaseException) -> bool:
    """A run the runtime's own error ended: its tool loop limit, or a `RunFailedError`
    whose cause is no provider's (a store, a compaction of its own)."""
    return isinstance(error, RunFailedError | ToolLoopLimitError)


def _failure_checkpoint(error: BaseException) -> JSON | None:
    """The last good checkpoint the runtime's error carries; None when it carries none."""
    if isinstance(error, RunFailedError | ToolLoopLimitError):
        return error.checkpoint.to_data()
    return None


def failures() -> AbstractContextManager[None]:
    """How the reference reports a failed run: `RunFailed` with its error's checkpoint."""
    return reporting_failures(
        _failure_checkpoint, failed=_provider_failed, runtime_failed=_runtime_failed
    )


def _outcome(result: RunResult) -> RunOutcome:
    pending = result.pending
    return RunOutcome(
        answer=result.answer,
        paused=PendingReport(**pending.model_dump()) if pending else None,
        checkpoint=result.checkpoint.to_data(),
    )


class ReferenceAgent:
    def __init__(self, agent: Agent, provider: Any) -> None:
        self.agent = agent
        self._provider = provider

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        named = Identity(**identity.model_dump()) if identity else None
        with failures(), refusing(*_REFUSALS):
            result = await self.agent.run(
                message, continue_from=continue_from, identity=named, session_id=session_id
            )
        return _outcome(result)

    async def follow_up(self, message: str) -> RunOutcome:
        with failures(), refusing(*_REFUSALS):
            return _outcome(await self.agent.follow_up(message))

    async def checkpoint(self) -> JSON:
        with refusing(*_REFUSALS):
            return json.loads(self.agent.checkpoint().to_json())

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome:
        with failures(), refusing(*_REFUSALS):
            return _outcome(await self.agent.resume(checkpoint, decision, session_id=session_id))

    async def abandon_pause(self) -> dict[str, str] | None:
        return self.agent.abandon_pause()

    async def can_explain(self) -> bool:
        return self.agent.can_explain()

    async def last_identity(self) -> IdentityReport | None:
        last = self.agent.last_run
        if last is None:
            return None
        return IdentityReport(
            conversation_id=last.identity.conversation_id, source=last.identity_source
        )

    async def close(self) -> None:
        """Close the SDK client while its event loop is still running."""
        await self._provider.client.close()


HOSTING_CAPABILITIES = frozenset(
    {
        Capability.HOSTING,
        Capability.HOSTING_ENQUEUE,
        Capability.HOSTING_FACTORY,
        Capability.HOSTING_IDENTITY,
        Capability.HOSTING_DAMAGE,
    }
)
"""What the reference host does (reference_impl/hosting/): every hosting law applies."""

SESSION_CAPABILITIES = frozenset(
    {
        Capability.SESSIONS,
        Capability.SESSION_ABORT,
        Capability.SESSION_STATE,
        Capability.SESSION_QUEUE_REMOVE,
        Capability.SESSION_APPROVALS,
        Capability.SESSION_MEMORY,
        Capability.SESSION_MODEL,
        Capability.SESSION_CLIENT_TOOLS,
        Capability.SESSION_DROP,
        Capability.SESSION_KILL,
        Capability.CONVERSATIONS_API,
    }
)
"""What the reference session runtime does (reference_impl/sessions/): every session law
applies."""


class ReferenceImplementation:
    name = "turnlaw reference_impl"
    capabilities = frozenset(Capability) - RETIRED_CAPABILITIES
    dialects = frozenset(Dialect)
    deliveries = frozenset(Delivery)
    trace_tool = TRACE_TOOL_NAME
    compaction_triggers: tuple[str, ...] = ("turns", "chars")

    def __init__(
        self,
        agent_class: type[Agent] = Agent,
        name: str | None = None,
        host_class: str | None = None,
        hosting: bool = True,
        sessions: bool = True,
        session_runtime_class: str | None = None,
        session_client_class: type[SessionClient] | None = None,
    ) -> None:
        """`agent_class` is the runtime: a runtime derived from the reference (the rogues
        in tests/rogues/) is tested through this same adapter, unchanged. `host_class`
        (`module:attr`, a StandingAgent subclass) is the host the hosting door starts;
        `hosting=False` declares no hosting at all (an agent-level rogue, whose kill run
        need not start hosts). `session_runtime_class` (`module:attr`, a SessionRuntime
        subclass) is the runtime the session door opens, in this process or spawned;
        `session_client_class` (a SessionClient subclass, always in this process) is the
        runtime's client the door drives it through; `sessions=False` declares no
        session capability (a rogue of another surface)."""
        self.agent_class = agent_class
        self.host_class = host_class
        self.session_runtime_class = session_runtime_class
        self.session_client_class = session_client_class
        if name is not None:
            self.name = name
        undeclared = (frozenset() if hosting else HOSTING_CAPABILITIES) | (
            frozenset() if sessions else SESSION_CAPABILITIES
        )
        if undeclared:
            self.capabilities = frozenset(Capability) - RETIRED_CAPABILITIES - undeclared

    def provider_for(self, spec: AgentSpec) -> Any:
        """The model provider for this spec: the official SDK for its dialect."""
        return spec_provider(spec)

    def build_agent(self, spec: AgentSpec, memory: MemoryStore | None = None) -> tuple[Agent, Any]:
        """The runtime's agent for `spec` and its provider (`_spec_agent`)."""
        provider = self.provider_for(spec)
        return build_spec_agent(spec, self.agent_class, provider, memory), provider

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        return ReferenceAgent(*self.build_agent(spec))

    async def start_host(self, spec: HostSpec) -> HostProcess:
        """The reference host as a real process against the fake (the hosting door)."""
        agent_class = f"{self.agent_class.__module__}:{self.agent_class.__qualname__}"
        return await start_host_process(spec, agent_class=agent_class, host_class=self.host_class)

    async def open_backend(self, spec: BackendSpec) -> ReferenceBackend:
        """The reference session runtime on `spec.store` (the session door); its stack
        (Starlette, uvicorn, websockets) is imported on first use."""
        from .conformance_sessions import open_reference_backend

        return await open_reference_backend(
            spec,
            runtime_class=self.session_runtime_class,
            client_class=self.session_client_class,
        )

    async def damage_session(self, store: str, session_id: str) -> None:
        """Make one stored conversation unreadable, as a real store goes bad."""
        from .store import damage_session

        damage_session(store, session_id)


implementation = ReferenceImplementation()
