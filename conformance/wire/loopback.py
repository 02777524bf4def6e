"""The loopback transport: a real HTTP server on 127.0.0.1 with an ephemeral port.

Any runtime, in any language, can be pointed at it. It is a raw ASGI app on uvicorn,
run in a background thread with its own event loop, so a test's loop (or a blocking
test) is never the one serving requests. The provider it serves can be swapped, so
one server can outlive many tests: each attached provider is served under its own path
prefix (`/turnlaw/<n>/v1`), and a request to a retired prefix — a late call from an
adapter whose test already ended — is refused with a 410, never recorded by the next
test's provider. Recorded paths leave the prefix out, so recordings do not change.

It cannot be held or exhausted: bodies over `max_body` are a 413 (drained, not kept),
a body must arrive within `body_timeout`, a request head within `header_timeout`
(`_connections`), idle keep-alive connections close after `idle_timeout`; an upload the
client abandons is recorded as aborted and uses no step.

Besides the provider endpoints it answers a few control paths under `/_turnlaw/`
(never recorded) so that tests written in other languages can read the log and
release holds: `GET /_turnlaw/log`, `GET /_turnlaw/findings`,
`GET /_turnlaw/holds/{label}`, `POST /_turnlaw/holds/{label}/release`. The log is exported
on a worker thread, so a huge log never stops the server answering.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from functools import lru_cache
from typing import Any

import uvicorn

from .._prompt_server import PromptServer
from ..redaction import is_credential_name
from ._connections import STALLED, AcceptErrors, guarded_protocol
from ._plan import BodyCut, Plan, RawRequest, json_plan
from ._routes import PREFIX, Endpoint, Resolved, resolve_server
from .dialects._base import json_body
from .provider import DEFAULT_MAX_BODY, ScriptedProvider
from .wirelog import RECORDED_HEADERS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_IDLE_TIMEOUT = 5.0
DRAIN_FACTOR = 4
"""A body over the limit is read and dropped up to this many times the limit, so the client
(which sends its whole body before reading) sees the 413 instead of a reset."""
LISTEN_BACKLOG = 128


@lru_cache(maxsize=1024)
def _wanted_header(name: bytes) -> bool:
    """Recorded, or credential-bearing (the redactor learns it). Cached: names repeat."""
    text = name.decode("latin-1")
    return text in RECORDED_HEADERS or is_credential_name(text)


class ScriptedDisconnect(Exception):
    """Raised inside the app to cut a stream; uvicorn then drops the connection."""


class _QuietDisconnects(logging.Filter):
    """Drop uvicorn's error log for a disconnect the script asked for."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ScriptedDisconnect)


_QUIET_DISCONNECTS = _QuietDisconnects()  # one instance: addFilter ignores a repeat


