"""`python -m benchmarks.bare_server`: the loopback baseline, a hello-world on uvicorn.

A raw ASGI app that answers every request with one constant chat.completion body, served
by single-process uvicorn with the settings of `conformance.wire.loopback.make_server`
(h11, lifespan off, access log off, log level warning). The parser is named, not left to
uvicorn's "auto": with httptools installed, auto would give the baseline a faster parser
than turnlaw's h11 and the ratio would measure parsers, not the fake. Whatever it reaches
in requests/s is the ceiling uvicorn itself sets on this machine; turnlaw's server is
measured against it.
Like `python -m conformance.wire serve`, it prints its base URL as the first line of
stdout and serves until SIGINT.

Its socket is made as uvicorn makes its own from `--host/--port` (protocol IPPROTO_TCP),
so asyncio switches Nagle off on every connection — what any hello-world server gets.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvicorn

from .payloads import BARE_REPLY

Message = MutableMapping[str, Any]

HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BARE_REPLY)).encode()),
]


async def app(
    scope: MutableMapping[str, Any],
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    """Drain the request body (as turnlaw does), then send the constant reply."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BARE_REPLY})


def bind() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def main() -> int:
    sock = bind()
    host, port = sock.getsockname()[:2]
    print(f"http://{host}:{port}/v1", flush=True)
    config = uvicorn.Config(
        app,
        http="h11",  # turnlaw's parser (GuardedH11Protocol), not uvicorn's pick: same stack
        lifespan="off",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
