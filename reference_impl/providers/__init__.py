"""Model providers over the official SDKs, one per wire dialect the fake speaks.

Each translates the runtime's neutral turns into its API and sends the whole conversation
on every call, so one checkpoint continues through any of them.
"""

from __future__ import annotations

from ._sdk_versions import check_sdk_versions

check_sdk_versions()  # before the SDKs' own imports: an old release fails clearly

from ._base import ModelProvider, ModelReply  # noqa: E402
from .anthropic_messages import AnthropicMessagesProvider  # noqa: E402
from .openai_chat import OpenAIChatProvider  # noqa: E402
from .openai_responses import OpenAIResponsesProvider  # noqa: E402

DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages")
"""The dialect names `make_provider` accepts (the same as `conformance.wire.Dialect`)."""


def make_provider(
    dialect: str, base_url: str | None, api_key: str | None, stream: bool = True
) -> ModelProvider:
    """The provider for a dialect name, so a config file or CLI flag can pick the API."""
    if dialect == "openai-chat":
        return OpenAIChatProvider(base_url, api_key, stream=stream)
    if dialect == "openai-responses":
        return OpenAIResponsesProvider(base_url, api_key, stream=stream)
    if dialect == "anthropic-messages":
        return AnthropicMessagesProvider(base_url, api_key, stream=stream)
    raise ValueError(
        f"make_provider: unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}"
    )


__all__ = [
    "DIALECTS",
    "AnthropicMessagesProvider",
    "ModelProvider",
    "ModelReply",
    "OpenAIChatProvider",
    "OpenAIResponsesProvider",
    "make_provider",
]
