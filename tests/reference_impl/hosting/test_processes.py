"""The host as a real process: the command line stops cleanly on SIGTERM, and the
adapter's hosting door survives a SIGKILL and a restart on the same SQLite file."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from conformance.adapter import AgentSpec
from conformance.adapter._hosting_types import HostSpec
from conformance.wire import Hold, ScriptedProvider, text
from reference_impl.adapter import ReferenceImplementation, implementation
from reference_impl.adapter._host_process import HostStartError
from tests.conftest import API_KEY
from tests.store.test_sqlite_file import another_apps_db, newer_schema, text_file

from ..conftest import serve_from_command_line


async def test_the_command_line_finishes_a_running_turn_on_sigterm(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="turn", then=text("Booked."))])
    process, url = await serve_from_command_line(
        "reference_impl.hosting",
        *["--port", "0", "--sessions", str(tmp_path / "s.db")],
        *["--provider-url", wire.base_url or ""],
    )
    async with httpx.AsyncClient(base_url=url, timeout=20) as client:
        turn = asyncio.ensure_future(
            client.post("/invoke", json={"input": "Book.", "sessionId": "s"})
        )
        await wire.hold("turn").arrived()
        process.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)
        wire.hold("turn").release()
        reply = await turn
    assert await asyncio.wait_for(process.wait(), 20) == 0
    assert reply.json()["output"] == "Booked."
    from reference_impl.store import sqlite_sessions

    store = sqlite_sessions(str(tmp_path / "s.db"))
    assert store.load("s") is not None
    store.close()


async def test_the_command_line_takes_any_free_port_by_default(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    started = [
        await serve_from_command_line(
            "reference_impl.hosting",
            *["--sessions", str(tmp_path / f"{n}.db")],
            *["--provider-url", loopback_provider.base_url or ""],
        )
        for n in range(2)
    ]
    for process, _ in started:
        process.send_signal(signal.SIGTERM)
    assert [await asyncio.wait_for(p.wait(), 20) for p, _ in started] == [0, 0]
    ports = {url.rpartition(":")[2] for _, url in started}
    assert len(ports) == 2 and "8080" not in ports  # both started: neither took a fixed port


@pytest.mark.parametrize(
    ("make", "reason"),
    [(text_file, "not-sqlite"), (another_apps_db, "foreign"), (newer_schema, "newer-schema")],
)
async def test_the_command_line_refuses_a_bad_store_file_in_one_line(
    tmp_path: Path, make: Callable[[Path], None], reason: str
) -> None:
    store = tmp_path / "sessions.db"
    make(store)
    before = store.read_bytes()
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "reference_impl.hosting", "serve", "--sessions", str(store)],
        *["--provider-url", "http://127.0.0.1:9"],
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 1
    assert out == b""
    lines = err.decode().splitlines()
    assert len(lines) == 1, err.decode()
    assert str(store) in lines[0] and f"[{reason}]" in lines[0]
    assert lines[0].startswith("python -m reference_impl.hosting serve: ")
    assert store.read_bytes() == before


async def test_a_killed_host_restarts_with_its_sessions(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([text("Booked for two."), text("Three it is.")])
    agent = AgentSpec(base_url=wire.base_url or "", api_key=API_KEY, memory=True)
    spec = HostSpec(agent=agent, store=str(tmp_path / "sessions.db"))
    first = await implementation.start_host(spec)
    async with httpx.AsyncClient(base_url=first.base_url) as client:
        await client.post("/invoke", json={"input": "Book for two.", "sessionId": "s"})
    await first.kill()
    assert first.process.returncode == -signal.SIGKILL
    again = await implementation.start_host(spec)
    async with httpx.AsyncClient(base_url=again.base_url) as client:
        reply = await client.post("/invoke", json={"input": "Make it three.", "sessionId": "s"})
    await again.stop()
    assert again.process.returncode == 0
    assert reply.json()["output"] == "Three it is."
    assert wire.wire.last.user_texts() == ["Book for two.", "Make it three."]
    assert "Book for two." in wire.wire.last.system  # memory survived the kill too


async def test_a_host_that_cannot_start_says_why(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    agent = AgentSpec(base_url=loopback_provider.base_url or "", api_key=API_KEY)
    spec = HostSpec(agent=agent, store=str(tmp_path / "sessions.db"))
    broken = ReferenceImplementation(host_class="reference_impl.hosting:NoSuchHost")
    with pytest.raises(HostStartError, match="NoSuchHost"):
        await broken.start_host(spec)


def test_hosting_false_declares_no_hosting() -> None:
    words = {c.value for c in ReferenceImplementation(hosting=False).capabilities}
    assert not {w for w in words if w.startswith("hosting")}
    assert {
        "hosting",
        "hosting_enqueue",
        "hosting_factory",
        "hosting_identity",
        "hosting_damage",
    } <= {c.value for c in implementation.capabilities}


async def test_a_kill_mid_turn_keeps_the_earlier_turn_and_no_half_one(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([text("Booked."), Hold(label="second", then=text("never seen"))])
    agent = AgentSpec(base_url=wire.base_url or "", api_key=API_KEY)
    spec = HostSpec(agent=agent, store=str(tmp_path / "sessions.db"))
    first = await implementation.start_host(spec)
    async with httpx.AsyncClient(base_url=first.base_url) as client:
        await client.post("/invoke", json={"input": "Book.", "sessionId": "s"})
        held = asyncio.ensure_future(
            client.post("/invoke", json={"input": "Cancel.", "sessionId": "s"})
        )
        await wire.hold("second").arrived()
        await first.kill()
        with pytest.raises(httpx.TransportError):
            await held
    wire.hold("second").release()
    again = await implementation.start_host(spec)
    async with httpx.AsyncClient(base_url=again.base_url) as client:
        kept = (await client.get("/sessions/s")).json()["checkpoint"]
    await again.stop()
    assert kept["turns"] == 1
    assert [t["text"] for t in kept["history"]] == ["Book.", "Booked."]
