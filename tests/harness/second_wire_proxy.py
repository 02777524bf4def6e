"""The second wire's translating proxy, in a process of its own (issue 31 §3).

`SecondWireImplementation` (tests/harness/second_wire.py, where the wire itself is
described) starts `python -m tests.harness.second_wire_proxy` with the inner host's URL
on its stdin; this module is everything that process runs: the pure translation between
the reference's wire and the second one, and the Starlette app (on uvicorn, httpx to
the inner host) that applies it. It lives apart from the implementation so that each
module keeps one purpose; it takes the refusal table (`REFUSALS`) and its first line's
prefix (`LISTENING`) from second_wire.py, so the proxy and the profile that declares
its wire cannot drift apart.

The proxy prints `LISTENING` and its URL once it serves; it exits when its parent does
(its stdin closes) and when the inner host stops answering (`EXIT_HOST_GONE`). Every
proxied call is bounded (`PROXY_DEADLINE`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from http.cookiejar import Cookie, CookieJar
from typing import TYPE_CHECKING, Any, NoReturn

from tests.harness.second_wire import LISTENING, REFUSALS

if TYPE_CHECKING:
    import httpx
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

PROXY_DEADLINE = 120.0
"""Seconds one proxied call may take, reply and stream whole (the suite's own call
deadline is shorter, so a slow host is the suite's TIMEOUT, not this proxy's)."""
CONNECT_DEADLINE = 5.0
EXIT_HOST_GONE = 70
"""The proxy's exit status when the inner host stopped answering."""
SSE = "text/event-stream"
RUN_FAILED = "ERR_RUN_FAILED"
"""The reference's failed run: 500 `{"message"}` here, a kind of no code at all."""
KINDS: dict[str, tuple[str, int]] = {
    code: (kind, status) for code, kind, status in REFUSALS.values()
}
"""The reference's code -> this wire's kind and status."""


# --- the translation (pure: the proxy's whole knowledge of both wires) -----------------


def renamed_body(raw: bytes) -> bytes:
    """A request body of this wire as the inner host reads it: `answer` becomes
    `decision` (a `decision` of its own is not this wire's field, and is dropped). A body
    that is not a JSON object goes as it is: the inner host refuses it."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw
    if not isinstance(data, dict):
        return raw
    body = {key: value for key, value in data.items() if key not in ("decision", "answer")}
    if "answer" in data:
        body["decision"] = data["answer"]
    return json.dumps(body).encode()


def _ask(awaiting: Mapping[str, Any]) -> dict[str, Any]:
    call = {"id": awaiting.get("toolCallId"), "tool": awaiting.get("tool")}
    return {"ask": {"question": awaiting.get("question"), "call": call}}


def _problem(code: str, data: Mapping[str, Any]) -> tuple[str, dict[str, Any], int] | None:
    """A reference error body as this wire's event name, data and status, or None."""
    said = data.get("error")
    message = said if isinstance(said, str) else ""
    if code == RUN_FAILED:
        return "failure", {"message": message}, 500
    if code in KINDS:
        kind, status = KINDS[code]
        return "problem", {"kind": kind, "detail": message}, status
    return None


def translated_reply(status: int, data: Any, *, streamed: bool) -> tuple[int, Any, str | None]:
    """A plain JSON reply of the inner host in this wire: (status, body, None) for a
    JSON reply, (status, event data, event name) for a one-event stream (a refusal to a
    streamed request), or the reply unchanged, as (status, data, None), when this wire
    has no word for it."""
    if not isinstance(data, dict):
        return status, data, None
    if status == 200 and isinstance(data.get("output"), str):
        return 200, {"reply": {"text": data["output"]}}, None
    if status == 202 and isinstance(data.get("awaiting"), dict):
        return 200, {"pause": _ask(data["awaiting"])}, None
    code = data.get("code")
    found = _problem(code, data) if isinstance(code, str) else None
    if found is None:
        return status, data, None
    name, said, own_status = found
    if streamed:
        return 200, said, name
    if name == "failure":
        return own_status, said, None
    return own_status, {"problem": said}, None


def translated_event(name: str, data: Any) -> tuple[str, Any]:
    """One server-sent event of the inner host in this wire (unknown ones unchanged)."""
    if not isinstance(data, dict):
        return name, data
    if name == "chunk":
        return "delta", {"t": data.get("text")}
    if name == "complete":
        return "done", {}
    if name == "awaiting":
        return "pause", _ask(data)
    if name == "error" and isinstance(data.get("code"), str):
        found = _problem(data["code"], data)
        if found is not None:
            return found[0], found[1]
    return name, data


def sse_block(name: str, data: Any) -> str:
    """One server-sent event as text (data that is not JSON-able text as it is)."""
    text = data if isinstance(data, str) else json.dumps(data)
    lines = "".join(f"data: {line}\n" for line in text.split("\n"))
    return f"event: {name}\n{lines}\n"


# --- the proxy (in its own process) ---------------------------------------------------

_NOT_FORWARDED = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "upgrade",
        "proxy-connection",
        "accept-encoding",
    }
)
"""Request headers that are the connection's, not the request's: everything else (the
session id header, cookies, Authorization, Accept) goes to the inner host."""


