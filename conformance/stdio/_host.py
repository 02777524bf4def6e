"""One host of a `cmd:` adapter, as the hosting laws see it: a base URL, kill and stop.

The host is the adapter's own process (or one it started); the suite speaks the seed's
HTTP wire to it directly at `base_url`, so only its lifetime crosses stdio. Its methods
are derived from the host surface's op table (conformance.adapter.HOST).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..adapter import HOST, HostUnderTest, HostWireProfile, Op

if TYPE_CHECKING:
    from .connector import StdioImplementation


class StdioHost:
    """conformance.adapter.HostUnderTest, its lifetime one request per call."""

    def __init__(
        self,
        implementation: StdioImplementation,
        handle: str,
        base_url: str,
        wire_profile: HostWireProfile | None = None,
    ) -> None:
        self._impl = implementation
        self.handle = handle
        self.base_url = base_url
        self.wire_profile = wire_profile

    @classmethod
    def open(
        cls,
        implementation: StdioImplementation,
        handle: str,
        base_url: str,
        wire_profile: HostWireProfile | None = None,
    ) -> HostUnderTest:
        """The host `handle`, typed as what it is (its methods come from the op table)."""
        return cast(HostUnderTest, cls(implementation, handle, base_url, wire_profile))

    async def request(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Send `op` for this host; a host its adapter lost in a restart is gone already."""
        op.bind(args, kwargs)
        await self._impl.end_host(op.op, self.handle)


HOST.derive_methods(StdioHost, "request")
