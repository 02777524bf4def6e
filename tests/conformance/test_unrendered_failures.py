"""The run never dies: a failure whose traceback pytest cannot render (CPython 3.11.7's
`SystemError: AST constructor recursion depth mismatch`, gh-106905, raised by the
`ast.parse` pytest's rendering makes) is still reported with its message, judged as its
exception says, and the run goes on to judge every other law."""

from __future__ import annotations

from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.verdicts import Outcome, read_results
from tests.harness.results_files import RED_RUN
from tests.suite_args import PLUGIN_ARGS, nested_suite

BROKEN_RENDERING = '''
import _pytest._code.code as code

def pytest_configure(config):
    """Every parse pytest makes to render a traceback raises as CPython 3.11.7's does."""
    kept = code.getstatementrange_ast

    def mismatch(*args, **kwargs):
        raise SystemError("AST constructor recursion depth mismatch (before=85, after=86)")

    code.getstatementrange_ast = mismatch
    config.add_cleanup(lambda: setattr(code, "getstatementrange_ast", kept))
'''


def test_a_failure_whose_traceback_cannot_be_rendered_is_judged_and_the_run_goes_on(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    suite = nested_suite(pytester)
    pytester.makeconftest(BROKEN_RENDERING)
    impl, selection = RED_RUN
    results = tmp_path / "results.jsonl"
    report_md = tmp_path / "report.md"
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
    output = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in output, output[-3000:]
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    read = read_results(results)
    assert not read.truncated and read.footer is not None and not read.footer.not_run
    outcomes = read.per_law()
    assert outcomes == {"smoke.one-turn": Outcome.PASS, "run.no-history": Outcome.FAIL}
    failed = [r for r in read.records if r.outcome is Outcome.FAIL]
    assert failed and all("carried" in r.detail for r in failed), failed
    assert "could not render this failure's traceback (SystemError" in failed[0].detail
    assert "carried" in report_md.read_text(encoding="utf-8")
