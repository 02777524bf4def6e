"""The neutral conversation IR: what a model was shown, whatever dialect carried it.

Every law is checked against this shape, never against a provider's raw JSON, so the
same assertion holds for a runtime that speaks Chat Completions, Responses or Messages.
The raw body is kept alongside, untouched, because the IR is a view and the body is
the evidence.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Dialect(StrEnum):
    """The provider wire formats the fake speaks."""

    OPENAI_CHAT = "openai-chat"
    OPENAI_RESPONSES = "openai-responses"
    ANTHROPIC_MESSAGES = "anthropic-messages"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(_Frozen):
    """A call the assistant asked for. `arguments` is the parsed JSON object."""

    id: str
    name: str
    arguments: Any = Field(default_factory=dict)


class Message(_Frozen):
    """One turn as the model saw it.

    A `tool` message is one tool result and names the call it answers. Parts the IR
    does not model (images, documents, reasoning) are listed by type in
    `omitted_parts` rather than silently dropped, so a law can tell "no text" from
    "text we did not understand".
    """

    role: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False
    omitted_parts: tuple[str, ...] = ()


class ToolSpec(_Frozen):
    """A tool offered to the model."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)


class RequestIR(_Frozen):
    """One model request, normalized.

    `system` joins every system / developer / instructions text in order with a blank
    line; the wire position of a mid-conversation system message is not kept.
    """

    dialect: Dialect
    model: str
    system: str = ""
    messages: tuple[Message, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    stream: bool = False
    include_usage: bool = False
    raw: dict[str, Any] = Field(default_factory=dict, repr=False)

    def user_texts(self) -> list[str]:
        """The text of every user turn, oldest first."""
        return [m.text for m in self.messages if m.role == "user"]

    def assistant_texts(self) -> list[str]:
        """The text of every assistant turn that had text, oldest first."""
        return [m.text for m in self.messages if m.role == "assistant" and m.text]

    def turns(self) -> list[tuple[str, str]]:
        """(role, text) pairs for user and assistant turns: the portable view of a transcript."""
        return [(m.role, m.text) for m in self.messages if m.role != "tool"]


MAX_TOKENS = 2**53 - 1  # the largest integer every JSON reader (JavaScript too) reads exactly


class Usage(_Frozen):
    """Token counts reported back to the runtime."""

    input_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)
    output_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)


StopReason = Literal["end_turn", "tool_use", "max_tokens"]


class AssistantReply(_Frozen):
    """What the fake answers, before a dialect renders it.

    `stop_reason` is neutral; each dialect maps it (`end_turn` -> `stop` /
    `completed` / `end_turn`, `tool_use` -> `tool_calls` / `completed` / `tool_use`).
    """

    text: str = ""
    blocks: tuple[str, ...] = ()
    """The text in several blocks, where the dialect has blocks (empty: one block)."""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    stop_reason: StopReason = "end_turn"
