"""A pytest session's redaction: its one Redactor, what the run knows is secret, and
every artifact it writes scrubbed with it.

The session's Redactor (`session_redactor`), shared by every fake provider of the
session, learns every credential a runtime sends. The runner adds what it knows before
any request is made: the key it hands adapters, and the credentials in its own
environment — a runtime that ignores the configured key usually reads one from there,
and may print it before it ever sends it. Then:

- a test's report is scrubbed as it is logged, before the terminal and JUnit XML see it;
- records, the Markdown report and repro files are scrubbed as they are written;
- when the run ends, every file it wrote is scrubbed once more with everything learned
  since, so a key first seen in a late test leaves no trace in an earlier test's file.

What stays out of reach, by design: output a runtime writes straight to the terminal
with capture off (`-s`), a key shorter than `MIN_SECRET_LENGTH`, a key the runtime
transforms before it shows it, and a key it never sends, never holds in a
credential-named environment variable and that has no recognised shape.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ._scrubber import Redactor

ENVIRONMENT_CREDENTIAL = re.compile(
    r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:$|_)", re.IGNORECASE
)
"""Environment variables whose values are learned as secrets before the run starts:
OPENAI_API_KEY, ANTHROPIC_API_KEY, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, HF_TOKEN and the
like. Narrower than the header rule: an environment holds many ids (CI_PROJECT_NAME,
XDG_SESSION_ID) whose values are ordinary words that must not be shredded."""


_REDACTOR = pytest.StashKey[Redactor]()


def session_redactor(config: pytest.Config) -> Redactor:
    """The one Redactor of this pytest session: every provider the `fake_provider` and
    `loopback_provider` fixtures make learns into it and scrubs with it, so a key one test's
    runtime sent is scrubbed from every later recording — and from any other artifact
    scrubbed with it (results, repro files, reports). Teach it keys the suite hands out
    with `session_redactor(config).learn(key)`."""
    redactor = config.stash.get(_REDACTOR, None)
    if redactor is None:
        redactor = config.stash[_REDACTOR] = Redactor()
    return redactor


def learn_environment(redactor: Redactor, environ: Mapping[str, str] = os.environ) -> int:
    """Teach the redactor every credential-named variable's value; how many it learned."""
    return sum(
        redactor.learn(value)
        for name, value in environ.items()
        if ENVIRONMENT_CREDENTIAL.search(name)
    )


def scrub_report(report: Any, redactor: Redactor) -> None:
    """Scrub what a test report carries to the terminal and to JUnit XML: its failure
    (kept as pytest's own object unless a secret is in it), its captured output and log
    sections, the reason of an expected failure."""
    longrepr = getattr(report, "longrepr", None)
    if longrepr is not None:
        text = str(longrepr)
        cleaned = redactor.scrub_text(text)
        if cleaned != text:
            report.longrepr = cleaned
    sections = getattr(report, "sections", None)
    if sections:
        report.sections = [(title, redactor.scrub_text(body)) for title, body in sections]
    wasxfail = getattr(report, "wasxfail", None)
    if isinstance(wasxfail, str):
        report.wasxfail = redactor.scrub_text(wasxfail)


class ReportScrubber:
    """A plugin object bound to one run's Redactor (a report does not carry its config)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """First of all the report's consumers (the terminal, JUnit XML, xdist)."""
        scrub_report(report, self.redactor)


class ArtifactSweep:
    """The files a run wrote, scrubbed again when it ends with every secret it learned."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: dict[Path, None] = {}  # ordered, each once

    def add(self, path: Path | None) -> None:
        if path is not None:
            with self._lock:
                self._paths[Path(path)] = None

    @property
    def paths(self) -> list[Path]:
        with self._lock:
            return list(self._paths)

    def sweep(self, redactor: Redactor) -> list[Path]:
        """Rewrite each file that still holds a secret; the files rewritten. A file that
        is gone or unreadable is left alone: there is nothing of it left to leak."""
        rewritten = []
        for path in self.paths:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if not redactor.found_in(data):
                continue
            text = data.decode("utf-8", errors="surrogateescape")
            cleaned = redactor.scrub_text(text)
            path.write_bytes(cleaned.encode("utf-8", errors="surrogateescape"))
            rewritten.append(path)
        return rewritten
