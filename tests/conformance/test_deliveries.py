"""The delivery axis: every law runs streamed and whole where the runtime offers both,
what it does not offer is NOT_APPLICABLE, and the results header says what ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.verdicts import Outcome, read_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

SMOKE = [*PLUGIN_ARGS, "--dialects", "openai-chat", "--pyargs", "conformance.laws.test_smoke"]

IMPLS = '''
from reference_impl.adapter import ReferenceImplementation


class Streams:
    """Declares no deliveries: it gets the default, streaming only."""

    name = "streams"
    capabilities = frozenset()

    async def create_agent(self, spec):
        return await ReferenceImplementation().create_agent(spec)


streams = Streams()


class Both(ReferenceImplementation):
    name = "both"


both = Both()
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester, impls=IMPLS)


def test_both_deliveries_run_and_the_header_records_them(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results, wire = tmp_path / "results.jsonl", tmp_path / "wire"
    run = suite.runpytest(
        *SMOKE, "--impl", "impls:both", "--results", str(results), "--record", str(wire)
    )
    run.assert_outcomes(passed=2)
    run.stdout.fnmatch_lines(["*deliveries: stream, whole*"])
    assert read_results(results).header["deliveries"] == ["stream", "whole"]
    streamed = {
        path.name.rsplit("-", 1)[-1]: json.loads(path.read_text())[0]["ir"]["stream"]
        for path in wire.iterdir()
    }
    assert streamed == {"stream.json": True, "whole.json": False}, streamed


def test_an_implementation_declaring_none_streams_only(suite: pytest.Pytester) -> None:
    run = suite.runpytest(*SMOKE, "--impl", "impls:streams")
    run.assert_outcomes(passed=1)
    run.stdout.fnmatch_lines(["*deliveries: stream*"])


def test_a_delivery_asked_for_and_not_offered_is_not_applicable(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(
        *SMOKE, "--impl", "impls:streams", "--deliveries", "whole", "--results", str(results)
    )
    run.assert_outcomes(skipped=1)
    (record,) = read_results(results).records
    assert record.outcome is Outcome.NOT_APPLICABLE
    assert "does not offer whole (non-streamed) replies" in record.detail


def test_an_unknown_delivery_is_a_usage_error(suite: pytest.Pytester) -> None:
    run = suite.runpytest(*SMOKE, "--deliveries", "trickle")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*unknown delivery 'trickle'; known: all, stream, whole*"])
