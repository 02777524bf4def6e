"""reference_impl's modules import each other without a cycle.

A cycle is what made checkpoint.py import context.py inside a function and errors.py
name the checkpoint under TYPE_CHECKING; each module is read top to bottom by people
learning the runtime, so each builds only on modules below it. Imports under
`if TYPE_CHECKING:` are not followed (they never run); imports inside functions are.
"""

from __future__ import annotations

import ast
from pathlib import Path

import reference_impl

PACKAGE = Path(reference_impl.__file__).parent


def _module_name(path: Path) -> str:
    parts = ["reference_impl", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(node: ast.AST, module: str, is_package: bool) -> set[str]:
    """Modules of reference_impl this statement imports (relative ones resolved)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if not isinstance(node, ast.ImportFrom):
        return set()
    if node.level == 0:
        base = node.module or ""
    else:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join([*package[: len(package) - node.level + 1], *filter(None, [node.module])])
    # `from . import x` or `from .pkg import x` may name submodules as well as objects
    return {base} | {f"{base}.{alias.name}" for alias in node.names}


def imports_of(tree: ast.Module, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """The modules of `modules` that `tree` (the source of `module`) imports."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        found.update(_imported(node, module, is_package))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name in modules and name != module}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(path) for path in paths}
    return {
        _module_name(path): imports_of(
            ast.parse(path.read_text(encoding="utf-8")),
            _module_name(path),
            path.name == "__init__.py",
            modules,
        )
        for path in paths
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per back edge met in a depth-first walk (enough to say there is one)."""
    found: list[list[str]] = []
    state: dict[str, str] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return found


def test_reference_impl_has_no_import_cycles() -> None:
    graph = import_graph()
    assert not cycles(graph), f"import cycles in reference_impl: {cycles(graph)}"


def test_the_graph_sees_relative_and_function_level_imports() -> None:
    graph = import_graph()
    assert "reference_impl.checkpoint" in graph["reference_impl.errors"]
    assert "reference_impl._summary_turn" in graph["reference_impl.checkpoint"]
    assert "reference_impl.conversation" in graph["reference_impl.providers._base"]


def test_a_cycle_is_reported_and_type_checking_imports_are_not_followed() -> None:
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .b import B\n"
        "def f():\n    from .c import C\n"
    )
    modules = {"reference_impl.a", "reference_impl.b", "reference_impl.c"}
    found = imports_of(ast.parse(source), "reference_impl.a", False, modules)
    assert found == {"reference_impl.c"}
