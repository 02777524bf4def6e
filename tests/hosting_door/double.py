"""A hosting implementation test double: its hosts are the Starlette app of `served`,
and a store's name says how its host door misbehaves (`hang`: a start that never answers;
`remote`: a host that says it serves off the loopback; `nomethods`: not a host at all;
`profiled`: a host that hands back its own wire profile, PROFILE; `badprofile`: one whose
profile is not a HostWireProfile).

Run as `python -m tests.hosting_door.double`, it is a stdio adapter of the same double.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from conformance.adapter import (
    AgentSpec,
    AgentUnderTest,
    Capability,
    HostSpec,
    HostUnderTest,
    HostWireProfile,
    ReadNone,
    Way,
)
from conformance.hosting import HostOutcome, HostReply
from conformance.stdio.protocol import ImplementationInfo
from conformance.stdio.serve import serve

from .served import RunningApp

PROFILE = HostWireProfile(run_failed=[Way(status=[500])], read=ReadNone())
"""The wire profile a `profiled` double host hands back."""


class DoubleHost:
    def __init__(self, app: RunningApp, base_url: str, wire_profile: object = None) -> None:
        self._app = app
        self.base_url = base_url
        self.wire_profile = wire_profile
        self.ended: str | None = None

    async def kill(self) -> None:
        self.ended = "kill"
        await self._app.end()

    async def stop(self) -> None:
        self.ended = "stop"
        await self._app.end()


class DoubleHosts:
    name = "hosting double"
    capabilities = frozenset({Capability.HOSTING, Capability.HOSTING_DAMAGE})

    def __init__(self) -> None:
        self.hosts: list[DoubleHost] = []

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        raise NotImplementedError("a double of the host door only")

    async def start_host(self, spec: HostSpec) -> HostUnderTest:
        name = Path(spec.store).name
        if name.startswith("hang"):
            await asyncio.sleep(3600)
        if name.startswith("nomethods"):
            return object()  # type: ignore[return-value]
        app = RunningApp()
        url = await app.start()
        profile = {"profiled": PROFILE, "badprofile": {"busy": "nope"}}.get(name.split("-")[0])
        host = DoubleHost(app, "http://10.9.8.7:80" if name.startswith("remote") else url, profile)
        self.hosts.append(host)
        return host

    async def damage_session(self, store: str, session_id: str) -> None:
        with Path(f"{store}.damaged").open("a") as damaged:
            damaged.write(session_id + "\n")


class OwnWireClient:
    """A `HostClient` for a host speaking its own wire: answers `mine`, has no decide."""

    def __init__(self, base_url: str, spec: HostSpec, *, token: str | None) -> None:
        self.base_url = base_url
        self.token = token

    async def send(self, message: str, **where: object) -> HostReply:
        said = frozenset({HostOutcome.ANSWERED})
        return HostReply(status=200, said=said, output=f"mine: {message} ({self.token})")

    async def decide(self, decision: str, **where: object) -> HostReply:
        raise NotImplementedError("this wire carries no decisions")

    async def read_session(self, session_id: str) -> HostReply:
        return HostReply(status=404, said=frozenset({HostOutcome.NOT_FOUND}), evidence="no")

    async def raw(self, body: bytes, *, headers: object = None) -> HostReply:
        raise NotImplementedError

    async def aclose(self) -> None:
        pass


class DoubleWithOwnWire(DoubleHosts):
    host_client = OwnWireClient


DOUBLE = DoubleHosts()
"""The double as `--impl tests.hosting_door.double:DOUBLE` names it."""
OWN_WIRE = DoubleWithOwnWire()

if __name__ == "__main__":
    serve(DoubleHosts(), ImplementationInfo(name="hosting double", language="python"))
