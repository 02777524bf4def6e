"""What the hosting laws ask of a host, whatever wire it speaks: `HostClient`.

The laws are about the seed's sentence (a session hydrated, continued, persisted before
the answer, a pause served as a question), not about its JSON field names. A host that
serves another wire (its own paths, its own body) is judged by the same laws through a
`HostClient` of its own: an Implementation sets `host_client` to a `HostClientFactory`,
and the fixture builds one caller per `host.caller()` from it instead of the seed-wire
caller (docs/suite.md, "Hosting").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from ..adapter import HostSpec
from ._reply import HostReply


@runtime_checkable
class HostClient(Protocol):
    """One caller of one host: its own cookie jar, and its own credential if given.

    Session ids travel as the seed names them: `session_id` (the body's), else
    `header_session` (a header), else the session cookie (`cookie` sets it explicitly;
    without it, whatever the host issued this caller). A wire without one of these sources
    raises NotImplementedError for it: the law needing it is then a FAIL of the declared
    capability, never a pass."""

    async def send(
        self,
        message: str,
        *,
        session_id: str | None = None,
        header_session: str | None = None,
        cookie: str | None = None,
        stream: bool = False,
    ) -> HostReply: ...

    async def decide(
        self,
        decision: str,
        *,
        session_id: str | None = None,
        header_session: str | None = None,
        cookie: str | None = None,
        stream: bool = False,
    ) -> HostReply: ...

    async def read_session(self, session_id: str) -> HostReply | None:
        """The stored session (`HostReply.found`, `checkpoint`), or its refusal; None:
        this host offers no way to read one back."""
        ...

    async def raw(self, body: bytes, *, headers: Mapping[str, str] | None = None) -> HostReply:
        """`body` sent as is to the turn endpoint, for the laws about invalid requests."""
        ...

    async def aclose(self) -> None: ...


class HostClientFactory(Protocol):
    """`Implementation.host_client`: a caller for the host at `base_url`, started from
    `spec`, presenting `token` as its credential (None: none)."""

    def __call__(self, base_url: str, spec: HostSpec, *, token: str | None) -> HostClient: ...
