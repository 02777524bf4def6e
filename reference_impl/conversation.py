"""The runtime's own conversation model: turns, tool calls, identities.

The reference runtime keeps its conversation in a provider-neutral shape and lets each
provider module translate it, so a checkpoint recorded through one API continues
through another. These models are plain JSON by construction: a checkpoint is made of
them and must survive any store.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Plain(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(_Plain):
    """A call the model asked for; `arguments` is the parsed JSON object."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class Turn(_Plain):
    """One message of the conversation, verbatim.

    A `tool` turn is one tool result and names the call it answers.
    """

    role: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False


class Identity(_Plain):
    """A namespace for memory and tools — not a session, and never a conversation.

    Two runs with the same `conversation_id` are still two conversations.
    """

    conversation_id: str = Field(min_length=1)
    tenant: str | None = None
    principal: str | None = None

    def namespace(self) -> str:
        """The key memory is scoped by."""
        return "/".join(part or "" for part in (self.tenant, self.principal, self.conversation_id))


IdentitySource = Literal["explicit", "carried", "session", "run"]
"""Where a run's identity came from: the call, the continued conversation, the session
id (synthesized), or the run id (synthesized)."""


class ToolSpec(_Plain):
    """A tool as offered to the model."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
