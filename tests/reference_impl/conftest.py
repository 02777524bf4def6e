"""The reference runtime against the fake provider: every dialect, both transports."""

from __future__ import annotations

import itertools
import ssl
from typing import Any

import anthropic
import openai
import pytest

from conformance.wire import ScriptedProvider
from reference_impl import (
    Agent,
    AgentBuilder,
    AnthropicMessagesProvider,
    ModelProvider,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
    ToolContext,
    ask_person,
    tool,
)
from tests.conftest import API_KEY

DIALECTS = ["openai-chat", "openai-responses", "anthropic-messages"]
TRANSPORTS = ["in_process", "loopback"]
MODEL = "ref-model"


@pytest.fixture(
    params=list(itertools.product(DIALECTS, TRANSPORTS)), ids=lambda p: f"{p[0]}-{p[1]}"
)
def setup(request: pytest.FixtureRequest) -> tuple[str, ScriptedProvider]:
    dialect, transport = request.param
    name = "fake_provider" if transport == "in_process" else "loopback_provider"
    wire: ScriptedProvider = request.getfixturevalue(name)
    return dialect, wire


@pytest.fixture
def wire(setup: tuple[str, ScriptedProvider]) -> ScriptedProvider:
    """The fake provider; what it recorded is the evidence."""
    return setup[1]


SHARED_TLS = ssl.create_default_context()
"""Loading CA certificates costs ~30 ms per SDK client; the fake is plain HTTP, so every
test client shares one context instead of paying that each time."""


def sdk_provider(dialect: str, base_url: str | None) -> ModelProvider:
    """`make_provider`'s providers, on SDK clients that share one TLS context."""
    if dialect == "anthropic-messages":
        http = anthropic.DefaultAsyncHttpxClient(verify=SHARED_TLS)
        client = anthropic.AsyncAnthropic(base_url=base_url, api_key=API_KEY, http_client=http)
        return AnthropicMessagesProvider(client=client)
    openai_client = openai.AsyncOpenAI(
        base_url=base_url,
        api_key=API_KEY,
        http_client=openai.DefaultAsyncHttpxClient(verify=SHARED_TLS),
    )
    if dialect == "openai-chat":
        return OpenAIChatProvider(client=openai_client)
    return OpenAIResponsesProvider(client=openai_client)


@pytest.fixture
def llm(setup: tuple[str, ScriptedProvider]) -> ModelProvider:
    """The reference runtime's provider for this dialect, pointed at the fake."""
    dialect, wire = setup
    return sdk_provider(dialect, wire.base_url)


@pytest.fixture
def new_agent(llm: ModelProvider) -> Any:
    """`new_agent(id=None)` -> a builder with the test tool catalog."""

    def build(id: str | None = None, model: str = MODEL) -> AgentBuilder:
        return (
            Agent.create(provider=llm, model=model, id=id)
            .system("You take restaurant bookings. Be brief.")
            .tool(echo, whoami, approve_refund)
        )

    return build


@tool(
    description="Echo the text back.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
def echo(ctx: ToolContext, text: str = "") -> str:
    return text


@tool(description="What the runtime told this tool about the run.")
def whoami(ctx: ToolContext) -> dict[str, Any]:
    return {
        "identity": ctx.identity.model_dump(exclude_none=True) if ctx.identity else None,
        "session_id": ctx.session_id,
        "run_id": ctx.run_id,
    }


REFUND_CALLS: list[dict[str, Any]] = []


@tool(description="Refund an order; a person must approve it first.")
def approve_refund(ctx: ToolContext, order: int = 0) -> str:
    REFUND_CALLS.append({"order": order})
    ask_person(f"Approve a refund for order {order}?")


@pytest.fixture(autouse=True)
def _fresh_refund_log() -> None:
    REFUND_CALLS.clear()
