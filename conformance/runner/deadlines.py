"""Every adapter call's deadline, and who keeps it: the guard, or an implementation that
keeps its own (a `cmd:` adapter's connector, which alone can stop the adapter that
missed it). Shared by the agent and host guard (`guard.py`), the session door's
(`session_guard.py`) and the fixtures' own calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Literal, Protocol, TypeVar, runtime_checkable

from ..errors import AdapterTimeout, DeclaredButMissing
from .doors import Door, note_door

T = TypeVar("T")


@runtime_checkable
class OwnsCallDeadline(Protocol):
    """An implementation that enforces each call's deadline itself (the same
    `--call-timeout` times `--timeout-multiplier`) and cleans up after a miss: the
    guard then sets no deadline of its own."""

    owns_call_deadline: Literal[True]


async def within_deadline(
    name: str,
    call: Awaitable[T],
    timeout: float | None,
    declared: frozenset[str],
    *,
    door: Door | None = None,
) -> T:
    """Await one adapter call under its deadline (None: the implementation keeps it),
    translating the two ways it can fail that are the harness's business. What it
    raises is noted with `door` (doors.py), so the runner can say which call a refusal
    or a missing door came from."""
    try:
        return await _within(name, call, timeout, declared)
    except Exception as error:
        if door is not None:
            note_door(error, door)
        raise


async def _within(
    name: str, call: Awaitable[T], timeout: float | None, declared: frozenset[str]
) -> T:
    try:
        return await asyncio.wait_for(call, timeout)
    except TimeoutError as error:
        if isinstance(error, AdapterTimeout) or timeout is None:
            raise  # already a deadline's own report (the implementation's, if it keeps it)
        raise AdapterTimeout(
            f"Timeout: the adapter's {name}() did not return within {timeout:g} s "
            "(raise --call-timeout or --timeout-multiplier if the runtime is just slow)"
        ) from None
    except NotImplementedError as error:
        raise DeclaredButMissing(
            f"{name}() raised NotImplementedError, but the implementation declares "
            f"{sorted(declared)}: a declared capability must work, or be left out "
            "(then its laws are NOT_APPLICABLE)"
        ) from error


HOST_START_FACTOR = 4
"""A host start gets this many call deadlines: it is a process of its own, importing as
much as an adapter does (a stdio connector gives it its start-up deadline likewise)."""


__all__ = ["HOST_START_FACTOR", "OwnsCallDeadline", "within_deadline"]
