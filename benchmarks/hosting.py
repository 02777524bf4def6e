"""Served conversations, measured: what the reference host adds to a turn.

`POST /invoke` on an in-process `standing_agent` over a SQLite store, vs an agent built the
same way, called directly: `run(message, continue_from=stored, session_id=sid)` plus the
same store's save; both against one fake server (its own process), side by side in
alternating rounds (`rounds.alternate`). It decides whether hosting a runtime behind the
door costs more than the turn it serves (`hosting_report.TURN_COST_TARGET`).

Every request is checked for the answer it should carry, so a mis-wired run fails loudly
instead of timing errors; the fake must end having served exactly what was sent.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx

from reference_impl import Agent, make_provider
from reference_impl.hosting import standing_agent, uvicorn_host
from reference_impl.store import sqlite_sessions

from .loopback import _check_turnlaw, _turnlaw, _write_script, running
from .payloads import API_KEY, REPLY_TEXT
from .rounds import Figures, Table, alternate

MS_PER_TURN = "ms_per_turn"
KEEPALIVE = 2.0
"""Seconds a client keeps an idle connection: under the servers' 5 s, so a request never
races a server closing the connection it reuses."""
WARMUP = 1


@dataclass(frozen=True)
class HostingPlan:
    """Rounds and sizes of the hosting benchmarks."""

    cost_rounds: int
    cost_turns: int
    """Turns per round, in one new session (the conversation grows as a real one does)."""
    kills: int
    floods: int = 1
    """Suite runs per host in the flood rows (benchmarks.flooding)."""


class WiringError(RuntimeError):
    """A request got something other than the answer it was measured for."""


def _expect_answer(response: httpx.Response) -> None:
    if response.status_code != 200 or response.json().get("output") != REPLY_TEXT:
        raise WiringError(
            f"expected 200 with the scripted answer, got {response.status_code}: "
            f"{response.text[:300]}"
        )


def build_agent(base_url: str) -> Agent:
    """The agent the CLI host builds: no tools, the Chat Completions provider, streaming."""
    provider = make_provider("openai-chat", base_url=base_url, api_key=API_KEY)
    return Agent.create(provider=provider, model="turnlaw-model").build()


# -- turn cost at one session ------------------------------------------------------------


async def turn_cost(fake_url: str, folder: Path, plan: HostingPlan) -> Table:
    """ms per turn: hosted (HTTP → standing_agent → store) vs direct (run + save)."""
    direct_agent = build_agent(fake_url)
    direct_store = sqlite_sessions(str(folder / "direct.db"))
    async with (
        standing_agent(
            agent=build_agent(fake_url),
            sessions=sqlite_sessions(str(folder / "hosted.db")),
            host=uvicorn_host(),
        ) as served,
        httpx.AsyncClient(
            base_url=served.url, timeout=30, limits=httpx.Limits(keepalive_expiry=KEEPALIVE)
        ) as client,
    ):

        async def hosted() -> Figures:
            sid = uuid.uuid4().hex
            started = time.perf_counter()
            for turn in range(plan.cost_turns):
                reply = await client.post(
                    "/invoke", json={"input": f"turn {turn}"}, headers={"x-session-id": sid}
                )
                _expect_answer(reply)
            return {MS_PER_TURN: (time.perf_counter() - started) / plan.cost_turns * 1e3}

        async def direct() -> Figures:
            sid = uuid.uuid4().hex
            stored: str | None = None
            started = time.perf_counter()
            for turn in range(plan.cost_turns):
                result = await direct_agent.run(
                    f"turn {turn}", continue_from=stored, session_id=sid
                )
                if result.answer != REPLY_TEXT:
                    raise WiringError(f"direct run answered {result.answer!r}")
                stored = result.checkpoint.to_json()
                await asyncio.to_thread(direct_store.save, sid, stored, owner=None)
            return {MS_PER_TURN: (time.perf_counter() - started) / plan.cost_turns * 1e3}

        try:
            return await alternate(
                {"bare": direct, "turnlaw": hosted}, rounds=plan.cost_rounds, warmup=WARMUP
            )
        finally:
            direct_store.close()


def fake_steps(plan: HostingPlan) -> int:
    """Exactly the requests the fake will be sent: one model call per turn, both variants."""
    return 2 * (WARMUP + plan.cost_rounds) * plan.cost_turns


async def measure(plan: HostingPlan) -> Table:
    """The fake in its own process, sized exactly; the host in-process."""
    with tempfile.TemporaryDirectory(prefix="turnlaw-bench-hosting-") as tmp:
        folder = Path(tmp)
        steps = fake_steps(plan)
        fake = _turnlaw(_write_script(folder / "script.json", steps))
        with running(fake):
            cost = await turn_cost(fake.base_url, folder, plan)
            stopped = fake.stop()
        _check_turnlaw(stopped, steps, exact=True)
        return cost
