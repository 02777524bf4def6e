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

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    TypeAdapter,
    create_model,
    field_validator,
)

from ..adapter import (
    AGENT,
    BACKEND,
    DAMAGE_SESSION,
    FIRST_REVISION,
    HOST,
    REVISION,
    SESSION,
    AbandonedPause,
    Capability,
    CompactionTrigger,
    Delivery,
    Op,
    RefusalKind,
    RunFailureCause,
    StrictIdentityReport,
    StrictPending,
    StrictRunOutcome,
    agent_id_pattern_problem,
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


class AgentRequest(_Message):
    """A request of the agent surface (conformance.adapter.AGENT), one model per op
    derived from its table entry: its `op`, `seq`, the `agent` it names, then the op's
    parameters in order."""

    op: str
    seq: Seq
    agent: AgentHandle


M = TypeVar("M", bound=BaseModel)

HostHandle = Annotated[
    str,
    Field(min_length=1, description="The connector's name for a host, set by host.start."),
]


class HostRequest(_Message):
    """A request of the host surface (conformance.adapter.HOST): its `op`, `seq`, the
    `host` it names, then the op's parameters. Only an adapter declaring `hosting`
    is sent one."""

    op: str
    seq: Seq
    host: HostHandle


BackendHandle = Annotated[
    str,
    Field(min_length=1, description="The connector's name for a backend, set by backend.open."),
]
SessionHandle = Annotated[
    str,
    Field(
        min_length=1,
        description="The connector's name for a session, set by backend.create_session or "
        "backend.resume_session.",
    ),
]


class BackendRequest(_Message):
    """A request of the backend surface (conformance.adapter.BACKEND): its `op`, `seq`,
    the `backend` it names, then the op's parameters (an op opening a session names the
    new `session` first). Only an adapter declaring `sessions` is sent one."""

    op: str
    seq: Seq
    backend: BackendHandle


class SessionRequest(_Message):
    """A request of the session surface (conformance.adapter.SESSION): its `op`, `seq`,
    the `session` it names, then the op's parameters."""

    op: str
    seq: Seq
    session: SessionHandle


_HANDLES: dict[str, Any] = {"session": SessionHandle}
"""The handle of each surface another surface's op opens (`Op.opens`)."""


class ImplementationRequest(_Message):
    """A request to the implementation itself, naming no agent or host
    (`damage_session`)."""

    op: str
    seq: Seq


def _request_model(op: Op, base: type[M]) -> type[M]:
    name = "".join(part.title() for part in op.op.replace(".", "_").split("_")) + "Request"
    fields: dict[str, Any] = {}
    if op.opens is not None:  # the new instance's handle, chosen by the connector
        fields[op.opens.handle] = (_HANDLES[op.opens.handle], ...)
    fields.update({n: (f.annotation, f) for n, f in op.fields.items()})
    literal: Any = Literal.__getitem__(op.op)
    model: type[M] = create_model(
        name,
        __base__=base,
        __module__=__name__,
        __doc__=op.describe() or None,
        op=(literal, op.op),
        **fields,
    )
    model.__qualname__ = name
    return model


AGENT_REQUESTS: dict[str, type[AgentRequest]] = {
    op.op: _request_model(op, AgentRequest) for op in AGENT.ops()
}
"""The request model of each agent op, by its `op` string."""

HOST_REQUESTS: dict[str, type[HostRequest]] = {
    op.op: _request_model(op, HostRequest) for op in HOST.ops()
}
"""The request model of each host op, by its `op` string."""

DamageSessionRequest = _request_model(DAMAGE_SESSION, ImplementationRequest)

BACKEND_REQUESTS: dict[str, type[BackendRequest]] = {
    op.op: _request_model(op, BackendRequest) for op in BACKEND.ops()
}
"""The request model of each backend op, by its `op` string."""

SESSION_REQUESTS: dict[str, type[SessionRequest]] = {
    op.op: _request_model(op, SessionRequest) for op in SESSION.ops()
}
"""The request model of each session op, by its `op` string."""


def agent_request(op: str, **fields: Any) -> AgentRequest:
    """The request for agent op `op` (its stdio `op` string), built from its fields."""
    return AGENT_REQUESTS[op].model_validate({"op": op, **fields})


AgentCreateRequest = AGENT_REQUESTS["agent.create"]
RunRequest = AGENT_REQUESTS["run"]
FollowUpRequest = AGENT_REQUESTS["follow_up"]
CheckpointRequest = AGENT_REQUESTS["checkpoint"]
ResumeRequest = AGENT_REQUESTS["resume"]
AbandonPauseRequest = AGENT_REQUESTS["abandon_pause"]
CanExplainRequest = AGENT_REQUESTS["can_explain"]
LastIdentityRequest = AGENT_REQUESTS["last_identity"]
AgentCloseRequest = AGENT_REQUESTS["agent.close"]
HostStartRequest = HOST_REQUESTS["host.start"]
HostKillRequest = HOST_REQUESTS["host.kill"]
HostStopRequest = HOST_REQUESTS["host.stop"]


def host_request(op: str, **fields: Any) -> HostRequest:
    """The request for host op `op` (its stdio `op` string), built from its fields."""
    return HOST_REQUESTS[op].model_validate({"op": op, **fields})


def backend_request(op: str, **fields: Any) -> BackendRequest:
    """The request for backend op `op` (its stdio `op` string), built from its fields."""
    return BACKEND_REQUESTS[op].model_validate({"op": op, **fields})


def session_request(op: str, **fields: Any) -> SessionRequest:
    """The request for session op `op` (its stdio `op` string), built from its fields."""
    return SESSION_REQUESTS[op].model_validate({"op": op, **fields})


BackendOpenRequest = BACKEND_REQUESTS["backend.open"]
BackendCreateSessionRequest = BACKEND_REQUESTS["backend.create_session"]
BackendResumeSessionRequest = BACKEND_REQUESTS["backend.resume_session"]
SessionStreamRequest = SESSION_REQUESTS["session.stream"]


class StopRequest(_Message):
    """Last request: reply, then exit with status 0."""

    op: Literal["stop"] = "stop"
    seq: Seq


if TYPE_CHECKING:
    Request = (
        StartRequest
        | AgentRequest
        | HostRequest
        | ImplementationRequest
        | BackendRequest
        | SessionRequest
        | StopRequest
    )
else:
    Request = Annotated[
        Union[
            (
                StartRequest,
                *AGENT_REQUESTS.values(),
                *HOST_REQUESTS.values(),
                DamageSessionRequest,
                *BACKEND_REQUESTS.values(),
                *SESSION_REQUESTS.values(),
                StopRequest,
            )
        ],
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


class FailedReply(_Message):
    """The run failed instead of answering, pausing or being refused: the suite's
    `RunFailed`. `cause` is why: `provider` (the default: the provider kept failing, its
    stream broke) or `runtime` (the run ended in the runtime's own error, no provider
    fault). `checkpoint` is the runtime's last good conversation, or null when it hands
    none back (the laws about it are then NOT_APPLICABLE)."""

    seq: Seq
    status: Literal["failed"] = "failed"
    message: str
    checkpoint: Any = None
    cause: RunFailureCause = Field(
        default="provider",
        description="provider: the provider kept failing or its stream broke; runtime: the "
        "run ended in the runtime's own error (an error event or error of its own)",
    )


class ErrorReply(_Message):
    """Anything else went wrong in the adapter or the runtime (an ERROR, not a verdict)."""

    seq: Seq
    status: Literal["error"] = "error"
    message: str
    traceback: str = ""


Reply = Annotated[OkReply | RefusedReply | FailedReply | ErrorReply, Field(discriminator="status")]
REPLIES: TypeAdapter[Reply] = TypeAdapter(Reply)


# --- results -------------------------------------------------------------------------


class ImplementationInfo(_Message):
    """Who is under test, for the report header and for bug reports."""

    name: str = Field(min_length=1)
    language: str = Field(min_length=1, description="e.g. python, javascript, go")
    version: str | None = None
    homepage: str | None = None
    issue_tracker: str | None = None


def _turns_only() -> list[CompactionTrigger]:
    return ["turns"]


class StartResult(_Message):
    implementation: ImplementationInfo
    capabilities: list[Capability]
    dialects: list[Dialect] = Field(default_factory=lambda: [Dialect.OPENAI_CHAT], min_length=1)
    deliveries: list[Delivery] = Field(
        default_factory=lambda: [Delivery.STREAM],
        min_length=1,
        description="which of the agent spec's `stream` it honours: stream, whole, or both",
    )
    trace_tool: str | None = Field(
        default=None,
        min_length=1,
        description="the tool a self-explain agent offers its model to read the trace; "
        "required with the self_explain capability",
    )
    trace_activation: str | None = Field(
        default=None,
        min_length=1,
        description="a tool the model must call first, in each run, before the runtime "
        "offers the trace tool; null when the trace tool is offered from the start",
    )
    compaction_triggers: list[CompactionTrigger] = Field(
        default_factory=_turns_only,
        min_length=1,
        description="which compaction triggers (trigger_turns, trigger_chars) the runtime "
        "honours; the compaction law is played once per trigger listed",
    )
    agent_id_pattern: str | None = Field(
        default=None,
        description="a Python regular expression every agent id the runtime accepts fully "
        "matches; the laws then use only ids matching both it and the safe default "
        "(conformance.adapter.SAFE_AGENT_ID_PATTERN). It must fully match 'agent', "
        "'billing' and 'support'; null: the default alone",
    )
    revision: StrictInt = Field(
        default=FIRST_REVISION,
        ge=FIRST_REVISION,
        description="the revision of protocol v1 the adapter was written against (this "
        f"suite speaks revision {REVISION}); a parameter added in a later revision than "
        "the adapter's is never sent to it, and a law needing one is NOT_APPLICABLE",
    )
    notes: list[str] = Field(
        default_factory=list,
        description="what a reader of the results must know (a setting the adapter turned "
        "on, how it maps a door): recorded in the results header, as a Python "
        "implementation's notes are",
    )

    @field_validator("agent_id_pattern")
    @classmethod
    def _usable_pattern(cls, pattern: str | None) -> str | None:
        problem = agent_id_pattern_problem(pattern)
        if problem is not None:
            raise ValueError(problem)
        return pattern


RESULTS: dict[str, TypeAdapter[Any]] = {
    "start": TypeAdapter(StartResult),
    **{op.op: op.strict_results() for op in AGENT.ops()},
    **{op.op: op.strict_results() for op in HOST.ops()},
    DAMAGE_SESSION.op: DAMAGE_SESSION.strict_results(),
    **{op.op: op.strict_results() for op in BACKEND.ops()},
    **{op.op: op.strict_results() for op in SESSION.ops()},
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


__all__ = [
    "AGENT_REQUESTS",
    "BACKEND_REQUESTS",
    "HOST_REQUESTS",
    "MAX_SEQ",
    "PROTOCOL_VERSION",
    "REPLIES",
    "REQUESTS",
    "RESULTS",
    "SESSION_REQUESTS",
    "AbandonPauseRequest",
    "AbandonedPause",
    "AgentCloseRequest",
    "AgentCreateRequest",
    "AgentHandle",
    "AgentRequest",
    "BackendCreateSessionRequest",
    "BackendHandle",
    "BackendOpenRequest",
    "BackendRequest",
    "BackendResumeSessionRequest",
    "CanExplainRequest",
    "CheckpointRequest",
    "DamageSessionRequest",
    "ErrorReply",
    "FailedReply",
    "FollowUpRequest",
    "HostHandle",
    "HostKillRequest",
    "HostRequest",
    "HostStartRequest",
    "HostStopRequest",
    "ImplementationInfo",
    "ImplementationRequest",
    "LastIdentityRequest",
    "OkReply",
    "RefusedReply",
    "Reply",
    "Request",
    "ResumeRequest",
    "RunRequest",
    "Seq",
    "SessionHandle",
    "SessionRequest",
    "SessionStreamRequest",
    "StartRequest",
    "StartResult",
    "StopRequest",
    "StrictIdentityReport",
    "StrictPending",
    "StrictRunOutcome",
    "Version",
    "adapter_schema",
    "agent_request",
    "backend_request",
    "host_request",
    "session_request",
]
