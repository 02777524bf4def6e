"""A failed premise ends a law test as ERROR naming the premise's law, never as a FAIL."""

from __future__ import annotations

import pytest

from conformance.laws._kit import PremiseNotMet, premise
from conformance.verdicts import Outcome, classify


def test_a_premise_that_holds_is_silent() -> None:
    premise("window.bounds-what-is-shown", True, "the window held")


def test_a_premise_that_fails_names_its_law() -> None:
    with pytest.raises(PremiseNotMet) as raised:
        premise("window.bounds-what-is-shown", False, "the window showed 4 turns")
    assert raised.value.law == "window.bounds-what-is-shown"
    assert str(raised.value) == (
        "premise not met: window.bounds-what-is-shown: the window showed 4 turns"
    )
    assert not isinstance(raised.value, AssertionError)


def test_a_failed_premise_is_an_error_not_a_fail() -> None:
    got = classify(
        when="call",
        failed=True,
        skipped=False,
        longrepr="PremiseNotMet: premise not met: x: y",
        is_assertion=False,
        wire_broken=False,
    )
    assert got is Outcome.ERROR
