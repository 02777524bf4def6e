"""Loopback: `python -m conformance.wire serve` vs a bare ASGI app on uvicorn, over TCP.

Each server runs in its own subprocess (single-process uvicorn, same settings), so it has
a core of its own and the load generator the other; both are driven in alternating rounds
by the same raw-socket client, under each `Load`: many connections (throughput: is the
server the bottleneck, and how much slower is it) and one (latency: what a test's single
client waits per request). Besides requests/s, each round reads the server's own CPU time
from /proc, so the report can tell a server that is slow because it computes from one
that is slow because it waits.

That turnlaw served exactly the requests the load generator counted, and found nothing
wrong with them, is checked from its exit status and stderr.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .load import Target, run_load
from .payloads import API_KEY, CHAT_PATH, CHAT_REQUEST, REPLY_MARKER, REPLY_TEXT
from .rounds import Figures, Measure, Table, alternate

PROJECT_ROOT = Path(__file__).resolve().parent.parent
REQUEST_HEADERS = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
START_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0
MAX_RATE = 8000
"""Requests/s the probe's script is sized for; far above what one uvicorn/h11 core serves."""
CALIBRATION_SECONDS = 0.3
HAS_SCHEDSTAT = Path("/proc/self/schedstat").exists()

REQUESTS_PER_SECOND = "requests_per_second"
LATENCY = "ms_per_request"
SERVER_CPU = "server_cpu_us_per_request"
SERVER_BUSY = "server_cpu_share"
CLIENT_CPU = "client_cpu_share"


class ServerError(RuntimeError):
    """A server did not start, did not stop, or served other than what was sent."""


@dataclass(frozen=True)
class Stopped:
    """How a server subprocess ended."""

    returncode: int
    stderr: str


