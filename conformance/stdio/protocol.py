"""Adapter protocol v1: the suite drives a runtime in any language over JSON lines.

The suite (the connector) writes one request per line on the adapter's stdin; the
adapter writes one reply per line on its stdout and may log anything on stderr. Every
request carries a `seq`; its reply echoes it. Requests may be sent before earlier ones
are answered (a run held at the fake while a second run is refused), so replies may
come back in any order: the `seq` pairs them.

These models are the single definition: `schemas/adapter-v1.json` is exported from
them and docs/adapter-protocol.md describes them. Their types are strict both ways
(`"seq": "1"`, `1.0` or `true` is no seq, `"yes"` no boolean): a message either is
protocol v1 or is refused, whatever mode the connector runs in.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
)

from ..adapter import (
    JSON,
    AgentSpec,
    Capability,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    RunOutcome,
)
from ..wire.ir import Dialect

PROTOCOL_VERSION: Literal[1] = 1

MAX_SEQ = 2**53 - 1
"""The largest seq: the largest integer a JavaScript adapter holds exactly."""
Seq = Annotated[
    StrictInt,
    Field(ge=0, le=MAX_SEQ, description="Request number (an integer); the reply echoes it."),
]


def _an_integer(value: Any) -> Any:
    """pydantic matches `Literal[1]` by equality, so `true` and `1.0` would pass."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("the protocol version is an integer")
    return value


Version = Annotated[Literal[1], BeforeValidator(_an_integer)]
AgentHandle = Annotated[
    str,
    Field(min_length=1, description="The connector's name for an agent, set by agent.create."),
]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- requests ------------------------------------------------------------------------


class StartRequest(_Message):
    """First request: the protocol version the connector speaks."""

    op: Literal["start"] = "start"
    seq: Seq
    version: Version = PROTOCOL_VERSION


class AgentCreateRequest(_Message):
    """Build an agent from `spec` (the fake's base URL, key and dialect included); later
    requests name it by `agent`."""

    op: Literal["agent.create"] = "agent.create"
    seq: Seq
    agent: AgentHandle
    spec: AgentSpec


class RunRequest(_Message):
    op: Literal["run"] = "run"
    seq: Seq
    agent: AgentHandle
    message: str
    continue_from: JSON = None
    identity: IdentitySpec | None = None
    session_id: str | None = None


class FollowUpRequest(_Message):
    op: Literal["follow_up"] = "follow_up"
    seq: Seq
    agent: AgentHandle
    message: str


class CheckpointRequest(_Message):
    op: Literal["checkpoint"] = "checkpoint"
    seq: Seq
    agent: AgentHandle


class ResumeRequest(_Message):
    op: Literal["resume"] = "resume"
    seq: Seq
    agent: AgentHandle
    checkpoint: JSON
    decision: str


class AbandonPauseRequest(_Message):
    op: Literal["abandon_pause"] = "abandon_pause"
    seq: Seq
    agent: AgentHandle


class CanExplainRequest(_Message):
    op: Literal["can_explain"] = "can_explain"
    seq: Seq
    agent: AgentHandle


class LastIdentityRequest(_Message):
    op: Literal["last_identity"] = "last_identity"
    seq: Seq
    agent: AgentHandle


class AgentCloseRequest(_Message):
    op: Literal["agent.close"] = "agent.close"
    seq: Seq
    agent: AgentHandle


class StopRequest(_Message):
    """Last request: reply, then exit with status 0."""

    op: Literal["stop"] = "stop"
    seq: Seq


Request = Annotated[
    StartRequest
    | AgentCreateRequest
    | RunRequest
    | FollowUpRequest
    | CheckpointRequest
    | ResumeRequest
    | AbandonPauseRequest
    | CanExplainRequest
    | LastIdentityRequest
    | AgentCloseRequest
    | StopRequest,
    Field(discriminator="op"),
]
REQUESTS: TypeAdapter[Request] = TypeAdapter(Request)


# --- replies -------------------------------------------------------------------------


class OkReply(_Message):
    """The request was carried out; `result` is the op's result (see RESULTS)."""

    seq: Seq
    status: Literal["ok"] = "ok"
    result: Any = None


class RefusedReply(_Message):
    """The runtime refused, mapped to the suite's refusal kind, with its own message."""

    seq: Seq
    status: Literal["refused"] = "refused"
    kind: RefusalKind
    message: str


class ErrorReply(_Message):
    """Anything else went wrong in the adapter or the runtime (an ERROR, not a verdict)."""

    seq: Seq
    status: Literal["error"] = "error"
    message: str
    traceback: str = ""


Reply = Annotated[OkReply | RefusedReply | ErrorReply, Field(discriminator="status")]
REPLIES: TypeAdapter[Reply] = TypeAdapter(Reply)


# --- results -------------------------------------------------------------------------


class ImplementationInfo(_Message):
    """Who is under test, for the report header and for bug reports."""

    name: str = Field(min_length=1)
    language: str = Field(min_length=1, description="e.g. python, javascript, go")
    version: str | None = None
    homepage: str | None = None
    issue_tracker: str | None = None


class StartResult(_Message):
    implementation: ImplementationInfo
    capabilities: list[Capability]
    dialects: list[Dialect] = Field(default_factory=lambda: [Dialect.OPENAI_CHAT], min_length=1)
    trace_tool: str | None = Field(
        default=None,
        min_length=1,
        description="the tool a self-explain agent offers its model to read the trace; "
        "required with the self_explain capability",
    )


class StrictPending(PendingReport):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StrictRunOutcome(RunOutcome):
    """RunOutcome as it crosses the boundary: nothing unknown allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paused: StrictPending | None = None


class StrictIdentityReport(IdentityReport):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AbandonedPause(_Message):
    """What abandon_pause dropped."""

    tool_name: str
    tool_call_id: str
    question: str


RESULTS: dict[str, TypeAdapter[Any]] = {
    "start": TypeAdapter(StartResult),
    "agent.create": TypeAdapter(None),
    "run": TypeAdapter(StrictRunOutcome),
    "follow_up": TypeAdapter(StrictRunOutcome),
    "checkpoint": TypeAdapter(JSON),
    "resume": TypeAdapter(StrictRunOutcome),
    "abandon_pause": TypeAdapter(AbandonedPause | None),
    "can_explain": TypeAdapter(StrictBool),
    "last_identity": TypeAdapter(StrictIdentityReport | None),
    "agent.close": TypeAdapter(None),
    "stop": TypeAdapter(None),
}
"""The `result` of an ok reply, by the op of its request."""


def adapter_schema() -> dict[str, Any]:
    """The JSON Schema of protocol v1 (schemas/adapter-v1.json): `request` and `reply`
    for single messages, and each op's `result`."""
    results = {
        op: adapter.json_schema(ref_template="#/$defs/{model}") for op, adapter in RESULTS.items()
    }
    request = REQUESTS.json_schema(ref_template="#/$defs/{model}")
    reply = REPLIES.json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = {}
    for part in (request, reply, *results.values()):
        defs.update(part.pop("$defs", {}))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://turnlaw.dev/schemas/adapter-v1.json",
        "title": "turnlaw adapter protocol v1",
        "description": (
            "One JSON object per line: requests on the adapter's stdin, replies on its "
            "stdout. A reply echoes its request's seq; an ok reply's result has the shape "
            "given under results for the request's op."
        ),
        "version": PROTOCOL_VERSION,
        "oneOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/reply"}],
        "$defs": {**defs, "request": request, "reply": reply},
        "results": results,
    }
