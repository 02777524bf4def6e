"""Served conversations, measured: what the reference host adds to a turn.

Three figures, each side by side with its floor in alternating rounds (`rounds.alternate`):

- turn cost at one session: `POST /invoke` on an in-process `standing_agent` over a SQLite
  store, vs an agent built the same way, called directly: `run(message,
  continue_from=stored, session_id=sid)` plus the same store's save; both against one fake
  server (its own process);
- throughput with `agent_factory` (`serve --agent-per-session`, the host's own process) at
  1, 8 and 32 concurrent sessions, vs the same fake served directly at the same
  concurrency (the floor), with p50/p99 latency per level;
- SQLite persist: the store's `save` of a realistic checkpoint vs a raw sqlite3 upsert of
  the same bytes in the same journal mode (WAL, synchronous=FULL), alternating per save.

Every request is checked for the answer it should carry, so a mis-wired run fails loudly
instead of timing errors; the fake must end having served exactly what was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from reference_impl import Agent, AgentRunCheckpoint, Turn, make_provider
from reference_impl.hosting import standing_agent, uvicorn_host
from reference_impl.store import sqlite_sessions

from .loopback import ServerProcess, _check_turnlaw, _turnlaw, _write_script, running
from .payloads import API_KEY, CHAT_PATH, CHAT_REQUEST, REPLY_MARKER, REPLY_TEXT
from .rounds import Figures, Measure, Samples, Table, alternate

LISTENING = "turnlaw-host listening on "
MS_PER_TURN = "ms_per_turn"
PER_SECOND = "turns_per_second"
P50 = "p50_ms"
P99 = "p99_ms"
SERVER_CPU = "server_cpu_ms_per_turn"
CLIENT_CPU = "client_cpu_share"
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
    levels: tuple[int, ...]
    level_rounds: int
    level_turns: int
    """Turns each session plays per round, one after the other."""
    saves: int
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


# -- throughput with agent_factory ----------------------------------------------------------


@contextlib.asynccontextmanager
async def cli_host(fake_url: str, store: Path, *extra: str) -> AsyncIterator[tuple[str, int]]:
    """`python -m reference_impl.hosting serve` as its own process; yields its URL and
    pid."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "reference_impl.hosting", "serve", "--sessions", str(store),
        "--port", "0", "--provider-url", fake_url, "--api-key", API_KEY, *extra,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().strip()
        if not line.startswith(LISTENING):
            raise WiringError(f"the host printed {line!r} instead of its URL")
        yield line.removeprefix(LISTENING), process.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        await process.wait()


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def process_cpu_seconds(pid: int) -> float:
    """CPU time a process has used, all threads (Linux /proc schedstat; NaN elsewhere)."""
    tasks = Path(f"/proc/{pid}/task")
    if not tasks.exists():
        return math.nan
    total = 0
    for task in tasks.iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def _level(
    client: httpx.AsyncClient, sessions: int, turns: int, *, server_pid: int, hosted: bool
) -> Measure:
    """One round: `sessions` workers side by side, each playing `turns` turns in a row.
    The sessions are the same every round (their conversations grow), so the agents the
    factory builds are built in the warm-up round: what is timed is serving, not building
    (`agent_build_ms` says what a new session's agent costs)."""
    sids = [uuid.uuid4().hex for _ in range(sessions)]

    async def worker(sid: str, latencies: list[float]) -> None:
        for turn in range(turns):
            started = time.perf_counter()
            if hosted:
                reply = await client.post(
                    "/invoke", json={"input": f"turn {turn}"}, headers={"x-session-id": sid}
                )
                _expect_answer(reply)
            else:
                reply = await client.post(CHAT_PATH, content=CHAT_REQUEST)
                if reply.status_code != 200 or REPLY_MARKER.decode() not in reply.text:
                    raise WiringError(f"the fake answered {reply.status_code}: {reply.text[:300]}")
            latencies.append((time.perf_counter() - started) * 1e3)

    async def measure() -> Figures:
        latencies: list[float] = []
        cpu, started = process_cpu_seconds(server_pid), time.perf_counter()
        ours = time.process_time()
        await asyncio.gather(*(worker(sid, latencies) for sid in sids))
        elapsed = time.perf_counter() - started
        return {
            CLIENT_CPU: (time.process_time() - ours) / elapsed,
            SERVER_CPU: (process_cpu_seconds(server_pid) - cpu) / len(latencies) * 1e3,
            PER_SECOND: len(latencies) / elapsed,
            P50: _percentile(latencies, 0.50),
            P99: _percentile(latencies, 0.99),
        }

    return measure


