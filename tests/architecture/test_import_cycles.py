"""No import cycles in turnlaw's packages: each module can be read, and replaced, apart
from the modules that import it."""

from __future__ import annotations

from tests.architecture.import_graph import cycles, graph


def test_the_suite_and_the_reference_have_no_import_cycle() -> None:
    found = cycles(graph("conformance", "reference_impl", "benchmarks"))
    assert found == [], f"import cycles (each a group of modules importing each other): {found}"


def test_a_cycle_is_found_when_there_is_one() -> None:
    """The checker itself can fail: a lazy import back is a cycle too."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_lazy_imports_count_and_type_checking_imports_do_not() -> None:
    edges = graph("conformance")
    # conformance.runner.plugin imports the fixtures inside a function: an edge
    assert "conformance.runner.fixtures" in edges["conformance.runner.plugin"]
    # conformance.stdio._agent names the connector only under TYPE_CHECKING: none
    assert "conformance.stdio.connector" not in edges["conformance.stdio._agent"]
