"""The shape of a conversation every provider API accepts, checked on stored turns.

The strictest of the three APIs decides: Messages wants the conversation to open with
a user turn and each call's results in the message right after it; Chat wants a tool
message to follow the assistant message that made the call, or another tool message;
all of them refuse a reused call id, a result for no call, a result given twice, and
a call left unanswered when the conversation goes on. A checkpoint that breaks one of
these would be sent as a request the provider (and turnlaw's fake) refuses, so the
loader refuses it instead, naming the turn.

The one unanswered call a conversation may end with is the one a paused run asked a
person about (`pending`); the calls after it in the same turn have not run yet.
"""

from __future__ import annotations

from collections.abc import Sequence

from .conversation import ToolCall, Turn

Problem = tuple[str, str]
"""(dotted field, what is wrong there)."""


def check_history(
    history: Sequence[Turn], *, pending_call: tuple[str, str] | None
) -> Problem | None:
    """The first problem in `history` (given the pending call's id and tool name, if the
    run is paused), or None when it is well formed."""
    made_at: dict[str, str] = {}  # call id -> the field that made it
    answered_by: dict[str, int] = {}
    open_turn: int | None = None  # the last assistant turn, while only results follow it
    open_calls: list[ToolCall] = []  # its calls not answered yet, in order
    for index, turn in enumerate(history):
        at = f"history.{index}"
        misplaced = _misplaced_field(turn)
        if misplaced is not None:
            return f"{at}.{misplaced[0]}", misplaced[1]
        if turn.role == "assistant" and index == 0:
            return f"{at}.role", "a conversation starts with a user turn, got 'assistant'"
        if turn.role == "tool":
            problem = _answer(turn, at, open_turn, open_calls, made_at, answered_by)
            if problem is not None:
                return problem
            answered_by[turn.tool_call_id or ""] = index
            continue
        if open_calls:
            assert open_turn is not None
            return f"{at}.role", (
                f"a {turn.role} turn follows history.{open_turn}, whose call "
                f"{open_calls[0].id!r} was never answered"
            )
        open_turn, open_calls = None, []
        if turn.role == "assistant":
            for position, call in enumerate(turn.tool_calls):
                field = f"{at}.tool_calls.{position}.id"
                if call.id in made_at:
                    return field, f"{call.id!r} is already the id of {made_at[call.id]}"
                made_at[call.id] = field.removesuffix(".id")
            open_turn, open_calls = index, list(turn.tool_calls)
    return _check_end(open_turn, open_calls, made_at, pending_call)


def _misplaced_field(turn: Turn) -> Problem | None:
    """A field that belongs to another role."""
    if turn.tool_calls and turn.role != "assistant":
        return "tool_calls", f"only an assistant turn makes tool calls, not a {turn.role} turn"
    if turn.role == "tool":
        if turn.tool_call_id is None:
            return "tool_call_id", "a tool result names the call it answers"
        return None
    if turn.tool_call_id is not None:
        return "tool_call_id", f"only a tool result answers a call, not a {turn.role} turn"
    if turn.is_error:
        return "is_error", f"only a tool result can be an error, not a {turn.role} turn"
    return None


def _answer(
    turn: Turn,
    at: str,
    open_turn: int | None,
    open_calls: list[ToolCall],
    made_at: dict[str, str],
    answered_by: dict[str, int],
) -> Problem | None:
    """Check that a tool turn answers an open call of the assistant turn it follows."""
    call_id = turn.tool_call_id or ""
    field = f"{at}.tool_call_id"
    if call_id in answered_by:
        return field, f"call {call_id!r} is already answered by history.{answered_by[call_id]}"
    if open_turn is None:
        if call_id in made_at:
            return field, (
                f"the result for {call_id!r} must follow {made_at[call_id]} (the turn that "
                "made the call) or its other results"
            )
        return field, f"expected the id of an earlier tool call, got {call_id!r}"
    for position, call in enumerate(open_calls):
        if call.id == call_id:
            del open_calls[position]
            return None
    if call_id in made_at:
        return field, (
            f"the result for {call_id!r} must follow {made_at[call_id]}, the turn that made "
            f"the call, not history.{open_turn}"
        )
    return field, (
        f"expected the id of a call made by history.{open_turn}, the assistant turn "
        f"these results follow; got {call_id!r}"
    )


def _check_end(
    open_turn: int | None,
    open_calls: list[ToolCall],
    made_at: dict[str, str],
    pending_call: tuple[str, str] | None,
) -> Problem | None:
    """Unanswered calls at the end are a paused run's: the first is the pending one."""
    if pending_call is None:
        if open_calls:
            return f"{made_at[open_calls[0].id]}.id", (
                f"call {open_calls[0].id!r} is never answered, and no question is pending"
            )
        return None
    pending_id, pending_tool = pending_call
    if not open_calls:
        return "pending.tool_call_id", (
            f"expected the id of the unanswered call the run paused at; every call in "
            f"history is answered, got {pending_id!r}"
        )
    first = open_calls[0]
    if pending_id != first.id:
        return "pending.tool_call_id", (
            f"expected {first.id!r}, the first unanswered call of history.{open_turn}, "
            f"got {pending_id!r}"
        )
    if pending_tool != first.name:
        return "pending.tool_name", (
            f"expected {first.name!r}, the tool call {first.id!r} names, got {pending_tool!r}"
        )
    return None
