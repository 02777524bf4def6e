"""A second wire: the reference host behind a translating proxy that says every outcome
its own way, and the `HostWireProfile` that declares it (issue 31 §3).

The hosting laws judge a host by the outcome its wire profile classifies a reply as,
never by its bytes. This harness proves it with a host that is the reference in every
behaviour and a stranger on the wire: `SecondWireImplementation(inner)` starts the
inner implementation's host, then a proxy process in front of it (Starlette on uvicorn,
httpx to the inner host) that translates each reply, and hands back the proxy's URL
with `wire_profile = SECOND_WIRE_PROFILE`. The second wire:

- answered: 200 `{"reply": {"text"}}`; streamed, `delta` events `{"t"}`, then a `done`
  event `{}` (the answer is the deltas' text: no output in it);
- paused: 200 (not 202) `{"pause": {"ask": {"question", "call": {"id", "tool"}}}}`, no
  session id; streamed, a `pause` event `{"ask": {...}}`;
- a refusal: a status of its own, `{"problem": {"kind", "detail"}}`; streamed, 200 and a
  `problem` event `{"kind", "detail"}` (also where the inner host refused in plain JSON);
- the run failed: 500 `{"message"}`, no code at all; streamed, a `failure` event.

Refusal kinds and statuses (`REFUSALS`): busy 423 `SESSION_BUSY`, a decision owed 409
`ASK_PENDING`, nothing paused 409 `NOTHING_TO_DECIDE`, a pause with no session 422
`NO_SESSION_FOR_PAUSE`, unauthenticated 403 `WHO_ARE_YOU`, invalid 422 `BAD_REQUEST`,
not found 404 `NO_SUCH_SESSION`, unreadable 500 `STORE_BROKEN` (which a failed run's 500
differs from by its body alone). A person's answer travels in the body's `answer`
field (renamed to `decision` for the inner host; a `decision` field is not this wire's
and is dropped), and there is no read route: `GET /sessions/...` is a plain-text 404.
Everything else passes through: the `x-session-id` header, cookies (Cookie to the
inner host, every Set-Cookie back), Authorization, `GET /health`, and any reply the
proxy has no translation for.

The proxy is a process of its own (`python -m tests.harness.second_wire`, the inner
host's URL on its stdin): `kill()` SIGKILLs it and the inner host, so a caller sees its
connection drop as it would from a crashed host; it exits when its parent does (its
stdin closes) and when the inner host stops answering (the host is gone, so is it).
Every proxied call is bounded (`PROXY_DEADLINE`).

`--impl tests.harness.second_wire:implementation` runs the suite against it;
`:without_profile` is the same host declaring no profile, which the laws must fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from http.cookiejar import Cookie, CookieJar
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from conformance.adapter import (
    AgentSpec,
    AgentUnderTest,
    AnswerWay,
    Capability,
    ChunkEvent,
    HostingImplementation,
    HostOutcome,
    HostSpec,
    HostUnderTest,
    HostWireProfile,
    PauseWay,
    ReadNone,
    Way,
)

if TYPE_CHECKING:
    import httpx
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

ROOT = Path(__file__).resolve().parents[2]
PROXY_MODULE = "tests.harness.second_wire"
LISTENING = "second-wire listening on "
"""The proxy's first stdout line: this prefix and its URL."""
START_DEADLINE = 30.0
"""Seconds the proxy may take to print its URL once it knows the inner host's."""
STOP_DEADLINE = 10.0
"""Seconds a stopped proxy may take to exit before it is killed."""
PROXY_DEADLINE = 120.0
"""Seconds one proxied call may take, reply and stream whole (the suite's own call
deadline is shorter, so a slow host is the suite's TIMEOUT, not this proxy's)."""
CONNECT_DEADLINE = 5.0
EXIT_HOST_GONE = 70
"""The proxy's exit status when the inner host stopped answering."""
SSE = "text/event-stream"

