"""The same run with and without pytest-xdist (`-n 2`): the same per-law verdicts, the
same exit status, one whole results file, and the manifest judged the same way.

Each case runs a slice of the suite twice, as child `python -m pytest` processes side by
side (xdist's workers are processes of their own; a nested in-process run cannot host
them). The slice is small on purpose: the smoke law, the run laws and the failure laws'
HTTP 500 cases, one dialect and one delivery: fourteen tests, enough that both workers
get law tests to judge while the smoke test is still running.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.__main__ import main as conformance_cli
from conformance.runner import parallel
from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.suite_args import PLUGIN_ARGS

REPOSITORY = Path(__file__).resolve().parents[2]
SLICE = [
    sys.executable,
    "-m",
    "pytest",
    *PLUGIN_ARGS,
    "-q",
    "--hypothesis-profile=ci",
    "--dialects",
    "openai-chat",
    "--deliveries",
    "stream",
    "-k",
    "one_turn or test_run or http-500",
    "--pyargs",
    "conformance.laws.test_smoke",
    "conformance.laws.test_run",
    "conformance.laws.test_failure",
]
ROGUE = "tests.rogues.gallery:run_carries_previous"
"""Its runs carry the previous one: run.no-history FAILs, and with it
run.conversation-id-does-not-join; the failure laws pass."""
DIES = "tests.harness.faulty_adapters:dies_closing_its_first_agent"
"""Ends its worker process the first time it closes an agent: the smoke test's teardown."""
BROKEN = "tests.harness.faulty_adapters:silent_success"
"""Claims an answer without calling the model: the smoke law FAILs."""
RUN_TIMEOUT = 300
"""Seconds one slice may take on a loaded machine, with room to spare."""


def manifest(tmp_path: Path, **entries: str) -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(
        "".join(
            f'[law."{law}"]\noutcome = "FAIL"\nreason = "{reason}"\n'
            for law, reason in entries.items()
        ),
        encoding="utf-8",
    )
    return path