def _forwarded(raw: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    return [(k, v) for k, v in raw if k.decode("latin-1").lower() not in _NOT_FORWARDED]


def _with_cookies(response: Response, inner: httpx.Response) -> Response:
    """Every Set-Cookie the inner host sent, on this wire's reply."""
    for value in inner.headers.get_list("set-cookie"):
        response.raw_headers.append((b"set-cookie", value.encode("latin-1")))
    return response


class _NoCookies(CookieJar):
    """A cookie jar that keeps nothing: the proxy carries its callers' cookies, never
    its own."""

    def set_cookie(self, cookie: Cookie) -> None:
        return None

    def extract_cookies(self, response: Any, request: Any) -> None:
        return None


def _host_gone() -> NoReturn:
    """The inner host stopped answering: so does this proxy (one host to the caller,
    whose connection then drops, as it does from a crashed host)."""
    sys.stderr.write("second-wire proxy: the inner host stopped answering; exiting\n")
    sys.stderr.flush()
    os._exit(EXIT_HOST_GONE)


def build_proxy(target: str) -> Starlette:
    """The proxy's ASGI app, forwarding to the inner host at `target`."""
    import httpx
    from httpx_sse import EventSource
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    # no keep-alive (a pooled connection the inner host closed is no error of its), no
    # cookie jar (two callers' cookies must never meet here), no proxy from the env
    client = httpx.AsyncClient(
        base_url=target,
        timeout=httpx.Timeout(PROXY_DEADLINE, connect=CONNECT_DEADLINE),
        limits=httpx.Limits(max_keepalive_connections=0),
        cookies=_NoCookies(),
        trust_env=False,
    )

    async def exchange(method: str, path: str, **options: Any) -> httpx.Response | None:
        """The inner host's reply, its body not yet read; None: past the deadline."""
        try:
            async with asyncio.timeout(PROXY_DEADLINE):
                request = client.build_request(method, path, **options)
                return await client.send(request, stream=True)
        except TimeoutError:
            return None
        except httpx.TransportError:
            _host_gone()

    async def read_whole(reply: httpx.Response) -> bytes | None:
        try:
            async with asyncio.timeout(PROXY_DEADLINE):
                return await reply.aread()
        except TimeoutError:
            return None
        except httpx.TransportError:
            _host_gone()
        finally:
            await reply.aclose()

    def late(what: str) -> Response:
        return PlainTextResponse(
            f"second-wire proxy: the inner host did not {what} within {PROXY_DEADLINE:g} s",
            status_code=504,
        )

    async def invoke(request: Request) -> Response:
        streamed = SSE in request.headers.get("accept", "")
        reply = await exchange(
            "POST",
            "/invoke",
            content=renamed_body(await request.body()),
            headers=_forwarded(request.headers.raw),
        )
        if reply is None:
            return late("answer")
        if reply.headers.get("content-type", "").startswith(SSE):
            return _with_cookies(
                StreamingResponse(events(reply), status_code=reply.status_code, media_type=SSE),
                reply,
            )
        content = await read_whole(reply)
        if content is None:
            return late("finish its reply")
        try:
            data = json.loads(content)
        except ValueError:
            return _with_cookies(passed(reply, content), reply)
        status, said, event = translated_reply(reply.status_code, data, streamed=streamed)
        if event is not None:
            block = sse_block(event, said)
            return _with_cookies(Response(block, status_code=status, media_type=SSE), reply)
        if said is data and status == reply.status_code:
            return _with_cookies(passed(reply, content), reply)
        return _with_cookies(JSONResponse(said, status_code=status), reply)

    async def events(reply: httpx.Response) -> AsyncIterator[str]:
        try:
            async with asyncio.timeout(PROXY_DEADLINE):
                async for event in EventSource(reply).aiter_sse():
                    try:
                        data: Any = json.loads(event.data)
                    except ValueError:
                        data = event.data
                    yield sse_block(*translated_event(event.event, data))
        except TimeoutError:
            return  # the stream ends without its terminal event: the caller sees that
        except httpx.TransportError:
            _host_gone()
        finally:
            await reply.aclose()

    def passed(reply: httpx.Response, content: bytes) -> Response:
        kind = reply.headers.get("content-type")
        return Response(content, status_code=reply.status_code, media_type=kind)

    async def health(request: Request) -> Response:
        reply = await exchange("GET", "/health")
        if reply is None:
            return late("answer")
        content = await read_whole(reply)
        return late("finish its reply") if content is None else passed(reply, content)

    return Starlette(
        routes=[
            Route("/invoke", invoke, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )


async def _serve(target: str) -> None:
    import uvicorn

    from conformance._prompt_server import PromptServer

    config = uvicorn.Config(
        build_proxy(target),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        http="h11",
        timeout_graceful_shutdown=5,
    )
    server = PromptServer(config, signals=True)  # SIGTERM: finish what runs, then exit
    task = asyncio.ensure_future(server.serve())
    while not server.started:
        if task.done():
            task.result()  # it failed to start: say why
            raise RuntimeError("the second-wire proxy did not start")
        await asyncio.sleep(0.005)
    host, port = server.servers[0].sockets[0].getsockname()[:2]
    print(f"{LISTENING}http://{host}:{port}", flush=True)
    await task


def _exit_with_parent() -> None:
    """Until stdin closes (the process that started this one is gone), then exit."""
    with contextlib.suppress(OSError):
        while sys.stdin.buffer.read(4096):
            pass
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    """`python -m tests.harness.second_wire_proxy`: the inner host's URL is stdin's first line."""
    if argv or (argv is None and sys.argv[1:]):
        print("usage: python -m tests.harness.second_wire_proxy  (URL on stdin)", file=sys.stderr)
        return 2
    target = sys.stdin.buffer.readline().decode("utf-8").strip()
    if not target.startswith("http://"):
        print(f"second-wire proxy: no inner host URL on stdin ({target!r})", file=sys.stderr)
        return 2
    threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    asyncio.run(_serve(target))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
