"""The reference runtime's adapter for the conformance suite (`--impl` default).

It translates the suite's calls onto `reference_impl`'s own API and maps its errors onto
the suite's refusal kinds. Nothing here adds behaviour the runtime lacks: every law the
suite checks is the runtime's doing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any

from conformance.adapter._hosting_types import HostSpec
from conformance.adapter import (
    JSON,
    AgentSpec,
    Capability,
    Delivery,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    RunOutcome,
)
from conformance.adapters._kit import (
    Refusal,
    anthropic_client,
    call_service,
    openai_client,
    provider_failure,
    refusing,
    reporting_failures,
)
from conformance.catalog import (
    ASK_PERSON,
    CALL_SERVICE,
    ECHO,
    WHOAMI,
    CatalogTool,
    ToolName,
    WhoamiReport,
)
from conformance.wire.ir import Dialect

from . import (
    TRACE_TOOL_NAME,
    Agent,
    AnthropicMessagesProvider,
    Compaction,
    ConversationMismatchError,
    EpisodicMemory,
    Identity,
    InMemoryStore,
    MemoryStore,
    InvalidCheckpointError,
    NoConversationError,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
    PendingQuestionError,
    RunFailedError,
    RunInFlightError,
    RunResult,
    Tool,
    ToolContext,
    ToolLoopLimitError,
    ask_person,
)
from .conformance_host import HostProcess, start_host_process

_REFUSALS = (
    Refusal(NoConversationError, RefusalKind.NO_CONVERSATION),
    Refusal(ConversationMismatchError, RefusalKind.MISMATCH),
    Refusal(RunInFlightError, RefusalKind.RUN_IN_FLIGHT),
    Refusal(PendingQuestionError, RefusalKind.PENDING_QUESTION),
    Refusal(InvalidCheckpointError, RefusalKind.INVALID_CHECKPOINT),
)
"""The runtime's refusals, in the suite's kinds; anything else propagates."""


def _failed(error: BaseException) -> bool:
    """A run failure: the runtime's own (it carries a checkpoint), or a provider error
    the runtime let through (it failed before any model call completed)."""
    return isinstance(error, RunFailedError | ToolLoopLimitError) or provider_failure(error)


def _failure_checkpoint(error: BaseException) -> JSON | None:
    """The last good checkpoint the runtime's error carries; None when it carries none."""
    if isinstance(error, RunFailedError | ToolLoopLimitError):
        return error.checkpoint.to_data()
    return None


def failures() -> AbstractContextManager[None]:
    """How the reference reports a failed run: `RunFailed` with its error's checkpoint."""
    return reporting_failures(_failure_checkpoint, failed=_failed)


def _echo(ctx: ToolContext, text: str = ECHO.default("text")) -> str:
    return text


def _whoami(ctx: ToolContext) -> str:
    return WhoamiReport.told(ctx.identity, ctx.session_id).as_text()


def _ask_person(ctx: ToolContext, question: str = ASK_PERSON.default("question")) -> str:
    ask_person(question)


def _call_service(base_url: str) -> Callable[..., Awaitable[str]]:
    """`call_service` for an agent pointed at `base_url`."""

    async def call(ctx: ToolContext, key: str = CALL_SERVICE.default("key")) -> str:
        return await call_service(base_url, key)

    return call


def _runtime_tool(entry: CatalogTool, fn: Any) -> Tool:
    """A catalog tool as the runtime's own `Tool`: the catalog's schema, sent as given."""
    return Tool(
        name=entry.name, fn=fn, description=entry.description, parameters=entry.parameters_schema()
    )


def _tools(spec: AgentSpec) -> list[Tool]:
    """The catalog tools the spec names; `call_service` is bound to the spec's base URL."""
    bound = {"call_service": _runtime_tool(CALL_SERVICE, _call_service(spec.base_url))}
    return [bound[name] if name in bound else CATALOG[name] for name in spec.tools]


CATALOG: dict[ToolName, Tool] = {
    "echo": _runtime_tool(ECHO, _echo),
    "whoami": _runtime_tool(WHOAMI, _whoami),
    "ask_person": _runtime_tool(ASK_PERSON, _ask_person),
}


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


class ReferenceImplementation:
    name = "turnlaw reference_impl"
    capabilities = frozenset(Capability)
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
    ) -> None:
        """`agent_class` is the runtime: a runtime derived from the reference (the rogues
        in tests/rogues/) is tested through this same adapter, unchanged. `host_class`
        (`module:attr`, a StandingAgent subclass) is the host the hosting door starts;
        `hosting=False` declares no hosting at all (an agent-level rogue, whose kill run
        need not start hosts)."""
        self.agent_class = agent_class
        self.host_class = host_class
        if name is not None:
            self.name = name
        if not hosting:
            self.capabilities = frozenset(Capability) - HOSTING_CAPABILITIES

    def provider_for(self, spec: AgentSpec) -> Any:
        """The model provider for this spec: the official SDK for its dialect."""
        return _provider(spec)

    def build_agent(self, spec: AgentSpec, memory: MemoryStore | None = None) -> tuple[Agent, Any]:
        """The runtime's agent for `spec` and its provider; `memory` is where its memory
        lives when the spec asks for memory (default: in memory, for this agent alone).
        The host process builds its sessions' agents here too, so a hosted agent is
        exactly the one the agent laws judge."""
        provider = self.provider_for(spec)
        builder = (
            self.agent_class.create(provider=provider, model=spec.model, id=spec.id)
            .system(spec.system)
            .tool(*_tools(spec))
        )
        if spec.memory:
            builder.memory(EpisodicMemory(memory if memory is not None else InMemoryStore()))
        if spec.self_explain:
            builder.self_explain()
        if spec.window is not None:
            builder.window(keep_recent_turns=spec.window)
        if spec.compaction is not None:
            builder.compaction(Compaction(**spec.compaction.model_dump()))
        return builder.build(), provider

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        return ReferenceAgent(*self.build_agent(spec))

    async def start_host(self, spec: HostSpec) -> HostProcess:
        """The reference host as a real process against the fake (the hosting door)."""
        agent_class = f"{self.agent_class.__module__}:{self.agent_class.__qualname__}"
        return await start_host_process(spec, agent_class=agent_class, host_class=self.host_class)

    async def damage_session(self, store: str, session_id: str) -> None:
        """Make one stored conversation unreadable, as a real store goes bad."""
        from .store import damage_session

        damage_session(store, session_id)


def _provider(spec: AgentSpec) -> Any:
    if spec.dialect is Dialect.ANTHROPIC_MESSAGES:
        return AnthropicMessagesProvider(client=anthropic_client(spec), stream=spec.stream)
    if spec.dialect is Dialect.OPENAI_CHAT:
        return OpenAIChatProvider(client=openai_client(spec), stream=spec.stream)
    return OpenAIResponsesProvider(client=openai_client(spec), stream=spec.stream)


implementation = ReferenceImplementation()
