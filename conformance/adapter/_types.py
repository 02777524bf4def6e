"""The values that cross the adapter protocol: what the suite sends, what comes back."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from ..catalog import ToolName as ToolName  # the fixed tool catalog
from ..wire.ir import Dialect

JSON = Any
"""A checkpoint as plain JSON data (what `json.loads` returns)."""


class Capability(StrEnum):
    """What an implementation declares it does. A law needing an undeclared capability
    is NOT_APPLICABLE; a declared capability that misbehaves fails."""

    FOLLOW_UP = "follow_up"
    CONTINUE_FROM = "continue_from"
    NAMED_AGENTS = "named_agents"
    IDENTITY = "identity"
    SESSION_ID = "session_id"
    TOOL_CONTEXT = "tool_context"
    IDENTITY_REPORT = "identity_report"
    MEMORY = "memory"
    PAUSE = "pause"
    SELF_EXPLAIN = "self_explain"
    WINDOW = "window"
    COMPACTION = "compaction"
    IN_FLIGHT_GUARD = "in_flight_guard"
    HOSTING = "hosting"


class RefusalKind(StrEnum):
    NO_CONVERSATION = "no_conversation"
    MISMATCH = "mismatch"
    RUN_IN_FLIGHT = "run_in_flight"
    PENDING_QUESTION = "pending_question"
    INVALID_CHECKPOINT = "invalid_checkpoint"


class Refused(Exception):
    """Raised by an adapter when the runtime refused, with the suite's kind for it."""

    def __init__(self, kind: RefusalKind, message: str) -> None:
        super().__init__(f"{kind.value}: {message}")
        self.kind = kind
        self.message = message


class RunFailed(Exception):
    """Raised by an adapter when a run (any door: run, follow_up, resume) failed — the
    provider kept failing, a stream broke — rather than answered, paused or refused.

    `checkpoint` is the runtime's last good conversation as plain JSON (what a failed
    run hands back so the caller can continue it), or None when the runtime hands none
    back or the adapter cannot get at it: the laws about that checkpoint are then
    NOT_APPLICABLE for this runtime, never FAILed. A failure the adapter cannot tell from
    a crash may propagate as any other error (an ERROR, not a verdict)."""

    def __init__(self, message: str, checkpoint: JSON | None = None) -> None:
        super().__init__(f"run failed: {message}")
        self.message = message
        self.checkpoint = checkpoint


class CompactionSpec(BaseModel):
    """Fold older turns into a summary the model writes, once the conversation grows.

    A turn is a user message and everything after it up to the next user message. The
    laws script short turns and count them; a runtime whose trigger is tokens or
    characters sets its budget so that `trigger_turns + 1` such turns exceed it, and says
    so in the implementation's `notes`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger_turns: int = Field(
        ge=1, description="fold when more than this many turns follow the last summary"
    )
    keep_recent_turns: int = Field(ge=1, description="the latest turns kept verbatim")
    keep_originals: bool = Field(
        default=False, description="the folded span keeps its original turns too"
    )


class AgentSpec(BaseModel):
    """Everything an adapter needs to build one agent against the fake provider."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = None
    system: str = ""
    model: str = "turnlaw-model"
    dialect: Dialect = Dialect.OPENAI_CHAT
    base_url: str
    api_key: str
    tools: tuple[ToolName, ...] = ()
    memory: bool = False
    self_explain: bool = False
    window: int | None = Field(
        default=None,
        ge=1,
        description="show the model only the last N turns (a turn: a user message and "
        "everything after it up to the next one, so a tool call stays with its result; a "
        "runtime that counts messages keeps the messages of the last N turns); what is "
        "stored is never trimmed",
    )
    compaction: CompactionSpec | None = None


class IdentitySpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    conversation_id: str
    tenant: str | None = None
    principal: str | None = None


class PendingReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    tool_name: str
    tool_call_id: str
    question: str


class RunOutcome(BaseModel):
    """What one run produced: an answer, or a pause with its resumable checkpoint."""

    model_config = ConfigDict(frozen=True)

    answer: str | None = None
    paused: PendingReport | None = None
    checkpoint: JSON = None


class IdentityReport(BaseModel):
    """The last run's identity and where it came from: explicit, carried, session, run."""

    model_config = ConfigDict(frozen=True)

    conversation_id: str
    source: Literal["explicit", "carried", "session", "run"]


# --- as results cross a process boundary: nothing unknown allowed ------------------


class StrictPending(PendingReport):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StrictRunOutcome(RunOutcome):
    """RunOutcome as it crosses the boundary: nothing unknown allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paused: StrictPending | None = None


class StrictIdentityReport(IdentityReport):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AbandonedPause(TypedDict):
    """What abandon_pause dropped."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]

    tool_name: str
    tool_call_id: str
    question: str
