"""A repro file is data someone sent you: replaying it never runs the implementation it
names unless you ask (`--impl-from-file`, which prints it first), never imports a module
it names other than a law test module, and refuses garbage with exit 2, no traceback.

Every "would run" here is a real command or module that drops a marker file, so the
evidence that nothing ran is on disk, not in a mock.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis.core import encode_failure

from conformance.replay.model import ReproFile, source_sha256
from conformance.replay.model import TestRef as StoredTest
from conformance.replay.player import replay_problem

ROOT = Path(__file__).parents[2]
LAW_MODULE = "conformance.laws.test_run"
LAW_FILE = ROOT / "conformance" / "laws" / "test_run.py"  # not imported: its marks need the plugin
pytestmark = pytest.mark.timeout(300)
BLOB = encode_failure([1, "billing"]).decode("ascii")
"""An example blob as this Hypothesis writes it."""


def repro_data(**changes: Any) -> dict[str, Any]:
    """A well-formed repro file for a real law test, with `changes` applied."""
    data = ReproFile(
        law="run.no-history",
        laws=["run.no-history"],
        test=StoredTest(
            module=LAW_MODULE,
            name="test_a_second_run_shows_only_its_own_message[openai-chat]",
            nodeid="conformance/laws/test_run.py::test_a_second_run_shows_only_its_own_message",
            source_sha256=source_sha256(LAW_FILE),
        ),
        implementation="reference_impl.conformance_adapter:implementation",
        dialect="openai-chat",
        hypothesis_profile="ci",
        outcome="FAIL",
        failure="run() carried an earlier conversation",
        suite_version="0",
    ).model_dump(mode="json")
    for key, value in changes.items():
        if key.startswith("test."):
            data["test"][key.removeprefix("test.")] = value
        else:
            data[key] = value
    return data


def write(folder: Path, data: Any) -> Path:
    path = folder / "repro.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def replay(
    path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance", "replay", str(path), *args],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def evil_module(folder: Path, marker: Path) -> dict[str, str]:
    """A module that, once imported, leaves `marker`; the env that makes it importable."""
    (folder / "evil_turnlaw_module.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported')\nimplementation = None\n"
    )
    return {"PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}


def marker_command(marker: Path) -> str:
    code = f"open({str(marker)!r}, 'w').write('ran')"
    return "cmd:" + shlex.join([sys.executable, "-c", code])


def test_without_impl_the_files_command_is_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = write(tmp_path, repro_data(implementation=marker_command(marker)))
    done = replay(path)
    assert not marker.exists(), "replay ran the command stored in the file"
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--impl-from-file" in done.stderr and "Traceback" not in done.stderr


def test_without_impl_the_files_module_is_not_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    env = evil_module(tmp_path, marker)
    path = write(tmp_path, repro_data(implementation="evil_turnlaw_module:implementation"))
    done = replay(path, env=env)
    assert not marker.exists(), "replay imported the module stored in the file"
    assert done.returncode == 2, done.stdout + done.stderr


def test_a_test_module_that_is_not_a_law_test_is_never_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    env = evil_module(tmp_path, marker)
    path = write(tmp_path, repro_data(**{"test.module": "evil_turnlaw_module"}))
    done = replay(path, "--impl", "reference_impl.conformance_adapter:implementation", env=env)
    assert not marker.exists(), "replay imported the test module stored in the file"
    assert done.returncode == 2, done.stdout + done.stderr
    assert "test.module" in done.stderr and "Traceback" not in done.stderr


def test_impl_from_file_prints_what_it_runs_before_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = marker_command(marker)
    path = write(tmp_path, repro_data(implementation=command))
    done = replay(path, "--impl-from-file")
    assert marker.exists(), "asked for explicitly, the file's implementation runs"
    first_lines = done.stdout.splitlines()[:2]
    assert first_lines[0].startswith("turnlaw replay: --impl-from-file: running"), done.stdout
    assert first_lines[1] == f"  --impl {shlex.quote(command)}", "exactly what runs, quoted"
    assert done.returncode == 2, "that 'adapter' exits at once: the replay could not run"


def test_impl_and_impl_from_file_are_exclusive(tmp_path: Path) -> None:
    path = write(tmp_path, repro_data())
    done = replay(path, "--impl", "x:y", "--impl-from-file")
    assert done.returncode == 2 and "not allowed with" in done.stderr


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe not utf-8",
        b'{"format": "turnlaw-repro", "law": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        json.dumps(repro_data(**{"test.name": "test_x or evil"})).encode(),
        json.dumps(repro_data(**{"test.module": "conformance.laws"})).encode(),
        json.dumps(repro_data(**{"test.module": "os"})).encode(),
        json.dumps(repro_data(laws="run.no-history")).encode(),
        json.dumps(repro_data(failure="\ud800")).encode(),
        json.dumps(
            repro_data(example={"hypothesis_version": "6", "blob": "é", "steps": []})
        ).encode(),
    ],
    ids=["not-utf8", "deep", "name", "package", "os", "laws-type", "surrogate", "blob"],
)
def test_garbage_exits_2_with_a_typed_message_and_no_traceback(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "repro.json"
    path.write_bytes(content)
    done = replay(path, "--impl", "reference_impl.conformance_adapter:implementation")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("turnlaw replay: ") and "Traceback" not in done.stderr


def test_a_replay_whose_results_file_is_unreadable_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The child pytest died half-way through a line of its results file: a typed
    message and exit 2, not a ResultsFileError traceback."""
    from conformance.replay import player

    def child_that_dies_writing(args: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        results = Path(next(a for a in args if a.startswith("--results=")).split("=", 1)[1])
        results.write_bytes(b'{"type": "header", "suite": "turnl\xff')
        return subprocess.CompletedProcess(args, 1, "", "")

    monkeypatch.setattr(player.subprocess, "run", child_that_dies_writing)
    path = write(tmp_path, repro_data())
    code = player.replay_main(path, impl="reference_impl.conformance_adapter:implementation")
    err = capsys.readouterr().err
    assert code == 2, err
    assert "unreadable results file" in err and "Traceback" not in err


PROPERTY_TEST = {
    "test.module": "conformance.laws.test_whose_conversation",
    "test.name": "test_an_agent_continues_its_own_conversation[openai-chat-stream]",
    "test.source_sha256": source_sha256(LAW_FILE.parent / "test_whose_conversation.py"),
    "law": "mismatch.refuses-another-agents-conversation",
    "laws": ["mismatch.refuses-another-agents-conversation"],
}
"""A property law test: its stored example is what the replay plays."""


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"hypothesis_profile": "nightly"}, "'nightly' is not a Hypothesis profile"),
        (
            {"example": {"hypothesis_version": "6.100.0", "blob": BLOB, "steps": []}},
            f"stored by Hypothesis 6.100.0 and this is {hypothesis.__version__}",
        ),
        (
            {"example": {"hypothesis_version": hypothesis.__version__, "blob": "AXicAAAA"}},
            "its stored example (example.blob) cannot be read: Invalid zlib",
        ),
        (
            {"example": {"hypothesis_version": hypothesis.__version__, "blob": "AAAAgarbage"}},
            "its stored example (example.blob) cannot be read: Invalid base64",
        ),
    ],
    ids=["unknown-profile", "other-hypothesis", "corrupt-zlib", "corrupt-base64"],
)
def test_a_file_hypothesis_would_refuse_cannot_be_used_exit_2_saying_why(
    tmp_path: Path, changes: dict[str, Any], said: str
) -> None:
    """Before, the child pytest died with an INTERNALERROR traceback (a profile), or ran
    and every law was an ERROR with Hypothesis' traceback, exit 1 (an example)."""
    marker = tmp_path / "ran"
    path = write(tmp_path, repro_data(**PROPERTY_TEST, **changes))
    done = replay(path, "--impl", marker_command(marker))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"turnlaw replay: {path}: this file cannot be used: ")
    assert said in done.stderr and "Traceback" not in done.stderr + done.stdout
    assert not marker.exists(), "nothing runs for a file that cannot be used"


def test_a_stored_example_of_this_hypothesis_is_usable() -> None:
    """The check refuses only what Hypothesis would: a blob it wrote itself here passes."""
    data = repro_data(
        **PROPERTY_TEST, example={"hypothesis_version": hypothesis.__version__, "blob": BLOB}
    )
    assert replay_problem(ReproFile.model_validate(data)) is None
