"""The seed's HTTP wire as the suite speaks it: `SeedWireCaller`, a `HostClient`.

The request side is the seed's (`POST /invoke`, `input`, `sessionId`, the
`x-session-id` header, the session cookie); every reply is read through the host's
`HostWireProfile`, so the laws see what it said, not how. Real HTTP
(httpx.AsyncClient) to the host's loopback URL, one client and so one cookie jar per
caller: two callers are two browsers. Every call has the adapter calls' deadline, as a
whole (a host streaming forever is a TIMEOUT, not a hang), and a size limit (a reply
over it is the host's FAIL, read no further). Server-sent events are parsed by
httpx-sse, so a stream is judged by what an ordinary client reads from it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import quote

import httpx
from httpx_sse import EventSource, SSEError

from .._tls import SHARED_TLS
from ..adapter._host_profile import (
    DEFAULT_PROFILE,
    AnswerWay,
    HostOutcome,
    HostWireProfile,
    PauseWay,
    ReadRoute,
    at,
    classify,
    way_of,
)
from ..errors import AdapterTimeout
from ._reply import AwaitingQuestion, HostReply, HostUnreachable, NotTheWire

SSE = "text/event-stream"
STREAMED = frozenset({HostOutcome.ANSWERED, HostOutcome.PAUSED})
"""What a stream carries; a refusal before the run is whole even on the default wire."""
MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The most a host's reply may be: the laws' conversations are a few kilobytes, and a
host answering without end must not take the run's memory with it."""


