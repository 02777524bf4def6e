"""AgentRunCheckpoint: a conversation as plain JSON, continuable anywhere.

It is the only thing that crosses from one run to the next — `follow_up` goes through
it too — so whatever a continued turn needs must be in here, and nothing in here may
be a live reference. Nothing trims it on the way to storage.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ._error_base import InvalidCheckpointError
from ._plain_json import PlainJsonError, check_plain, dotted, parse_plain
from ._summary_turn import is_summary_turn
from ._tool_pairing import check_history
from .conversation import Identity, PlainText, Turn

CHECKPOINT_VERSION: Final = 1
MAX_COUNT: Final = 2**53 - 1
"""The largest count a checkpoint holds: the largest integer every JSON reader keeps exact."""


class _Plain(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FoldedSpan(_Plain):
    """A span compaction folded into the summary turn at `history[at]`."""

    at: int = Field(ge=0, le=MAX_COUNT, strict=True, description="index of the summary turn")
    turns: int = Field(
        ge=1, le=MAX_COUNT, strict=True, description="how many turns the summary stands for"
    )
    summary: PlainText
    originals: tuple[Turn, ...] | None = Field(
        default=None, description="the folded turns verbatim, when compaction kept them"
    )


class PendingQuestion(_Plain):
    """A tool paused the run to ask a person; the answer becomes that call's result."""

    tool_name: PlainText
    tool_call_id: PlainText
    question: PlainText


class AgentRunCheckpoint(_Plain):
    """The conversation: history (final answer included), folded spans, its identity when
    one was named, the recording agent's id when it chose one, and a pending question
    when the run is paused."""

    version: Literal[1] = CHECKPOINT_VERSION
    history: tuple[Turn, ...] = ()
    folded: tuple[FoldedSpan, ...] = ()
    identity: Identity | None = None
    agent: PlainText | None = None
    pending: PendingQuestion | None = None
    turns: int = Field(
        default=0,
        ge=0,
        le=MAX_COUNT,
        strict=True,
        description="user turns so far, folded ones included (memory's turn=)",
    )

    @field_validator("version", mode="before")
    @classmethod
    def _exactly_one(cls, value: Any) -> Any:
        # Literal[1] alone takes True and 1.0, which no checkpoint() ever wrote
        if value is True or isinstance(value, float):
            raise ValueError(f"expected the integer {CHECKPOINT_VERSION}")
        return value

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)

    def to_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def load_checkpoint(value: AgentRunCheckpoint | dict[str, Any] | str | bytes) -> AgentRunCheckpoint:
    """Accept a checkpoint, its JSON data or its JSON text; refuse anything else with an
    InvalidCheckpointError naming the field and what was expected.

    Accepted means continuable: plain JSON throughout (see `_plain_json`), the schema,
    and a conversation every provider API takes (`_tool_pairing`): whatever this
    returns, `run(message, continue_from=it)` sends a well-formed request.
    """
    try:
        if isinstance(value, AgentRunCheckpoint):
            checkpoint = value
            # built in Python, maybe by model_construct or model_copy: check what it holds
            check_plain(checkpoint.model_dump(exclude_none=True))
        else:
            data: Any = parse_plain(value) if isinstance(value, str | bytes) else value
            if not isinstance(data, dict):
                raise InvalidCheckpointError(
                    "(document)", f"expected a JSON object, got {type(data).__name__}"
                )
            check_plain(data)
            checkpoint = AgentRunCheckpoint.model_validate(data)
    except PlainJsonError as error:
        raise InvalidCheckpointError(dotted(error.path), error.problem) from error
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"]) or "(document)"
        raise InvalidCheckpointError(field, _expected(first)) from error
    _check_consistency(checkpoint)
    return checkpoint


def _expected(problem: Any) -> str:
    got = problem.get("input")
    shown = "" if isinstance(got, dict | list | tuple) else f" (got {got!r})"
    message = str(problem["msg"]).removeprefix("Value error, ")
    return f"{message}{shown}"[:500]


def _check_consistency(checkpoint: AgentRunCheckpoint) -> None:
    """What the schema cannot say: the tool calls pair up as every provider requires,
    a pending question names the call the run stopped at, spans point at summaries."""
    pending = checkpoint.pending
    problem = check_history(
        checkpoint.history,
        pending_call=None if pending is None else (pending.tool_call_id, pending.tool_name),
    )
    if problem is not None:
        raise InvalidCheckpointError(*problem)
    pointed: dict[int, int] = {}
    for index, span in enumerate(checkpoint.folded):
        if span.at >= len(checkpoint.history):
            raise InvalidCheckpointError(
                f"folded.{index}.at",
                f"expected an index into history (0..{len(checkpoint.history) - 1}), got {span.at}",
            )
        if span.at in pointed:
            raise InvalidCheckpointError(
                f"folded.{index}.at",
                f"history.{span.at} is already the summary of folded.{pointed[span.at]}",
            )
        pointed[span.at] = index
        if not is_summary_turn(checkpoint.history[span.at]):
            raise InvalidCheckpointError(
                f"folded.{index}.at", f"history.{span.at} is not a summary turn"
            )
