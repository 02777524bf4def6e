"""A rogue: its id, the laws it is built to break, and the one part of the reference it
changes (the agent, the host, the session runtime or the session runtime's client)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reference_impl import Agent
from reference_impl.conformance_adapter import ReferenceImplementation
from reference_impl.sessions import SessionRuntime
from reference_impl.sessions.client import SessionClient

Surface = Literal["agent", "hosting", "sessions"]
"""Which door a rogue's change is behind; its kill job runs that door's laws."""


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

    @property
    def surface(self) -> Surface:
        if self.session_runtime is not None or self.session_client is not None:
            return "sessions"
        return "hosting" if self.host is not None else "agent"

    @property
    def change(self) -> str:
        """The one change, in words: the docstring of the part it changes."""
        changed = self.host or self.session_runtime or self.session_client or self.runtime
        return " ".join((changed.__doc__ or "").split())

    @property
    def attribute(self) -> str:
        return self.id.replace("-", "_")

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

    def implementation(self) -> ReferenceImplementation:
        """The reference adapter on the rogue: it declares only its own door (a session
        rogue no hosting, a host rogue and an agent-level one no sessions)."""
        return ReferenceImplementation(
            self.runtime,
            name=f"rogue {self.id}",
            host_class=self.host_class,
            hosting=self.surface == "hosting",
            sessions=self.surface == "sessions",
            session_runtime_class=self.session_runtime_class,
            session_client_class=self.session_client,
        )


def _path(changed: type) -> str:
    return f"{changed.__module__}:{changed.__qualname__}"
