"""Durability: SIGKILL the real host process mid-turn, N times, and count lost turns.

Each round: one more turn of the same session is sent and held at the fake (the model
has not answered), the host started by the command line is killed with SIGKILL, a new
host is started on the same SQLite file, the stored conversation is read back through
`GET /sessions/{id}`, and one more turn is played to completion. A completed turn (a 200
the caller saw) missing from the store after a kill is a lost turn; a held turn found in
the store is a phantom. Both are counted and printed loudly, never asserted: this is a
measurement.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from conformance.wire import Hold, LoopbackServer, ScriptedProvider, text

from .payloads import API_KEY

LISTENING = "turnlaw-host listening on "
SESSION = "durable-session"
ANSWER = "noted."


@dataclass
class Durability:
    kills: int = 0
    completed: int = 0
    lost: int = 0
    phantoms: int = 0
    restart_seconds: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


async def _start(store: Path, fake_url: str) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "reference_impl.hosting", "serve", "--sessions", str(store),
        "--port", "0", "--provider-url", fake_url, "--api-key", API_KEY,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().strip()
    if not line.startswith(LISTENING):
        process.kill()
        await process.wait()
        raise RuntimeError(f"the host printed {line!r} instead of its URL")
    return process, line.removeprefix(LISTENING)


def _stored_user_turns(body: str) -> list[str]:
    checkpoint = json.loads(body)["checkpoint"]
    if isinstance(checkpoint, str):  # docs/hosting.md leaves its JSON form open
        checkpoint = json.loads(checkpoint)
    return [turn.get("text", "") for turn in checkpoint["history"] if turn["role"] == "user"]


async def _wait_arrived(hold: Hold, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not hold.has_arrived:
        if time.monotonic() > deadline:
            raise RuntimeError("the held turn never reached the fake")
        await asyncio.sleep(0.005)


async def measure(kills: int, folder: Path) -> Durability:
    """`kills` rounds of hold → SIGKILL → restart → read back → one completed turn."""
    holds = [Hold(label=f"kill-{n}", then=text("never delivered")) for n in range(kills)]
    script = [step for hold in holds for step in (hold, text(ANSWER))]
    figures = Durability()
    store = folder / "durable.db"
    completed: list[str] = []
    with LoopbackServer(ScriptedProvider(script)) as fake:
        assert fake.base_url is not None
        process, url = await _start(store, fake.base_url)
        async with httpx.AsyncClient(timeout=30) as client:
            try:
                for n, hold in enumerate(holds):
                    held = asyncio.create_task(
                        client.post(f"{url}/invoke", json={"input": f"held {n}"},
                                    headers={"x-session-id": SESSION})
                    )  # fmt: skip
                    await _wait_arrived(hold)
                    process.kill()
                    await process.wait()
                    figures.kills += 1
                    with contextlib.suppress(httpx.HTTPError):
                        await held
                    hold.release()
                    started = time.perf_counter()
                    process, url = await _start(store, fake.base_url)
                    figures.restart_seconds.append(time.perf_counter() - started)
                    read = await client.get(f"{url}/sessions/{SESSION}")
                    stored = _stored_user_turns(read.text) if read.status_code == 200 else []
                    lost = [said for said in completed if said not in stored]
                    phantom = [said for said in stored if said.startswith("held ")]
                    figures.lost += len(lost)
                    figures.phantoms += len(phantom)
                    if lost or phantom:
                        figures.problems.append(f"kill {n}: lost {lost}, phantom {phantom}")
                    said = f"kept {n}"
                    reply = await client.post(
                        f"{url}/invoke", json={"input": said}, headers={"x-session-id": SESSION}
                    )
                    if reply.status_code == 200 and ANSWER in reply.text:
                        completed.append(said)
                        figures.completed += 1
                    else:
                        figures.problems.append(f"kill {n}: turn after restart {reply.text[:200]}")
            finally:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                await process.wait()
    return figures
