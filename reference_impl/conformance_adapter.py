"""The reference runtime's adapter for the conformance suite (`--impl` default).

It translates the suite's calls onto `reference_impl`'s own API and maps its errors onto
the suite's refusal kinds. Nothing here adds behaviour the runtime lacks: every law the
suite checks is the runtime's doing.
"""

from __future__ import annotations

import json
import ssl
from typing import Any

import anthropic
import openai

from conformance.adapter import (
    JSON,
    AgentSpec,
    Capability,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    Refused,
    RunOutcome,
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
    InvalidCheckpointError,
    NoConversationError,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
    PendingQuestionError,
    RunInFlightError,
    RunResult,
    Tool,
    ToolContext,
    ask_person,
)

_REFUSALS: tuple[tuple[type[Exception], RefusalKind], ...] = (
    (NoConversationError, RefusalKind.NO_CONVERSATION),
    (ConversationMismatchError, RefusalKind.MISMATCH),
    (RunInFlightError, RefusalKind.RUN_IN_FLIGHT),
    (PendingQuestionError, RefusalKind.PENDING_QUESTION),
    (InvalidCheckpointError, RefusalKind.INVALID_CHECKPOINT),
)


def _echo(ctx: ToolContext, text: str = "") -> str:
    return text


def _whoami(ctx: ToolContext) -> dict[str, Any]:
    identity = ctx.identity.model_dump(exclude_none=True) if ctx.identity else None
    return {"identity": identity, "session_id": ctx.session_id}


def _ask_person(ctx: ToolContext, question: str = "May I?") -> str:
    ask_person(question)


CATALOG = {
    "echo": Tool(
        name="echo",
        fn=_echo,
        description="Echo the text back.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    ),
    "whoami": Tool(name="whoami", fn=_whoami, description="What the run told this tool."),
    "ask_person": Tool(
        name="ask_person",
        fn=_ask_person,
        description="Ask a person and wait for the answer.",
        parameters={"type": "object", "properties": {"question": {"type": "string"}}},
    ),
}


def _outcome(result: RunResult) -> RunOutcome:
    pending = result.pending
    return RunOutcome(
        answer=result.answer,
        paused=PendingReport(**pending.model_dump()) if pending else None,
        checkpoint=result.checkpoint.to_data(),
    )


class _Refusals:
    """Map the runtime's refusals onto the suite's kinds; anything else propagates."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: Any
    ) -> None:
        for runtime_error, refusal in _REFUSALS:
            if isinstance(error, runtime_error):
                raise Refused(refusal, str(error)) from error


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
        with _Refusals():
            result = await self.agent.run(
                message, continue_from=continue_from, identity=named, session_id=session_id
            )
        return _outcome(result)

    async def follow_up(self, message: str) -> RunOutcome:
        with _Refusals():
            return _outcome(await self.agent.follow_up(message))

    async def checkpoint(self) -> JSON:
        with _Refusals():
            return json.loads(self.agent.checkpoint().to_json())

    async def resume(self, checkpoint: JSON, decision: str) -> RunOutcome:
        with _Refusals():
            return _outcome(await self.agent.resume(checkpoint, decision))

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


class ReferenceImplementation:
    name = "turnlaw reference_impl"
    capabilities = frozenset(Capability) - {Capability.HOSTING}
    dialects = frozenset(Dialect)
    trace_tool = TRACE_TOOL_NAME

    def __init__(self, agent_class: type[Agent] = Agent, name: str | None = None) -> None:
        """`agent_class` is the runtime: a runtime derived from the reference (the rogues
        in tests/rogues/) is tested through this same adapter, unchanged."""
        self.agent_class = agent_class
        if name is not None:
            self.name = name

    def provider_for(self, spec: AgentSpec) -> Any:
        """The model provider for this spec: the official SDK for its dialect."""
        return _provider(spec)

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        provider = self.provider_for(spec)
        builder = (
            self.agent_class.create(provider=provider, model=spec.model, id=spec.id)
            .system(spec.system)
            .tool(*(CATALOG[name] for name in spec.tools))
        )
        if spec.memory:
            builder.memory(EpisodicMemory(InMemoryStore()))
        if spec.self_explain:
            builder.self_explain()
        if spec.window is not None:
            builder.window(keep_recent_turns=spec.window)
        if spec.compaction is not None:
            builder.compaction(Compaction(**spec.compaction.model_dump()))
        return ReferenceAgent(builder.build(), provider)


_TLS = ssl.create_default_context()
"""Loading CA certificates costs ~30 ms per SDK client and the suite builds hundreds;
every agent's client shares one context instead (the fake is plain HTTP anyway)."""


def _provider(spec: AgentSpec) -> Any:
    if spec.dialect is Dialect.ANTHROPIC_MESSAGES:
        http = anthropic.DefaultAsyncHttpxClient(verify=_TLS)
        client = anthropic.AsyncAnthropic(
            base_url=spec.base_url, api_key=spec.api_key, http_client=http
        )
        return AnthropicMessagesProvider(client=client)
    openai_client = openai.AsyncOpenAI(
        base_url=spec.base_url,
        api_key=spec.api_key,
        http_client=openai.DefaultAsyncHttpxClient(verify=_TLS),
    )
    if spec.dialect is Dialect.OPENAI_CHAT:
        return OpenAIChatProvider(client=openai_client)
    return OpenAIResponsesProvider(client=openai_client)


implementation = ReferenceImplementation()
