"""The kill run's job order: the longest jobs of the last run are claimed first, so no
long job starts near the end; an unreadable durations file changes only the order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rogues import kill


def _names(listed: list[dict[str, object]]) -> list[object]:
    return [job["name"] for job in listed]


@pytest.fixture
def durations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "durations.json"
    monkeypatch.setattr(kill, "DURATIONS", path)
    return path


def test_the_longest_job_of_the_last_run_is_claimed_first(durations: Path) -> None:
    durations.write_text('{"short": 2, "long": 90, "middle": 30}', encoding="utf-8")
    listed = [{"name": n} for n in ("short", "middle", "long")]
    assert _names(kill.longest_first(listed)) == ["long", "middle", "short"]


def test_a_job_the_last_run_did_not_have_goes_before_every_known_one(durations: Path) -> None:
    durations.write_text('{"old": 90}', encoding="utf-8")
    listed = [{"name": "old"}, {"name": "new"}]
    assert _names(kill.longest_first(listed)) == ["new", "old"]


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[1, 2]", '{"b": "slow", "c": true}', "\x00\xff"],
    ids=["empty", "garbage", "a-list", "not-numbers", "binary"],
)
def test_an_unreadable_durations_file_keeps_the_gallery_order(durations: Path, text: str) -> None:
    durations.write_text(text, encoding="utf-8", errors="surrogateescape")
    listed = [{"name": n} for n in ("a", "b", "c")]
    assert _names(kill.longest_first(listed)) == ["a", "b", "c"]


def test_a_duration_that_is_not_a_finite_number_is_unknown(durations: Path) -> None:
    durations.write_text('{"a": 1, "b": NaN, "c": 5}', encoding="utf-8")
    listed = [{"name": n} for n in ("a", "b", "c")]
    assert _names(kill.longest_first(listed)) == ["b", "c", "a"]


def test_a_missing_durations_file_keeps_the_gallery_order(durations: Path) -> None:
    listed = [{"name": n} for n in ("a", "b", "c")]
    assert _names(kill.longest_first(listed)) == ["a", "b", "c"]


def test_the_committed_durations_name_every_job_of_the_run() -> None:
    """A stale file is not an error (new jobs go first), but the committed one is kept
    whole by `python -m tests.rogues --write`; this says when it was not rewritten."""
    names = {str(job["name"]) for job in kill.jobs()}
    assert set(kill.known_durations()) == names
    assert _names(kill.jobs())[0] == max(kill.known_durations().items(), key=lambda x: x[1])[0]
