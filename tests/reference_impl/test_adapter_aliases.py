"""The adapter wing's old names still work for one release: `--impl
reference_impl.conformance_adapter:implementation` loads the same adapter as the default,
and `python -m reference_impl.stdio_adapter` serves it as `python -m reference_impl.adapter`."""

from __future__ import annotations

import runpy

import pytest

import reference_impl.adapter
import reference_impl.adapter._stdio
from conformance.runner.plugin import DEFAULT_IMPL


def test_the_default_impl_is_the_wing() -> None:
    assert DEFAULT_IMPL == "reference_impl.adapter:implementation"


def test_the_old_import_path_is_the_same_adapter() -> None:
    import reference_impl.conformance_adapter as old

    assert old.implementation is reference_impl.adapter.implementation
    assert old.ReferenceImplementation is reference_impl.adapter.ReferenceImplementation


@pytest.mark.parametrize("module", ["reference_impl.stdio_adapter", "reference_impl.adapter"])
def test_both_stdio_commands_serve_the_wing(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[str] = []
    monkeypatch.setattr(reference_impl.adapter._stdio, "main", lambda: served.append(module))
    runpy.run_module(module, run_name="__main__", alter_sys=False)
    assert served == [module]
