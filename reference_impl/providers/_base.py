"""What the agent needs from a model provider: one completion of a conversation.

Each provider translates the runtime's neutral turns into its API over the official
SDK, so the same checkpoint continues through any of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from ..conversation import ToolCall, ToolSpec, Turn


class ModelReply(BaseModel):
    """The model's answer: text, tool calls, or both."""

    model_config = ConfigDict(frozen=True)

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


class ModelProvider(Protocol):
    """One model call. Streams by default, as real runtimes do."""

    async def complete(
        self,
        *,
        model: str,
        system: str,
        turns: Sequence[Turn],
        tools: Sequence[ToolSpec],
    ) -> ModelReply: ...