async def throughput(fake: ServerProcess, folder: Path, plan: HostingPlan) -> dict[int, Table]:
    """Per concurrency level: the fake directly (bare) vs the host with agent_factory."""
    tables: dict[int, Table] = {}
    limits = httpx.Limits(max_connections=max(plan.levels) * 2, keepalive_expiry=KEEPALIVE)
    root = fake.base_url.removesuffix("/v1")
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    async with (
        cli_host(fake.base_url, folder / "factory.db", "--agent-per-session") as host,
        httpx.AsyncClient(base_url=host[0], timeout=60, limits=limits) as to_host,
        httpx.AsyncClient(base_url=root, timeout=60, limits=limits, headers=headers) as to_fake,
    ):
        for sessions in plan.levels:
            variants = {
                "bare": _level(
                    to_fake, sessions, plan.level_turns, server_pid=fake.pid, hosted=False
                ),
                "turnlaw": _level(
                    to_host, sessions, plan.level_turns, server_pid=host[1], hosted=True
                ),
            }
            tables[sessions] = await alternate(variants, rounds=plan.level_rounds, warmup=WARMUP)
    return tables


def fake_steps(plan: HostingPlan) -> int:
    """Exactly the requests the fake will be sent: one model call per turn, both variants."""
    cost = 2 * (WARMUP + plan.cost_rounds) * plan.cost_turns
    levels = sum(2 * (WARMUP + plan.level_rounds) * n * plan.level_turns for n in plan.levels)
    return cost + levels


# -- SQLite persist ------------------------------------------------------------------------


def realistic_checkpoint(turns: int = 12) -> str:
    """The agent's own checkpoint of a `turns`-turn conversation whose questions are a
    sentence or two and whose answers a short paragraph."""
    history = []
    for turn in range(turns):
        history.append(Turn(role="user", text=f"Question {turn}: " + "what about it? " * 8))
        history.append(Turn(role="assistant", text=f"Answer {turn}: " + "it is so. " * 30))
    return AgentRunCheckpoint(history=tuple(history), turns=turns).to_json()


def persist(folder: Path, plan: HostingPlan) -> Table:
    """Per-save milliseconds: raw sqlite3 upsert (bare) vs the store's save (turnlaw)."""
    checkpoint = realistic_checkpoint()
    store = sqlite_sessions(str(folder / "persist.db"))
    raw = sqlite3.connect(folder / "raw.db", isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=FULL")
    raw.execute("CREATE TABLE t (id TEXT PRIMARY KEY, checkpoint TEXT NOT NULL)")
    figures: dict[str, list[float]] = {"bare": [], "turnlaw": []}
    try:
        for index in range(plan.saves):
            sid = f"s{index % 16}"
            for name in ("bare", "turnlaw") if index % 2 else ("turnlaw", "bare"):
                started = time.perf_counter()
                if name == "bare":
                    raw.execute("BEGIN IMMEDIATE")
                    raw.execute("INSERT OR REPLACE INTO t VALUES (?, ?)", (sid, checkpoint))
                    raw.execute("COMMIT")
                else:
                    store.save(sid, checkpoint, owner=None)
                figures[name].append((time.perf_counter() - started) * 1e3)
    finally:
        store.close()
        raw.close()
    return {
        name: {
            P50: Samples([statistics.median(values)]),
            P99: Samples([_percentile(values, 0.99)]),
            "bytes": Samples([float(len(checkpoint))]),
        }
        for name, values in figures.items()
    }


def agent_build_ms(base_url: str, builds: int = 10) -> float:
    """What `agent_factory` pays for each new session's agent, as the CLI builds it (a
    provider, so an SDK client, per agent); the first build's imports are left out."""
    build_agent(base_url)
    started = time.perf_counter()
    for _ in range(builds):
        build_agent(base_url)
    return (time.perf_counter() - started) / builds * 1e3


@dataclass
class HostingFigures:
    cost: Table
    levels: dict[int, Table]
    persist: Table
    build_ms: float


async def measure(plan: HostingPlan) -> HostingFigures:
    """The fake in its own process, sized exactly; the host in-process, then the CLI's."""
    with tempfile.TemporaryDirectory(prefix="turnlaw-bench-hosting-") as tmp:
        folder = Path(tmp)
        steps = fake_steps(plan)
        fake = _turnlaw(_write_script(folder / "script.json", steps))
        with running(fake):
            cost = await turn_cost(fake.base_url, folder, plan)
            levels = await throughput(fake, folder, plan)
            stopped = fake.stop()
        _check_turnlaw(stopped, steps, exact=True)
        return HostingFigures(cost, levels, persist(folder, plan), agent_build_ms(fake.base_url))
