"""The reference through `cmd:` and in-process: the same verdict on every law.

One dialect (Chat Completions) and one delivery (streamed): the stdio layer never looks
at either (it only passes them through in the agent and backend specs; the runtime talks
to the fake over HTTP itself), so other cells would re-test the reference, not the
protocol, at twice the cost or more.
Both runs are real `python -m pytest` processes, as a user would start them.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.suite_args import SUITE_COMMAND

SUITE = [*SUITE_COMMAND, "--dialects", "openai-chat", "--deliveries", "stream"]
RUN_TIMEOUT = 720
"""Seconds one whole run may take: side by side on a loaded 2-core machine a run was
216 s before the session laws, which add some 70 s more (their backends and sessions
are real sockets, and their kill cases real processes)."""


def per_test(results: ResultsFile) -> dict[tuple[str, str], Outcome]:
    return {(r.test, r.law): r.outcome for r in results.records}


def start_suite(tmp_path: Path, name: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*SUITE, "--results", str(tmp_path / f"{name}.jsonl"), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,  # failing tests would write repro files here, not in the repository
    )


def finish(tmp_path: Path, name: str, run: subprocess.Popen[str]) -> ResultsFile:
    try:
        output, _ = run.communicate(timeout=RUN_TIMEOUT)
    finally:
        if run.poll() is None:
            run.kill()
    results = tmp_path / f"{name}.jsonl"
    assert results.exists(), output[-3000:]
    read = read_results(results)
    assert not read.truncated, f"the {name} run did not finish:\n{output[-3000:]}"
    return read


# Two whole conformance runs, side by side: each up to RUN_TIMEOUT.
@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_cmd_and_in_process_give_the_same_verdict_on_every_law(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-m", "reference_impl.stdio_adapter"])
    runs = {
        "in-process": start_suite(tmp_path, "in-process"),
        "stdio": start_suite(tmp_path, "stdio", "--impl", f"cmd:{command}", "--validate-protocol"),
    }
    in_process = finish(tmp_path, "in-process", runs["in-process"])
    over_stdio = finish(tmp_path, "stdio", runs["stdio"])

    assert over_stdio.header["implementation"] == "turnlaw reference_impl 0.1.0 (python, stdio)"
    assert over_stdio.header["capabilities"] == in_process.header["capabilities"]
    laws = in_process.per_law()
    assert len(laws) >= 25, f"the in-process run judged only {len(laws)} laws"
    assert over_stdio.per_law() == laws
    assert per_test(over_stdio) == per_test(in_process)  # test by test, not just the worst
    assert set(laws.values()) == {Outcome.PASS}, laws
