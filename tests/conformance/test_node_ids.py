"""A law test's id in every artifact is `conformance/laws/<module>::<test>[<params>]`,
wherever the suite is installed: never a virtualenv's `site-packages` path, and never
pytest's path-less `::test[...]` for a file outside the rootdir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.runner.selection import normalized
from conformance.verdicts import read_results
from tests.harness.results_files import RED_RUN
from tests.suite_args import PLUGIN_ARGS, nested_suite


@pytest.mark.parametrize(
    "nodeid",
    [
        "../.venv/lib/python3.11/site-packages/conformance/laws/test_run.py::test_x[openai-chat]",
        "/opt/venv/lib/python3.12/dist-packages/conformance/laws/test_run.py::test_x[openai-chat]",
        "conformance/laws/test_run.py::test_x[openai-chat]",
    ],
)
def test_a_path_to_an_installed_law_module_loses_what_precedes_the_package(nodeid: str) -> None:
    assert normalized(nodeid) == "conformance/laws/test_run.py::test_x[openai-chat]"


def test_a_test_of_another_package_keeps_its_id() -> None:
    assert normalized("tests/test_mine.py::test_x") == "tests/test_mine.py::test_x"
    other = "../x/conformance/lawsuit/test_a.py::t"
    assert normalized(other) == other


def test_a_run_from_outside_the_package_writes_the_suite_s_ids(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """pytester's rootdir is a temporary folder: the law modules are outside it, as they
    are in a user's project running an installed turnlaw (pytest writes `::test_...`)."""
    suite = nested_suite(pytester)
    impl, selection = RED_RUN
    results, report_md = tmp_path / "results.jsonl", tmp_path / "report.md"
    run = suite.runpytest(
        *PLUGIN_ARGS,
        "--dialects",
        "openai-chat",
        "--impl",
        impl,
        "--results",
        str(results),
        "--report-md",
        str(report_md),
        "-k",
        selection,
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    )
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    read = read_results(results)
    assert read.footer is not None and read.footer.not_run == []
    tests = {record.test for record in read.records}
    assert tests and all(
        test.startswith(("conformance/laws/test_smoke.py::", "conformance/laws/test_run.py::"))
        for test in tests
    ), tests
    repros = list((tmp_path / "repro").glob("*.json"))
    assert repros
    nodeid = json.loads(repros[0].read_text(encoding="utf-8"))["test"]["nodeid"]
    assert nodeid.startswith("conformance/laws/test_run.py::test_"), nodeid
