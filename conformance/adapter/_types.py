"""The values that cross the adapter protocol: what the suite sends, what comes back."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
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
    """Retired: the in-flight laws apply to every agent that keeps a conversation. Still
    accepted from adapters written before, it excludes nothing."""
    CALL_SERVICE = "call_service"  # offers the catalog's call_service tool
    HOSTING = "hosting"
    HOSTING_ENQUEUE = "hosting_enqueue"
    HOSTING_FACTORY = "hosting_factory"
    HOSTING_IDENTITY = "hosting_identity"
    HOSTING_DAMAGE = "hosting_damage"
    # the session model of seed 003 (docs/sessions.md)
    SESSIONS = "sessions"
    SESSION_ABORT = "session_abort"
    SESSION_STATE = "session_state"
    SESSION_QUEUE_REMOVE = "session_queue_remove"
    SESSION_APPROVALS = "session_approvals"
    SESSION_MEMORY = "session_memory"
    SESSION_MODEL = "session_model"
    SESSION_CLIENT_TOOLS = "session_client_tools"
    SESSION_DROP = "session_drop"
    SESSION_KILL = "session_kill"
    CONVERSATIONS_API = "conversations_api"


RETIRED_CAPABILITIES = frozenset({Capability.IN_FLIGHT_GUARD})
"""Capabilities an adapter may still declare that no law needs any more."""


class Delivery(StrEnum):
    """How a model reply reaches the runtime: streamed (server-sent events) or whole (one
    response body). A runtime that offers both declares both (`Implementation.deliveries`)
    and every law runs in each, since the two are separate code paths."""

    STREAM = "stream"
    WHOLE = "whole"


class RefusalKind(StrEnum):
    """The suite's names for a runtime's refusals; an adapter maps its runtime's own onto
    them (docs/adapter-protocol.md, "Replies")."""

    NO_CONVERSATION = "no_conversation"
    MISMATCH = "mismatch"
    RUN_IN_FLIGHT = "run_in_flight"
    PENDING_QUESTION = "pending_question"
    INVALID_CHECKPOINT = "invalid_checkpoint"
    SESSION_UNUSABLE = "session_unusable"
    """A session whose connection closed (broken or closed by the client) is used again."""
    UNKNOWN_ID = "unknown_id"
    """`resume_session` (or a conversation read) names an id the backend does not know."""
    INVALID_INPUT = "invalid_input"
    """The runtime refused the input itself as invalid (an empty or whitespace message, a
    message it cannot take) before anything was sent."""


class Refused(Exception):
    """Raised by an adapter when the runtime refused, with the suite's kind for it."""

    def __init__(self, kind: RefusalKind, message: str) -> None:
        super().__init__(f"{kind.value}: {message}")
        self.kind = kind
        self.message = message


CompactionTrigger = Literal["turns", "chars"]
"""What a runtime's compaction counts: turns, or characters (a token budget maps from
characters; see CompactionSpec)."""


RunFailureCause = Literal["provider", "runtime"]
"""Why a run failed: `provider`, the provider kept failing or its stream broke (an error
status after the SDK's retries, a cut stream, a stream that ended in the provider's
error event); `runtime`, the run ended in the runtime's own error (an error event or
exception of its own that no provider fault caused)."""


class RunFailed(Exception):
    """Raised by an adapter when a run (any door: run, follow_up, resume) failed rather
    than answered, paused or was refused.

    `cause` says why (`RunFailureCause`): "provider" (the default) when the provider kept
    failing or its stream broke, "runtime" when the run ended in the runtime's own error
    (an error event or error of its own, not a provider failure). A law that needs the
    act to succeed FAILs on either, naming the cause and the message; the failure laws,
    which script a provider fault, accept either cause.

    `checkpoint` is the runtime's last good conversation as plain JSON (what a failed
    run hands back so the caller can continue it), or None when the runtime hands none
    back or the adapter cannot get at it: the laws about that checkpoint are then
    NOT_APPLICABLE for this runtime, never FAILed. A failure the adapter cannot tell from
    a crash may propagate as any other error (an ERROR, not a verdict)."""

    def __init__(
        self,
        message: str,
        checkpoint: JSON | None = None,
        *,
        cause: RunFailureCause = "provider",
    ) -> None:
        super().__init__(f"run failed ({cause}): {message}")
        self.message = message
        self.checkpoint = checkpoint
        self.cause: RunFailureCause = cause


