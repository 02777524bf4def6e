"""The suite's layers import downward only.

The verdict model (conformance.verdicts) is pure: the matrix, the replay player and the
benchmarks read verdicts with it without pytest, so no module of it imports pytest, and
importing it loads none. Nothing below the runner's pytest shell imports the runner (the
stdio connector reaches it through the connector registry, conformance.connectors): a
package that reached back up into it could not be read, or replaced, apart from it.
"""

from __future__ import annotations

import subprocess
import sys

from tests.architecture.import_graph import ROOT, graph, modules

RUNNER = "conformance.runner"
BELOW_THE_RUNNER = ("conformance.verdicts", "conformance.stdio", "conformance.connectors")
PYTEST_IMPORTS = ("import pytest", "from pytest", "import _pytest", "from _pytest")


def imports_of(packages: tuple[str, ...], edges: dict[str, set[str]]) -> dict[str, set[str]]:
    return {m: t for m, t in edges.items() if m.startswith(packages)}


def upward(edges: dict[str, set[str]], lower: tuple[str, ...], upper: str) -> list[str]:
    """`module -> target` for each import from a `lower` package into `upper`."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in imports_of(lower, edges).items()
        for target in targets
        if target == upper or target.startswith(upper + ".")
    )


def test_nothing_below_the_runner_imports_it() -> None:
    found = upward(graph("conformance"), BELOW_THE_RUNNER, RUNNER)
    assert found == [], f"imports running back up into the runner: {found}"


def test_an_upward_import_is_seen() -> None:
    """The check itself can fail."""
    edges = {"conformance.stdio.x": {"conformance.runner.plugin"}, "conformance.runner": set()}
    assert upward(edges, BELOW_THE_RUNNER, RUNNER) == [
        "conformance.stdio.x -> conformance.runner.plugin"
    ]


def pytest_imports(source: str) -> list[str]:
    """The lines of `source` that import pytest (or a pytest plugin package)."""
    return [line.strip() for line in source.splitlines() if line.strip().startswith(PYTEST_IMPORTS)]


def test_the_verdict_model_imports_no_pytest() -> None:
    found = {
        name: pytest_imports(path.read_text(encoding="utf-8"))
        for name, path in modules("conformance").items()
        if name.startswith("conformance.verdicts")
    }
    assert found, "conformance.verdicts has no module: the check would pass on nothing"
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_a_pytest_import_is_seen() -> None:
    assert pytest_imports("from __future__ import annotations\n    import pytest\n") == [
        "import pytest"
    ]


def test_importing_the_verdict_model_loads_no_pytest() -> None:
    """Also through what it imports (the registry, the adapter protocol)."""
    code = (
        "import sys, conformance.verdicts, conformance.verdicts.matrix; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest')))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "[]"
