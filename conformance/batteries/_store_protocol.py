"""The store contract the battery speaks: the method names of docs/hosting.md "Session
stores", structurally, so a user's store that has them runs the battery unchanged and
the suite never imports the runtime that ships one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable


@runtime_checkable
class StoredSessionLike(Protocol):
    """What `load` gives back: at least the checkpoint text (extra fields are fine)."""

    @property
    def checkpoint(self) -> str: ...


@runtime_checkable
class SessionStoreLike(Protocol):
    """A synchronous session store: one checkpoint (JSON object text) per session id."""

    def load(self, session_id: str) -> StoredSessionLike | None: ...

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None: ...

    def owner(self, session_id: str) -> str | None: ...

    def forget(self, session_id: str) -> bool: ...

    def close(self) -> None: ...


StoreFactory = Callable[[Path], SessionStoreLike]
"""`make_store(path)`: a store keeping its sessions at `path` (a fresh path per test)."""

DamageHook = Callable[[Path, str], object]
"""`damage(path, session_id)`: make one stored session unreadable, as a bad disk would."""


def import_spec(spec: str) -> object:
    """The object a "module:attr" path names (attr may be dotted)."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"expected 'module:attribute', got {spec!r}")
    found: object = importlib.import_module(module_name)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found
