"""The runner's half of redaction, piece by piece: the environment it learns from, the
reports it scrubs before anyone reads them, and the end-of-run sweep of its files.
(`tests/hostile/test_secret_artifacts.py` checks the whole, on a leaky runtime.)"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from _pytest._code.code import ExceptionInfo

from conformance.redaction import REDACTED, ArtifactSweep, Redactor, learn_environment, scrub_report

KEY = "tl-live-0123456789abcdef"


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "apikey",
        "MY_RUNTIME_CREDENTIALS",
    ],
)
def test_a_credential_named_variable_is_learned(name: str) -> None:
    redactor = Redactor()
    assert learn_environment(redactor, {name: KEY}) == 1
    assert redactor.scrub_text(f"using {KEY}") == f"using {REDACTED}"


@pytest.mark.parametrize(
    "name", ["CI_PROJECT_NAME", "XDG_SESSION_ID", "SSH_AUTH_SOCK", "KEYBOARD_LAYOUT", "HOME"]
)
def test_an_id_or_a_path_in_the_environment_is_not_a_secret(name: str) -> None:
    """Their values are ordinary words and paths: learned, they would shred every report."""
    redactor = Redactor()
    assert learn_environment(redactor, {name: "turnlaw-conformance"}) == 0
    assert redactor.scrub_text("turnlaw-conformance") == "turnlaw-conformance"


def _failed_report(message: str) -> SimpleNamespace:
    try:
        raise AssertionError(message)
    except AssertionError:
        info = ExceptionInfo.from_current()
    return SimpleNamespace(
        longrepr=info.getrepr(),
        sections=[("Captured stdout call", f"key={KEY}\n"), ("Captured log call", "fine\n")],
        wasxfail=f"expected: {KEY}",
    )


def test_a_report_with_a_secret_is_scrubbed_everywhere_it_is_read() -> None:
    report = _failed_report(f"the runtime said {KEY}")
    scrub_report(report, Redactor([KEY]))
    assert KEY not in str(report.longrepr) and REDACTED in str(report.longrepr)
    assert report.sections == [
        ("Captured stdout call", f"key={REDACTED}\n"),
        ("Captured log call", "fine\n"),
    ]
    assert report.wasxfail == f"expected: {REDACTED}"


def test_a_report_without_a_secret_keeps_pytests_own_failure_object() -> None:
    report = _failed_report("nothing secret")
    before = report.longrepr
    scrub_report(report, Redactor([KEY]))
    assert report.longrepr is before  # the terminal's colours and layout survive


def test_the_sweep_scrubs_what_was_written_before_the_key_was_learned(tmp_path: Path) -> None:
    early, clean = tmp_path / "early.json", tmp_path / "clean.json"
    early.write_text(f'{{"detail": "printed {KEY} before any request"}}\n', encoding="utf-8")
    clean.write_text('{"detail": "nothing"}\n', encoding="utf-8")
    clean_before = clean.stat().st_mtime_ns
    sweep = ArtifactSweep()
    for path in (early, clean, tmp_path / "never-written.json", None):
        sweep.add(path)
    redactor = Redactor()
    redactor.learn(KEY)  # learned later in the run, when a request carried it
    assert sweep.sweep(redactor) == [early]
    assert (
        early.read_text(encoding="utf-8")
        == f'{{"detail": "printed {REDACTED} before any request"}}\n'
    )
    assert clean.stat().st_mtime_ns == clean_before


def test_the_sweep_keeps_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "adapter-stderr.log"
    path.write_bytes(b"\xff\xfe binary noise " + KEY.encode() + b"\n")
    sweep = ArtifactSweep()
    sweep.add(path)
    sweep.sweep(Redactor([KEY]))
    assert path.read_bytes() == b"\xff\xfe binary noise " + REDACTED.encode() + b"\n"
