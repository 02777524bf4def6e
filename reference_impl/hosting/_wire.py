"""The seed's HTTP wire as pydantic models, one per body in docs/hosting.md.

Types are strict (a number is not a message), so a wrong field type is a 400 the caller
can read, never a turn run on a coerced value. Unknown fields are ignored: a client
sending more than the wire knows is still speaking it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ._errors import InvalidRequestError


class _Body(BaseModel):
    model_config = ConfigDict(frozen=True, strict=True, populate_by_name=True)


class InvokeBody(_Body):
    """`POST /invoke`: a message or a decision, for a session or none."""

    model_config = ConfigDict(frozen=True, strict=True, populate_by_name=True, extra="ignore")

    input: str | None = None
    session_id: str | None = Field(default=None, alias="sessionId")
    decision: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> InvokeBody:
        if (self.input is None) == (self.decision is None):
            raise ValueError("send exactly one of `input` (a message) and `decision`")
        return self


def parse_invoke(raw: bytes) -> InvokeBody:
    """The request body, or InvalidRequestError saying what is wrong with it."""
    try:
        return InvokeBody.model_validate_json(raw)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in error.errors()
        )
        raise InvalidRequestError(f"invalid request body: {problems}") from None


class OutputReply(_Body):
    """200: the turn answered (and, with a session id, was stored first)."""

    output: str
    session_id: str | None = Field(serialization_alias="sessionId")


class Awaiting(_Body):
    """The question a paused turn asks, and where to send the answer."""

    session_id: str = Field(serialization_alias="sessionId")
    tool: str
    question: str
    tool_call_id: str = Field(serialization_alias="toolCallId")


class AwaitingReply(_Body):
    """202: the turn paused; the pause is stored."""

    awaiting: Awaiting


class ErrorReply(_Body):
    """Every refusal: what happened and what to do, and the code a client branches on."""

    error: str
    code: str


class ChunkEvent(_Body):
    """SSE `chunk`: answer text as it is known."""

    text: str


class CompleteEvent(_Body):
    """SSE `complete`: the turn answered."""

    output: str
    session_id: str | None = Field(serialization_alias="sessionId")


class HealthReply(_Body):
    status: str = "ok"


class SessionReply(_Body):
    """`GET /sessions/{id}`: the stored conversation."""

    session_id: str = Field(serialization_alias="sessionId")
    checkpoint: Any


def dump(model: BaseModel) -> dict[str, Any]:
    """A reply body as JSON data, in the wire's field names."""
    return model.model_dump(mode="json", by_alias=True)