class ProviderApp:
    """The ASGI app: HTTP in, `provider.respond()`, plan out."""

    def __init__(
        self,
        provider: ScriptedProvider,
        *,
        max_body: int = DEFAULT_MAX_BODY,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
    ) -> None:
        self._route: tuple[str, ScriptedProvider] = ("", provider)  # swapped in one step
        self._generation = 0
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.late_requests = 0
        self.late: deque[str] = deque(maxlen=100)

    @property
    def provider(self) -> ScriptedProvider:
        return self._route[1]

    @provider.setter
    def provider(self, provider: ScriptedProvider) -> None:
        self._route = (self._route[0], provider)

    @property
    def prefix(self) -> str:
        return self._route[0]

    def serve(self, provider: ScriptedProvider) -> str:
        """Serve `provider` under a new prefix from now on and retire the current one."""
        self._generation += 1
        prefix = f"{PREFIX}{self._generation}"
        self._route = (prefix, provider)
        return prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        target = scope["raw_path"].decode("latin-1") if scope.get("raw_path") else scope["path"]
        prefix, provider = self._route
        route = resolve_server(scope["method"], target, prefix)
        if route.control:
            await self._drain(receive, self.max_body)
            await _deliver(send, await _control(provider, scope["method"], target, route))
            return
        if route.endpoint is Endpoint.RETIRED:
            await self._drain(receive, self.max_body)
            await _deliver(send, self._retired(scope["method"], route))
            return
        path = route.path
        if scope.get("query_string"):
            path += "?" + scope["query_string"].decode("latin-1")
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if _wanted_header(k)
        ]
        body, cut = await self._read_body(scope, receive, min(self.max_body, provider.max_body))
        plan = provider.respond(RawRequest(scope["method"], path, headers, body, cut))
        if cut is not None and cut.reason in ("aborted", "stalled"):
            return  # the client is gone, or cut off: nobody to answer
        if cut is not None and cut.reason == "too_large" and _drainable(scope, cut):
            await self._drain(receive, DRAIN_FACTOR * (cut.limit or 0) - cut.received)
        if plan.waits:
            try:
                await plan.wait_async()
            except asyncio.CancelledError:
                plan.late_finding(
                    "unanswered", "the server stopped before this reply was sent (held or delayed)"
                )
                raise
        await _deliver(send, plan)

    async def _read_body(
        self, scope: Scope, receive: Receive, limit: int
    ) -> tuple[bytes, BodyCut | None]:
        """The whole body, or why not: over `limit` (declared or sent), abandoned, or cut
        off by the protocol's body deadline (`_connections`): no timer of its own here."""
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            return b"", BodyCut("too_large", 0, declared, limit)
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                if STALLED in scope:
                    detail = f"the body did not arrive within {scope[STALLED]:g}s and was cut off"
                    return b"", BodyCut("stalled", received, declared, detail=detail)
                return b"", BodyCut("aborted", received, declared)
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                return b"", BodyCut("too_large", received, declared, limit)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks), None

    async def _drain(self, receive: Receive, budget: int) -> None:
        """Read and drop what is left of a body (up to `budget` bytes, within the body
        timeout), so the client gets to read the reply."""
        try:
            async with asyncio.timeout(self.body_timeout):
                while budget > 0:
                    message = await receive()
                    if message["type"] == "http.disconnect" or not message.get("more_body"):
                        return
                    budget -= len(message.get("body", b""))
        except TimeoutError:
            return

    def _retired(self, method: str, route: Resolved) -> Plan:
        """A late request: refused, counted, and recorded by no provider."""
        scrub = self.provider.redactor.scrub_text  # the session's, for the fixtures
        where = scrub(route.path[:200])
        self.late_requests += 1
        self.late.append(f"{scrub(method[:20])} {where}")
        message = (
            f"turnlaw: {where} is not served any more: the provider at this base URL was "
            "retired (its test ended, so this is a late request), or the runtime dropped "
            "the path of the base URL it was given"
        )
        codec = route.codec
        body = codec.render_error(410, message) if codec else {"error": {"message": message}}
        return json_plan(410, body)


def _drainable(scope: Scope, cut: BodyCut) -> bool:
    """Whether reading the rest of a refused body is worth it: not when the client waits
    for `100 Continue` (it has sent nothing), nor when it declared far more than we drain."""
    if any(k == b"expect" and v.lower() == b"100-continue" for k, v in scope["headers"]):
        return False
    return cut.declared is None or cut.declared <= DRAIN_FACTOR * (cut.limit or 0)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:  # h11 refuses these before the app sees them
                return None
    return None


async def _deliver(send: Send, plan: Plan) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in plan.headers]
    if len(plan.chunks) == 1 and not plan.disconnect:  # a JSON reply: one body, sized
        headers.append((b"content-length", str(len(plan.chunks[0])).encode()))
        await send({"type": "http.response.start", "status": plan.status, "headers": headers})
        plan.finished()  # before the last send: once it is out, the client may look at once
        await send({"type": "http.response.body", "body": plan.chunks[0]})
        return
    await send({"type": "http.response.start", "status": plan.status, "headers": headers})
    for index, chunk in enumerate(plan.chunks):
        if index == len(plan.chunks) - 1:
            await plan.end_held_async()
            plan.finished()
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    if not plan.chunks:
        plan.finished()
    if plan.disconnect:
        raise ScriptedDisconnect("scripted disconnect in the middle of the stream")
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _control(provider: ScriptedProvider, method: str, path: str, route: Resolved) -> Plan:
    endpoint = route.endpoint
    if endpoint is Endpoint.LOG:
        # on a worker thread: a log of huge bodies takes seconds to export
        body = await asyncio.to_thread(lambda: json_body(provider.wire.export_data()))
        return Plan(200, [("content-type", "application/json")], [body])
    if endpoint is Endpoint.FINDINGS:
        findings = [f.model_dump(mode="json") for f in provider.findings]
        return json_plan(200, provider.redactor.scrub_data(findings))
    if endpoint in (Endpoint.HOLD, Endpoint.HOLD_RELEASE) and route.label is not None:
        try:
            hold = provider.hold(route.label)
        except KeyError as error:
            return json_plan(404, {"error": provider.redactor.scrub_text(str(error))})
        if endpoint is Endpoint.HOLD_RELEASE:
            hold.release()
        return json_plan(200, {"arrived": hold.has_arrived, "released": hold.is_released})
    if endpoint is Endpoint.SERVICE and route.label is not None:
        status, reply = await provider.service_gate(route.label).answer(provider.hold_limit)
        return Plan(status, [("content-type", "text/plain; charset=utf-8")], [reply.encode()])
    message = provider.redactor.scrub_text(f"no control endpoint {method} {path[:200]}")
    status = 405 if endpoint is Endpoint.METHOD_NOT_ALLOWED else 404
    plan = json_plan(status, {"error": message})
    if route.allow:
        plan.headers.append(("allow", route.allow))
    return plan


