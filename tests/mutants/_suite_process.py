"""One mutant's suite run, in its own interpreter: prove the mutant is what is loaded.

`python -P -m tests.mutants._suite_process MUTANT_ROOT MODULE PROOF -- PYTEST_ARGS...`

The parent puts the mutated copy first on PYTHONPATH (and `-P` keeps the checkout's own
reference_impl/ off the front of sys.path). That is not trusted: every module of the
copy is imported here, before pytest can insert the checkout's root into sys.path, and
the mutated module's file is checked to be the copy's — before the run and after it.
The path goes into PROOF, which the parent requires; a run that loaded the original
would otherwise report every mutant as surviving.

A runtime the adapter spawns (a killable session runtime, a host) is another
interpreter: it imports reference_impl/ from the PYTHONPATH the adapter builds out of
this process's sys.path. pytest's default import mode puts the checkout's root in front
of it (while collecting, and again while setting up each package), so a spawned runtime
would run the original: the parent runs pytest with `--import-mode=append` and sets
PYTHONSAFEPATH (a child's `python -m` does not put its working directory, the checkout,
first either), and `SpawnedRuntimes` checks before every test that the first
reference_impl/ on sys.path is the copy; if it ever was not, the run proves nothing.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import pytest
from hypothesis import Phase, settings

# before the copy's modules: the session client imports httpx, which the alias must precede
import conformance.httpx2_alias
import conformance.runner.plugin  # noqa: F401  (registers the ci profile this one extends)

PROFILE = "mutants"
"""The ci profile's examples without shrinking them: a verdict is known once an example
fails, and shrinking (up to a minute a law) changes none; tests/rogues does the same."""


def _loaded_from(module: str) -> Path:
    file = getattr(sys.modules[module], "__file__", None)
    if file is None:
        raise SystemExit(f"mutants: {module} has no file")
    return Path(file).resolve()


def _import_copy(root: Path) -> None:
    """Import every module of the mutated copy, so nothing later finds the original."""
    package = importlib.import_module("reference_impl")
    for info in pkgutil.walk_packages(package.__path__, "reference_impl."):
        importlib.import_module(info.name)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        ours = name.split(".")[0] == "reference_impl" and file is not None
        if ours and not Path(str(file)).resolve().is_relative_to(root):
            raise SystemExit(f"mutants: {name} came from {file}, not the copy in {root}")


def first_on_path(path: list[str], package: str = "reference_impl") -> Path | None:
    """Where an interpreter with `path` as its sys.path imports `package` from."""
    for entry in path:
        if entry and (Path(entry) / package / "__init__.py").is_file():
            return Path(entry).resolve()
    return None


class SpawnedRuntimes:
    """A pytest plugin: notes every test before which a spawned runtime would not have
    imported the copy (see the module's docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.wrong: list[str] = []

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        found = first_on_path(sys.path)
        if found != self.root:
            self.wrong.append(f"{item.nodeid}: {found}")


def main(argv: list[str]) -> int:
    root, module, proof = Path(argv[0]).resolve(), argv[1], Path(argv[2])
    if argv[3] != "--":
        raise SystemExit("usage: _suite_process MUTANT_ROOT MODULE PROOF -- PYTEST_ARGS...")
    _import_copy(root)
    settings.register_profile(
        PROFILE,
        parent=settings.get_profile("ci"),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    expected = (root / (module.replace(".", "/") + ".py")).resolve()
    if not expected.exists():
        expected = (root / module.replace(".", "/") / "__init__.py").resolve()
    if _loaded_from(module) != expected:
        raise SystemExit(f"mutants: {module} is {_loaded_from(module)}, not {expected}")
    spawned = SpawnedRuntimes(root)
    code = int(pytest.main(argv[4:], plugins=[spawned]))
    if spawned.wrong:
        wrong = spawned.wrong[0]
        raise SystemExit(f"mutants: a spawned runtime would import the original: {wrong}")
    after = _loaded_from(module)
    if after != expected:
        raise SystemExit(f"mutants: after the run {module} is {after}, not {expected}")
    proof.write_text(str(after), encoding="utf-8")
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
