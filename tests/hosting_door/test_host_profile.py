"""The host wire profile: how replies are classified, how a law judges them, and how a
profile's differences from the default are said (information, never a verdict)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.adapter import (
    DEFAULT_PROFILE,
    AnswerWay,
    HostOutcome,
    HostWireProfile,
    ReadNone,
    Way,
    classify,
    profile_differences,
)
from conformance.errors import AdapterContractError
from conformance.hosting import UNANSWERED, HostReply, NotTheWire, assert_said
from conformance.runner.host_fixtures import wire_profile
from conformance.verdicts import Outcome, information_lines
from conformance.verdicts import TestRecord as Record  # not collected as a test class

OWN = HostWireProfile(
    answered=[AnswerWay(status=[200], text="/reply/text")],
    busy=[Way(status=[423])],
    run_failed=[Way(status=[500])],
    unreadable=[Way(status=[500], fields={"/problem/kind": "STORE_BROKEN"})],
    read=ReadNone(),
)


@pytest.mark.parametrize(
    ("status", "event", "data", "said"),
    [
        (200, None, {"output": "hi"}, {HostOutcome.ANSWERED}),
        (200, None, {"output": 3}, set()),  # an answer's text is a string
        (202, None, {"awaiting": {"question": "q", "toolCallId": "c"}}, {HostOutcome.PAUSED}),
        (409, None, {"code": "ERR_CONCURRENT_RUN"}, {HostOutcome.BUSY}),
        (200, "error", {"code": "ERR_RUN_FAILED"}, {HostOutcome.RUN_FAILED}),
        (500, None, {"code": "ERR_RUN_FAILED"}, set()),  # the right code, the wrong status
        (200, "complete", {"output": "hi"}, {HostOutcome.ANSWERED}),
        (418, None, None, set()),
    ],
)
def test_the_default_profile_is_the_reference_wire(
    status: int, event: str | None, data: Any, said: set[HostOutcome]
) -> None:
    assert classify(DEFAULT_PROFILE, status, event, data) == said


def test_the_most_specific_way_wins_and_ties_are_kept() -> None:
    broken = {"problem": {"kind": "STORE_BROKEN"}}
    assert classify(OWN, 500, None, broken) == {HostOutcome.UNREADABLE}
    assert classify(OWN, 500, None, "<html>oops</html>") == {HostOutcome.RUN_FAILED}
    named = HostWireProfile(run_failed=[Way(status=[500], absent=["/code"])])
    assert classify(named, 500, None, {"message": "x"}) == {HostOutcome.RUN_FAILED}
    assert classify(named, 500, None, {"code": "ERR_INTERNAL"}) == frozenset()
    alike = HostWireProfile(run_failed=[Way(status=[500])], unreadable=[Way(status=[500])])
    assert classify(alike, 500, None, None) == {HostOutcome.RUN_FAILED, HostOutcome.UNREADABLE}


def test_a_profile_says_how_it_differs_from_the_default() -> None:
    assert profile_differences(DEFAULT_PROFILE) == []
    said = "\n".join(profile_differences(OWN))
    assert "says 'the run failed' as status 500 (the default profile: status 502" in said
    assert "offers no way to read a stored session back" in said
    assert "answered" in said and "busy" not in said  # outcomes in words, not field names


def test_a_started_host_hands_back_a_profile_or_none() -> None:
    class Host:
        base_url = "http://127.0.0.1:1"

        def __init__(self, profile: object) -> None:
            self.wire_profile = profile

    assert wire_profile(Host(None)) is DEFAULT_PROFILE  # type: ignore[arg-type]
    assert wire_profile(Host(OWN.model_dump())) == OWN  # type: ignore[arg-type]
    with pytest.raises(AdapterContractError, match=r"answered.*list"):
        wire_profile(Host({"answered": "200"}))  # type: ignore[arg-type]
    with pytest.raises(AdapterContractError, match="JSON Pointer"):
        wire_profile(Host({"busy": [{"fields": {"code": "X"}}]}))  # type: ignore[arg-type]


def reply(*said: HostOutcome, notes: list[str] | None = None) -> HostReply:
    return HostReply(
        status=500,
        said=frozenset(said),
        evidence="status 500, text/plain: b'oops'",
        note=notes.append if notes is not None else None,
    )


def test_a_law_judges_the_outcome_and_notes_a_detail_of_the_same_kind() -> None:
    notes: list[str] = []
    assert_said(reply(HostOutcome.RUN_FAILED, notes=notes), HostOutcome.RUN_FAILED, what="x")
    assert notes == []
    assert_said(reply(HostOutcome.UNREADABLE, notes=notes), HostOutcome.RUN_FAILED, what="x")
    assert notes == [
        "x: the host said 'refused: the stored session cannot be read' where the suite "
        "expected 'the run failed'"
    ]
    with pytest.raises(AssertionError, match="x was refused: the session's turn is running"):
        assert_said(reply(HostOutcome.BUSY), HostOutcome.RUN_FAILED, what="x")
    assert_said(reply(HostOutcome.BUSY), HostOutcome.RUN_FAILED, what="x", core=UNANSWERED)
    with pytest.raises(NotTheWire, match=r"x: its wire profile does not classify it.*oops"):
        assert_said(reply(), HostOutcome.ANSWERED, what="x")


def test_information_is_said_once_outside_the_score() -> None:
    records = [
        Record(
            law="hosting.session-continues",
            test=f"t{n}",
            outcome=Outcome.PASS,
            duration=0.0,
            information=("host wire: says 'the run failed' as status 500",),
        )
        for n in range(2)
    ]
    assert information_lines(records) == [
        "information (details the seed never fixed, not scored):",
        "  host wire: says 'the run failed' as status 500",
    ]


def test_an_answers_text_is_read_where_the_way_that_matched_says() -> None:
    from conformance.adapter._host_profile import way_of

    two = HostWireProfile(
        answered=[AnswerWay(status=[200], text="/output"), AnswerWay(status=[203], text="/alt")]
    )
    found = way_of(two, HostOutcome.ANSWERED, 203, None, {"alt": "hi"})
    assert isinstance(found, AnswerWay) and found.text == "/alt"
    assert way_of(two, HostOutcome.ANSWERED, 203, None, {"output": "hi"}) is None
