"""Each public package says what it exports, exports what it says, and changes its
surface only on purpose (the snapshot under __snapshots__ is the record; update it with
`pytest tests/architecture --snapshot-update` when an export is meant to change).

Modelled on httpx's tests/test_exported_members.py; lazy exports (the fake's transports)
are resolved too, so a name in `__all__` that cannot be imported fails here first.
"""

from __future__ import annotations

import importlib
import types
from typing import TYPE_CHECKING, Any

import pytest
from syrupy.assertion import SnapshotAssertion

PUBLIC_PACKAGES = [
    "conformance.adapter",
    "conformance.batteries",
    "conformance.catalog",
    "conformance.connectors",
    "conformance.errors",
    "conformance.frameworks",
    "conformance.hosting",
    "conformance.laws._kit",
    "conformance.redaction",
    "conformance.stdio",
    "conformance.verdicts",
    "conformance.wire",
    "reference_impl",
    "reference_impl.adapter",
    "reference_impl.hosting",
    "reference_impl.sessions",
    "reference_impl.sessions.client",
    "reference_impl.store",
]


def defined_here(module: types.ModuleType, value: Any) -> bool:
    """A public binding of the package's own (not `Any` from typing, not a submodule)."""
    if isinstance(value, types.ModuleType) or value is TYPE_CHECKING:
        return False
    origin = getattr(value, "__module__", None)
    if not isinstance(origin, str) or isinstance(value, str | int | float | frozenset):
        return True  # a constant: it is what the module says it is
    return origin.split(".")[0] == module.__name__.split(".")[0]


@pytest.mark.parametrize("name", PUBLIC_PACKAGES)
def test_all_lists_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(getattr(module, "__all__", ()))
    assert exported, f"{name} has no __all__"
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    missing = [member for member in exported if not hasattr(module, member)]
    assert missing == [], f"{name}.__all__ names what it does not have: {missing}"
    public = sorted(
        member
        for member, value in vars(module).items()
        if not member.startswith("_") and defined_here(module, value)
    )
    unlisted = [member for member in public if member not in exported]
    assert unlisted == [], f"{name} has public names missing from __all__: {unlisted}"


@pytest.mark.parametrize("name", PUBLIC_PACKAGES)
def test_the_public_surface_changes_only_on_purpose(name: str, snapshot: SnapshotAssertion) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__) == snapshot


def test_a_name_missing_from_all_is_seen() -> None:
    module = types.ModuleType("conformance.fake_package")
    module.__all__ = ["Listed"]  # type: ignore[attr-defined]

    class Listed: ...

    class Forgotten: ...

    for cls in (Listed, Forgotten):
        cls.__module__ = "conformance.fake_package"
        setattr(module, cls.__name__, cls)
    public = [
        m for m, v in vars(module).items() if not m.startswith("_") and defined_here(module, v)
    ]
    assert public == ["Listed", "Forgotten"]
