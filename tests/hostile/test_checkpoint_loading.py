"""Hostile checkpoints: load_checkpoint on generated JSON values, texts and bytes, and on
mutations of real conversations (swapped, dangling and duplicate ids, deleted and moved
turns, NaN, lone surrogates, deep nesting, huge integers).

The contract: every input is accepted or refused with an InvalidCheckpointError naming a
field; what is accepted serializes to JSON and loads back equal. The strategies here also
feed test_checkpoint_continue.py, which sends what is accepted to the real fake.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance._unicode_text import unicode_text
from reference_impl import InvalidCheckpointError, load_checkpoint
from reference_impl.context import SUMMARY_CLOSE, SUMMARY_OPEN
from tests.hostile.budget import fuzz_settings, judged
from tests.hostile.json_paths import paths, replaced, value_at

pytestmark = pytest.mark.timeout(1200)  # thorough: 10,000 inputs per target

NAMES = st.sampled_from(["lookup", "approve", "missing"])
"""Tool names: one the agent has, one that asks a person, one it does not know."""

SURROGATES = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1)
TEXTS = st.one_of(
    st.sampled_from(["", "hi", "Book a table for two.", "<memory>x</memory>", "ünï 😀"]),
    unicode_text(max_size=12),
)
HOSTILE_LEAVES = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 2**53, -(2**70), 1e308]),
    st.integers(4000, 6000).map(lambda digits: 10**digits),  # mapped: its repr would raise
    SURROGATES,
    st.binary(max_size=4),
    st.builds(set),
    st.builds(object),
    st.integers(),
    st.floats(),
)
JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=False), TEXTS
)
ARGUMENTS = st.dictionaries(
    TEXTS,
    st.recursive(
        JSON_LEAVES,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3),
        max_leaves=6,
    ),
    max_size=3,
)


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def conversations(draw: st.DrawFn) -> dict[str, Any]:
    """A checkpoint as `checkpoint().to_data()` writes it: well formed by construction
    (calls answered right after their turn, in any order; a paused tail that asks about
    its first unanswered call; sometimes a summary turn and its span)."""
    history: list[dict[str, Any]] = []
    ids = iter(range(10_000))
    folded: list[dict[str, Any]] = []
    if draw(st.booleans()):
        summary = draw(TEXTS)
        history.append({"role": "user", "text": f"{SUMMARY_OPEN}{summary}{SUMMARY_CLOSE}"})
        folded.append({"at": 0, "turns": draw(st.integers(1, 5)), "summary": summary})
        history.append({"role": "assistant", "text": draw(TEXTS)})

    def call() -> dict[str, Any]:
        return {"id": f"call_{next(ids)}", "name": draw(NAMES), "arguments": draw(ARGUMENTS)}

    for _ in range(draw(st.integers(0, 3))):
        history.append({"role": "user", "text": draw(TEXTS)})
        for _ in range(draw(st.integers(0, 2))):
            calls = [call() for _ in range(draw(st.integers(1, 3)))]
            history.append({"role": "assistant", "text": draw(TEXTS), "tool_calls": calls})
            for made in draw(st.permutations(calls)):
                history.append(
                    {
                        "role": "tool",
                        "tool_call_id": made["id"],
                        "text": draw(TEXTS),
                        "is_error": draw(st.booleans()),
                    }
                )
        if draw(st.integers(0, 4)):  # sometimes it ends on a failed run: no answer
            history.append({"role": "assistant", "text": draw(TEXTS)})
    data: dict[str, Any] = {"version": 1, "history": history, "folded": folded}
    if history and history[0]["role"] == "user" and draw(st.booleans()):
        calls = [call() for _ in range(draw(st.integers(1, 3)))]
        history += [
            {"role": "user", "text": draw(TEXTS)},
            {"role": "assistant", "text": "", "tool_calls": calls},
        ]
        answered = draw(st.integers(0, len(calls) - 1))
        history += [
            {"role": "tool", "tool_call_id": c["id"], "text": "ok"} for c in calls[:answered]
        ]
        asked = calls[answered]
        data["pending"] = {
            "tool_name": asked["name"],
            "tool_call_id": asked["id"],
            "question": draw(TEXTS),
        }
    if draw(st.booleans()):
        data["identity"] = {"conversation_id": draw(TEXTS.filter(bool)), "tenant": "acme"}
    data["turns"] = draw(st.integers(0, 20))
    return data


MUTATIONS = ["leaf", "hostile", "delete", "duplicate", "move", "swap-ids", "role", "deep", "key"]


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> Any:
    """A real conversation with a few things broken, the way hand edits and bugs do."""
    data = copy.deepcopy(draw(base))
    history: list[Any] = data["history"]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(MUTATIONS))
        turns = len(history)
        if kind in ("delete", "duplicate", "move", "role") and turns:
            at = draw(st.integers(0, turns - 1))
            if kind == "delete":
                del history[at]
            elif kind == "duplicate":
                history.insert(at, history[at])  # the same object: deepcopy recurses on deep ones
            elif kind == "move":
                history.insert(draw(st.integers(0, turns - 1)), history.pop(at))
            elif isinstance(history[at], dict):
                history[at]["role"] = draw(st.sampled_from(["user", "assistant", "tool", "system"]))
        elif kind == "swap-ids":
            ids = [p for p in paths(data) if p and p[-1] in ("id", "tool_call_id")]
            if len(ids) >= 2:
                first, second = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2))
                a, b = value_at(data, first), value_at(data, second)
                replaced(data, first, b)
                replaced(data, second, a)
        elif kind == "deep":
            data = replaced(
                data,
                draw(st.sampled_from(paths(data))),
                nested(draw(st.sampled_from([60, 70, 2000]))),
            )
        elif kind == "key":
            target = draw(
                st.sampled_from([p for p in paths(data) if isinstance(value_at(data, p), dict)])
            )
            value_at(data, target)[
                draw(st.sampled_from(["surprise", "id", "role", "text", "\ud800"]))
            ] = 1
        else:
            leaf = draw(HOSTILE_LEAVES if kind == "hostile" else JSON_LEAVES)
            data = replaced(data, draw(st.sampled_from(paths(data))), leaf)
        if not isinstance(data, dict) or not isinstance(data.get("history"), list):
            break
        history = data["history"]
    return data


JSON_VALUES = st.recursive(
    JSON_LEAVES | HOSTILE_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXTS, inner, max_size=4),
    max_leaves=12,
)
SHAPED = st.fixed_dictionaries(
    {},
    optional={
        "version": JSON_VALUES,
        "history": st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "tool"])},
                optional={
                    "text": JSON_VALUES,
                    "tool_calls": st.lists(
                        st.fixed_dictionaries(
                            {"id": st.sampled_from(["a", "b", ""]), "name": NAMES}
                        ),
                        max_size=2,
                    ),
                    "tool_call_id": st.sampled_from(["a", "b", None]),
                    "is_error": JSON_VALUES,
                },
            ),
            max_size=5,
        ),
        "folded": JSON_VALUES,
        "identity": JSON_VALUES,
        "agent": JSON_VALUES,
        "pending": JSON_VALUES,
        "turns": JSON_VALUES,
    },
)
CHECKPOINT_VALUES = st.one_of(conversations(), mutated(conversations()), SHAPED, JSON_VALUES)


def load_and_round_trip(value: Any) -> None:
    """The contract for one input, raising on any breach."""
    checkpoint = load_checkpoint(value)
    again = load_checkpoint(checkpoint.to_json())
    assert again == checkpoint, "an accepted checkpoint must come back equal from its JSON"
    assert load_checkpoint(checkpoint.to_data()) == checkpoint


@fuzz_settings()
@given(CHECKPOINT_VALUES)
def test_load_checkpoint_on_hostile_values(value: Any) -> None:
    with judged("checkpoint: load_checkpoint(value)", typed=(InvalidCheckpointError,)):
        load_and_round_trip(value)


def _texts(value: Any) -> str:
    try:
        return json.dumps(value)
    except RecursionError:  # 2,000 deep: json (and repr) give up; the text is still hostile
        return '{"history": [' + "[" * 2000 + "]" * 2000 + "]}"
    except (TypeError, ValueError):  # sets, objects, huge ints: text of another kind
        return '{"history": [], "turns": ' + "1" * 5000 + "}"


TEXT_INPUTS = st.one_of(
    CHECKPOINT_VALUES.map(_texts),
    CHECKPOINT_VALUES.map(_texts).flatmap(lambda t: st.integers(0, len(t)).map(lambda n: t[:n])),
    unicode_text(max_size=40),
    st.binary(max_size=40),
    CHECKPOINT_VALUES.map(_texts).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.integers(1, 200_000).map(lambda n: '{"history": ' + "[" * n + "]" * n + "}"),
    st.integers(1, 20_000).map(lambda n: '{"turns": 1' + "0" * n + "}"),
    st.sampled_from(
        ['{"turns": NaN}', '{"turns": Infinity}', '{"agent": "\\udfff"}', "[]", "null"]
    ),
)


@fuzz_settings()
@given(TEXT_INPUTS)
def test_load_checkpoint_on_hostile_texts_and_bytes(text: str | bytes) -> None:
    with judged("checkpoint: load_checkpoint(text|bytes)", typed=(InvalidCheckpointError,)):
        load_and_round_trip(text)
