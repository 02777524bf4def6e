"""The adapter protocol: how the suite drives a runtime it has never seen.

An adapter translates; it never repairs. It maps the suite's calls onto the runtime's
own API and reports what the runtime did: its answers, its checkpoints (as plain JSON),
and its refusals, mapped to the suite's own kinds. The suite judges the wire, so an
adapter that papered over a runtime's mistake would only be caught lying there.

`AGENT` is the agent surface's op table, the one definition of its calls, and `HOST`
(with `DAMAGE_SESSION`) the hosting door's; the Protocol classes `Implementation`,
`AgentUnderTest`, `HostingImplementation` and `HostUnderTest` are written out for type
checkers.
"""

from ..wire.ir import Dialect
from ._agent_surface import AGENT
from ._host_surface import DAMAGE_SESSION, HOST, HostStarted, LoopbackUrl, loopback_problem
from ._hosting_types import ConcurrentInvoke, HostSpec
from ._protocols import AgentUnderTest, HostingImplementation, HostUnderTest, Implementation
from ._types import (
    JSON,
    AbandonedPause,
    AgentSpec,
    Capability,
    CompactionSpec,
    CompactionTrigger,
    Delivery,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    Refused,
    RunFailed,
    RunOutcome,
    StrictIdentityReport,
    StrictPending,
    StrictRunOutcome,
    ToolName,
)
from .surface import Op, Surface, unserializable

__all__ = [
    "AGENT",
    "DAMAGE_SESSION",
    "HOST",
    "JSON",
    "AbandonedPause",
    "AgentSpec",
    "AgentUnderTest",
    "Capability",
    "CompactionSpec",
    "CompactionTrigger",
    "ConcurrentInvoke",
    "Delivery",
    "Dialect",
    "HostSpec",
    "HostStarted",
    "HostUnderTest",
    "HostingImplementation",
    "IdentityReport",
    "IdentitySpec",
    "Implementation",
    "LoopbackUrl",
    "Op",
    "PendingReport",
    "RefusalKind",
    "Refused",
    "RunFailed",
    "RunOutcome",
    "StrictIdentityReport",
    "StrictPending",
    "StrictRunOutcome",
    "Surface",
    "ToolName",
    "loopback_problem",
    "unserializable",
]
