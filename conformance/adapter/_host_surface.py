"""The host surface's op table: every call the hosting laws make of a host, once.

`HOST` is the definition (start a host, kill it, stop it); `DAMAGE_SESSION` is the one
call the hosting laws make of the implementation itself outside a host, so it is an op
of its own rather than a method of a running host. The Protocol classes in
`_protocols.py` are held to them by a test, and the stdio host ops, their schema, the
stdio client and server and the runner's guard are derived from them.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ._host_profile import HostWireProfile
from ._hosting_types import HostSpec
from ._protocols import HostUnderTest
from ._types import Capability
from .surface import Op, Surface

_LOOPBACK = re.compile(r"^http://(127\.0\.0\.1|localhost):[0-9]{1,5}/?$")


def loopback_problem(url: object) -> str | None:
    """Why `url` is not a host's base URL (http on the loopback, with a port), or None.

    The suite talks to a host it started on this machine; a URL elsewhere would send the
    laws' requests (and the fake's key in the host's replies) off the machine."""
    if not isinstance(url, str):
        return f"base_url is a {type(url).__qualname__}, not a string"
    if not _LOOPBACK.match(url):
        return (
            f"base_url {url!r} is not http://127.0.0.1:PORT or http://localhost:PORT: "
            "a host under test serves on the loopback"
        )
    return None


def _loopback(url: str) -> str:
    problem = loopback_problem(url)
    if problem is not None:
        raise ValueError(problem)
    return url.rstrip("/")


LoopbackUrl = Annotated[
    str,
    AfterValidator(_loopback),
    Field(description="http://127.0.0.1:PORT or http://localhost:PORT"),
]


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _StartParams(_Params):
    spec: HostSpec


class _NoParams(_Params):
    pass


class _DamageParams(_Params):
    store: str = Field(min_length=1)
    session_id: str = Field(min_length=1)


class HostStarted(BaseModel):
    """What `host.start` answers over stdio: where the started host serves, and how
    its replies say each outcome when that is not the default profile (other fields are
    ignored: a host may say more about itself)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    base_url: LoopbackUrl
    wire_profile: HostWireProfile | None = Field(
        default=None,
        description="how this host's replies say each outcome (docs/hosting.md); absent: "
        "the default profile, the reference's wire",
    )


HOST = Surface(
    name="host",
    handle="host",
    protocol=HostUnderTest,
    create=Op(
        "start_host",
        _StartParams,
        returns=HostUnderTest,
        reply=HostStarted,
        capability=Capability.HOSTING,
        stdio_op="host.start",
        doc="Start a host of the runtime's own against the fake (`spec.agent`), keeping "
        "its sessions at `spec.store` (the same store again is a restart); answer once it "
        "serves, with its `base_url`. Later requests name it by `host`.",
    ),
    methods=(
        Op(
            "kill",
            _NoParams,
            returns=None,
            reply=None,
            capability=Capability.HOSTING,
            stdio_op="host.kill",
            doc="Crash the host: SIGKILL, nothing flushed; answer once it is gone. The "
            "handle is not used again.",
        ),
    ),
    close=Op(
        "stop",
        _NoParams,
        returns=None,
        reply=None,
        capability=Capability.HOSTING,
        stdio_op="host.stop",
        doc="Stop the host gracefully (running turns finish and persist); answer once it "
        "is gone. The handle is not used again.",
    ),
)
"""The host surface: `start_host`, then the `HostUnderTest` calls (kill, stop)."""

DAMAGE_SESSION = Op(
    "damage_session",
    _DamageParams,
    returns=None,
    reply=None,
    capability=Capability.HOSTING_DAMAGE,
    doc="Make the session `session_id` stored at `store` unreadable the way a real store "
    "goes bad (called while no host runs on it).",
)
"""`Implementation.damage_session(store, session_id)`."""
