"""The benchmarks stay runnable: each variant must be answered by the mock it claims.

No timing is asserted here (figures belong in `nox -s benchmarks`); this only runs the
in-process measurements for one tiny round, so a change to the fake that mis-wires a
benchmark fails CI instead of the next person who measures.
"""

from __future__ import annotations

from benchmarks import in_process


async def test_in_process_benchmarks_are_wired() -> None:
    sdk = await in_process.sdk_per_request(rounds=1, batch=2)
    raw = await in_process.httpx_per_request(rounds=1, batch=2)
    for table in (sdk, raw):
        assert set(table) == {"bare", "turnlaw"}
