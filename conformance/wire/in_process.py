"""The in-process transport: the provider answers inside the test's own process.

respx does the interception for clients built on `httpx` — and on `httpx2` (what
openai>=3 and anthropic>=2 use) when `import httpx` already gives httpx2, which the
opt-in early plugin `-p conformance.httpx2_alias` arranges. When httpx2 is not aliased,
respx cannot see httpx2 clients, so the same routing is patched into httpx2's clients
directly: either way every official SDK client is caught.

The response body is a stream that waits (holds, delays) before yielding, so a held
request parks the runtime exactly as a slow provider would, sync or async, and a wait
longer than the client's read timeout ends in the client library's ReadTimeout. One
difference from a real server remains: status and headers are available at once, so a
streamed call returns its stream object before the hold is released (reading it waits).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import ExitStack
from functools import cache
from types import ModuleType
from typing import Any
from unittest import mock

import httpx
import httpx2
import respx

from ._plan import Plan, RawRequest
from .provider import ScriptedProvider

IN_PROCESS_ROOT = "http://turnlaw.test"
OFFICIAL_HOSTS = ("api.openai.com", "api.anthropic.com")


def httpx2_is_aliased() -> bool:
    """True when `import httpx` gives httpx2, so respx patches what the SDKs use."""
    return sys.modules.get("httpx") is httpx2


@cache
def _stream_class(module: ModuleType) -> type:
    """A body stream for `module` (httpx or httpx2) that waits, then yields the plan."""

    class PlanStream(module.SyncByteStream, module.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, plan: Plan, read_timeout: float | None) -> None:
            self.plan = plan
            self.read_timeout = read_timeout

        def __iter__(self) -> Iterator[bytes]:
            if self.plan.waits and not self.plan.wait_sync(self.read_timeout):
                raise self._timed_out()
            *body, last = self.plan.chunks or [b""]
            yield from body
            if not self.plan.end_held_sync(self.read_timeout):
                raise self._timed_out()
            yield last
            self._end()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            if self.plan.waits and not await self.plan.wait_async(self.read_timeout):
                raise self._timed_out()
            *body, last = self.plan.chunks or [b""]
            for chunk in body:
                yield chunk
            if not await self.plan.end_held_async(self.read_timeout):
                raise self._timed_out()
            yield last
            self._end()

        def _timed_out(self) -> Exception:
            error: Exception = module.ReadTimeout(
                f"turnlaw: the reply was held or delayed past the client's read timeout "
                f"({self.read_timeout:g}s)"
            )
            return error

        def _end(self) -> None:
            self.plan.finished()
            if self.plan.disconnect:
                raise module.RemoteProtocolError(
                    "turnlaw: scripted disconnect in the middle of the stream"
                )

    return PlanStream


def build_response(module: ModuleType, provider: ScriptedProvider, request: Any) -> Any:
    """Answer an `httpx`/`httpx2` request object with a response of the same library."""
    raw = RawRequest(
        method=request.method,
        path=request.url.raw_path.decode("ascii"),
        headers=request.headers.multi_items(),
        body=request.content,  # transports read the body before calling us
    )
    plan = provider.respond(raw)
    if len(plan.chunks) == 1 and not (plan.waits or plan.disconnect):
        # a whole reply with nothing to wait for: handed over as it is, with no stream to
        # read it back through, and the body is out now
        plan.finished()
        return module.Response(
            plan.status, headers=plan.headers, content=plan.chunks[0], request=request
        )
    timeouts = request.extensions.get("timeout") or {}
    stream = _stream_class(module)(plan, timeouts.get("read"))
    return module.Response(plan.status, headers=plan.headers, stream=stream, request=request)


class ProviderTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """An httpx2 transport that answers every request from the provider.

    Hand it to a client explicitly (`httpx2.AsyncClient(transport=...)`) when no
    interception is wanted; `InProcess` uses it for httpx2 clients when not aliased.
    """

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        response: httpx2.Response = build_response(httpx2, self.provider, request)
        return response

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        response: httpx2.Response = build_response(httpx2, self.provider, request)
        return response


def _respx_side_effect(provider: ScriptedProvider) -> Any:
    """The respx side effect. respx inspects a side effect's signature on every request
    (to offer it `route=`); a precomputed `__signature__` makes that nearly free."""

    def side_effect(request: httpx.Request) -> httpx.Response:
        response: httpx.Response = build_response(sys.modules["httpx"], provider, request)
        return response

    side_effect.__signature__ = inspect.signature(side_effect)  # type: ignore[attr-defined]
    return side_effect


class InProcess:
    """Context manager: route the provider's hosts to `provider` for this process.

    Hosts: `turnlaw.test` (the provider's own base URL) plus the official API hosts,
    so a runtime that ignores its base-URL setting is caught rather than sent abroad.
    Every other host passes through untouched (the loopback server among them).
    """

    def __init__(
        self, provider: ScriptedProvider, *, hosts: Sequence[str] = OFFICIAL_HOSTS
    ) -> None:
        self.provider = provider
        self.hosts = ("turnlaw.test", *hosts)
        self.base_url = IN_PROCESS_ROOT + "/v1"
        self._stack = ExitStack()
        self._previous_base_url: str | None = None

    def __enter__(self) -> ScriptedProvider:
        router = respx.mock(assert_all_called=False, assert_all_mocked=False, using="httpx")
        router.route(host__in=self.hosts).mock(side_effect=_respx_side_effect(self.provider))
        router.route().pass_through()
        self._stack.enter_context(router)
        if not httpx2_is_aliased():
            self._patch_httpx2()
        self._previous_base_url = self.provider.base_url
        self.provider.base_url = self.base_url
        return self.provider

    def __exit__(self, *exc_info: object) -> None:
        self.provider.release_all()
        self._stack.close()
        self.provider.base_url = self._previous_base_url

    def _patch_httpx2(self) -> None:
        transport = ProviderTransport(self.provider)
        hosts = self.hosts
        for client_class in (httpx2.Client, httpx2.AsyncClient):
            original = client_class._transport_for_url

            def routed(client: Any, url: httpx2.URL, _original: Any = original) -> Any:
                return transport if url.host in hosts else _original(client, url)

            self._stack.enter_context(mock.patch.object(client_class, "_transport_for_url", routed))
