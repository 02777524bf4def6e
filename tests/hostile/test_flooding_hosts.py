"""A host that floods the suite ends its law's test within the call deadline: one
streaming events forever is a TIMEOUT (the suite's own deadline, not pytest's), one
answering 10^8 bytes is the host's FAIL once the reply passes the size limit, read no
further. The peak memory of such a run is a benchmark row (benchmarks/flooding.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from benchmarks.flooding import DEADLINE, one_law_run
from conformance.hosting import MAX_REPLY_BYTES
from conformance.verdicts import Outcome, read_results


def flooded_run(tmp_path: Path, mode: str) -> list[tuple[Outcome, str]]:
    results = tmp_path / f"{mode}.jsonl"
    command = one_law_run(f"benchmarks.flooding_host:{mode}", results)
    subprocess.run(command, capture_output=True, timeout=120, check=False)
    return [(r.outcome, r.detail) for r in read_results(results).records]


@pytest.mark.timeout(150)
def test_a_host_streaming_forever_is_a_timeout_of_the_suites_own_deadline(
    tmp_path: Path,
) -> None:
    records = flooded_run(tmp_path, "endless")
    assert [outcome for outcome, _ in records] == [Outcome.TIMEOUT] * 2, records
    for _, detail in records:
        assert f"the host did not finish answering POST /invoke within {DEADLINE} s" in detail


@pytest.mark.timeout(150)
def test_a_host_answering_without_end_is_its_fail_at_the_size_limit(tmp_path: Path) -> None:
    records = flooded_run(tmp_path, "huge")
    assert [outcome for outcome, _ in records] == [Outcome.FAIL] * 2, records
    for _, detail in records:
        assert f"over {MAX_REPLY_BYTES} bytes (read no further)" in detail
