"""Law modules import the suite only through `conformance.laws._kit`.

A law author reads one module to learn what a law may use; the runner, the stdio
connector and the fake's internals can change without touching a law.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAWS = Path(__file__).resolve().parents[2] / "conformance" / "laws"
ALLOWED_OUTSIDE = {"__future__", "asyncio", "collections", "contextlib", "dataclasses"}
ALLOWED_OUTSIDE |= {"html", "itertools", "json", "re", "typing", "hypothesis", "pytest"}


def imported_modules(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("path", sorted(LAWS.glob("test_*.py")), ids=lambda p: p.name)
def test_a_law_module_imports_the_suite_only_through_the_kit(path: Path) -> None:
    wrong = [
        name
        for name in imported_modules(path)
        if name != "._kit" and name.split(".")[0] not in ALLOWED_OUTSIDE
    ]
    assert wrong == [], f"{path.name} imports {wrong}: import from conformance.laws._kit"


def test_the_check_sees_a_runner_import_even_inside_a_function(tmp_path: Path) -> None:
    law = tmp_path / "test_law.py"
    law.write_text(
        "from ._kit import text\n"
        "def helper():\n"
        "    from conformance.runner.plugin import AgentFactory\n"
        "    import conformance.wire.ir\n",
        encoding="utf-8",
    )
    assert imported_modules(law) == ["._kit", "conformance.runner.plugin", "conformance.wire.ir"]
