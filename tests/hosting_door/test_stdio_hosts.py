"""The host ops over JSON lines, both sides: the connector against a stdio adapter of
the hosting double (conformance.stdio.serve), and a broken host door's typed failures."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.adapter import AgentSpec, Capability, HostSpec
from conformance.errors import AdapterReportedError, AdapterTimeout
from conformance.hosting import HostUnreachable, SeedWireCaller
from conformance.stdio import ConnectorOptions, StdioImplementation
from conformance.stdio import protocol as p

from .double import PROFILE

AGENT = AgentSpec(base_url="http://127.0.0.1:9", api_key="k")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def adapter() -> Iterator[StdioImplementation]:
    options = ConnectorOptions(cwd=ROOT, start_timeout=120.0, validate=True)
    implementation = StdioImplementation(
        [sys.executable, "-m", "tests.hosting_door.double"], options
    )
    yield implementation
    implementation.stop()


async def test_a_host_starts_answers_and_is_killed_over_stdio(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    assert Capability.HOSTING in adapter.capabilities
    host = await adapter.start_host(HostSpec(agent=AGENT, store=str(tmp_path / "s.db")))
    caller = SeedWireCaller(host.base_url)
    assert (await caller.send("hi", session_id="s")).output == "echo hi"
    await host.kill()
    with pytest.raises(HostUnreachable):
        await caller.send("hi", session_id="s")
    await host.kill()  # a second end is a no-op: the handle is gone
    await caller.aclose()


async def test_a_host_hands_back_its_wire_profile_over_stdio(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    host = await adapter.start_host(HostSpec(agent=AGENT, store=str(tmp_path / "profiled-s.db")))
    assert getattr(host, "wire_profile", None) == PROFILE
    await host.kill()
    plain = await adapter.start_host(HostSpec(agent=AGENT, store=str(tmp_path / "s.db")))
    assert getattr(plain, "wire_profile", "absent") is None  # the default profile
    await plain.kill()


async def test_a_profile_that_is_not_one_is_the_adapters_error_over_stdio(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    with pytest.raises(AdapterReportedError, match="wire_profile"):
        await adapter.start_host(HostSpec(agent=AGENT, store=str(tmp_path / "badprofile-s.db")))


async def test_a_host_stops_and_a_session_is_damaged_over_stdio(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    store = str(tmp_path / "s.db")
    host = await adapter.start_host(HostSpec(agent=AGENT, store=store))
    await host.stop()
    await adapter.damage_session(store, "s1")
    assert Path(f"{store}.damaged").read_text() == "s1\n"


async def test_a_start_that_never_answers_is_a_timeout_over_stdio(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    adapter.options = dataclasses.replace(adapter.options, start_timeout=0.5)  # started: now
    with pytest.raises(AdapterTimeout, match=r"host\.start"):
        await adapter.start_host(HostSpec(agent=AGENT, store=str(tmp_path / "hang.db")))


async def test_a_host_off_the_loopback_is_refused_by_the_server_side(
    adapter: StdioImplementation, tmp_path: Path
) -> None:
    with pytest.raises(AdapterReportedError, match=r"not http://127\.0\.0\.1:PORT"):
        await adapter.start_host(HostSpec(agent=AGENT, store=str(tmp_path / "remote.db")))


def test_a_reply_naming_a_remote_host_is_not_a_v1_result() -> None:
    with pytest.raises(ValueError, match="loopback"):
        p.RESULTS["host.start"].validate_python({"base_url": "http://example.com:80"})
    assert p.RESULTS["host.start"].validate_python({"base_url": "http://localhost:81/"})


def test_the_host_requests_are_protocol_v1() -> None:
    start = p.host_request("host.start", seq=1, host="h1", spec={"agent": AGENT, "store": "x"})
    assert p.REQUESTS.validate_json(start.model_dump_json(), strict=True) == start
    kill = p.REQUESTS.validate_json('{"op":"host.kill","seq":2,"host":"h1"}', strict=True)
    assert isinstance(kill, p.HostKillRequest)
    damage = '{"op":"damage_session","seq":3,"store":"x","session_id":"s"}'
    assert isinstance(p.REQUESTS.validate_json(damage, strict=True), p.DamageSessionRequest)
