"""How a host says each thing the hosting laws tell apart: `HostWireProfile`.

The seed fixes little of a host's wire: `POST /invoke` with `input` and `sessionId`, the
`x-session-id` header, a cookie the host issues and reads, a paused run served as a
question a later request answers. Every status, error code, field name and event name
beyond that is the host's own choice. A profile writes that choice down, outcome by
outcome (answered, paused, each refusal, a failed run, an unreadable session, not
found), as `Way`s: a status, for a stream its last event's name, and JSON Pointers
(RFC 6901) with the values they must hold. The laws judge a reply by the outcome its
profile classifies it as, never by its bytes; how a profile differs from the default
one (the reference's wire, docs/hosting.md) is information, outside the score.

A profile is data: pydantic models, exported as JSON Schema
(schemas/host-wire-profile-v1.json) for adapters in other languages, which return one
from `host.start` as `wire_profile`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from jsonpointer import JsonPointer, JsonPointerException
from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _pointer(text: str) -> str:
    try:
        JsonPointer(text)
    except JsonPointerException as error:
        raise ValueError(f"{text!r} is not a JSON Pointer (RFC 6901): {error}") from None
    return text


Pointer = Annotated[
    str,
    AfterValidator(_pointer),
    Field(description="a JSON Pointer (RFC 6901) into the reply's JSON body or event data"),
]

Status = Annotated[int, Field(ge=100, le=599)]

_MISSING = object()


def at(document: Any, pointer: str) -> Any:
    """The value at `pointer` in `document`, or None when it is not there."""
    found = JsonPointer(pointer).resolve(document, _MISSING)
    return None if found is _MISSING else found


class HostOutcome(StrEnum):
    """An outcome the hosting laws tell apart, whatever bytes a host says it with."""

    ANSWERED = "answered"
    PAUSED = "paused"
    BUSY = "busy"
    DECISION_OWED = "decision_owed"
    NOTHING_PAUSED = "nothing_paused"
    PAUSE_NOT_CARRIED = "pause_not_carried"
    UNAUTHENTICATED = "unauthenticated"
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"
    RUN_FAILED = "run_failed"
    UNREADABLE = "unreadable"

    @property
    def words(self) -> str:
        return _WORDS[self]

    @property
    def kind(self) -> str:
        """What the seed fixes about it: answered, paused, refused, or failed."""
        return _KIND[self]


_WORDS: dict[HostOutcome, str] = {
    HostOutcome.ANSWERED: "answered",
    HostOutcome.PAUSED: "paused on a question",
    HostOutcome.BUSY: "refused: the session's turn is running",
    HostOutcome.DECISION_OWED: "refused: a decision is owed",
    HostOutcome.NOTHING_PAUSED: "refused: nothing is paused",
    HostOutcome.PAUSE_NOT_CARRIED: "refused: a pause with no session to keep it",
    HostOutcome.UNAUTHENTICATED: "refused: not authenticated",
    HostOutcome.INVALID_REQUEST: "refused: an invalid request",
    HostOutcome.NOT_FOUND: "not found",
    HostOutcome.RUN_FAILED: "the run failed",
    HostOutcome.UNREADABLE: "refused: the stored session cannot be read",
}

_KIND: dict[HostOutcome, str] = {
    HostOutcome.ANSWERED: "answered",
    HostOutcome.PAUSED: "paused",
    HostOutcome.RUN_FAILED: "failed",
    HostOutcome.UNREADABLE: "failed",
    **{
        said: "refused"
        for said in (
            HostOutcome.BUSY,
            HostOutcome.DECISION_OWED,
            HostOutcome.NOTHING_PAUSED,
            HostOutcome.PAUSE_NOT_CARRIED,
            HostOutcome.UNAUTHENTICATED,
            HostOutcome.INVALID_REQUEST,
            HostOutcome.NOT_FOUND,
        )
    },
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Way(_Model):
    """One way a host says a thing. A reply matches when every part given matches."""

    status: list[Status] = Field(
        default_factory=list,
        description="any of these HTTP statuses (for a stream, the status it was served "
        "with); empty: any status",
    )
    event: str | None = Field(
        default=None,
        description="a stream whose last server-sent event has this name; null: a reply "
        "that is not a stream (its body is read as JSON where a pointer needs it)",
    )
    fields: dict[Pointer, str] = Field(
        default_factory=dict,
        description="JSON Pointers into the body (or the event's data) and the string each "
        'must hold, e.g. {"/code": "ERR_CONCURRENT_RUN"}',
    )
    absent: list[Pointer] = Field(
        default_factory=list,
        description="JSON Pointers that must find nothing, e.g. a failed run told from a "
        'crash that names itself: ["/code"]',
    )

    def matches(self, status: int, event: str | None, data: Any) -> bool:
        if self.status and status not in self.status:
            return False
        if self.event != event:
            return False
        if any(at(data, pointer) is not None for pointer in self.absent):
            return False
        return all(at(data, pointer) == value for pointer, value in self.fields.items())

    def shown(self) -> str:
        parts = []
        if self.status:
            parts.append("status " + " or ".join(str(s) for s in self.status))
        if self.event is not None:
            parts.append(f"a stream whose last event is `{self.event}`")
        parts += [f"{pointer} = {value!r}" for pointer, value in self.fields.items()]
        parts += [f"no {pointer}" for pointer in self.absent]
        return ", ".join(parts) or "any reply"


class AnswerWay(Way):
    """An answered turn, and where its text is."""

    text: Pointer | None = Field(
        default="/output",
        description="where the answer's text is; null (streams only): the `chunk` events' "
        "text, joined",
    )

    def shown(self) -> str:
        where = f"text at {self.text}" if self.text is not None else "text from the pieces"
        return f"{super().shown()}, {where}"


class PauseWay(Way):
    """A paused turn, and where its question, asking tool and call id are."""

    question: Pointer = Field(description="the question put to the person")
    tool_call_id: Pointer = Field(description="the id of the call that asked")
    tool: Pointer | None = Field(default=None, description="the asking tool's name")
    session_id: Pointer | None = Field(default=None, description="the paused session's id")

    def shown(self) -> str:
        return f"{super().shown()}, question at {self.question}, call id at {self.tool_call_id}"


class ChunkEvent(_Model):
    """The stream event that carries a piece of an answer."""

    event: str = "chunk"
    text: Pointer = "/text"


class ReadRoute(_Model):
    """The host serves a stored session back over HTTP: `GET path`, the session id in
    place of `{session_id}` (percent-encoded)."""

    via: Literal["route"] = "route"
    path: str = Field(default="/sessions/{session_id}", pattern=r"^/.*\{session_id\}")
    found: Way = Way(status=[200])
    checkpoint: Pointer = Field(default="/checkpoint", description="the stored conversation")


class ReadNone(_Model):
    """The host offers no way to read a stored session back: the laws that look at the
    store judge what the next turns show the model instead."""

    via: Literal["none"] = "none"


def _code(status: int, code: str) -> list[Way]:
    """The reference's refusal: `status` with `{"code": code}`, as JSON or a stream's
    `error` event."""
    return [
        Way(status=[status], fields={"/code": code}),
        Way(event="error", fields={"/code": code}),
    ]


class HostWireProfile(_Model):
    """How one host says each outcome. Every field defaults to the reference's wire."""

    version: Literal[1] = 1
    answered: list[AnswerWay] = Field(
        default_factory=lambda: [AnswerWay(status=[200]), AnswerWay(event="complete")]
    )
    paused: list[PauseWay] = Field(
        default_factory=lambda: [
            PauseWay(
                status=[202],
                question="/awaiting/question",
                tool_call_id="/awaiting/toolCallId",
                tool="/awaiting/tool",
                session_id="/awaiting/sessionId",
            ),
            PauseWay(
                event="awaiting",
                question="/question",
                tool_call_id="/toolCallId",
                tool="/tool",
                session_id="/sessionId",
            ),
        ]
    )
    busy: list[Way] = Field(default_factory=lambda: _code(409, "ERR_CONCURRENT_RUN"))
    decision_owed: list[Way] = Field(default_factory=lambda: _code(409, "ERR_AWAITING_DECISION"))
    nothing_paused: list[Way] = Field(default_factory=lambda: _code(409, "ERR_NO_PENDING_ASK"))
    pause_not_carried: list[Way] = Field(
        default_factory=lambda: _code(409, "ERR_PAUSE_NOT_CARRIED")
    )
    unauthenticated: list[Way] = Field(default_factory=lambda: _code(401, "ERR_UNAUTHENTICATED"))
    invalid_request: list[Way] = Field(default_factory=lambda: _code(400, "ERR_INVALID_REQUEST"))
    not_found: list[Way] = Field(default_factory=lambda: _code(404, "ERR_SESSION_NOT_FOUND"))
    run_failed: list[Way] = Field(default_factory=lambda: _code(502, "ERR_RUN_FAILED"))
    unreadable: list[Way] = Field(default_factory=lambda: _code(500, "ERR_SESSION_UNREADABLE"))
    chunk: ChunkEvent = Field(default_factory=ChunkEvent)
    decision_field: str = Field(
        default="decision",
        min_length=1,
        description="the body field a person's answer to a paused question travels in "
        "(the seed names `input` and `sessionId` only)",
    )
    read: ReadRoute | ReadNone = Field(default_factory=ReadRoute, discriminator="via")

    def ways(self, said: HostOutcome) -> list[Way]:
        found: list[Way] = getattr(self, said.value)
        return found

    def terminal_events(self) -> frozenset[str]:
        """The event names that end a stream."""
        return frozenset(
            way.event for said in HostOutcome for way in self.ways(said) if way.event is not None
        )


