"""The adapter wing's old names still work for one release, each with a warning: `--impl
reference_impl.conformance_adapter:implementation` loads the same adapter as the default,
and `python -m reference_impl.stdio_adapter` serves it as `python -m reference_impl.adapter`."""

from __future__ import annotations

import contextlib
import importlib
import runpy
import sys

import pytest

import reference_impl.adapter
import reference_impl.adapter._stdio
from conformance.runner.plugin import DEFAULT_IMPL

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
def test_both_stdio_commands_serve_the_wing(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[str] = []
    monkeypatch.setattr(reference_impl.adapter._stdio, "main", lambda: served.append(module))
    warned = (
        pytest.warns(DeprecationWarning, match="renamed python -m reference_impl.adapter")
        if module == OLD_COMMAND
        else contextlib.nullcontext()
    )
    with warned:
        runpy.run_module(module, run_name="__main__", alter_sys=False)
    assert served == [module]