def bind_loopback(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket, so the URL can be announced before the server loop starts.

    The protocol must be IPPROTO_TCP: asyncio only disables Nagle's algorithm
    (TCP_NODELAY) for sockets created with it, and with Nagle on every request after
    the first on a keep-alive connection waits ~40 ms for a delayed ACK.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


def make_server(
    app: ProviderApp,
    *,
    log_level: str = "warning",
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
) -> PromptServer:
    """uvicorn for `app`, with the request deadlines (the body's is the app's)."""
    logging.getLogger("uvicorn.error").addFilter(_QUIET_DISCONNECTS)
    config = uvicorn.Config(
        app,
        http=guarded_protocol(header_timeout, app.body_timeout),
        ws="none",
        lifespan="off",
        log_level=log_level,
        access_log=False,
        timeout_keep_alive=max(1, math.ceil(idle_timeout)),
        timeout_graceful_shutdown=2,
        backlog=LISTEN_BACKLOG,
    )
    # a stop is prompt (the suite stops one per run, a kill run one per job), and the
    # command line keeps uvicorn's SIGINT/SIGTERM handling (a thread's server has none)
    return PromptServer(config, signals=True)


async def serve_quietly(server: uvicorn.Server, sock: socket.socket) -> AcceptErrors:
    """Run `server` on `sock` with accept errors collapsed into one warning."""
    accept_errors = AcceptErrors()
    asyncio.get_running_loop().set_exception_handler(accept_errors)
    await server.serve(sockets=[sock])
    return accept_errors


class LoopbackServer:
    """Serve a provider on 127.0.0.1 from a background thread.

    `with LoopbackServer(provider) as p:` starts it and yields the provider with
    `p.base_url` set (`http://127.0.0.1:<port>/v1`, which suits OpenAI and Anthropic
    clients alike); leaving the block releases every hold and stops the server.
    `attach()` serves another provider under its own base URL and retires the last one.
    `max_body` caps every body the server reads (each provider's own `max_body` too).
    """

    def __init__(
        self,
        provider: ScriptedProvider | None = None,
        *,
        port: int = 0,
        max_body: int = DEFAULT_MAX_BODY,
        header_timeout: float = DEFAULT_HEADER_TIMEOUT,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        for name, value in (
            ("header_timeout", header_timeout),
            ("body_timeout", body_timeout),
            ("idle_timeout", idle_timeout),
        ):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number of seconds > 0, not {value!r}")
        self.app = ProviderApp(
            provider or ScriptedProvider(), max_body=max_body, body_timeout=body_timeout
        )
        self._port = port
        self._header_timeout = header_timeout
        self._idle_timeout = idle_timeout
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.root_url = ""

    @property
    def provider(self) -> ScriptedProvider:
        return self.app.provider

    @property
    def base_url(self) -> str:
        """The base URL of the provider served now."""
        return self.root_url + self.app.prefix + "/v1"

    @property
    def late_requests(self) -> int:
        """Requests refused because they came to a retired provider (see `late`)."""
        return self.app.late_requests

    @property
    def late(self) -> list[str]:
        """The last 100 of them, as `METHOD path`."""
        return list(self.app.late)

    def attach(self, provider: ScriptedProvider) -> ScriptedProvider:
        """Serve a different provider from now on (the server keeps running); requests to
        the previous one's base URL are refused from now on."""
        self.app.serve(provider)
        if self.root_url:
            provider.base_url = self.base_url
        return provider

    def start(self, timeout: float = 10.0) -> str:
        sock = bind_loopback(port=self._port)
        host, port = sock.getsockname()[:2]
        self.root_url = f"http://{host}:{port}"
        self._server = server = make_server(
            self.app, header_timeout=self._header_timeout, idle_timeout=self._idle_timeout
        )
        self._thread = threading.Thread(
            target=self._run, args=(server, sock), name=f"turnlaw-loopback-{port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"turnlaw loopback server failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"turnlaw loopback server did not start within {timeout}s")
            time.sleep(0.002)
        self.provider.base_url = self.base_url
        return self.base_url

    def _run(self, server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            asyncio.run(serve_quietly(server, sock))
        except BaseException as error:  # surfaced by start()
            self._error = error
        finally:
            sock.close()

    def stop(self) -> None:
        self.provider.release_all()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> ScriptedProvider:
        self.start()
        return self.provider

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