DEFAULT_PROFILE = HostWireProfile()
"""The reference's wire (docs/hosting.md): what a host that declares no profile speaks."""


def classify(
    profile: HostWireProfile, status: int, event: str | None, data: Any
) -> frozenset[HostOutcome]:
    """Every outcome the reply says under `profile`: the most specific ways win (more
    fields to match or to find absent, then a status given), and ways tied there are all
    kept (a profile that says two outcomes alike makes them alike to the laws too)."""
    best: list[tuple[tuple[int, int], HostOutcome]] = []
    for said in HostOutcome:
        for way in profile.ways(said):
            if _fits(way, status, event, data):
                specific = len(way.fields) + len(way.absent)
                best.append(((specific, 1 if way.status else 0), said))
    if not best:
        return frozenset()
    top = max(rank for rank, _ in best)
    return frozenset(said for rank, said in best if rank == top)


def way_of(
    profile: HostWireProfile, said: HostOutcome, status: int, event: str | None, data: Any
) -> Way | None:
    """The first of `said`'s ways the reply fits: where its answer or question is."""
    return next((way for way in profile.ways(said) if _fits(way, status, event, data)), None)


def _fits(way: Way, status: int, event: str | None, data: Any) -> bool:
    """The reply matches `way`, and an answer's text or a pause's question and call id
    are strings where the way says they are."""
    if not way.matches(status, event, data):
        return False
    if isinstance(way, AnswerWay) and way.text is not None:
        return isinstance(at(data, way.text), str)
    if isinstance(way, PauseWay):
        return isinstance(at(data, way.question), str) and isinstance(
            at(data, way.tool_call_id), str
        )
    return True