REFUSALS: dict[HostOutcome, tuple[str, str, int]] = {
    HostOutcome.BUSY: ("ERR_CONCURRENT_RUN", "SESSION_BUSY", 423),
    HostOutcome.DECISION_OWED: ("ERR_AWAITING_DECISION", "ASK_PENDING", 409),
    HostOutcome.NOTHING_PAUSED: ("ERR_NO_PENDING_ASK", "NOTHING_TO_DECIDE", 409),
    HostOutcome.PAUSE_NOT_CARRIED: ("ERR_PAUSE_NOT_CARRIED", "NO_SESSION_FOR_PAUSE", 422),
    HostOutcome.UNAUTHENTICATED: ("ERR_UNAUTHENTICATED", "WHO_ARE_YOU", 403),
    HostOutcome.INVALID_REQUEST: ("ERR_INVALID_REQUEST", "BAD_REQUEST", 422),
    HostOutcome.NOT_FOUND: ("ERR_SESSION_NOT_FOUND", "NO_SUCH_SESSION", 404),
    HostOutcome.UNREADABLE: ("ERR_SESSION_UNREADABLE", "STORE_BROKEN", 500),
}
"""Each refusal the reference names with a code: (its code, this wire's kind, status)."""
RUN_FAILED = "ERR_RUN_FAILED"
"""The reference's failed run: 500 `{"message"}` here, a kind of no code at all."""
KINDS: dict[str, tuple[str, int]] = {
    code: (kind, status) for code, kind, status in REFUSALS.values()
}
"""The reference's code -> this wire's kind and status."""


def _refusal(said: HostOutcome) -> list[Way]:
    """How this wire says one refusal: its status and kind, or a stream's `problem`."""
    _, kind, status = REFUSALS[said]
    return [
        Way(status=[status], fields={"/problem/kind": kind}),
        Way(event="problem", fields={"/kind": kind}),
    ]


SECOND_WIRE_PROFILE = HostWireProfile(
    answered=[AnswerWay(status=[200], text="/reply/text"), AnswerWay(event="done", text=None)],
    paused=[
        PauseWay(
            status=[200],
            question="/pause/ask/question",
            tool_call_id="/pause/ask/call/id",
            tool="/pause/ask/call/tool",
        ),
        PauseWay(
            event="pause",
            question="/ask/question",
            tool_call_id="/ask/call/id",
            tool="/ask/call/tool",
        ),
    ],
    busy=_refusal(HostOutcome.BUSY),
    decision_owed=_refusal(HostOutcome.DECISION_OWED),
    nothing_paused=_refusal(HostOutcome.NOTHING_PAUSED),
    pause_not_carried=_refusal(HostOutcome.PAUSE_NOT_CARRIED),
    unauthenticated=_refusal(HostOutcome.UNAUTHENTICATED),
    invalid_request=_refusal(HostOutcome.INVALID_REQUEST),
    not_found=_refusal(HostOutcome.NOT_FOUND),
    unreadable=_refusal(HostOutcome.UNREADABLE),
    run_failed=[Way(status=[500]), Way(event="failure")],
    chunk=ChunkEvent(event="delta", text="/t"),
    decision_field="answer",
    read=ReadNone(),
)
"""The second wire, outcome by outcome (the table in this module's docstring)."""


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
    """`python -m tests.harness.second_wire`: the inner host's URL is stdin's first line."""
    if argv or (argv is None and sys.argv[1:]):
        print("usage: python -m tests.harness.second_wire  (URL on stdin)", file=sys.stderr)
        return 2
    target = sys.stdin.buffer.readline().decode("utf-8").strip()
    if not target.startswith("http://"):
        print(f"second-wire proxy: no inner host URL on stdin ({target!r})", file=sys.stderr)
        return 2
    threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    asyncio.run(_serve(target))
    return 0


# --- the suite's end: the implementation and its hosts ---------------------------------


class SecondWireStartError(RuntimeError):
    """The proxy died or never printed its URL; `stderr` is the tail of what it said."""

    def __init__(self, problem: str, stderr: str) -> None:
        self.stderr = stderr
        super().__init__(
            f"the second-wire proxy did not start: {problem}\n--- stderr ---\n{stderr}"
        )


