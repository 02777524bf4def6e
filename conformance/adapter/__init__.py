"""The adapter protocol: how the suite drives a runtime it has never seen.

An adapter translates; it never repairs. It maps the suite's calls onto the runtime's
own API and reports what the runtime did: its answers, its checkpoints (as plain JSON),
and its refusals, mapped to the suite's own kinds. The suite judges the wire, so an
adapter that papered over a runtime's mistake would only be caught lying there.

`AGENT` is the agent surface's op table, the one definition of its calls; the Protocol
classes `Implementation` and `AgentUnderTest` are written out for type checkers.
"""

from ..wire.ir import Dialect
from ._agent_surface import AGENT
from ._protocols import AgentUnderTest, Implementation
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
    "JSON",
    "AbandonedPause",
    "AgentSpec",
    "AgentUnderTest",
    "Capability",
    "CompactionSpec",
    "CompactionTrigger",
    "Delivery",
    "Dialect",
    "IdentityReport",
    "IdentitySpec",
    "Implementation",
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
    "unserializable",
]
