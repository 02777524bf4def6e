"""A rogue: its id, the laws it is built to break, and the one part of the reference it
changes (the agent, the host, the session runtime or the session runtime's client); a
host rogue may also be served behind the second wire (tests/harness/second_wire.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from reference_impl import Agent
from reference_impl.adapter import ReferenceImplementation
from reference_impl.sessions import SessionRuntime
from reference_impl.sessions.client import SessionClient
from tests.harness.second_wire import SecondWireImplementation

Surface = Literal["agent", "hosting", "sessions"]
"""Which door a rogue's change is behind; its kill job runs that door's laws."""

SECOND_WIRE = "@second-wire"
"""The id suffix of a host rogue served behind the second wire."""


@dataclass(frozen=True)
class Rogue:
    id: str
    breaks: tuple[str, ...]
    """The laws this rogue is built to break: each must FAIL against it."""
    runtime: type[Agent] = Agent
    host: type | None = None
    """A `StandingAgent` subclass for the hosting rogues; None: the reference host, and
    no hosting at all, so an agent-level rogue's kill job starts no host process."""
    session_runtime: type[SessionRuntime] | None = None
    """A `SessionRuntime` subclass for a session rogue, served by import path (in the
    suite's process, or spawned when a law SIGKILLs it)."""
    session_client: type[SessionClient] | None = None
    """A `SessionClient` subclass for a session rogue whose change is in the runtime's
    client (the reference runtime serves it)."""
    second_wire: bool = False
    """A host rogue served behind the second wire: its hosts speak another wire than the
    reference's, declared in their wire profile, and the laws must kill it all the same."""

    @property
    def surface(self) -> Surface:
        if self.session_runtime is not None or self.session_client is not None:
            return "sessions"
        return "hosting" if self.host is not None else "agent"

    @property
    def change(self) -> str:
        """The one change, in words: the docstring of the part it changes."""
        changed = self.host or self.session_runtime or self.session_client or self.runtime
        words = " ".join((changed.__doc__ or "").split())
        return f"{words} Served behind the second wire." if self.second_wire else words

    @property
    def attribute(self) -> str:
        return self.id.replace("-", "_").replace("@", "__")

    @property
    def impl_spec(self) -> str:
        return f"tests.rogues.gallery:{self.attribute}"

    @property
    def host_class(self) -> str | None:
        """The host as an import path: the reference adapter spawns it in its own process."""
        return None if self.host is None else _path(self.host)

    @property
    def session_runtime_class(self) -> str | None:
        """The session runtime as an import path: it may be spawned in its own process."""
        return None if self.session_runtime is None else _path(self.session_runtime)

    def behind_the_second_wire(self) -> Rogue:
        """This host rogue, its hosts served behind the second wire."""
        if self.surface != "hosting":
            raise ValueError(f"{self.id} changes no host: nothing to serve behind a wire")
        return replace(self, id=f"{self.id}{SECOND_WIRE}", second_wire=True)

    def implementation(self) -> ReferenceImplementation | SecondWireImplementation:
        """The reference adapter on the rogue: it declares only its own door (a session
        rogue no hosting, a host rogue and an agent-level one no sessions); behind the
        second wire, wrapped in it."""
        made = ReferenceImplementation(
            self.runtime,
            name=f"rogue {self.id}",
            host_class=self.host_class,
            hosting=self.surface == "hosting",
            sessions=self.surface == "sessions",
            session_runtime_class=self.session_runtime_class,
            session_client_class=self.session_client,
        )
        return SecondWireImplementation(made, name=made.name) if self.second_wire else made


def _path(changed: type) -> str:
    return f"{changed.__module__}:{changed.__qualname__}"
