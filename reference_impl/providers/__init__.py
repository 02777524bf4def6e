"""Model providers over the official SDKs, one per wire dialect the fake speaks.

Each translates the runtime's neutral turns into its API and sends the whole conversation
on every call, so one checkpoint continues through any of them.

A provider's SDK is imported when the provider is first named, not with the runtime: the
SDKs are slow to import, and a process that speaks one API (a host started per test)
should not pay for the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._sdk_versions import check_sdk_versions

check_sdk_versions()  # before the SDKs' own imports: an old release fails clearly

from ._base import ModelProvider, ModelReply  # noqa: E402

if TYPE_CHECKING:
    import ssl

    from .anthropic_messages import AnthropicMessagesProvider
    from .openai_chat import OpenAIChatProvider
    from .openai_responses import OpenAIResponsesProvider

_LAZY = {
    "AnthropicMessagesProvider": ".anthropic_messages",
    "OpenAIChatProvider": ".openai_chat",
    "OpenAIResponsesProvider": ".openai_responses",
}


def __getattr__(name: str) -> Any:
    """A provider class, its SDK imported on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages")
"""The dialect names `make_provider` accepts (the same as `conformance.wire.Dialect`)."""


def make_provider(
    dialect: str,
    base_url: str | None,
    api_key: str | None,
    stream: bool = True,
    *,
    tls: ssl.SSLContext | None = None,
) -> ModelProvider:
    """The provider for a dialect name, so a config file or CLI flag can pick the API;
    `tls` is the context its SDK client verifies with (None: the SDK's default)."""
    if dialect == "openai-chat":
        from .openai_chat import OpenAIChatProvider

        return OpenAIChatProvider(base_url, api_key, stream=stream, tls=tls)
    if dialect == "openai-responses":
        from .openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(base_url, api_key, stream=stream, tls=tls)
    if dialect == "anthropic-messages":
        from .anthropic_messages import AnthropicMessagesProvider

        return AnthropicMessagesProvider(base_url, api_key, stream=stream, tls=tls)
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