class SecondWireHost:
    """A started host: the proxy (`base_url`) in front of the inner host. Its
    `wire_profile` is the second wire's, unless it was started to declare none."""

    def __init__(
        self,
        inner: HostUnderTest,
        proxy: asyncio.subprocess.Process,
        base_url: str,
        folder: Path,
        profile: HostWireProfile | None,
    ) -> None:
        self.inner = inner
        self.base_url = base_url
        self._proxy = proxy
        self._folder = folder
        if profile is not None:
            self.wire_profile = profile

    async def kill(self) -> None:
        """Hard: the proxy and the inner host SIGKILLed, nothing flushed."""
        with contextlib.suppress(ProcessLookupError):
            self._proxy.kill()
        try:
            await self.inner.kill()
        finally:
            await self._ended()

    async def stop(self) -> None:
        """Graceful: the inner host finishes its running turns, then the proxy its
        replies."""
        try:
            await self.inner.stop()
        finally:
            with contextlib.suppress(ProcessLookupError):
                self._proxy.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(self._proxy.wait()), STOP_DEADLINE)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self._proxy.kill()
            await self._ended()

    async def _ended(self) -> None:
        await self._proxy.wait()
        if self._proxy.stdin is not None:
            self._proxy.stdin.close()
        shutil.rmtree(self._folder, ignore_errors=True)


class SecondWireImplementation:
    """`inner` (a hosting implementation), its hosts served behind the second wire.

    Everything but `start_host` is the inner implementation's: its name (marked), its
    capabilities, its agents, `damage_session` on the store the inner host keeps. With
    `profile=None` the hosts declare no wire profile, so the suite reads them by the
    default one (the reference's wire), which must fail them."""

    def __init__(
        self,
        inner: HostingImplementation,
        *,
        profile: HostWireProfile | None = SECOND_WIRE_PROFILE,
        name: str | None = None,
    ) -> None:
        self.inner = inner
        self.profile = profile
        self.name = name or f"{inner.name} (behind the second wire)"
        self.capabilities: frozenset[Capability] = inner.capabilities

    def __getattr__(self, name: str) -> Any:
        """Every optional attribute (dialects, deliveries, trace_tool, ...) is the
        inner implementation's."""
        if name in ("inner", "host_client"):  # not set yet, or a wire of another kind
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        return await self.inner.create_agent(spec)

    async def damage_session(self, store: str, session_id: str) -> None:
        await self.inner.damage_session(store, session_id)

    async def start_host(self, spec: HostSpec) -> SecondWireHost:
        """The inner host, then the proxy in front of it (the proxy's interpreter
        starts while the inner host does)."""
        folder = Path(tempfile.mkdtemp(prefix="turnlaw-second-wire-"))
        log = folder / "stderr.log"
        proxy = await _spawn_proxy(log)
        inner: HostUnderTest | None = None
        try:
            inner = await self.inner.start_host(spec)
            assert proxy.stdin is not None and proxy.stdout is not None
            proxy.stdin.write(f"{inner.base_url}\n".encode())
            await proxy.stdin.drain()
            try:
                line = await asyncio.wait_for(proxy.stdout.readline(), START_DEADLINE)
            except TimeoutError:
                raise SecondWireStartError(
                    f"no URL within {START_DEADLINE:g} s", _tail(log)
                ) from None
            text = line.decode("utf-8", "replace").strip()
            if not text.startswith(LISTENING):
                problem = f"it printed {text!r}" if text else "it exited"
                raise SecondWireStartError(problem, _tail(log))
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                proxy.kill()
            await proxy.wait()
            if inner is not None:
                await inner.kill()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return SecondWireHost(inner, proxy, text.removeprefix(LISTENING), folder, self.profile)


async def _spawn_proxy(log: Path) -> asyncio.subprocess.Process:
    path = os.pathsep.join([str(ROOT), *(p for p in sys.path if p)])
    with log.open("wb") as stderr:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            PROXY_MODULE,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=path),
        )


def _tail(log: Path, limit: int = 4000) -> str:
    try:
        return log.read_bytes()[-limit:].decode("utf-8", "replace")
    except OSError:
        return ""


def _reference(profile: HostWireProfile | None, name: str) -> SecondWireImplementation:
    from reference_impl.conformance_adapter import ReferenceImplementation

    return SecondWireImplementation(ReferenceImplementation(), profile=profile, name=name)


def __getattr__(name: str) -> SecondWireImplementation:
    """`--impl tests.harness.second_wire:implementation` (the reference behind the second
    wire, with its profile) or `:without_profile` (the same, declaring none); built on
    first use, so the proxy's own process never imports the runtime."""
    if name == "implementation":
        return _reference(SECOND_WIRE_PROFILE, "turnlaw reference_impl (second wire)")
    if name == "without_profile":
        return _reference(None, "turnlaw reference_impl (second wire, no profile)")
    raise AttributeError(name)


if __name__ == "__main__":
    raise SystemExit(main())
