"""`--law ID` runs the tests of the laws a user names, without knowing test names: an
exact id selects a law, a prefix ending in `.` a family, and a value naming no law is a
usage error that says the closest ids (a typo must not run nothing, and call it green)."""

from __future__ import annotations

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
from conformance.registry import load_laws
from conformance.runner.selection import asked_laws, law_selected
from tests.suite_args import PLUGIN_ARGS, nested_suite

KNOWN = ("run.no-history", "run.one-turn", "hosting.survives-kill", "hosting.auth.refuses")


def test_an_id_selects_its_law_and_a_prefix_its_family() -> None:
    assert law_selected(["run.no-history"], ["run.no-history"])
    assert not law_selected(["run.one-turn"], ["run.no-history"])
    assert law_selected(["hosting.auth.refuses"], ["hosting."])
    assert law_selected(["hosting.auth.refuses"], ["hosting.auth."])
    assert not law_selected(["run.no-history"], ["run"])  # a family ends in '.'
    assert law_selected(["run.one-turn", "turn.run-ids"], ["turn.run-ids"])  # any of its laws
    assert not law_selected([], ["run."])  # a test checking no law is no law's


def test_an_asked_value_must_name_a_law_or_a_family() -> None:
    assert asked_laws(["run.no-history", "hosting.", "hosting.auth."], KNOWN) == (
        "run.no-history",
        "hosting.",
        "hosting.auth.",
    )
    with pytest.raises(pytest.UsageError, match=r"'run\.no-histroy'.*closest: run\.no-history"):
        asked_laws(["run.no-histroy"], KNOWN)
    with pytest.raises(pytest.UsageError, match=r"'hosting' names no law.*closest: hosting\."):
        asked_laws(["hosting"], KNOWN)
    with pytest.raises(pytest.UsageError, match=r"'nothing\.' names no law"):
        asked_laws(["nothing."], KNOWN)


def collected(pytester: pytest.Pytester, *options: str) -> pytest.RunResult:
    return nested_suite(pytester).runpytest(
        *PLUGIN_ARGS, "--collect-only", "-q", *options, "--pyargs", "conformance.laws"
    )


def test_the_run_keeps_only_the_tests_of_the_laws_asked_for(pytester: pytest.Pytester) -> None:
    families = sorted({law_id.split(".")[0] for law_id in load_laws()})
    assert "hosting" in families and "run" in families
    run = collected(pytester, "--law", "hosting.", "--law", "run.no-history")
    assert run.ret != pytest.ExitCode.USAGE_ERROR  # a collection alone judges nothing: red
    ids = [line for line in run.outlines if "::" in line]
    assert ids, run.outlines
    modules = {line.split("::")[0].rsplit("/", 1)[-1] for line in ids}
    assert "test_run.py" in modules and any("host" in m for m in modules), modules
    assert "deselected" in run.outlines[-1]


def test_a_law_no_one_knows_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = collected(pytester, "--law", "run.no-histroy")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert "closest: run.no-history" in "\n".join(run.errlines)
