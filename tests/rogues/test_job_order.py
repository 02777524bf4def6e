"""The kill run's job order: the longest jobs of the last run are claimed first, so no
long job starts near the end; an unreadable durations file changes only the order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rogues import kill


def _jobs(*names: str) -> list[dict[str, object]]:
    return [{"name": name} for name in names]


def _names(listed: list[dict[str, object]]) -> list[object]:
    return [job["name"] for job in listed]


@pytest.fixture
def durations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "durations.json"
    monkeypatch.setattr(kill, "DURATIONS", path)
    return path


def test_the_longest_job_of_the_last_run_is_claimed_first(durations: Path) -> None:
    durations.write_text('{"short": 2, "long": 90, "middle": 30}', encoding="utf-8")
    ordered = kill.longest_first(_jobs("short", "middle", "long"))
    assert _names(ordered) == ["long", "middle", "short"]


def test_a_job_the_last_run_did_not_have_goes_before_every_known_one(durations: Path) -> None:
    durations.write_text('{"old": 90}', encoding="utf-8")
    assert _names(kill.longest_first(_jobs("old", "new"))) == ["new", "old"]


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b"[1, 2]", b'{"b": "slow", "c": true}', b"\x00\xff"],
    ids=["empty", "garbage", "a-list", "not-numbers", "binary"],
)
def test_an_unreadable_durations_file_keeps_the_gallery_order(
    durations: Path, content: bytes
) -> None:
    durations.write_bytes(content)
    assert _names(kill.longest_first(_jobs("a", "b", "c"))) == ["a", "b", "c"]


def test_a_duration_that_is_not_a_finite_number_is_unknown(durations: Path) -> None:
    durations.write_text('{"a": 1, "b": NaN, "c": 5}', encoding="utf-8")
    assert _names(kill.longest_first(_jobs("a", "b", "c"))) == ["b", "c", "a"]


def test_a_missing_durations_file_keeps_the_gallery_order(durations: Path) -> None:
    assert _names(kill.longest_first(_jobs("a", "b", "c"))) == ["a", "b", "c"]


def test_the_committed_durations_name_every_job_of_the_run() -> None:
    """A stale file is not an error (new jobs go first), but the committed one is kept
    whole by `python -m tests.rogues --write`; this says when it was not rewritten."""
    listed, known = kill.jobs(), kill.known_durations()
    assert set(known) == {str(job["name"]) for job in listed}
    assert known[str(listed[0]["name"])] == max(known.values())
