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

The proxy is a process of its own (tests/harness/second_wire_proxy.py, run as `python
-m tests.harness.second_wire_proxy`, the inner host's URL on its stdin): `kill()`
SIGKILLs it and the inner host, so a caller sees its connection drop as it would from a
crashed host; it exits when its parent does (its stdin closes) and when the inner host
stops answering (the host is gone, so is it). Every proxied call is bounded
(`second_wire_proxy.PROXY_DEADLINE`).

`--impl tests.harness.second_wire:implementation` runs the suite against it;
`:without_profile` is the same host declaring no profile, which the laws must fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

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

ROOT = Path(__file__).resolve().parents[2]
PROXY_MODULE = "tests.harness.second_wire_proxy"
"""The proxy's process entry point (`python -m PROXY_MODULE`)."""
LISTENING = "second-wire listening on "
"""The proxy's first stdout line: this prefix and its URL."""
START_DEADLINE = 30.0
"""Seconds the proxy may take to print its URL once it knows the inner host's."""
STOP_DEADLINE = 10.0
"""Seconds a stopped proxy may take to exit before it is killed."""

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
    # "no /code": a crash the inner host names (500 ERR_INTERNAL, passed through) is no
    # failed run, so the laws show it unclassified rather than read it as one
    run_failed=[Way(status=[500], absent=["/code"]), Way(event="failure")],
    chunk=ChunkEvent(event="delta", text="/t"),
    decision_field="answer",
    read=ReadNone(),
)
"""The second wire, outcome by outcome (the table in this module's docstring)."""


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
    from reference_impl.adapter import ReferenceImplementation

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
