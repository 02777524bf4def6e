"""Repro files: a broken implementation leaves one per failing law test, and replaying
it gives the same failure against that implementation and a pass against the reference
(in-process and through cmd:), with the stored shrunk Hypothesis example."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import conformance
from conformance.replay.model import ReproFile, load_repro

ROOT = Path(__file__).parents[2]
AMNESIAC = "tests.replay.amnesiac:implementation"
SHORT_NAMES = "tests.replay.short_names:implementation"

# Every test here starts Python processes that import the SDKs: two suite runs for the
# shared fixture, four replays: several times the project's 60 s on a loaded machine.
pytestmark = pytest.mark.timeout(480)
REFERENCE_CMD = "cmd:" + shlex.join([sys.executable, "-m", "reference_impl.stdio_adapter"])


def python(*args: str, timeout: float = 200) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def suite(folder: Path, impl: str, *modules: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            *conformance.pytest_args(
                impl,
                select=modules,
                profile="ci",
                dialects="openai-chat",
                repro_dir=folder,
                options=["-p", "no:cacheprovider"],
            ),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], str]:
    """Run law modules against the two broken implementations (side by side); return
    their repro files by test name, and the amnesiac run's output."""
    folder = tmp_path_factory.mktemp("repro")
    runs = [
        suite(folder, AMNESIAC, "conformance.laws.test_run", "conformance.laws.test_stateful"),
        suite(folder, SHORT_NAMES, "conformance.laws.test_whose_conversation"),
    ]
    outputs = [finish(run)[1] for run in runs]  # wait for both
    output = outputs[0]
    files = {load_repro(path).test.name.split("[")[0]: path for path in folder.glob("*.json")}
    return files, output


def test_a_failing_law_test_leaves_a_repro_file_and_prints_the_replay_command(
    stored: tuple[dict[str, Path], str],
) -> None:
    files, output = stored
    assert set(files) == {
        "test_a_second_run_shows_only_its_own_message",
        "test_the_same_conversation_id_does_not_join_two_runs",
        "test_every_door_shows_the_model_what_the_law_predicts",
        "test_an_agent_continues_its_own_conversation",
        # a short name on the named side of a pair is refused too: the same bug
        "test_a_side_that_never_named_itself_never_refuses",
    }, output[-3000:]
    plain = load_repro(files["test_a_second_run_shows_only_its_own_message"])
    assert plain.law == "run.no-history" and plain.outcome == "FAIL"
    assert files["test_a_second_run_shows_only_its_own_message"].name.startswith("run.no-history-")
    assert plain.implementation == AMNESIAC and plain.dialect == "openai-chat"
    assert plain.hypothesis_profile == "ci" and plain.example is None
    assert len(plain.wire) == 2, "the fake's recording of the failing test"
    assert "sk-turnlaw" not in json.dumps(plain.wire)
    machine = load_repro(files["test_every_door_shows_the_model_what_the_law_predicts"])
    assert machine.example is not None and machine.example.blob
    assert any(step.startswith("state.run(") for step in machine.example.steps)
    given = load_repro(files["test_an_agent_continues_its_own_conversation"])
    assert given.implementation == SHORT_NAMES and given.example is not None
    # shrunk to a one-letter name: the safe alphabet's least, 'A'
    assert any("name='A'" in step for step in given.example.steps), given.example.steps
    assert not any(" at 0x" in step for step in given.example.steps), "addresses are noise"
    for path in files.values():
        ReproFile.model_validate_json(path.read_text())
        if load_repro(path).implementation == AMNESIAC:  # `output` is that run's
            assert f"python -m conformance replay {path} --impl {AMNESIAC}" in output


def replay(path: Path, impl: str | None = None) -> subprocess.Popen[str]:
    """Replay against `impl`, or (None) against the file's own, asked for explicitly."""
    args = [sys.executable, "-m", "conformance", "replay", str(path)]
    return subprocess.Popen(
        [*args, *(["--impl", impl] if impl else ["--impl-from-file"])],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )


def finish(run: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        output, _ = run.communicate(timeout=200)
    finally:
        if run.poll() is None:
            run.kill()
    return run.returncode, output


def test_replay_fails_against_the_broken_runtime_and_passes_against_the_reference(
    stored: tuple[dict[str, Path], str],
) -> None:
    files, _ = stored
    plain = files["test_a_second_run_shows_only_its_own_message"]
    machine = files["test_every_door_shows_the_model_what_the_law_predicts"]
    given = files["test_an_agent_continues_its_own_conversation"]
    waves = [  # two at a time: four Python start-ups at once starve a loaded 2-core machine
        {"given, same": (given, None), "machine, reference over cmd": (machine, REFERENCE_CMD)},
        {"plain, same": (plain, None), "machine, same": (machine, None)},
    ]
    results: dict[str, tuple[int, str]] = {}
    for wave in waves:
        runs = {name: replay(path, impl) for name, (path, impl) in wave.items()}
        results.update({name: finish(run) for name, run in runs.items()})

    code, output = results["plain, same"]
    assert code == 1, output
    assert f"running the implementation {plain} names:\n  --impl {AMNESIAC}\n" in output
    assert "verdict:  FAIL            run.no-history" in output
    assert "wire:     identical to the recording" in output
    assert "run() carried an earlier conversation" in output

    code, output = results["given, same"]
    assert code == 1, output
    assert "replayed: the shrunk Hypothesis example" in output
    assert "verdict:  FAIL            mismatch.refuses-another-agents-conversation" in output
    assert "a conversation recorded by agent id 'A' was refused" in output

    code, output = results["machine, same"]
    assert code == 1, output
    assert "replayed: the shrunk Hypothesis example" in output
    assert "verdict:  FAIL            run.no-history" in output
    assert "step 2: run showed the model another conversation" in output

    code, output = results["machine, reference over cmd"]
    assert code == 0, output
    assert "against:  cmd:" in output
    for law in ("run.no-history", "follow-up.shows-last-answer", "checkpoint.final-answer"):
        assert f"verdict:  PASS            {law}" in output


def test_a_repro_file_of_a_changed_test_is_refused(
    stored: tuple[dict[str, Path], str], tmp_path: Path
) -> None:
    files, _ = stored
    repro = load_repro(files["test_a_second_run_shows_only_its_own_message"])
    changed = repro.model_copy(
        update={"test": repro.test.model_copy(update={"source_sha256": "0" * 64})}
    )
    path = tmp_path / "changed.json"
    path.write_text(changed.model_dump_json())
    done = python("-m", "conformance", "replay", str(path), timeout=60)
    assert done.returncode == 2
    assert "changed since this failure was stored" in done.stderr


def test_a_file_that_is_not_a_repro_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "not-a-repro.json"
    path.write_text('{"format": "something-else"}')
    done = python("-m", "conformance", "replay", str(path), timeout=60)
    assert done.returncode == 2
    assert "not a turnlaw repro file (v1)" in done.stderr
