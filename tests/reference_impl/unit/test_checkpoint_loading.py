"""load_checkpoint: garbage is an InvalidCheckpointError naming the field, never an
untyped error and never accepted — the hostile values that were accepted or crashed it."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from pydantic import ValidationError

from reference_impl import (
    Agent,
    AgentRunCheckpoint,
    DecisionRefusedError,
    InvalidCheckpointError,
    InvalidMessageError,
    ToolCall,
    Turn,
    load_checkpoint,
)


def user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "text": text}


def calls(*ids: str, name: str = "lookup") -> dict[str, Any]:
    return {"role": "assistant", "tool_calls": [{"id": i, "name": name} for i in ids]}


def result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "text": "r"}


def answer(text: str = "ok") -> dict[str, Any]:
    return {"role": "assistant", "text": text}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def doc(history: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"history": history, **more}


GOOD = doc([user(), calls("a", "b"), result("a"), result("b"), answer(), user(), answer()])

REFUSED: dict[str, tuple[Any, str]] = {
    # JSON text that crashed the loader
    "nested 100,000 deep": ('{"history": ' + nested(100_000) + "}", "(document)"),
    "a 5,000-digit integer": ('{"turns": ' + "9" * 5000 + "}", "(document)"),
    "not UTF-8": (b'{"history": [{"role": "user", "text": "\xff"}]}', "(document)"),
    "a member named twice": ('{"history": [], "history": []}', "(document)"),
    # values that were accepted
    "NaN in arguments": (
        '{"history": [{"role": "user"}, {"role": "assistant", "tool_calls": [{"id": "a",'
        ' "name": "n", "arguments": {"x": [1, NaN]}}]}, {"role": "tool", "tool_call_id": "a"}]}',
        "history.1.tool_calls.0.arguments.x.1",
    ),
    "Infinity in arguments": (
        doc(
            [
                user(),
                {
                    **calls("a"),
                    "tool_calls": [{"id": "a", "name": "n", "arguments": {"x": math.inf}}],
                },
                result("a"),
            ]
        ),
        "history.1.tool_calls.0.arguments.x",
    ),
    "1e999 (infinite) in text": (
        '{"history": [{"role": "user"}, {"role": "assistant", "tool_calls": [{"id": "a",'
        ' "name": "n", "arguments": {"x": 1e999}}]}, {"role": "tool", "tool_call_id": "a"}]}',
        "history.1.tool_calls.0.arguments.x",
    ),
    "a lone surrogate in text": (
        '{"history": [{"role": "user", "text": "a\\ud800"}]}',
        "history.0.text",
    ),
    "a lone surrogate in a key": (
        doc(
            [
                user(),
                {
                    **calls("a"),
                    "tool_calls": [{"id": "a", "name": "n", "arguments": {"\udc00": 1}}],
                },
                result("a"),
            ]
        ),
        "history.1.tool_calls.0.arguments",
    ),
    "a lone surrogate in the agent id": ({"agent": "\ud83d"}, "agent"),
    "a huge Python int in arguments": (
        doc(
            [
                user(),
                {
                    **calls("a"),
                    "tool_calls": [{"id": "a", "name": "n", "arguments": {"n": 10**5000}}],
                },
                result("a"),
            ]
        ),
        "history.1.tool_calls.0.arguments.n",
    ),
    "a count past 2**53": ({"turns": 2**53}, "turns"),
    "a set in arguments": (
        doc(
            [
                user(),
                {**calls("a"), "tool_calls": [{"id": "a", "name": "n", "arguments": {"s": {1}}}]},
                result("a"),
            ]
        ),
        "history.1.tool_calls.0.arguments.s",
    ),
    "arguments nested 80 deep": (
        '{"history": [{"role": "user"}, {"role": "assistant", "tool_calls": [{"id": "a",'
        ' "name": "n", "arguments": {"x": ' + nested(80) + '}}]}, {"role": "tool",'
        ' "tool_call_id": "a"}]}',
        "history.1.tool_calls.0.arguments.x" + ".0" * 58,
    ),
    "version true": ({"version": True}, "version"),
    "turns as text": ({"turns": "3"}, "turns"),
    "is_error as text": (
        doc([user(), calls("a"), {**result("a"), "is_error": "yes"}]),
        "history.2.is_error",
    ),
    # tool-call ids that do not pair up
    "a duplicate call id in one turn": (
        doc([user(), calls("a", "a"), result("a")]),
        "history.1.tool_calls.1.id",
    ),
    "a duplicate call id across turns": (
        doc([user(), calls("a"), result("a"), answer(), user(), calls("a"), result("a")]),
        "history.5.tool_calls.0.id",
    ),
    "a result answered twice": (
        doc([user(), calls("a"), result("a"), result("a")]),
        "history.3.tool_call_id",
    ),
    "a dangling result": (
        doc([user(), calls("a"), result("a"), result("zz")]),
        "history.3.tool_call_id",
    ),
    "a result after a user turn": (
        doc([user(), calls("a"), result("a"), user(), result("a")]),
        "history.4.tool_call_id",
    ),
    "a result for an older turn's call": (
        doc([user(), calls("a"), result("a"), calls("b"), result("a")]),
        "history.4.tool_call_id",
    ),
    "a result with no call id": (
        doc([user(), calls("a"), {"role": "tool", "text": "r"}]),
        "history.2.tool_call_id",
    ),
    "a user turn after an unanswered call": (doc([user(), calls("a"), user()]), "history.2.role"),
    "an answer after an unanswered call": (
        doc([user(), calls("a", "b"), result("a"), answer()]),
        "history.3.role",
    ),
    "an unanswered call at the end, nothing pending": (
        doc([user(), calls("a")]),
        "history.1.tool_calls.0.id",
    ),
    "tool calls on a user turn": (
        doc([{**user(), "tool_calls": [{"id": "a", "name": "n"}]}, result("a")]),
        "history.0.tool_calls",
    ),
    "a call id on a user turn": (doc([{**user(), "tool_call_id": "a"}]), "history.0.tool_call_id"),
    "an error flag on an answer": (
        doc([user(), {**answer(), "is_error": True}]),
        "history.1.is_error",
    ),
    "an assistant turn first": (doc([answer(), user()]), "history.0.role"),
    # pending questions that name the wrong call
    "pending names an answered call": (
        doc(
            [user(), calls("a"), result("a")],
            pending={"tool_name": "lookup", "tool_call_id": "a", "question": "?"},
        ),
        "pending.tool_call_id",
    ),
    "pending names a later call": (
        doc(
            [user(), calls("a", "b")],
            pending={"tool_name": "lookup", "tool_call_id": "b", "question": "?"},
        ),
        "pending.tool_call_id",
    ),
    "pending names another tool": (
        doc(
            [user(), calls("a")],
            pending={"tool_name": "other", "tool_call_id": "a", "question": "?"},
        ),
        "pending.tool_name",
    ),
    # folded spans
    "a span at a turn that is not a summary": (
        doc([user(), answer()], folded=[{"at": 0, "turns": 2, "summary": "s"}]),
        "folded.0.at",
    ),
}


@pytest.mark.parametrize("name", list(REFUSED), ids=list(REFUSED))
def test_garbage_is_refused_naming_the_field(name: str) -> None:
    value, field = REFUSED[name]
    with pytest.raises(InvalidCheckpointError) as raised:
        load_checkpoint(value)
    assert raised.value.field == field, raised.value
    assert f"'{field}'" in str(raised.value)


def test_a_well_formed_conversation_round_trips_exactly() -> None:
    checkpoint = load_checkpoint(GOOD)
    assert load_checkpoint(checkpoint.to_json()) == checkpoint
    assert load_checkpoint(checkpoint.to_data()) == checkpoint
    assert load_checkpoint(checkpoint.model_dump()) == checkpoint  # Python mode: tuples
    assert load_checkpoint(checkpoint.to_json().encode()) == checkpoint


def test_a_paused_conversation_ends_at_the_call_it_asked_about() -> None:
    paused = doc(
        [user(), calls("a", "b", name="approve")],
        pending={"tool_name": "approve", "tool_call_id": "a", "question": "May I?"},
    )
    assert load_checkpoint(paused).pending is not None
    later = doc(
        [user(), calls("a", "b", name="approve"), result("a")],
        pending={"tool_name": "approve", "tool_call_id": "b", "question": "And this?"},
    )
    assert load_checkpoint(later).pending is not None


def test_a_checkpoint_built_around_validation_is_still_checked() -> None:
    call = ToolCall.model_construct(id="a", name="n", arguments={"x": math.nan})
    history = (
        Turn(role="user"),
        Turn.model_construct(
            role="assistant", text="", tool_calls=(call,), tool_call_id=None, is_error=False
        ),
        Turn(role="tool", tool_call_id="a"),
    )
    built = AgentRunCheckpoint.model_construct(history=history)
    with pytest.raises(InvalidCheckpointError) as raised:
        load_checkpoint(built)
    assert raised.value.field == "history.1.tool_calls.0.arguments.x"


@pytest.mark.parametrize(
    "build",
    [
        lambda: Turn(role="user", text="\ud800"),
        lambda: ToolCall(id="a", name="n", arguments={"x": math.nan}),
        lambda: ToolCall(id="a", name="n", arguments={"x": json.loads(nested(100))}),
        lambda: Turn(role="tool", tool_call_id="a", is_error="yes"),
    ],
    ids=["surrogate", "nan", "deep", "lax-bool"],
)
def test_the_conversation_model_is_plain_json_by_construction(build: Any) -> None:
    with pytest.raises(ValidationError):
        build()


class _NeverCalled:
    async def complete(self, **_: Any) -> Any:
        raise AssertionError("nothing may be sent")


@pytest.mark.parametrize("message", ["a\ud800", None, b"bytes"], ids=["surrogate", "none", "bytes"])
async def test_a_message_that_is_not_text_is_refused_before_anything_is_sent(message: Any) -> None:
    agent = Agent.create(provider=_NeverCalled(), model="m").build()
    with pytest.raises(InvalidMessageError, match="run: invalid message"):
        await agent.run(message)
    paused = load_checkpoint(
        doc(
            [user(), calls("a", name="approve")],
            pending={"tool_name": "approve", "tool_call_id": "a", "question": "?"},
        )
    )
    # a decision that cannot be sent is refused as the question still owed
    with pytest.raises(DecisionRefusedError, match="resume: the decision is not valid"):
        await agent.resume(paused, "\udc00")
