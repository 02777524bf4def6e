"""What each of the two writer processes does, and the session ids it does it on: shared
by the worker (`_two_writers`) and the battery that judges the result."""

from __future__ import annotations

from typing import Any

from ._checkpoints import checkpoint_of
from ._store_protocol import SessionStoreLike

SHARED = 4
"""How many sessions both writers write."""


def own_id(writer: str, index: int) -> str:
    return f"{writer}-{index}"


def shared_id(index: int) -> str:
    return f"shared-{index % SHARED}"


def contested_id(index: int) -> str:
    return f"contested-{index}"


def write(store: SessionStoreLike, writer: str, writes: int, claims: int) -> dict[str, Any]:
    """Interleave the three kinds of write; what was claimed, refused, and failed."""
    claimed: list[int] = []
    refused: list[int] = []
    errors: list[str] = []
    for index in range(max(writes, claims)):
        try:
            if index < writes:
                store.save(own_id(writer, index), checkpoint_of(writer, index), owner=None)
                store.save(shared_id(index), checkpoint_of(writer, index, padding=64), owner=None)
        except Exception as error:  # reported, judged by the battery
            errors.append(f"{type(error).__name__}: {error}"[:300])
        if index < claims:
            try:
                store.save(contested_id(index), checkpoint_of(writer, index), owner=writer)
                claimed.append(index)
            except Exception:
                refused.append(index)
    return {"claimed": claimed, "refused": refused, "errors": errors}