class ServerProcess:
    """A server subprocess that prints its base URL first and stops on SIGINT."""

    def __init__(self, name: str, argv: list[str], log_dir: Path) -> None:
        self.name = name
        self.argv = argv
        self.base_url = ""
        self.stopped: Stopped | None = None
        self.sent = 0
        """Requests the load generator got answers to, in all rounds."""
        self._stderr = log_dir / f"{name}-{id(self)}.stderr"
        self._process: subprocess.Popen[bytes] | None = None
        self._interrupted = False

    @property
    def pid(self) -> int:
        if self._process is None:
            raise ServerError(f"{self.name} server was never started")
        return self._process.pid

    def launch(self) -> None:
        with self._stderr.open("wb") as stderr:  # the child keeps its own copy
            self._process = subprocess.Popen(
                self.argv, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=stderr
            )

    def wait_ready(self) -> str:
        """Read the URL from the first stdout line, then wait until the port accepts."""
        process = self._process
        if process is None or process.stdout is None:
            raise ServerError("no stdout pipe")
        ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT)
        line = process.stdout.readline().decode().strip() if ready else ""
        if not line.startswith("http://"):
            self.stop()
            raise ServerError(f"{self.name} server printed no URL; {self.describe()}")
        self.base_url = line
        self._wait_listening()
        return line

    def _wait_listening(self) -> None:
        """The URL is printed once the port is bound, a moment before it accepts."""
        parts = urlsplit(self.base_url)
        address = (parts.hostname or "127.0.0.1", parts.port or 80)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                socket.create_connection(address, timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.poll_exited():
                    self.stop()
                    raise ServerError(
                        f"{self.name} server never accepted; {self.describe()}"
                    ) from None
                time.sleep(0.01)

    @property
    def launched(self) -> bool:
        return self._process is not None

    def poll_exited(self) -> bool:
        return self._process is not None and self._process.poll() is not None

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far, all threads (Linux /proc; schedstat has
        nanoseconds, where /proc/PID/stat only counts 10 ms ticks); NaN without /proc."""
        if not HAS_SCHEDSTAT:
            return math.nan
        total = 0
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue  # a thread that just ended
        return total / 1e9

    def interrupt(self) -> None:
        """Ask it to shut down (SIGINT), once: a second SIGINT makes uvicorn force-quit."""
        process = self._process
        if process is not None and not self._interrupted and process.poll() is None:
            process.send_signal(signal.SIGINT)
            self._interrupted = True

    def stop(self) -> Stopped:
        """Interrupt it, wait for it to exit, and collect its exit status and stderr."""
        if self.stopped is not None:
            return self.stopped
        process = self._process
        if process is None:
            raise ServerError(f"{self.name} server was never started")
        if process.poll() is None:
            self.interrupt()
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()
        stderr = self._stderr.read_bytes().decode(errors="replace")
        self.stopped = Stopped(process.returncode, stderr)
        return self.stopped

    def describe(self) -> str:
        stopped = self.stopped
        return f"exit {stopped.returncode}, stderr:\n{stopped.stderr}" if stopped else "running"


@contextmanager
def running(*servers: ServerProcess) -> Iterator[None]:
    """Start the servers side by side (their imports overlap), stop them all on exit."""
    try:
        for server in servers:
            if not server.launched:
                server.launch()
        for server in servers:
            server.wait_ready()
        yield
    finally:
        stop_all(*(server for server in servers if server.launched))


def stop_all(*servers: ServerProcess) -> None:
    """Interrupt them all first, so that they shut down side by side."""
    for server in servers:
        server.interrupt()
    for server in servers:
        server.stop()


def _turnlaw(script: Path) -> ServerProcess:
    argv = [sys.executable, "-m", "conformance.wire", "serve", "--script", os.fspath(script)]
    return ServerProcess("turnlaw", argv, script.parent)


def _write_script(path: Path, steps: int) -> Path:
    path.write_text(json.dumps([{"kind": "text", "text": REPLY_TEXT}] * steps), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Load:
    """One way of driving the servers: how many connections, for how long per round."""

    name: str
    connections: int
    seconds: float
    rounds: int


def _variant(
    server: ServerProcess,
    *,
    connections: int,
    seconds: float | None = None,
    requests: int | None = None,
) -> Measure:
    url = server.base_url.removesuffix("/v1") + CHAT_PATH
    target = Target.post(url, CHAT_REQUEST, REQUEST_HEADERS)

    async def measure() -> Figures:
        cpu, wall = server.cpu_seconds(), time.perf_counter()
        result = await run_load(
            target, connections=connections, marker=REPLY_MARKER, seconds=seconds, requests=requests
        )
        server_cpu = server.cpu_seconds() - cpu
        window = time.perf_counter() - wall  # the CPU reading's window, connecting included
        server.sent += result.requests
        return {
            REQUESTS_PER_SECOND: result.per_second,
            LATENCY: connections / result.per_second * 1e3,
            SERVER_CPU: server_cpu / result.requests * 1e6,
            SERVER_BUSY: server_cpu / window,
            CLIENT_CPU: result.client_cpu_seconds / result.seconds,
        }

    return measure


async def measure(loads: Sequence[Load]) -> dict[str, Table]:
    """Each load's figures for the bare server and turnlaw's, side by side.

    The bare server is driven for `seconds` per round. turnlaw's script must hold exactly
    as many steps as it will be sent (and a script far longer than that would itself slow
    the fake down), so first a throwaway turnlaw server measures its rate under each load;
    the real one then gets that rate times `seconds` requests per round, its script sized
    to match, so it must end with every step used and nothing found.
    """
    warmup = 1
    tables: dict[str, Table] = {}
    with tempfile.TemporaryDirectory(prefix="turnlaw-bench-") as tmp:
        capacity = math.ceil(len(loads) * CALIBRATION_SECONDS * MAX_RATE)
        probe = _turnlaw(_write_script(Path(tmp) / "probe.json", capacity))
        bare = ServerProcess("bare", [sys.executable, "-m", "benchmarks.bare_server"], Path(tmp))
        with running(bare, probe):
            per_round: dict[str, int] = {}
            for load in loads:
                calibrate = _variant(
                    probe, connections=load.connections, seconds=CALIBRATION_SECONDS
                )
                rate = (await calibrate())[REQUESTS_PER_SECOND]
                per_round[load.name] = max(load.connections, round(rate * load.seconds))
            total = sum((warmup + load.rounds) * per_round[load.name] for load in loads)
            ours = _turnlaw(_write_script(Path(tmp) / "script.json", total))
            ours.launch()  # it imports while the probe shuts down
            _check_turnlaw(probe.stop(), probe.sent, exact=False)
            with running(ours):
                for load in loads:
                    variants = {
                        "bare": _variant(bare, connections=load.connections, seconds=load.seconds),
                        "turnlaw": _variant(
                            ours, connections=load.connections, requests=per_round[load.name]
                        ),
                    }
                    tables[load.name] = await alternate(variants, rounds=load.rounds, warmup=warmup)
                stop_all(ours, bare)
            _check_turnlaw(ours.stop(), total, exact=True)
        if bare.stop().returncode != 0:
            raise ServerError(f"bare server failed: {bare.describe()}")
    return tables


def _check_turnlaw(stopped: Stopped, sent: int, *, exact: bool) -> None:
    """It served exactly what was sent and found nothing wrong, but for unused steps when
    the script was not sized exactly (then it exits 1, as it should)."""
    served = re.search(r"turnlaw: served (\d+) request", stopped.stderr)
    findings = [line for line in stopped.stderr.splitlines() if line.startswith("turnlaw: [")]
    unexpected = [
        line for line in findings if exact or not line.startswith("turnlaw: [unused_steps]")
    ]
    clean_exit = stopped.returncode == 0 or (not exact and stopped.returncode == 1)
    if served is None or int(served.group(1)) != sent or unexpected or not clean_exit:
        raise ServerError(
            f"turnlaw server should have served {sent} request(s) with no findings "
            f"{'' if exact else 'but unused steps '}; exit {stopped.returncode}, stderr:\n"
            f"{stopped.stderr}"
        )
