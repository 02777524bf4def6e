"""The adapter kit: what Python adapters do alike, for yours too (`conformance.frameworks.kit`).

- `openai_client(spec)`, `anthropic_client(spec)`, `openai_http()`: the official SDK
  clients (or the HTTP client under one) pointed at the fake the spec names, trusting
  the suite's local TLS. Any HTTP client works against the fake (it is a real loopback
  server, so aiohttp, requests or a runtime's own client are recorded alike); these only
  save the set-up.
- `call_service(base_url, key)`: the body of the catalog's `call_service` tool.
- `refusing(Refusal(error, kind, says=None), ...)`: rename the runtime's own refusals
  to `Refused` with the suite's kinds.
- `reporting_failures(checkpoint_of, failed=provider_failure, runtime_failed=...)`:
  report a run that failed as `RunFailed`, with its cause and last good checkpoint;
  `provider_failure(error)` tells a provider's failure (an SDK or HTTP-stack error,
  anywhere down the chain of causes).

Shared facts in a module, not a base class: each adapter (the three here,
`reference_impl/conformance_adapter.py`, yours) stays a plain class over its own
framework and calls these where its logic is the same. Each SDK is imported when a
client of it is asked for, not with this module: a host or session process that speaks
Anthropic, and a `--collect-only`, should not pay for importing openai (the framework
extras lack anthropic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from .._tls import SHARED_TLS
from ..adapter import JSON, AgentSpec, RefusalKind, Refused, RunFailed, RunFailureCause
from ..catalog import service_url

if TYPE_CHECKING:
    import anthropic
    import openai


class ServiceFailedError(Exception):
    """The service `call_service` asked answered with an error: the tool fails with it."""


async def call_service(base_url: str, key: str) -> str:
    """The body of the catalog's `call_service`, for any Python adapter: a plain GET to
    the fake, as a tool a user wrote would make one; its failure raised as the tool's."""
    import httpx  # here, not at import: the respx alias must be set up before httpx loads

    async with httpx.AsyncClient(timeout=None, verify=SHARED_TLS) as client:
        reply = await client.get(service_url(base_url, key))
    if reply.status_code != 200:
        raise ServiceFailedError(f"{reply.status_code}: {reply.text}")
    return reply.text


def openai_http() -> openai.DefaultAsyncHttpxClient:
    """The HTTP client under an OpenAI SDK client (for a framework that builds its own)."""
    import openai

    return openai.DefaultAsyncHttpxClient(verify=SHARED_TLS)


def openai_client(spec: AgentSpec) -> openai.AsyncOpenAI:
    """The official OpenAI client, pointed at the fake the spec names."""
    import openai

    return openai.AsyncOpenAI(
        base_url=spec.base_url, api_key=spec.api_key, http_client=openai_http()
    )


def anthropic_client(spec: AgentSpec) -> anthropic.AsyncAnthropic:
    """The official Anthropic client, pointed at the fake the spec names."""
    import anthropic

    http = anthropic.DefaultAsyncHttpxClient(verify=SHARED_TLS)
    return anthropic.AsyncAnthropic(base_url=spec.base_url, api_key=spec.api_key, http_client=http)


class Refusal(NamedTuple):
    """A runtime's own error that is a refusal of the suite's `kind`: an instance of
    `error`, and, when `says` is set, only one whose message contains it."""

    error: type[BaseException] | tuple[type[BaseException], ...]
    kind: RefusalKind
    says: str | None = None

    def matches(self, raised: BaseException) -> bool:
        return isinstance(raised, self.error) and (self.says is None or self.says in str(raised))


@contextmanager
def refusing(*refusals: Refusal) -> Iterator[None]:
    """Rename the runtime's refusals raised inside: the first that matches becomes
    `Refused(kind, message)`; any other error propagates as it was."""
    try:
        yield
    except Exception as error:
        for refusal in refusals:
            if refusal.matches(error):
                raise Refused(refusal.kind, str(error)) from error
        raise


_PROVIDER_STACK = ("openai", "anthropic", "httpx", "httpx2", "httpcore")
"""The packages whose errors mean the provider failed: the SDKs and their HTTP stack."""


def provider_failure(error: BaseException) -> bool:
    """Did `error` come from the model provider (an HTTP error after the SDK's retries,
    a stream cut or an error event), here or anywhere down its chain of causes?"""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if any(c.__module__.split(".")[0] in _PROVIDER_STACK for c in type(current).__mro__):
            return True  # a framework's own subclass of an SDK error counts
        current = current.__cause__ or current.__context__
    return False


def _none(error: BaseException) -> None:
    return None


def _never(error: BaseException) -> bool:
    return False


@contextmanager
def reporting_failures(
    checkpoint_of: Callable[[BaseException], JSON | None] = _none,
    *,
    failed: Callable[[BaseException], bool] = provider_failure,
    runtime_failed: Callable[[BaseException], bool] = _never,
) -> Iterator[None]:
    """Report a run that failed as `RunFailed` with the runtime's last good checkpoint
    (`checkpoint_of` the error; None when the runtime hands none back). Errors `failed`
    recognises are provider failures (`cause="provider"`), errors `runtime_failed`
    recognises the runtime's own (`cause="runtime"`: an error of its own ended the run,
    no provider fault); anything else propagates as it was (an ERROR)."""
    try:
        yield
    except (Refused, RunFailed):
        raise
    except Exception as error:
        cause: RunFailureCause
        if failed(error):
            cause = "provider"
        elif runtime_failed(error):
            cause = "runtime"
        else:
            raise
        raise RunFailed(
            f"{type(error).__name__}: {error}", checkpoint_of(error), cause=cause
        ) from error


__all__ = [
    "Refusal",
    "ServiceFailedError",
    "anthropic_client",
    "call_service",
    "openai_client",
    "openai_http",
    "provider_failure",
    "refusing",
    "reporting_failures",
]
