"""The guard around an in-process host door: deadlines, and typed failures for a start
that never answers, a host off the loopback, an object that is not a host, and a host
whose process died (the caller's HostUnreachable, an ERROR, never a law's FAIL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.adapter import AgentSpec, HostSpec
from conformance.errors import AdapterContractError, AdapterTimeout, DeclaredButMissing
from conformance.hosting import HostUnreachable, SeedWireCaller
from conformance.runner.guard import GuardedImplementation

from .double import DoubleHosts

AGENT = AgentSpec(base_url="http://127.0.0.1:9", api_key="k")


def spec(tmp_path: Path, name: str) -> HostSpec:
    return HostSpec(agent=AGENT, store=str(tmp_path / name))


async def test_a_started_host_serves_and_its_kill_ends_it(tmp_path: Path) -> None:
    inner = DoubleHosts()
    host = await GuardedImplementation(inner, timeout=10).start_host(spec(tmp_path, "s.db"))
    assert host.base_url.startswith("http://127.0.0.1:")
    caller = SeedWireCaller(host.base_url)
    assert (await caller.send("hi", session_id="s")).output == "echo hi"
    await host.kill()
    assert inner.hosts[0].ended == "kill"
    with pytest.raises(HostUnreachable):  # the process that died: ERROR, not FAIL
        await caller.send("hi", session_id="s")
    await caller.aclose()


async def test_a_start_that_never_answers_is_a_timeout(tmp_path: Path) -> None:
    guarded = GuardedImplementation(DoubleHosts(), timeout=0.1)
    with pytest.raises(AdapterTimeout, match="start_host"):
        await guarded.start_host(spec(tmp_path, "hang.db"))


async def test_a_host_off_the_loopback_is_a_contract_error_and_is_killed(tmp_path: Path) -> None:
    inner = DoubleHosts()
    with pytest.raises(AdapterContractError, match=r"not http://127\.0\.0\.1:PORT"):
        await GuardedImplementation(inner, timeout=10).start_host(spec(tmp_path, "remote.db"))
    assert inner.hosts[0].ended == "kill"


async def test_an_object_that_is_not_a_host_is_a_contract_error(tmp_path: Path) -> None:
    guarded = GuardedImplementation(DoubleHosts(), timeout=10)
    with pytest.raises(AdapterContractError, match="lacks the HostUnderTest methods kill, stop"):
        await guarded.start_host(spec(tmp_path, "nomethods.db"))


async def test_damage_goes_to_the_implementation(tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    await GuardedImplementation(DoubleHosts(), timeout=10).damage_session(store, "s1")
    assert Path(f"{store}.damaged").read_text() == "s1\n"


async def test_hosting_declared_without_a_door_is_declared_but_missing(tmp_path: Path) -> None:
    class NoDoor:
        name = "no door"
        capabilities = DoubleHosts.capabilities

        async def create_agent(self, spec: AgentSpec) -> None:
            raise NotImplementedError

    guarded = GuardedImplementation(NoDoor(), timeout=10)  # type: ignore[arg-type]
    with pytest.raises(DeclaredButMissing, match="start_host"):
        await guarded.start_host(spec(tmp_path, "s.db"))
    with pytest.raises(DeclaredButMissing, match="damage_session"):
        await guarded.damage_session("s.db", "s1")
