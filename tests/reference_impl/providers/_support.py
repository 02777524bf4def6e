"""What the provider tests share: the conversation they send, how to build a provider, and
how to send one request and read the body the fake received."""

from __future__ import annotations

from typing import Any

import anthropic
import openai

from conformance.wire import ScriptedProvider, text
from reference_impl.conversation import ToolCall, ToolSpec, Turn
from reference_impl.providers import (
    AnthropicMessagesProvider,
    ModelProvider,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
)
from tests.conftest import API_KEY

DIALECTS = ["openai-chat", "openai-responses", "anthropic-messages"]
MODEL = {"openai-chat": "gpt-test", "openai-responses": "gpt-test"}
SYSTEM = "You take bookings. Be brief."

ECHO = ToolSpec(
    name="echo",
    description="Echo text back.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)

# Every shape a history can take: a call without text, text beside parallel calls, an
# error result, and a user turn right after tool results.
HISTORY: tuple[Turn, ...] = (
    Turn(role="user", text="Echo hi, then a and b."),
    Turn(
        role="assistant", tool_calls=(ToolCall(id="call_1", name="echo", arguments={"text": "hi"}),)
    ),
    Turn(role="tool", text="hi", tool_call_id="call_1"),
    Turn(
        role="assistant",
        text="Now both.",
        tool_calls=(
            ToolCall(id="call_2", name="echo", arguments={"text": "a"}),
            ToolCall(id="call_3", name="echo", arguments={"text": "b"}),
        ),
    ),
    Turn(role="tool", text="a", tool_call_id="call_2"),
    Turn(role="tool", text="echo is tired", tool_call_id="call_3", is_error=True),
    Turn(role="user", text="Thanks. What did you hear?"),
)
HISTORY_ROLES = ["user", "assistant", "tool", "assistant", "tool", "tool", "user"]

API_ERRORS: dict[str, type[Exception]] = {
    "openai-chat": openai.BadRequestError,
    "openai-responses": openai.BadRequestError,
    "anthropic-messages": anthropic.BadRequestError,
}


PROVIDERS: dict[str, Any] = {
    "openai-chat": OpenAIChatProvider,
    "openai-responses": OpenAIResponsesProvider,
    "anthropic-messages": AnthropicMessagesProvider,
}
SDK_CLIENTS: dict[str, Any] = {
    "openai-chat": openai.AsyncOpenAI,
    "openai-responses": openai.AsyncOpenAI,
    "anthropic-messages": anthropic.AsyncAnthropic,
}


def model_for(dialect: str) -> str:
    return MODEL.get(dialect, "claude-test")


def build(dialect: str, fake: ScriptedProvider, *, stream: bool, **options: Any) -> ModelProvider:
    """The provider class for a dialect, pointed at the fake, retries off."""
    assert fake.base_url, "the fake is not attached to a transport"
    provider: ModelProvider = PROVIDERS[dialect](
        fake.base_url, API_KEY, stream=stream, max_retries=0, **options
    )
    return provider


async def sent_body(
    dialect: str,
    fake: ScriptedProvider,
    *,
    stream: bool,
    system: str = SYSTEM,
    turns: tuple[Turn, ...] = HISTORY,
    tools: tuple[ToolSpec, ...] = (ECHO,),
    **options: Any,
) -> dict[str, Any]:
    """One request through a fresh provider: the raw body the fake received, its stream
    flag checked against the call mode."""
    fake.script([text("Heard you.")])
    llm = build(dialect, fake, stream=stream, **options)
    await llm.complete(model=model_for(dialect), system=system, turns=turns, tools=tools)
    body = fake.wire.last.raw
    assert bool(body.get("stream")) is stream
    return body
