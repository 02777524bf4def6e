"""The agent surface's op table: every call the laws make of an agent, once.

`AGENT` is the definition; the Protocol classes in `_protocols.py` are held to it by a
test, and the stdio protocol, its schema, its client and server, and the runner's guard
are derived from it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from ._protocols import AgentUnderTest
from ._types import (
    JSON,
    AbandonedPause,
    AgentSpec,
    Capability,
    IdentityReport,
    IdentitySpec,
    RefusalKind,
    RunOutcome,
    StrictIdentityReport,
    StrictRunOutcome,
)
from .surface import Op, Surface


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _CreateParams(_Params):
    spec: AgentSpec


class _RunParams(_Params):
    message: str
    continue_from: JSON = None
    identity: IdentitySpec | None = None
    session_id: str | None = None


class _MessageParams(_Params):
    message: str


class _ResumeParams(_Params):
    checkpoint: JSON
    decision: str | None
    """The person's answer, as text; None: the person gave none (yet). A runtime
    resumes only with an answer it can send: it refuses no decision, or one it cannot
    take (text no JSON store or UTF-8 wire carries), leaving the question pending —
    refused as `pending_question`, since the question is still owed."""
    session_id: str | None = None
    """The session the resumed turn belongs to, as on `run`: a host passes it on every run
    and resume (the seed's standingAgent), so a resumed turn of a session that named no
    identity runs under the session's namespace, not a run's."""


class _NoParams(_Params):
    pass


AGENT = Surface(
    name="agent",
    handle="agent",
    protocol=AgentUnderTest,
    create=Op(
        "create_agent",
        _CreateParams,
        returns=AgentUnderTest,
        reply=None,
        stdio_op="agent.create",
        doc="Build an agent from `spec` (the fake's base URL, key and dialect included); "
        "later requests name it by `agent`.",
    ),
    methods=(
        Op(
            "run",
            _RunParams,
            returns=RunOutcome,
            reply=StrictRunOutcome,
            refusals=frozenset(
                {
                    RefusalKind.MISMATCH,
                    RefusalKind.INVALID_CHECKPOINT,
                    RefusalKind.RUN_IN_FLIGHT,
                    RefusalKind.PENDING_QUESTION,
                    RefusalKind.INVALID_INPUT,
                }
            ),
            doc="One turn; `continue_from` (a checkpoint) needs continue_from, `identity` "
            "needs identity, `session_id` needs session_id.",
        ),
        Op(
            "follow_up",
            _MessageParams,
            returns=RunOutcome,
            reply=StrictRunOutcome,
            capability=Capability.FOLLOW_UP,
            refusals=frozenset(
                {
                    RefusalKind.NO_CONVERSATION,
                    RefusalKind.RUN_IN_FLIGHT,
                    RefusalKind.PENDING_QUESTION,
                    RefusalKind.INVALID_INPUT,
                }
            ),
            doc="The next turn of the agent's own conversation.",
        ),
        Op(
            "checkpoint",
            _NoParams,
            returns=JSON,
            reply=JSON,
            refusals=frozenset({RefusalKind.NO_CONVERSATION}),
            doc="The conversation so far, as plain JSON.",
        ),
        Op(
            "resume",
            _ResumeParams,
            returns=RunOutcome,
            reply=StrictRunOutcome,
            capability=Capability.PAUSE,
            refusals=frozenset(
                {
                    RefusalKind.INVALID_CHECKPOINT,
                    RefusalKind.MISMATCH,
                    RefusalKind.RUN_IN_FLIGHT,
                    RefusalKind.PENDING_QUESTION,
                    RefusalKind.INVALID_INPUT,
                }
            ),
            doc="Answer a paused run's question with `decision`, from its checkpoint; "
            "`decision` null (no answer) is refused as pending_question, the question "
            "still owed; `session_id` (as on run) needs session_id.",
        ),
        Op(
            "abandon_pause",
            _NoParams,
            returns=dict[str, str] | None,
            reply=AbandonedPause | None,
            capability=Capability.PAUSE,
            doc="Drop the pending question, if any; what was dropped.",
        ),
        Op(
            "can_explain",
            _NoParams,
            returns=StrictBool,  # "no" must not read as a yes or a no
            reply=StrictBool,
            capability=Capability.SELF_EXPLAIN,
            doc="Whether the agent can explain its last run now.",
        ),
        Op(
            "last_identity",
            _NoParams,
            returns=IdentityReport | None,
            reply=StrictIdentityReport | None,
            capability=Capability.IDENTITY_REPORT,
            doc="The last run's identity and where it came from.",
        ),
    ),
    close=Op(
        "close",
        _NoParams,
        returns=None,
        reply=None,
        stdio_op="agent.close",
        doc="The agent is done with: release what it holds; the handle is not used again.",
    ),
)
"""The agent surface: `Implementation.create_agent`, then the `AgentUnderTest` calls."""
