"""The seed's HTTP wire as pydantic models: what a host is sent, and what it may answer.

docs/hosting.md's tables, once: the suite's caller builds its requests and reads every
reply through these models, and `hosting_wire_schema()` exports them as JSON Schema
(schemas/hosting-wire-v1.json) for hosts written in other languages. Replies are read
leniently about extra fields (the reference adds `sessionId` to a 200) and strictly
about the fields the wire names: a reply missing one is not the wire.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

ErrorCode = Literal[
    "ERR_INVALID_REQUEST",
    "ERR_UNAUTHENTICATED",
    "ERR_SESSION_NOT_FOUND",
    "ERR_CONCURRENT_RUN",
    "ERR_AWAITING_DECISION",
    "ERR_NO_PENDING_ASK",
    "ERR_PAUSE_NOT_CARRIED",
    "ERR_SESSION_UNREADABLE",
    "ERR_RUN_FAILED",
    "ERR_SHUTTING_DOWN",
]
"""Every `code` an error reply may carry."""

ERROR_STATUS: dict[str, int] = {
    "ERR_INVALID_REQUEST": 400,
    "ERR_UNAUTHENTICATED": 401,
    "ERR_SESSION_NOT_FOUND": 404,
    "ERR_CONCURRENT_RUN": 409,
    "ERR_AWAITING_DECISION": 409,
    "ERR_NO_PENDING_ASK": 409,
    "ERR_PAUSE_NOT_CARRIED": 409,
    "ERR_SESSION_UNREADABLE": 500,
    "ERR_RUN_FAILED": 502,
    "ERR_SHUTTING_DOWN": 503,
}
"""The status each code is answered with (docs/hosting.md's reply table)."""

STATUSES = frozenset({200, 202, *ERROR_STATUS.values()})
"""Every status the wire answers `POST /invoke` with; any other is not the wire."""


class _Sent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class InvokeBody(_Sent):
    """`POST /invoke`: a message (`input`) or the person's answer (`decision`), and the
    session it belongs to (wins over the x-session-id header and the cookie)."""

    input: StrictStr | None = Field(default=None, description="the caller's message")
    sessionId: StrictStr | None = Field(default=None, description="the session")
    decision: StrictStr | None = Field(
        default=None, description="the person's answer to the paused question"
    )

    def payload(self) -> dict[str, str]:
        """The JSON body as sent: absent fields are left out, not null."""
        return self.model_dump(exclude_none=True)


class Answered(_Read):
    """200: the turn answered (and, with a session id, was stored first)."""

    output: StrictStr


class Awaiting(_Read):
    """The paused question: whose session, which tool asked, what it asked."""

    sessionId: StrictStr
    tool: StrictStr
    question: StrictStr
    toolCallId: StrictStr


class Paused(_Read):
    """202: the turn paused on a question; the pause is stored."""

    awaiting: Awaiting


class Refusal(_Read):
    """4xx/5xx: what went wrong, as a person reads it and as a code."""

    error: StrictStr
    code: ErrorCode


class Health(_Read):
    """`GET /health`."""

    status: Literal["ok"]


class SessionRead(_Read):
    """`GET /sessions/{id}`: the stored conversation (the host's own checkpoint)."""

    sessionId: StrictStr
    checkpoint: Any


class Chunk(_Read):
    """SSE `chunk`: a piece of the answer (at least one per answered turn)."""

    text: StrictStr


class Complete(_Read):
    """SSE `complete`, terminal: the answer, as a 200 gives it."""

    output: StrictStr
    sessionId: StrictStr | None = None


TERMINAL_EVENTS = frozenset({"complete", "awaiting", "error"})
"""The events that end a stream: exactly one, last."""

EVENTS: dict[str, type[BaseModel]] = {
    "chunk": Chunk,
    "complete": Complete,
    "awaiting": Awaiting,
    "error": Refusal,
}
"""Each event's data, by its `event` name."""


def hosting_wire_schema() -> dict[str, Any]:
    """The JSON Schema of the seed's HTTP wire (schemas/hosting-wire-v1.json)."""
    parts: dict[str, type[BaseModel]] = {
        "invoke_request": InvokeBody,
        "reply_200": Answered,
        "reply_202": Paused,
        "reply_error": Refusal,
        "health": Health,
        "session_read": SessionRead,
        "event_chunk": Chunk,
        "event_complete": Complete,
        "event_awaiting": Awaiting,
        "event_error": Refusal,
    }
    defs: dict[str, Any] = {}
    named: dict[str, Any] = {}
    for key, model in parts.items():
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[model.__name__] = schema
        named[key] = {"$ref": f"#/$defs/{model.__name__}"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://turnlaw.dev/schemas/hosting-wire-v1.json",
        "title": "turnlaw hosting wire v1 (the seed's HTTP wire)",
        "description": (
            "POST /invoke takes invoke_request and answers reply_200, reply_202 or "
            "reply_error (its status by code: error_status); with Accept: "
            "text/event-stream it streams chunk events then one terminal event "
            "(complete, awaiting or error). GET /health answers health, GET "
            "/sessions/{id} session_read or reply_error."
        ),
        "version": 1,
        "error_status": ERROR_STATUS,
        "messages": named,
        "$defs": defs,
    }
