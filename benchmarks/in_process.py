"""In-process cost per request: turnlaw's `InProcess` vs a bare respx route, same client.

Both variants are intercepted by respx at the transport, so the figure compares what each
does once a request reaches the mock: respx cloning a constant response, against turnlaw
parsing, recording, checking and rendering. openai>=3 sends through httpx2, and respx only
patches what `import httpx` gives, so httpx must be aliased to httpx2 before httpx or
respx is imported anywhere; `conformance.httpx2_alias` does that and fails if it is late.
"""

from __future__ import annotations

import conformance.httpx2_alias  # noqa: F401  (must come before httpx and respx)

# isort: split

import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import openai
import respx

from conformance.wire import InProcess, ScriptedProvider, httpx2_is_aliased, text
from conformance.wire.in_process import IN_PROCESS_ROOT

from .payloads import API_KEY, BARE_REPLY, CHAT_PATH, CHAT_REQUEST, MODEL, REPLY_MARKER, REPLY_TEXT
from .rounds import Figures, Measure, Table, alternate

BARE_ROOT = "http://bare.test"
OUR_BASE_URL = IN_PROCESS_ROOT + "/v1"
PER_REQUEST = "us_per_request"
MESSAGES: list[Any] = [{"role": "user", "content": "hello"}]
REQUEST_HEADERS = {"content-type": "application/json", "authorization": f"Bearer {API_KEY}"}


class MiswiredError(RuntimeError):
    """A variant did not get its answer from the mock it is meant to measure."""


def _require_alias() -> None:
    if not httpx2_is_aliased():
        raise MiswiredError(
            "`import httpx` does not give httpx2, so respx cannot see the openai SDK's "
            "requests; import conformance.httpx2_alias before anything imports httpx"
        )


def _bare_router() -> respx.MockRouter:
    """One route, a constant pre-serialized body; anything unmatched raises."""
    router = respx.mock(using="httpx", assert_all_called=True, assert_all_mocked=True)
    router.post(BARE_ROOT + CHAT_PATH, name="chat").mock(
        return_value=httpx.Response(
            200, content=BARE_REPLY, headers={"content-type": "application/json"}
        )
    )
    return router


def _check_bare(router: respx.MockRouter, expected: int) -> None:
    calls = router.routes["chat"].call_count
    if calls != expected:
        raise MiswiredError(f"bare respx route answered {calls} request(s), expected {expected}")


def _check_serving(provider: ScriptedProvider) -> None:
    if provider.base_url != OUR_BASE_URL:
        raise MiswiredError(f"InProcess now serves {provider.base_url}, not {OUR_BASE_URL}")


def _check_ours(provider: ScriptedProvider, expected: int) -> None:
    if len(provider.wire) != expected:
        raise MiswiredError(
            f"turnlaw recorded {len(provider.wire)} exchange(s), expected {expected}"
        )
    provider.verify()  # no findings: every step used, nothing malformed


async def _timed(batch: int, one: Callable[[], Awaitable[None]]) -> Figures:
    """Microseconds per request over a batch of sequential requests."""
    start = time.perf_counter()
    for _ in range(batch):
        await one()
    return {PER_REQUEST: (time.perf_counter() - start) / batch * 1e6}


def _sdk_client(base_url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0)


def _sdk_variants(batch: int) -> dict[str, Measure]:
    # One client per variant for the whole run: building one is not what is measured.
    bare_client = _sdk_client(BARE_ROOT + "/v1")
    our_client = _sdk_client(OUR_BASE_URL)
    steps = [text(REPLY_TEXT)] * batch

    async def call(client: openai.AsyncOpenAI) -> None:
        reply = await client.chat.completions.create(model=MODEL, messages=MESSAGES)
        if reply.choices[0].message.content != REPLY_TEXT:
            raise MiswiredError(f"unexpected reply: {reply!r}")

    async def bare() -> Figures:
        with _bare_router() as router:
            figures = await _timed(batch, lambda: call(bare_client))
            _check_bare(router, batch)  # respx resets its call counts on exit
        return figures

    async def ours() -> Figures:
        provider = ScriptedProvider(steps)
        with InProcess(provider):
            _check_serving(provider)
            figures = await _timed(batch, lambda: call(our_client))
        _check_ours(provider, batch)
        return figures

    return {"bare": bare, "turnlaw": ours}


def _httpx_variants(client: httpx.AsyncClient, batch: int) -> dict[str, Measure]:
    steps = [text(REPLY_TEXT)] * batch

    async def post(url: str) -> None:
        response = await client.post(url, content=CHAT_REQUEST, headers=REQUEST_HEADERS)
        if response.status_code != 200 or REPLY_MARKER not in response.content:
            raise MiswiredError(f"unexpected reply: {response.status_code} {response.content!r}")

    async def bare() -> Figures:
        with _bare_router() as router:
            figures = await _timed(batch, lambda: post(BARE_ROOT + CHAT_PATH))
            _check_bare(router, batch)
        return figures

    async def ours() -> Figures:
        provider = ScriptedProvider(steps)
        with InProcess(provider):
            figures = await _timed(batch, lambda: post(OUR_BASE_URL + "/chat/completions"))
        _check_ours(provider, batch)
        if provider.wire.last.model != MODEL or provider.wire.last.user_texts() != ["hello"]:
            raise MiswiredError("turnlaw recorded a different request than was sent")
        return figures

    return {"bare": bare, "turnlaw": ours}


async def sdk_per_request(*, rounds: int, batch: int) -> Table:
    """Microseconds per `chat.completions.create` through openai.AsyncOpenAI, per round."""
    _require_alias()
    return await alternate(_sdk_variants(batch), rounds=rounds)


async def httpx_per_request(*, rounds: int, batch: int) -> Table:
    """Microseconds per `httpx.AsyncClient().post(...)` of a minimal chat body, per round."""
    _require_alias()
    async with httpx.AsyncClient() as client:
        return await alternate(_httpx_variants(client, batch), rounds=rounds)