class CompactionSpec(BaseModel):
    """Fold older turns into a summary the model writes, once the conversation grows.

    Exactly one trigger is set, because a runtime's compaction counts one thing:

    - `trigger_turns`: fold when more than this many turns follow the last summary. A turn
      is a user message and everything after it up to the next user message (the reply,
      tool calls, their results).
    - `trigger_chars`: fold when the turns since the last summary hold more than this many
      characters: the texts of user messages, assistant replies and tool results, and the
      JSON of tool-call arguments; not the system prompt or the tool definitions. A
      runtime that budgets *tokens* takes `trigger_chars // 4` tokens: the laws' turns are
      sized so that a tokenizer off by up to 1.9 times still trips on the same turn.

    The check is made when a new message arrives (the new message counted), before the
    model is asked to answer it. An implementation says which triggers it honours
    (`compaction_triggers`, default turns only); the compaction law is played once per
    trigger it honours.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger_turns: int | None = Field(
        default=None,
        ge=1,
        description="fold when more than this many turns follow the last summary",
    )
    trigger_chars: int | None = Field(
        default=None,
        ge=1,
        description="fold when the turns since the last summary hold more than this many "
        "characters (tokens: a quarter of it)",
    )
    keep_recent_turns: int = Field(ge=1, description="the latest turns kept verbatim")
    keep_originals: bool = Field(
        default=False, description="the folded span keeps its original turns too"
    )

    @model_validator(mode="after")
    def _one_trigger(self) -> CompactionSpec:
        if (self.trigger_turns is None) == (self.trigger_chars is None):
            raise ValueError("set exactly one of trigger_turns and trigger_chars")
        return self

    @property
    def trigger(self) -> CompactionTrigger:
        return "turns" if self.trigger_turns is not None else "chars"


class AgentSpec(BaseModel):
    """Everything an adapter needs to build one agent against the fake provider."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = None
    system: str = ""
    model: str = "turnlaw-model"
    dialect: Dialect = Dialect.OPENAI_CHAT
    stream: bool = Field(
        default=True,
        description="ask the model for streamed replies (true) or whole ones (false); the "
        "suite asks only for a delivery the implementation declares",
    )
    base_url: str
    api_key: str
    tools: tuple[ToolName, ...] = ()
    memory: bool = False
    self_explain: bool = False
    window: int | None = Field(
        default=None,
        ge=1,
        description="show the model only the last N turns (a turn: a user message and "
        "everything after it up to the next user message: the reply, tool calls and their "
        "results, so a call always stays with its result). The current turn counts: "
        "window=1 shows only the turn being answered, window=2 it and the turn before. A "
        "runtime that counts messages maps N turns to the messages of the last N turns, "
        "recounted for each model call (never a fixed 2N: a turn with tool rounds has more "
        "messages); one that counts previous runs keeps N-1 of them. A summary turn of "
        "compaction is shown besides the window. What is stored is never trimmed",
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
    """What one run produced: an answer, or a pause with its resumable checkpoint.

    The suite hands `checkpoint` back as it came (after a JSON round trip): a completed
    run's to `run(continue_from=)` on any agent, a paused run's to `resume` and to the
    other doors (which must not walk around the question). A runtime with separate pause
    and conversation states puts both in this one JSON, and in `checkpoint()`'s."""

    model_config = ConfigDict(frozen=True)

    answer: str | None = None
    paused: PendingReport | None = None
    checkpoint: JSON = None


class IdentityReport(BaseModel):
    """The last run's identity and where it came from: explicit, carried, session, run.

    `conversation_id` is the namespace the runtime used. A runtime that labels only some
    sources gives its own label where it has one; otherwise the source is the first
    ladder rung (explicit, carried, session) whose conversation id is the one used, else
    `run` — read from what the runtime did, never from the inputs alone."""

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
