"""The hosting benchmarks stay runnable: one tiny round of each, no timing asserted.

Each hosted request is checked for its scripted answer inside the benchmark and the fake
must end having served exactly what was sent, so a change to the host or the fake that
mis-wires a row fails here instead of in the next person's `nox -s benchmarks`. The
durability count is a measurement (printed, never asserted); here only that it ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import durability, flooding, hosting

TINY = hosting.HostingPlan(cost_rounds=1, cost_turns=1, kills=1)


@pytest.mark.timeout(300)  # real hosts, each a process: on a busy machine, past 60 s
async def test_hosting_benchmarks_are_wired() -> None:
    cost = await hosting.measure(TINY)
    assert set(cost) == {"bare", "turnlaw"}


@pytest.mark.timeout(300)  # a host started, killed, started again: past 60 s when busy
async def test_durability_benchmark_kills_and_restarts(tmp_path: Path) -> None:
    kills = await durability.measure(1, tmp_path)
    assert (kills.kills, kills.completed, len(kills.restart_seconds)) == (1, 1, 1)


@pytest.mark.timeout(300)  # three suite runs, two of them flooded to their deadline
def test_flood_peaks_are_wired() -> None:
    peaks = flooding.measure(1)
    assert set(peaks) == {"plain", "huge", "endless"}
    assert all(len(samples.values) == 1 and samples.median > 0 for samples in peaks.values())