def run_both(tmp_path: Path, *args: str) -> dict[str, tuple[int, str, ResultsFile]]:
    """The slice without and with `-n 2`, side by side: exit code, output, results."""
    started = {}
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        folder = tmp_path / name
        folder.mkdir()
        started[name] = subprocess.Popen(
            # `--results=` in one word: a separate existing path would be read as a test
            # path and move the rootdir (a pytest rule, with or without xdist)
            [*SLICE, *extra, *args, f"--results={folder / 'results.jsonl'}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=folder,  # repro files land here, not in the repository
            env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
        )
    finished = {}
    for name, process in started.items():
        try:
            output, _ = process.communicate(timeout=RUN_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
        path = tmp_path / name / "results.jsonl"
        assert path.exists(), output[-3000:]
        results = read_results(path)
        assert not results.truncated, f"the {name} run did not finish:\n{output[-3000:]}"
        assert results.inconsistencies() == [], output[-3000:]
        finished[name] = (process.returncode, output, results)
    return finished


def assert_same(runs: dict[str, tuple[int, str, ResultsFile]]) -> ResultsFile:
    (serial_code, serial_out, serial), (parallel_code, parallel_out, parallel) = runs.values()
    assert parallel.per_law() == serial.per_law(), parallel_out[-3000:]
    assert parallel_code == serial_code, (serial_out[-2000:], parallel_out[-2000:])
    assert parallel.footer == serial.footer  # totals, problems, unjudged, not run, verdict
    assert sorted(r.test for r in parallel.records) == sorted(r.test for r in serial.records)
    assert parallel.header["expectations"] == serial.header["expectations"]
    # run from outside the checkout: still the suite's own ids, whatever pytest wrote
    shown = [r.test for r in serial.records] + (serial.footer.not_run if serial.footer else [])
    assert all(test.startswith("conformance/laws/test_") for test in shown), shown
    return serial


# Two slices side by side, each up to RUN_TIMEOUT.
@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_a_failure_an_expected_failure_and_an_unexpected_pass_are_judged_the_same(
    tmp_path: Path,
) -> None:
    entries = manifest(
        tmp_path,
        **{
            "run.no-history": "known",
            "failure.failed-resume-stays-pending": "wrongly listed: it passes",
        },
    )
    runs = run_both(tmp_path, "--impl", ROGUE, "--expectations", str(entries))
    serial = assert_same(runs)
    outcomes = serial.per_law()
    assert outcomes["run.no-history"] is Outcome.XFAIL
    assert outcomes["run.conversation-id-does-not-join"] is Outcome.FAIL
    assert outcomes["failure.failed-resume-stays-pending"] is Outcome.XPASS
    assert outcomes["smoke.one-turn"] is Outcome.PASS
    assert serial.footer is not None and serial.footer.verdict == "red"
    assert runs["parallel"][0] == pytest.ExitCode.TESTS_FAILED
    assert "remove the entry" in runs["parallel"][1]  # the controller's manifest check
    for name in runs:
        assert conformance_cli(["report", str(tmp_path / name / "results.jsonl")]) == 1


@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_every_failure_listed_is_green_under_both(tmp_path: Path) -> None:
    entries = manifest(
        tmp_path,
        **{"run.no-history": "known", "run.conversation-id-does-not-join": "its consequence"},
    )
    runs = run_both(tmp_path, "--impl", ROGUE, "--expectations", str(entries))
    serial = assert_same(runs)
    assert serial.footer is not None and serial.footer.verdict == "green"
    assert runs["parallel"][0] == pytest.ExitCode.OK, runs["parallel"][1][-3000:]


@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_a_broken_adapter_stops_both_runs_before_any_other_law(tmp_path: Path) -> None:
    runs = run_both(tmp_path, "--impl", BROKEN)
    serial = assert_same(runs)
    assert serial.per_law() == {"smoke.one-turn": Outcome.FAIL}
    for code, output, results in runs.values():
        assert code == pytest.ExitCode.INTERRUPTED
        assert "adapter broken: a one-turn run does not work" in output
        assert results.footer is not None and len(results.footer.not_run) == 13


@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_a_worker_that_dies_after_a_pass_leaves_its_test_an_error_not_a_pass(
    tmp_path: Path,
) -> None:
    """Only under xdist (without it the runtime's exit ends pytest itself): the smoke
    test's call passes, its worker dies in the teardown; the controller must not keep
    the PASS it was sent, and the run is red."""
    results = tmp_path / "results.jsonl"
    done = subprocess.run(
        [*SLICE, "-n", "2", "--impl", DIES, f"--results={results}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": str(REPOSITORY),
            "TURNLAW_DIE_ONCE": str(tmp_path / "died"),
        },
        timeout=RUN_TIMEOUT,
    )
    said = done.stdout[-3000:] + done.stderr[-2000:]
    assert (tmp_path / "died").exists(), said  # the worker did die
    written = read_results(results)
    outcomes = written.per_law()
    assert outcomes["smoke.one-turn"] is Outcome.ERROR, said
    smoke = [r for r in written.records if r.law == "smoke.one-turn" and r.outcome is Outcome.ERROR]
    assert "the worker running this test died" in smoke[0].detail
    assert smoke[0].test.startswith("conformance/laws/test_smoke.py::"), smoke[0].test
    assert outcomes["run.no-history"] is Outcome.PASS  # the other laws were judged as usual
    assert written.footer is not None and written.footer.verdict == "red"
    assert done.returncode != 0, said


def test_a_stop_is_never_seen_without_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker polls the gate folder for the stop file and reads its reason, which the
    controller's run ends with ("Interrupted: adapter broken: ..."). Seen at each write
    the announcing worker makes, the stop file is absent or whole: a busy machine can
    pause the writer between the two, and an empty file read then said only "stopped"."""
    stop = tmp_path / parallel.STOP_FILE
    seen: list[str | None] = []
    real_open = Path.open

    def watched_open(path: Path, *args: Any, **kwargs: Any) -> Any:
        opened = real_open(path, *args, **kwargs)
        real_write = opened.write

        def write(text: str) -> int:
            seen.append(stop.read_text(encoding="utf-8") if stop.exists() else None)
            return int(real_write(text))

        opened.write = write
        return opened

    worker = parallel.Worker(SimpleNamespace(workerinput={parallel.GATE: str(tmp_path)}), 1.0)  # type: ignore[arg-type]
    monkeypatch.setattr(Path, "open", watched_open)
    worker.announce_stop("adapter broken: a one-turn run does not work")
    worker.announce_stop("a later word")
    monkeypatch.undo()
    assert seen and set(seen) <= {None, "adapter broken: a one-turn run does not work"}, seen
    assert stop.read_text(encoding="utf-8") == "adapter broken: a one-turn run does not work"
    assert [path.name for path in tmp_path.iterdir()] == [parallel.STOP_FILE]
