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


@pytest.mark.timeout(150)
@pytest.mark.parametrize(
    ("mode", "outcome", "detail"),
    [
        (
            "endless",
            Outcome.TIMEOUT,
            f"the host did not finish answering POST /invoke within {DEADLINE} s",
        ),
        ("huge", Outcome.FAIL, f"over {MAX_REPLY_BYTES} bytes (read no further)"),
    ],
    ids=["streaming-forever-is-a-timeout", "answering-without-end-is-a-fail"],
)
def test_a_flooding_host_ends_its_law_within_the_call_deadline(
    tmp_path: Path, mode: str, outcome: Outcome, detail: str
) -> None:
    results = tmp_path / f"{mode}.jsonl"
    command = one_law_run(f"benchmarks.flooding_host:{mode}", results)
    subprocess.run(command, capture_output=True, timeout=120, check=False)
    records = [(r.outcome, r.detail) for r in read_results(results).records]
    assert [found for found, _ in records] == [outcome] * 2, records
    assert all(detail in found for _, found in records), records
