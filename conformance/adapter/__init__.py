"""The adapter protocol: how the suite drives a runtime it has never seen.

An adapter translates; it never repairs. It maps the suite's calls onto the runtime's
own API and reports what the runtime did: its answers, its checkpoints (as plain JSON),
and its refusals, mapped to the suite's own kinds. The suite judges the wire, so an
adapter that papered over a runtime's mistake would only be caught lying there.

`AGENT` is the agent surface's op table, the one definition of its calls, `HOST`
(with `DAMAGE_SESSION`) the hosting door's, and `BACKEND` and `SESSION` the session
door's (docs/sessions.md; its values in `_session_types.py`); the Protocol classes
`Implementation`, `AgentUnderTest`, `HostingImplementation`, `HostUnderTest`,
`SessionImplementation`, `BackendUnderTest` and `SessionUnderTest` are written out for
type checkers, and tests hold them to the tables.
"""

from ..wire.ir import Dialect
from ._agent_ids import (
    MAX_AGENT_ID_PATTERN_LENGTH,
    REQUIRED_AGENT_IDS,
    SAFE_AGENT_ID_PATTERN,
    AgentIdPatternError,
    agent_id_fits,
    agent_id_pattern_problem,
    declared_agent_id_pattern,
)
from ._agent_surface import AGENT
from ._evolution import ADDED_FIELDS, FIRST_REVISION, REVISION, AddedField, added_field
from ._host_surface import DAMAGE_SESSION, HOST, HostStarted, LoopbackUrl, loopback_problem
from ._hosting_types import ConcurrentInvoke, HostSpec
from ._protocols import (
    AgentUnderTest,
    BackendUnderTest,
    HostingImplementation,
    HostUnderTest,
    Implementation,
    SessionImplementation,
    SessionUnderTest,
)
from ._session_surface import BACKEND, SESSION, session_call_deadline
from ._session_types import (
    ApprovalRequestEvent,
    AssistantEvent,
    BackendSpec,
    BreakHow,
    ErrorEvent,
    PassEnd,
    PendingApproval,
    QueueEvent,
    ReasoningEvent,
    ResultEvent,
    RetryEvent,
    SessionAgentSpec,
    SessionEvent,
    SessionIds,
    SessionOptions,
    SessionState,
    StoredMessage,
    StreamPass,
    ToolCallEvent,
    ToolResultEvent,
)
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
    RunFailureCause,
    RunOutcome,
    StrictIdentityReport,
    StrictPending,
    StrictRunOutcome,
    ToolName,
)
from .surface import Op, Surface, unserializable

__all__ = [
    "ADDED_FIELDS",
    "AGENT",
    "BACKEND",
    "DAMAGE_SESSION",
    "FIRST_REVISION",
    "HOST",
    "JSON",
    "MAX_AGENT_ID_PATTERN_LENGTH",
    "REQUIRED_AGENT_IDS",
    "REVISION",
    "SAFE_AGENT_ID_PATTERN",
    "SESSION",
    "AbandonedPause",
    "AddedField",
    "AgentIdPatternError",
    "AgentSpec",
    "AgentUnderTest",
    "ApprovalRequestEvent",
    "AssistantEvent",
    "BackendSpec",
    "BackendUnderTest",
    "BreakHow",
    "Capability",
    "CompactionSpec",
    "CompactionTrigger",
    "ConcurrentInvoke",
    "Delivery",
    "Dialect",
    "ErrorEvent",
    "HostSpec",
    "HostStarted",
    "HostUnderTest",
    "HostingImplementation",
    "IdentityReport",
    "IdentitySpec",
    "Implementation",
    "LoopbackUrl",
    "Op",
    "PassEnd",
    "PendingApproval",
    "PendingReport",
    "QueueEvent",
    "ReasoningEvent",
    "RefusalKind",
    "Refused",
    "ResultEvent",
    "RetryEvent",
    "RunFailed",
    "RunFailureCause",
    "RunOutcome",
    "SessionAgentSpec",
    "SessionEvent",
    "SessionIds",
    "SessionImplementation",
    "SessionOptions",
    "SessionState",
    "SessionUnderTest",
    "StoredMessage",
    "StreamPass",
    "StrictIdentityReport",
    "StrictPending",
    "StrictRunOutcome",
    "Surface",
    "ToolCallEvent",
    "ToolName",
    "ToolResultEvent",
    "added_field",
    "agent_id_fits",
    "agent_id_pattern_problem",
    "declared_agent_id_pattern",
    "loopback_problem",
    "session_call_deadline",
    "unserializable",
]