class SeedWireCaller:
    """A caller of a host speaking the seed's wire, its replies read by `profile`."""

    def __init__(
        self,
        base_url: str,
        *,
        session_cookie: str | None = None,
        token: str | None = None,
        timeout: float = 30.0,
        learn: Callable[[str], object] | None = None,
        profile: HostWireProfile = DEFAULT_PROFILE,
        note: Callable[[str], None] | None = None,
        max_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        """`learn` is told every session cookie value a host issues, so the runner's
        redactor keeps minted ids out of results and snapshots; `note` takes information
        about the host's wire (HostReply.note)."""
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        self._client = httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, verify=SHARED_TLS
        )
        self._cookie = session_cookie
        self._learn = learn
        self._timeout = timeout
        self._profile = profile
        self._note = note
        self._max_bytes = max_bytes

    # --- HostClient -------------------------------------------------------------------

    async def send(
        self,
        message: str,
        *,
        session_id: str | None = None,
        header_session: str | None = None,
        cookie: str | None = None,
        stream: bool = False,
    ) -> HostReply:
        return await self._invoke({"input": message}, session_id, header_session, cookie, stream)

    async def decide(
        self,
        decision: str,
        *,
        session_id: str | None = None,
        header_session: str | None = None,
        cookie: str | None = None,
        stream: bool = False,
    ) -> HostReply:
        body = {self._profile.decision_field: decision}
        return await self._invoke(body, session_id, header_session, cookie, stream)

    async def read_session(self, session_id: str) -> HostReply | None:
        route = self._profile.read
        if not isinstance(route, ReadRoute):
            return None
        path = route.path.replace("{session_id}", quote(session_id, safe=""))
        response, content = await self._exchange("GET", path, headers={})
        data = _json(content)
        said = classify(self._profile, response.status_code, None, data)
        checkpoint = None
        if route.found.matches(response.status_code, None, data):
            checkpoint = at(data, route.checkpoint)
            said = frozenset({HostOutcome.ANSWERED}) if checkpoint is not None else said
        return self._reply(response, content, said=said, body=data, checkpoint=checkpoint)

    async def raw(self, body: bytes, *, headers: Mapping[str, str] | None = None) -> HostReply:
        sent = {"content-type": "application/json", **(headers or {})}
        response, content = await self._exchange("POST", "/invoke", headers=sent, content=body)
        return self._read(response, content)

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- the wire ---------------------------------------------------------------------

    async def _invoke(
        self,
        body: dict[str, str],
        session_id: str | None,
        header_session: str | None,
        cookie: str | None,
        stream: bool,
    ) -> HostReply:
        if session_id is not None:
            body = {**body, "sessionId": session_id}
        headers: dict[str, str] = {}
        if header_session is not None:
            headers["x-session-id"] = header_session
        if cookie is not None:
            if self._cookie is None:
                raise ValueError("cookie= needs a host started with session_cookie=")
            headers["cookie"] = f"{self._cookie}={cookie}"  # replaces the jar's, if any
        if stream:
            headers["accept"] = SSE
        response, content = await self._exchange("POST", "/invoke", headers=headers, json=body)
        reply = self._read(response, content)
        if stream and not reply.events and reply.said & STREAMED and self._note is not None:
            # the seed fixes no streaming: a host may answer a stream's request whole
            self._note("answers a request asking for a stream (Accept: text/event-stream) whole")
        return reply

    async def _exchange(
        self, method: str, path: str, **options: Any
    ) -> tuple[httpx.Response, bytes]:
        """One request and its whole reply, under the call's deadline and size limit."""
        try:
            async with asyncio.timeout(self._timeout):
                async with self._client.stream(method, path, **options) as response:
                    content = bytearray()
                    async for piece in response.aiter_bytes():
                        content += piece
                        if len(content) > self._max_bytes:
                            raise NotTheWire(
                                f"a reply to {method} {path} over {self._max_bytes} bytes "
                                "(read no further)",
                                _evidence(response, bytes(content)),
                            )
                    return response, bytes(content)
        except TimeoutError as error:
            raise AdapterTimeout(
                f"Timeout: the host did not finish answering {method} {path} within "
                f"{self._timeout:g} s (raise --call-timeout or --timeout-multiplier if it "
                "is just slow)"
            ) from error
        except httpx.TransportError as error:
            raise HostUnreachable(
                f"the host at {self._client.base_url} did not answer ({type(error).__name__}: "
                f"{error}): its process is gone, or it stopped listening"
            ) from error

    def _read(self, response: httpx.Response, content: bytes) -> HostReply:
        """A reply to POST /invoke, classified by the profile."""
        if not response.headers.get("content-type", "").startswith(SSE):
            data = _json(content)
            said = classify(self._profile, response.status_code, None, data)
            found = self._said(said, response.status_code, None, data, [])
            return self._reply(response, content, said=said, body=data, **found)
        events = _events(response, content)
        terminal = self._profile.terminal_events() - {self._profile.chunk.event}
        early = [name for name, _ in events[:-1] if name in terminal]
        if not events or early:
            return self._reply(response, content, events=events)
        name, data = events[-1]
        said = classify(self._profile, response.status_code, name, data)
        found = self._said(said, response.status_code, name, data, events)
        return self._reply(response, content, said=said, events=events, **found)

    def _said(
        self,
        said: frozenset[HostOutcome],
        status: int,
        event: str | None,
        data: Any,
        events: list[tuple[str, Any]],
    ) -> dict[str, Any]:
        """The answer's text or the paused question, from the way that said it."""
        found: dict[str, Any] = {}
        answer = way_of(self._profile, HostOutcome.ANSWERED, status, event, data)
        if HostOutcome.ANSWERED in said and isinstance(answer, AnswerWay):
            found["output"] = self._answer_text(answer, data, events)
        pause = way_of(self._profile, HostOutcome.PAUSED, status, event, data)
        if HostOutcome.PAUSED in said and isinstance(pause, PauseWay):
            found["awaiting"] = _question(pause, data)
        return found

    def _answer_text(self, way: AnswerWay, data: Any, events: list[tuple[str, Any]]) -> str:
        if way.text is not None:
            text: str = at(data, way.text)
            return text
        chunk = self._profile.chunk
        pieces = [at(d, chunk.text) for name, d in events[:-1] if name == chunk.event]
        return "".join(p for p in pieces if isinstance(p, str))

    def _reply(
        self,
        response: httpx.Response,
        content: bytes,
        *,
        said: frozenset[HostOutcome] = frozenset(),
        **fields: Any,
    ) -> HostReply:
        raw = response.headers.get_list("set-cookie")
        issued = _cookie_value(raw, self._cookie)
        if issued is not None and self._learn is not None:
            self._learn(issued)
        return HostReply(
            status=response.status_code,
            said=said,
            issued_cookie=issued,
            set_cookie_header=", ".join(raw) if raw else None,
            evidence=_evidence(response, content),
            note=self._note,
            **fields,
        )


def _json(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def _data(text: str) -> Any:
    """An event's data: its JSON, or the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _events(response: httpx.Response, content: bytes) -> list[tuple[str, Any]]:
    """The stream's events, each one's data parsed as JSON where it is JSON."""
    whole = httpx.Response(response.status_code, headers={"content-type": SSE}, content=content)
    try:
        return [(e.event, _data(e.data)) for e in EventSource(whole).iter_sse()]
    except (SSEError, UnicodeDecodeError):
        return []


def _question(way: PauseWay, data: Any) -> AwaitingQuestion:
    def text(pointer: str | None) -> str | None:
        found = at(data, pointer) if pointer is not None else None
        return found if isinstance(found, str) else None

    return AwaitingQuestion(
        session_id=text(way.session_id),
        tool=text(way.tool),
        question=text(way.question) or "",
        tool_call_id=text(way.tool_call_id) or "",
    )


def _cookie_value(headers: list[str], name: str | None) -> str | None:
    if name is None:
        return None
    for header in headers:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(header)
        except CookieError:
            continue
        if name in jar:
            return jar[name].value
    return None


def _evidence(response: httpx.Response, content: bytes) -> str:
    kind = response.headers.get("content-type", "no content-type")
    return f"status {response.status_code}, {kind}: {content[:200]!r}"
