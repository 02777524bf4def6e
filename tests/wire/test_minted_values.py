"""MintedValues: what differs between two plays of one door is masked, nothing else."""

from __future__ import annotations

import string
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from conformance.adapter import CompactionSpec
from conformance.wire import MintedValues

ids = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=1, max_size=40)


def system(tag: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": f"You take bookings. (agent {tag}) Be brief."}]


@given(first=ids, second=ids, door=ids)
@example(first="1", second="1-", door="0")  # the controls share the whole word `1`
@example(first="a-b", second="a-c", door="0")
def test_an_id_of_any_length_minted_per_agent_is_masked(first: str, second: str, door: str) -> None:
    minted = MintedValues.learn(system(first), system(second))
    if first != second:
        assert minted.difference(system(door), system(first)) is None


@pytest.mark.parametrize(
    "stamp",
    [
        lambda t: t.isoformat(),
        lambda t: format_datetime(t, usegmt=True),
        lambda t: str(int(t.timestamp() * 1000)),
        lambda t: t.strftime("%d/%m/%Y %H:%M:%S.%f"),
    ],
    ids=["iso", "rfc1123", "epoch-ms", "european"],
)
def test_a_timestamp_between_the_controls_is_masked(stamp: Callable[[datetime], str]) -> None:
    start = datetime(2026, 12, 1, 15, 38, 5, 123456, tzinfo=UTC)
    at = [start + timedelta(seconds=s, microseconds=s * 7919) for s in (0, 1, 2)]
    bodies = [{"system": f"now: {stamp(t)}", "id": str(uuid.uuid4())} for t in at]
    minted = MintedValues.learn(bodies[0], bodies[2])
    assert minted.difference(bodies[1], bodies[0]) is None


def test_what_the_controls_agree_on_must_match_exactly() -> None:
    minted = MintedValues.learn(system("a1b2c3d4"), system("zz99yy88"))
    differs = minted.difference(
        [{"role": "system", "content": "You take bookings. (agent q1w2e3r4) Be kind."}],
        system("a1b2c3d4"),
    )
    assert differs is not None and "Be kind" in differs
    assert minted.difference([*system("q"), {"role": "user"}], system("a")) is not None


def test_a_word_next_to_a_minted_id_is_still_compared() -> None:
    minted = MintedValues.learn(system("1"), system("1-"))
    assert minted.difference(system("0"), system("1")) is None
    for door in ["(agent 0 extra)", "(robot 0)", "(agent 0]", "agent 0)"]:
        content = f"You take bookings. {door} Be brief."
        differs = minted.difference([{"role": "system", "content": content}], system("1"))
        assert differs is not None, door


def test_a_counter_or_a_prefixed_uuid_is_masked_as_one_value() -> None:
    counters = MintedValues.learn({"run": "job run-7 done"}, {"run": "job run-7-retry done"})
    assert counters.difference({"run": "job run-8 done"}, {"run": "job run-7 done"}) is None
    assert counters.difference({"run": "job run-8 again done"}, {"run": "job run-7 done"})
    agents = [{"user": f"agent-{uuid.uuid4()}."} for _ in range(3)]
    assert MintedValues.learn(agents[0], agents[1]).difference(agents[2], agents[0]) is None


def test_the_part_of_a_stamp_the_controls_agree_on_is_still_compared() -> None:
    def body(minute: int, second: int) -> dict[str, str]:
        return {"system": f"now: 2026-12-01T15:{minute}:{second:02}.{second * 7919}+00:00"}

    minted = MintedValues.learn(body(38, 5), body(38, 7))
    assert minted.difference(body(38, 6), body(38, 5)) is None
    assert minted.difference(body(39, 6), body(38, 5)) is not None


def test_a_number_or_a_structure_that_differed_is_masked_whole() -> None:
    minted = MintedValues.learn({"n": 1, "extra": [1]}, {"n": 2, "extra": [1, 2]})
    assert minted.difference({"n": 7, "extra": []}, {"n": 1, "extra": [1]}) is None
    assert "extra" in minted.describe() and "n" in minted.describe()


@pytest.mark.parametrize(("turns", "chars"), [(None, None), (2, 100)])
def test_compaction_takes_exactly_one_trigger(turns: int | None, chars: int | None) -> None:
    with pytest.raises(ValidationError, match="exactly one of trigger_turns and trigger_chars"):
        CompactionSpec(trigger_turns=turns, trigger_chars=chars, keep_recent_turns=1)
    assert CompactionSpec(trigger_chars=10, keep_recent_turns=1).trigger == "chars"
    assert CompactionSpec(trigger_turns=1, keep_recent_turns=1).trigger == "turns"
