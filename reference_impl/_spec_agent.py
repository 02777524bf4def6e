"""The agent an `AgentSpec` describes, built on the runtime's own API.

The adapter builds every agent the agent laws judge here, and the host process builds
its sessions' agents here too, so a hosted agent is exactly the judged one. Kept apart
from the adapter so the host process imports what building needs and no more: only the
SDK of the spec's dialect is imported, when the provider is made.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from conformance.adapter import AgentSpec
from conformance.catalog import (
    ASK_PERSON,
    CALL_SERVICE,
    ECHO,
    WHOAMI,
    CatalogTool,
    ToolName,
    WhoamiReport,
)
from conformance.frameworks.kit import anthropic_client, call_service, openai_client
from conformance.wire.ir import Dialect

from .agent import Agent
from .context import Compaction
from .memory import EpisodicMemory, InMemoryStore, MemoryStore
from .tools import Tool, ToolContext, ask_person


def build_spec_agent(
    spec: AgentSpec, agent_class: type[Agent], provider: Any, memory: MemoryStore | None = None
) -> Agent:
    """`agent_class` built for `spec` on `provider`; `memory` is where its memory lives
    when the spec asks for memory (default: in memory, for this agent alone)."""
    builder = (
        agent_class.create(provider=provider, model=spec.model, id=spec.id)
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
    return builder.build()


def spec_provider(spec: AgentSpec) -> Any:
    """The dialect's provider; only its SDK is imported (a host process speaks one)."""
    if spec.dialect is Dialect.ANTHROPIC_MESSAGES:
        from .providers.anthropic_messages import AnthropicMessagesProvider

        return AnthropicMessagesProvider(client=anthropic_client(spec), stream=spec.stream)
    if spec.dialect is Dialect.OPENAI_CHAT:
        from .providers.openai_chat import OpenAIChatProvider

        return OpenAIChatProvider(client=openai_client(spec), stream=spec.stream)
    from .providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider(client=openai_client(spec), stream=spec.stream)


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
