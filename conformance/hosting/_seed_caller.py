"""The seed's HTTP wire as the suite speaks it: `SeedWireCaller`, a `HostClient`.

Real HTTP (httpx.AsyncClient) to the host's loopback URL, one client and so one cookie
jar per caller: two callers are two browsers. Server-sent events are parsed by httpx-sse,
not by hand, so a host's stream is judged by what an ordinary client reads from it.
Every reply is read through the wire's models (`_wire`); one that is not the wire is a
`NotTheWire` finding, and a host that does not answer at all is `HostUnreachable`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from http.cookies import CookieError, SimpleCookie
from typing import Any, TypeVar

import httpx
from httpx_sse import SSEError, aconnect_sse
from pydantic import BaseModel, ValidationError

from .._tls import SHARED_TLS
from ..errors import AdapterTimeout
from ._reply import AwaitingQuestion, HostReply, HostUnreachable, NotTheWire
from ._wire import (
    ERROR_STATUS,
    EVENTS,
    STATUSES,
    TERMINAL_EVENTS,
    Answered,
    Awaiting,
    InvokeBody,
    Paused,
    Refusal,
    SessionRead,
)

SSE = "text/event-stream"


class SeedWireCaller:
    """A caller of a host speaking the seed's wire (docs/hosting.md)."""

    def __init__(
        self,
        base_url: str,
        *,
        session_cookie: str | None = None,
        token: str | None = None,
        timeout: float = 30.0,
        learn: Callable[[str], object] | None = None,
    ) -> None:
        """`learn` is told every session cookie value a host issues, so the runner's
        redactor keeps minted ids out of results and snapshots."""
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        self._client = httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, verify=SHARED_TLS
        )
        self._cookie = session_cookie
        self._learn = learn
        self._timeout = timeout

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
        body = InvokeBody(input=message, sessionId=session_id)
        return await self._invoke(body, header_session, cookie, stream)

    async def decide(
        self,
        decision: str,
        *,
        session_id: str | None = None,
        header_session: str | None = None,
        cookie: str | None = None,
        stream: bool = False,
    ) -> HostReply:
        body = InvokeBody(decision=decision, sessionId=session_id)
        return await self._invoke(body, header_session, cookie, stream)

    async def read_session(self, session_id: str) -> HostReply:
        response = await self._request("GET", f"/sessions/{session_id}", headers={})
        data = self._json(response)
        if response.status_code == 200:
            _model(SessionRead, data, "GET /sessions 200")
            return self._reply(response, body=data)
        if response.status_code in ERROR_STATUS.values():
            refusal = _model(Refusal, data, f"GET /sessions {response.status_code}")
            return self._reply(response, body=data, refusal=refusal)
        what = f"GET /sessions answered status {response.status_code}"
        raise NotTheWire(what, _evidence(response))

    async def raw(self, body: bytes, *, headers: Mapping[str, str] | None = None) -> HostReply:
        sent = {"content-type": "application/json", **(headers or {})}
        response = await self._request("POST", "/invoke", headers=sent, content=body)
        return self._read_invoke(response)

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- the wire ---------------------------------------------------------------------

    async def _invoke(
        self, body: InvokeBody, header_session: str | None, cookie: str | None, stream: bool
    ) -> HostReply:
        headers: dict[str, str] = {}
        if header_session is not None:
            headers["x-session-id"] = header_session
        if cookie is not None:
            if self._cookie is None:
                raise ValueError("cookie= needs a host started with session_cookie=")
            headers["cookie"] = f"{self._cookie}={cookie}"  # replaces the jar's, if any
        if not stream:
            response = await self._request("POST", "/invoke", headers=headers, json=body.payload())
            return self._read_invoke(response)
        headers["accept"] = SSE
        try:
            async with aconnect_sse(
                self._client, "POST", "/invoke", json=body.payload(), headers=headers
            ) as source:
                response = source.response
                if not response.headers.get("content-type", "").startswith(SSE):
                    await response.aread()
                    return self._read_invoke(response)  # refused before the run: plain JSON
                events: list[tuple[str, Any]] = []
                async for event in source.aiter_sse():
                    events.append((event.event, _event_data(event.event, event.data)))
                return self._read_stream(response, events)
        except SSEError as error:
            raise NotTheWire("a stream httpx-sse cannot read", str(error)) from error
        except httpx.TimeoutException as error:
            raise self._timed_out("POST /invoke (stream)") from error
        except httpx.TransportError as error:
            raise self._unreachable(error) from error

    async def _request(self, method: str, path: str, **options: Any) -> httpx.Response:
        try:
            return await self._client.request(method, path, **options)
        except httpx.TimeoutException as error:
            raise self._timed_out(f"{method} {path}") from error
        except httpx.TransportError as error:
            raise self._unreachable(error) from error

    def _timed_out(self, what: str) -> AdapterTimeout:
        return AdapterTimeout(f"Timeout: the host did not answer {what} within {self._timeout:g} s")

    def _unreachable(self, error: httpx.TransportError) -> HostUnreachable:
        return HostUnreachable(
            f"the host at {self._client.base_url} did not answer ({type(error).__name__}: "
            f"{error}): its process is gone, or it stopped listening"
        )

    def _read_invoke(self, response: httpx.Response) -> HostReply:
        status = response.status_code
        if status not in STATUSES:
            raise NotTheWire(f"POST /invoke answered status {status}", _evidence(response))
        data = self._json(response)
        where = f"POST /invoke {status}"
        if status == 200:
            answered = _model(Answered, data, where)
            return self._reply(response, body=data, output=answered.output)
        if status == 202:
            paused = _model(Paused, data, where)
            return self._reply(response, body=data, awaiting=_question(paused.awaiting))
        return self._reply(response, body=data, refusal=_model(Refusal, data, where))

    def _read_stream(self, response: httpx.Response, events: list[tuple[str, Any]]) -> HostReply:
        ends = [i for i, (name, _) in enumerate(events) if name in TERMINAL_EVENTS]
        if len(ends) != 1 or ends[0] != len(events) - 1:
            names = [name for name, _ in events]
            raise NotTheWire("a stream without exactly one terminal event, last", f"{names}")
        name, data = events[-1]
        output = data.get("output") if name == "complete" else None
        awaiting = _question(Awaiting.model_validate(data)) if name == "awaiting" else None
        refusal = Refusal.model_validate(data) if name == "error" else None
        return self._reply(
            response, output=output, awaiting=awaiting, refusal=refusal, events=events
        )

    def _json(self, response: httpx.Response) -> Any:
        try:
            return json.loads(response.content)
        except ValueError:
            raise NotTheWire("a body that is not JSON", _evidence(response)) from None

    def _reply(
        self,
        response: httpx.Response,
        *,
        body: Any = None,
        output: str | None = None,
        awaiting: AwaitingQuestion | None = None,
        refusal: Refusal | None = None,
        events: list[tuple[str, Any]] | None = None,
    ) -> HostReply:
        raw = response.headers.get_list("set-cookie")
        issued = _cookie_value(raw, self._cookie)
        if issued is not None and self._learn is not None:
            self._learn(issued)
        return HostReply(
            status=response.status_code,
            output=output,
            awaiting=awaiting,
            code=refusal.code if refusal is not None else None,
            error=refusal.error if refusal is not None else None,
            issued_cookie=issued,
            set_cookie_header=", ".join(raw) if raw else None,
            events=events or [],
            body=body,
        )


M = TypeVar("M", bound=BaseModel)


def _model(model: type[M], data: Any, where: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}"
            for e in error.errors(include_url=False)[:3]
        )
        raise NotTheWire(
            f"{where}: a body that is not the wire's {model.__name__}", problems
        ) from None


def _event_data(name: str, data: str) -> Any:
    if name not in EVENTS:
        raise NotTheWire(f"an SSE event the wire has not ({name!r})", data[:200])
    try:
        parsed = json.loads(data)
    except ValueError:
        raise NotTheWire(f"SSE {name!r} data that is not JSON", data[:200]) from None
    _model(EVENTS[name], parsed, f"SSE {name!r}")
    return parsed


def _question(awaiting: Awaiting) -> AwaitingQuestion:
    return AwaitingQuestion(
        awaiting.sessionId, awaiting.tool, awaiting.question, awaiting.toolCallId
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


def _evidence(response: httpx.Response) -> str:
    kind = response.headers.get("content-type", "no content-type")
    return f"status {response.status_code}, {kind}: {response.content[:200]!r}"
