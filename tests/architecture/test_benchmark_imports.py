"""The benchmarks import nothing of the project's tests: they measure the suite and the
reference as a user runs them, and a test can change or go without breaking one."""

from __future__ import annotations

from tests.architecture.import_graph import graph


def test_the_benchmarks_import_nothing_of_the_tests() -> None:
    edges = graph("benchmarks", "tests")
    found = sorted(
        f"{module} -> {target}"
        for module, targets in edges.items()
        if module.split(".")[0] == "benchmarks"
        for target in targets
        if target.split(".")[0] == "tests"
    )
    assert found == [], f"benchmarks importing tests: {found}"
