"""`python -m conformance report`: a results file is green only when it is one whole,
consistent, green run. Each case edits a real results file (a nested run of the suite)
the way a careless copy, a crash or a hand edit would."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.__main__ import main as conformance_cli
from tests.harness.results_files import GREEN_RUN, RED_RUN, real_results, record, write_results

Lines = list[str]


def report(path: Path) -> int:
    return conformance_cli(["report", str(path)])


def kind(line: str) -> str:
    return str(json.loads(line).get("type"))


def outcome(line: str) -> str:
    return str(json.loads(line).get("outcome"))


def without_fail_records(lines: Lines) -> Lines:
    return [line for line in lines if outcome(line) != "FAIL"]


def footer_only(lines: Lines) -> Lines:
    return [line for line in lines if kind(line) == "footer"]


def header_and_footer(lines: Lines) -> Lines:
    return [line for line in lines if kind(line) != "test"]


def header_twice(lines: Lines) -> Lines:
    return [lines[0], *lines]


def footer_removed(lines: Lines) -> Lines:
    return lines[:-1]


def record_after_footer(lines: Lines) -> Lines:
    return [*lines, lines[1]]


def footer_first(lines: Lines) -> Lines:
    return [lines[-1], *lines[:-1]]


def unknown_law(lines: Lines) -> Lines:
    edited = json.loads(lines[1]) | {"law": "no-such.law"}
    return [lines[0], json.dumps(edited) + "\n", *lines[2:]]


def fail_turned_pass(lines: Lines) -> Lines:
    return [line.replace('"outcome": "FAIL"', '"outcome": "PASS"') for line in lines]


def xfail_without_an_entry(lines: Lines) -> Lines:
    return [line.replace('"outcome": "FAIL"', '"outcome": "XFAIL"') for line in lines]


def green_footer(lines: Lines) -> Lines:
    footer = json.loads(lines[-1])
    footer |= {"totals": {k: 0 for k in footer["totals"]}, "problems": [], "verdict": "green"}
    return [*lines[:-1], json.dumps(footer) + "\n"]


@pytest.mark.parametrize(
    "edit",
    [
        without_fail_records,
        footer_only,
        header_and_footer,
        header_twice,
        footer_removed,
        record_after_footer,
        footer_first,
        unknown_law,
        fail_turned_pass,
        xfail_without_an_entry,
        green_footer,
    ],
)
def test_an_edited_red_run_is_truncated_or_inconsistent(
    pytester: pytest.Pytester, tmp_path: Path, edit: Callable[[Lines], Lines]
) -> None:
    lines = real_results(pytester, RED_RUN)
    assert any(outcome(line) == "FAIL" for line in lines)
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(edit(lines)), encoding="utf-8")
    assert report(path) == 2


def test_a_real_run_reads_back_with_its_verdict(pytester: pytest.Pytester, tmp_path: Path) -> None:
    green, red = tmp_path / "green.jsonl", tmp_path / "red.jsonl"
    green.write_text("".join(real_results(pytester, GREEN_RUN)), encoding="utf-8")
    red.write_text("".join(real_results(pytester, RED_RUN)), encoding="utf-8")
    assert (report(green), report(red)) == (0, 1)


def test_a_whole_run_that_judged_nothing_is_red(tmp_path: Path) -> None:
    assert report(write_results(tmp_path / "empty.jsonl", [])) == 1


def test_a_run_that_left_a_law_unjudged_is_red(tmp_path: Path) -> None:
    records = [record("smoke.one-turn", "PASS")]
    path = write_results(tmp_path / "r.jsonl", records, unjudged=["run.no-history"])
    assert report(path) == 1


CORRUPT = {
    "not UTF-8": b'{"type": "test", "law": "smoke.one-turn\xff"}\n',
    "a record that is not an object": b"[1, 2]\n",
    "a line that is not JSON": b'{"type": "test", "law": \n',
    "a record with a wrong type": b'{"type": "test", "law": "smoke.one-turn", "test": "t", '
    b'"outcome": "PASS", "duration": "slow"}\n',
    # the field it names holds a line break: the message must stay one line (thorough fuzz)
    "a field named with line breaks": b'{"type": "test", "law": "smoke.one-turn", "test": "t", '
    b'"outcome": "PASS", "duration": 0.1, "\\u001e\\n": 1}\n',
}


@pytest.mark.parametrize("what", sorted(CORRUPT))
def test_a_corrupt_file_is_unreadable_in_one_line_without_a_traceback(
    pytester: pytest.Pytester, tmp_path: Path, what: str
) -> None:
    lines = real_results(pytester, GREEN_RUN)
    path = tmp_path / "corrupt.jsonl"
    path.write_bytes(lines[0].encode() + CORRUPT[what] + "".join(lines[1:]).encode())
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "report", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "line 2" in done.stderr, done.stderr


def test_a_missing_file_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert report(tmp_path / "nowhere.jsonl") == 3
    assert "nowhere.jsonl: cannot read it" in capsys.readouterr().err
