"""The in-process transport: the provider answers inside the test's own process.

respx does the interception for clients built on `httpx` — and on `httpx2` (what
openai>=3 and anthropic>=2 use) when `httpx2.alias_httpx()` ran first, which the
turnlaw pytest plugin does when it is loaded early (`-p turnlaw`). When httpx2 was
not aliased, respx cannot see httpx2 clients, so the same routing is patched into
httpx2's clients directly: either way every official SDK client is caught.

The response body is a stream that waits (holds, delays) before yielding, so a held
request parks the runtime exactly as a slow provider would, sync or async.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import ExitStack
from functools import cache
from types import ModuleType, TracebackType
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
        def __init__(self, plan: Plan) -> None:
            self.plan = plan

        def __iter__(self) -> Iterator[bytes]:
            self.plan.wait_sync()
            yield from self.plan.chunks
            self._end()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            await self.plan.wait_async()
            for chunk in self.plan.chunks:
                yield chunk
            self._end()

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
    stream = _stream_class(module)(plan)
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

    def __enter__(self) -> ScriptedProvider:
        router = respx.mock(assert_all_called=False, assert_all_mocked=False, using="httpx")
        router.route(host__in=self.hosts).mock(side_effect=_respx_side_effect(self.provider))
        router.route().pass_through()
        self._stack.enter_context(router)
        if not httpx2_is_aliased():
            self._patch_httpx2()
        self.provider.base_url = self.base_url
        return self.provider

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.provider.release_all()
        self._stack.close()

    def _patch_httpx2(self) -> None:
        transport = ProviderTransport(self.provider)
        hosts = self.hosts
        for client_class in (httpx2.Client, httpx2.AsyncClient):
            original = client_class._transport_for_url

            def routed(client: Any, url: httpx2.URL, _original: Any = original) -> Any:
                return transport if url.host in hosts else _original(client, url)

            self._stack.enter_context(mock.patch.object(client_class, "_transport_for_url", routed))
