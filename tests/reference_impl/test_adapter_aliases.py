"""The adapter wing's old names still work for one release, each with a warning: `--impl
reference_impl.conformance_adapter:implementation` loads the same adapter as the default,
and `python -m reference_impl.stdio_adapter` serves it as `python -m reference_impl.adapter`."""

from __future__ import annotations

import importlib
import sys

import pytest

import reference_impl.adapter
from conformance.runner.plugin import DEFAULT_IMPL
from conformance.stdio import StdioImplementation

OLD_MODULE = "reference_impl.conformance_adapter"
OLD_COMMAND = "reference_impl.stdio_adapter"


def test_the_default_impl_is_the_wing() -> None:
    assert DEFAULT_IMPL == "reference_impl.adapter:implementation"


def test_the_old_import_path_is_the_same_adapter_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, OLD_MODULE, raising=False)
    with pytest.warns(DeprecationWarning, match="renamed reference_impl.adapter"):
        old = importlib.import_module(OLD_MODULE)
    assert old.implementation is reference_impl.adapter.implementation
    assert old.ReferenceImplementation is reference_impl.adapter.ReferenceImplementation


@pytest.mark.parametrize("module", [OLD_COMMAND, "reference_impl.adapter"])
def test_both_stdio_commands_serve_the_wing(module: str) -> None:
    """Each command, started as the suite starts a cmd: adapter, answers `start` as the
    reference (a real process: `python -m` runs a module the way no import does)."""
    served = StdioImplementation([sys.executable, "-W", "default", "-m", module])
    try:
        assert served.name.startswith(reference_impl.adapter.implementation.name)
        assert served.capabilities == reference_impl.adapter.implementation.capabilities
    finally:
        assert served.stop(timeout=30) == 0
    said = served.stderr.text()
    assert ("renamed python -m reference_impl.adapter" in said) == (module == OLD_COMMAND), said
