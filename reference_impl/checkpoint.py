"""AgentRunCheckpoint: a conversation as plain JSON, continuable anywhere.

It is the only thing that crosses from one run to the next — `follow_up` goes through
it too — so whatever a continued turn needs must be in here, and nothing in here may
be a live reference. Nothing trims it on the way to storage.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .conversation import Identity, Turn
from .errors import InvalidCheckpointError

CHECKPOINT_VERSION: Final = 1


class _Plain(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FoldedSpan(_Plain):
    """A span compaction folded into the summary turn at `history[at]`."""

    at: int = Field(ge=0, description="index of the summary turn in history")
    turns: int = Field(ge=1, description="how many turns the summary stands for")
    summary: str
    originals: tuple[Turn, ...] | None = Field(
        default=None, description="the folded turns verbatim, when compaction kept them"
    )


class PendingQuestion(_Plain):
    """A tool paused the run to ask a person; the answer becomes that call's result."""

    tool_name: str
    tool_call_id: str
    question: str


class AgentRunCheckpoint(_Plain):
    """The conversation: history (final answer included), folded spans, its identity when
    one was named, the recording agent's id when it chose one, and a pending question
    when the run is paused."""

    version: Literal[1] = CHECKPOINT_VERSION
    history: tuple[Turn, ...] = ()
    folded: tuple[FoldedSpan, ...] = ()
    identity: Identity | None = None
    agent: str | None = None
    pending: PendingQuestion | None = None
    turns: int = Field(
        default=0, ge=0, description="user turns so far, folded ones included (memory's turn=)"
    )

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)

    def to_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def load_checkpoint(value: AgentRunCheckpoint | dict[str, Any] | str | bytes) -> AgentRunCheckpoint:
    """Accept a checkpoint, its JSON data or its JSON text; refuse anything else with an
    InvalidCheckpointError naming the field and what was expected."""
    if isinstance(value, AgentRunCheckpoint):
        checkpoint = value
    else:
        data: Any = value
        if isinstance(value, str | bytes):
            try:
                data = json.loads(value)
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise InvalidCheckpointError("(document)", f"not valid JSON ({error})") from error
        if not isinstance(data, dict):
            raise InvalidCheckpointError(
                "(document)", f"expected a JSON object, got {type(data).__name__}"
            )
        try:
            checkpoint = AgentRunCheckpoint.model_validate(data)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            field = ".".join(str(part) for part in first["loc"]) or "(document)"
            raise InvalidCheckpointError(field, _expected(first)) from error
    _check_consistency(checkpoint)
    return checkpoint


def _expected(problem: Any) -> str:
    got = problem.get("input")
    shown = "" if isinstance(got, dict | list) else f" (got {got!r})"
    return f"{problem['msg']}{shown}"


def _check_consistency(checkpoint: AgentRunCheckpoint) -> None:
    """What the schema cannot say: results answer calls, spans point at summaries."""
    called: set[str] = set()
    for index, turn in enumerate(checkpoint.history):
        called.update(call.id for call in turn.tool_calls)
        if turn.role == "tool" and turn.tool_call_id not in called:
            raise InvalidCheckpointError(
                f"history.{index}.tool_call_id",
                f"expected the id of an earlier tool call, got {turn.tool_call_id!r}",
            )
    for index, span in enumerate(checkpoint.folded):
        if span.at >= len(checkpoint.history):
            raise InvalidCheckpointError(
                f"folded.{index}.at",
                f"expected an index into history (0..{len(checkpoint.history) - 1}), got {span.at}",
            )
    pending = checkpoint.pending
    if pending is not None and pending.tool_call_id not in called:
        raise InvalidCheckpointError(
            "pending.tool_call_id",
            f"expected the id of a tool call in history, got {pending.tool_call_id!r}",
        )
