"""The hostile suite's own bookkeeping: budgets by profile and honest counting."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.hostile.budget import BUDGET, TALLY, Tally, fuzz_settings, judged


@pytest.fixture(autouse=True)
def _real_profiles_only() -> Iterator[None]:
    """These tests ask for other profiles' budgets: keep them off the run's report."""
    before = set(TALLY.profiles)
    yield
    TALLY.profiles.clear()
    TALLY.profiles.update(before)


@pytest.mark.parametrize(("profile", "scale"), [("thorough", 1.0), ("ci", 0.5)])
def test_the_profile_sets_the_budget_and_ci_alone_is_derandomized(
    profile: str, scale: float
) -> None:
    before = settings.get_current_profile_name()
    settings.load_profile(profile)
    try:
        chosen = fuzz_settings(scale=scale)
    finally:
        settings.load_profile(before)
    assert chosen.max_examples == int(BUDGET[profile] * scale)
    assert chosen.derandomize is (profile == "ci")
    assert BUDGET["ci"] // 2 < BUDGET["thorough"] >= 10_000


def test_judged_counts_each_fate_and_lets_untyped_errors_through() -> None:
    with judged("test-budget", typed=(ValueError,)):
        pass
    with judged("test-budget", typed=(ValueError,)):
        raise ValueError("refused, as it should be")
    with pytest.raises(KeyError), judged("test-budget", typed=(ValueError,)):
        raise KeyError("an untyped error is a bug and must fail the test")
    counts = TALLY.counts.pop("test-budget")  # not a real target: keep it off the report
    assert (counts["accepted"], counts["typed"], counts["untyped"]) == (1, 1, 1)


def test_an_unknown_fate_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fate"):
        Tally().add("x", "fine")
