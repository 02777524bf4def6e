"""The loopback transport: a real HTTP server on 127.0.0.1 with an ephemeral port.

Any runtime, in any language, can be pointed at it. It is a raw ASGI app on uvicorn,
run in a background thread with its own event loop, so a test's loop (or a blocking
test) is never the one serving requests. The provider it serves can be swapped, so
one server can outlive many tests.

Besides the provider endpoints it answers a few control paths under `/_turnlaw/`
(never recorded) so that tests written in other languages can read the log and
release holds: `GET /_turnlaw/log`, `GET /_turnlaw/findings`,
`GET /_turnlaw/holds/{label}`, `POST /_turnlaw/holds/{label}/release`.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from types import TracebackType
from typing import Any

import uvicorn

from ._plan import Plan, RawRequest, json_plan
from .provider import ScriptedProvider
from .wirelog import RECORDED_HEADERS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


_RECORDED = frozenset(name.encode("latin-1") for name in RECORDED_HEADERS)


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

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["raw_path"].decode("latin-1") if scope.get("raw_path") else scope["path"]
        if scope.get("query_string"):
            path += "?" + scope["query_string"].decode("latin-1")
        provider = self.provider
        if path.startswith("/_turnlaw/"):
            await _deliver(send, _control(provider, scope["method"], path))
            return
        # ASGI header names arrive lower-cased; only the recorded ones are worth decoding.
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if k in _RECORDED
        ]
        plan = provider.respond(RawRequest(scope["method"], path, headers, bytes(body)))
        if plan.waits:
            await plan.wait_async()
        await _deliver(send, plan)


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
            plan.finished()
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    if not plan.chunks:
        plan.finished()
    if plan.disconnect:
        raise ScriptedDisconnect("scripted disconnect in the middle of the stream")
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _control(provider: ScriptedProvider, method: str, path: str) -> Plan:
    parts = path.split("?", 1)[0].strip("/").split("/")
    if method == "GET" and parts == ["_turnlaw", "log"]:
        return json_plan(200, provider.wire.export_data())
    if method == "GET" and parts == ["_turnlaw", "findings"]:
        return json_plan(200, [f.model_dump(mode="json") for f in provider.findings])
    if len(parts) >= 3 and parts[1] == "holds":
        try:
            hold = provider.hold(parts[2])
        except KeyError as error:
            return json_plan(404, {"error": str(error)})
        if method == "POST" and parts[3:] == ["release"]:
            hold.release()
        if method in ("GET", "POST") and parts[3:] in ([], ["release"]):
            return json_plan(200, {"arrived": hold.has_arrived, "released": hold.is_released})
    return json_plan(404, {"error": f"no control endpoint {method} {path}"})


def bind_loopback(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket, so the URL can be announced before the server loop starts.

    The protocol must be IPPROTO_TCP: asyncio only disables Nagle's algorithm
    (TCP_NODELAY) for sockets created with it, and with Nagle on every request after
    the first on a keep-alive connection waits ~40 ms for a delayed ACK.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def make_server(app: ProviderApp, *, log_level: str = "warning") -> uvicorn.Server:
    logging.getLogger("uvicorn.error").addFilter(_QUIET_DISCONNECTS)
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    return uvicorn.Server(config)


class LoopbackServer:
    """Serve a provider on 127.0.0.1 from a background thread.

    `with LoopbackServer(provider) as p:` starts it and yields the provider with
    `p.base_url` set (`http://127.0.0.1:<port>/v1`, which suits OpenAI and Anthropic
    clients alike); leaving the block releases every hold and stops the server.
    """

    def __init__(self, provider: ScriptedProvider | None = None, *, port: int = 0) -> None:
        self.app = ProviderApp(provider or ScriptedProvider())
        self._port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.root_url = ""

    @property
    def provider(self) -> ScriptedProvider:
        return self.app.provider

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"

    def attach(self, provider: ScriptedProvider) -> ScriptedProvider:
        """Serve a different provider from now on (the server keeps running)."""
        self.app.provider = provider
        provider.base_url = self.base_url
        return provider

    def start(self, timeout: float = 10.0) -> str:
        sock = bind_loopback(port=self._port)
        host, port = sock.getsockname()[:2]
        self.root_url = f"http://{host}:{port}"
        self._server = server = make_server(self.app)
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
            asyncio.run(server.serve(sockets=[sock]))
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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
