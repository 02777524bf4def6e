"""The reference stands alone: nothing under reference_impl/ but its adapter wing
(reference_impl/adapter/) imports `conformance`.

The runtime is a model an implementer copies; what the suite wants of it (a server that
stops at once, one shared TLS context) reaches it by injection from the wing. Every
import counts: lazy ones inside functions, and those under `if TYPE_CHECKING:` too (a
copy of the runtime would still need the suite to type-check).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference_impl"
WING = REFERENCE / "adapter"
SUITE = "conformance"


def _imported(node: ast.AST, dotted: str, is_package: bool) -> list[str]:
    """The absolute module names one import statement (or `importlib.import_module` /
    `__import__` call with a literal name) brings in; [] for any other node."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if not node.level:
            return [node.module or ""]
        base = dotted.split(".")[: None if is_package else -1]
        base = base[: len(base) - (node.level - 1)]
        return [".".join([*base, node.module] if node.module else base)]
    if isinstance(node, ast.Call) and node.args:
        func, first = node.func, node.args[0]
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in {"import_module", "__import__"} and isinstance(first, ast.Constant):
            return [str(first.value)]
    return []


def imports_of(package: str, source: str, dotted: str, is_package: bool = False) -> list[str]:
    """What of `package` the module `dotted` (its `source`) imports, wherever it does."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for name in _imported(node, dotted, is_package):
            if name == package or name.startswith(package + "."):
                found.append(name)
    return found


def suite_imports(source: str, dotted: str, is_package: bool = False) -> list[str]:
    return imports_of(SUITE, source, dotted, is_package)


def _runtime_modules() -> list[Path]:
    return [p for p in sorted(REFERENCE.rglob("*.py")) if WING not in p.parents]


def _dotted(path: Path) -> tuple[str, bool]:
    parts = path.relative_to(ROOT).with_suffix("").parts
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def test_no_runtime_module_imports_the_suite() -> None:
    modules = _runtime_modules()
    assert len(modules) > 40, "the walk found the runtime's modules"  # not an empty pass
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in modules
        if (found := suite_imports(path.read_text(encoding="utf-8"), *_dotted(path)))
    }
    assert offenders == {}, (
        "the reference runtime imports the suite; inject what it needs from "
        f"reference_impl/adapter/ instead: {offenders}"
    )


ALIASES = {"reference_impl/conformance_adapter.py", "reference_impl/stdio_adapter.py"}
"""The old names of the wing's entry points, kept for one release: they import the wing."""


def test_no_runtime_module_reaches_the_suite_through_the_wing() -> None:
    """The runtime does not import the wing either (the wing imports the suite), but for
    the one-release aliases of its old names."""
    offenders = {
        name: found
        for path in _runtime_modules()
        if (name := str(path.relative_to(ROOT))) not in ALIASES
        and (found := imports_of("reference_impl.adapter", path.read_text(), *_dotted(path)))
    }
    assert offenders == {}, f"runtime modules that import the adapter wing: {offenders}"


def test_the_wing_is_where_the_suite_is_imported() -> None:
    """The seam is where the test says it is: the wing does import the suite."""
    wing = [p for p in sorted(WING.rglob("*.py"))]
    assert any(suite_imports(p.read_text(encoding="utf-8"), *_dotted(p)) for p in wing)


@pytest.mark.parametrize(
    "source",
    [
        "import conformance",
        "import conformance._tls as tls",
        "from conformance._prompt_server import PromptServer",
        "from conformance import __version__",
        "def serve():\n    from conformance.wire import ScriptedProvider\n",
        "if TYPE_CHECKING:\n    from conformance.adapter import AgentSpec\n",
        "import importlib\nimportlib.import_module('conformance._tls')\n",
        "class Lazy:\n    def load(self):\n        import conformance.catalog\n",
    ],
)
def test_the_checker_finds_every_kind_of_suite_import(source: str) -> None:
    assert suite_imports(source, "reference_impl.hosting._serving") != []


@pytest.mark.parametrize(
    "source",
    [
        "import conformance_like",
        "from conformancesuite import thing",
        "from . import conformance_adapter",
        "from .adapter import implementation",
        "text = 'conformance'",
    ],
)
def test_the_checker_passes_what_is_not_the_suite(source: str) -> None:
    assert suite_imports(source, "reference_impl.conformance_adapter") == []


def test_a_relative_import_is_read_from_where_it_stands() -> None:
    """`from .. import x` in reference_impl.sessions.client names reference_impl.sessions,
    never a top-level package of that name."""
    assert suite_imports("from .. import conformance", "reference_impl.sessions.client") == []
    assert suite_imports("from . import x", "conformance", is_package=True) == ["conformance"]
