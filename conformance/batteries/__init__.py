"""Batteries: contracts a user's component runs against itself, beside the laws.

The session-store battery checks docs/hosting.md's store contract on any store (a
host's, the reference's, yours) without importing a runtime:

    from conformance.batteries import SessionStoreBattery

    class TestMyStore(SessionStoreBattery):
        store_spec = "myapp.sessions:open_store"   # (path) -> store

See docs/session-stores.md.
"""

from __future__ import annotations

from ._checkpoints import AWKWARD_IDS, CHECKPOINTS
from ._session_store_battery import SessionStoreBattery
from ._store_protocol import DamageHook, SessionStoreLike, StoredSessionLike, StoreFactory

__all__ = [
    "AWKWARD_IDS",
    "CHECKPOINTS",
    "DamageHook",
    "SessionStoreBattery",
    "SessionStoreLike",
    "StoreFactory",
    "StoredSessionLike",
]