def profile_differences(profile: HostWireProfile) -> list[str]:
    """Each way `profile` says an outcome otherwise than the default does, in words:
    information about a host's wire, never a law."""
    found: list[str] = []
    for said in HostOutcome:
        mine, default = profile.ways(said), DEFAULT_PROFILE.ways(said)
        if mine != default:
            found.append(
                f"says {said.words!r} as {_ways_shown(mine)} "
                f"(the default profile: {_ways_shown(default)})"
            )
    if profile.chunk != DEFAULT_PROFILE.chunk:
        found.append(
            f"streams answer pieces as `{profile.chunk.event}` events, text at "
            f"{profile.chunk.text} (the default profile: `chunk`, /text)"
        )
    if profile.decision_field != DEFAULT_PROFILE.decision_field:
        found.append(
            f"takes a decision in the body's `{profile.decision_field}` field (the default "
            "profile: `decision`)"
        )
    if profile.read != DEFAULT_PROFILE.read:
        how = (
            "offers no way to read a stored session back"
            if isinstance(profile.read, ReadNone)
            else f"reads a stored session back at GET {profile.read.path}, the conversation "
            f"at {profile.read.checkpoint}"
        )
        found.append(f"{how} (the default profile: GET /sessions/{{session_id}}, /checkpoint)")
    return found


def _ways_shown(ways: list[Way]) -> str:
    return "; ".join(way.shown() for way in ways) if ways else "no way at all"


def host_wire_profile_schema() -> dict[str, Any]:
    """The JSON Schema of a host wire profile (schemas/host-wire-profile-v1.json)."""
    schema = HostWireProfile.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://turnlaw.dev/schemas/host-wire-profile-v1.json",
        **schema,
    }
