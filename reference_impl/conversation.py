"""The runtime's own conversation model: turns, tool calls, identities.

The reference runtime keeps its conversation in a provider-neutral shape and lets each
provider module translate it, so a checkpoint recorded through one API continues
through another. These models are plain JSON by construction: a checkpoint is made of
them and must survive any store.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from ._plain_json import check_plain, unicode_problem


def _valid_unicode(text: str) -> str:
    problem = unicode_problem(text)
    if problem is not None:
        raise ValueError(f"not valid Unicode text: {problem}")
    return text


PlainText = Annotated[str, AfterValidator(_valid_unicode)]
"""Text a JSON store can hold: UTF-8 cannot carry a lone surrogate, so none gets in."""


class _Plain(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(_Plain):
    """A call the model asked for; `arguments` is the parsed JSON object."""

    id: PlainText = Field(min_length=1)
    name: PlainText = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("arguments")
    @classmethod
    def _plain_arguments(cls, arguments: dict[str, Any]) -> dict[str, Any]:
        # plain JSON by construction: no NaN, no lone surrogate, nothing a store changes
        check_plain(arguments)
        return arguments


class Turn(_Plain):
    """One message of the conversation, verbatim.

    A `tool` turn is one tool result and names the call it answers.
    """

    role: Literal["user", "assistant", "tool"]
    text: PlainText = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: PlainText | None = None
    is_error: bool = Field(default=False, strict=True)


class Identity(_Plain):
    """A namespace for memory and tools — not a session, and never a conversation.

    Two runs with the same `conversation_id` are still two conversations.
    """

    conversation_id: PlainText = Field(min_length=1)
    tenant: PlainText | None = None
    principal: PlainText | None = None

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
