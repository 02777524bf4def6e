"""One agent of a `cmd:` adapter, as the laws see it: each call is one request.

The methods are derived from the agent surface's op table (conformance.adapter.AGENT):
a call binds its arguments to the op's parameters, as Python would bind them to the
Protocol's method, and sends them as that op's request. Only `close` is the connector's
own: it also forgets the agent, and says nothing to an adapter that is gone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..adapter import AGENT, AgentUnderTest, Op
from .protocol import agent_request

if TYPE_CHECKING:
    from .connector import StdioImplementation


class StdioAgent:
    """conformance.adapter.AgentUnderTest, one request per call (see `open`)."""

    def __init__(self, implementation: StdioImplementation, handle: str) -> None:
        self._impl = implementation
        self.handle = handle

    @classmethod
    def open(cls, implementation: StdioImplementation, handle: str) -> AgentUnderTest:
        """The agent `handle`, typed as what it is: its methods come from the op table,
        which a test holds to the Protocol, so a type checker cannot see them itself."""
        return cast(AgentUnderTest, cls(implementation, handle))

    async def request(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Send `op` with these arguments and return its result."""
        params = op.bind(args, kwargs)
        return await self._impl.call(
            lambda seq: agent_request(op.op, seq=seq, agent=self.handle, **params)
        )

    async def close(self) -> None:
        await self._impl.close_agent(self.handle)


AGENT.derive_methods(StdioAgent, "request", close=False)
