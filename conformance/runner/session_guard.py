"""The guard around the session door: a backend's and its sessions' calls, each held to
its deadline and its result to the op table, as the agent's are (conformance.runner
.guard).

Deadlines come from the table (`session_call_deadline`): an op that starts or ends
runtime processes gets as many call deadlines as a host start, and `stream` gets the
`wait` the law passed on top of the call deadline. What comes back is checked against
the op's result type, a wrong one an `AdapterContractError` naming the call and the
path (`stream().events[0].text`); an instance a backend opens must have every method of
its Protocol. A `NotImplementedError` is `DeclaredButMissing` (FAIL), a `Refused` passes
through for the law to judge. Ending an instance (a backend's kill or close, a
session's close) is done once: a second end, as a fixture's teardown makes after a law
ended it itself, is a no-op, so no adapter is asked to end what it no longer has.
"""

from __future__ import annotations

from typing import Any, cast

from ..adapter import (
    BACKEND,
    SESSION,
    BackendSpec,
    BackendUnderTest,
    Capability,
    Implementation,
    Op,
    SessionUnderTest,
    Surface,
    session_call_deadline,
)
from ..errors import AdapterContractError, DeclaredButMissing
from .deadlines import HOST_START_FACTOR, within_deadline
from .doors import Door, note_door


class _Guarded:
    """One instance of a session-door surface under the guard."""

    surface: Surface[Any]

    def __init__(self, inner: Any, timeout: float | None, declared: frozenset[str]) -> None:
        self._inner = inner
        self._timeout = timeout
        self._declared = declared
        self.ended = False

    def _ends(self, op: Op) -> bool:
        return op is self.surface.close or op.name == "kill"

    async def call(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        values = op.bind(args, kwargs)  # a law's wrong call is a TypeError, as in Python
        if self._ends(op):
            if self.ended:
                return None
            self.ended = True
        deadline = _deadline(op, values, self._timeout)
        method = getattr(self._inner, op.name)
        door = Door(self.surface.name, op.name)
        value = await within_deadline(
            op.name, method(*args, **kwargs), deadline, self._declared, door=door
        )
        if op.opens is not None:
            return await _guard_opened(op, value, self._timeout, self._declared)
        problem = op.result_problem(value)
        if problem is not None:
            raise AdapterContractError(*problem)
        return None if op.returns is None else value


class GuardedSession(_Guarded):
    """A `SessionUnderTest` that enforces deadlines and the protocol's return types."""

    surface = SESSION


SESSION.derive_methods(GuardedSession, "call")


class GuardedBackend(_Guarded):
    """A `BackendUnderTest` that enforces deadlines and the protocol's return types; the
    sessions it opens are guarded too."""

    surface = BACKEND


BACKEND.derive_methods(GuardedBackend, "call")


def _deadline(op: Op, values: dict[str, Any], timeout: float | None) -> float | None:
    if timeout is None:
        return None  # the implementation keeps it (a cmd: adapter's connector)
    return session_call_deadline(op, values, timeout, timeout * HOST_START_FACTOR)


def _lacks(value: Any, surface: Surface[Any]) -> list[str]:
    return [op.name for op in surface.instance_ops() if not callable(getattr(value, op.name, None))]


async def _guard_opened(
    op: Op, value: Any, timeout: float | None, declared: frozenset[str]
) -> SessionUnderTest:
    """The session `op` opened, guarded; a contract error if it is no session."""
    assert op.opens is SESSION, f"{op.name} opens a {op.opens}, not a session"
    missing = _lacks(value, SESSION)
    if missing:
        raise AdapterContractError(
            f"{op.name}()",
            f"returned {_a_type(value)}, which lacks the SessionUnderTest methods "
            f"{', '.join(missing)}: every method is required, even for a capability it does "
            "not declare (raise NotImplementedError there; the law needing it is "
            "NOT_APPLICABLE)",
        )
    return cast(SessionUnderTest, GuardedSession(value, timeout, declared))


async def open_guarded_backend(
    inner: Implementation, spec: BackendSpec, timeout: float | None, declared: frozenset[str]
) -> BackendUnderTest:
    """`inner.open_backend(spec)` under its deadline, the backend held to the protocol:
    one that lacks a method of `BackendUnderTest` is killed (if it can be) before the
    contract error is raised, so none of its processes runs on."""
    opening = getattr(inner, BACKEND.create.name, None)
    door = Door(BACKEND.name, BACKEND.create.name)
    if opening is None:
        absent = DeclaredButMissing(
            f"{type(inner).__qualname__} declares {Capability.SESSIONS.value} but has no "
            f"{BACKEND.create.name}(): a declared capability must work, or be left out"
        )
        note_door(absent, door)
        raise absent
    deadline = _deadline(BACKEND.create, {"spec": spec}, timeout)
    backend = await within_deadline(
        BACKEND.create.name, opening(spec), deadline, declared, door=door
    )
    missing = _lacks(backend, BACKEND)
    if missing:
        kill = getattr(backend, "kill", None)
        if callable(kill):
            await within_deadline(
                "kill", kill(), deadline, declared, door=Door(BACKEND.name, "kill")
            )
        raise AdapterContractError(
            f"{BACKEND.create.name}()",
            f"returned {_a_type(backend)}, which lacks the BackendUnderTest methods "
            f"{', '.join(missing)}",
        )
    return cast(BackendUnderTest, GuardedBackend(backend, timeout, declared))


def _a_type(value: Any) -> str:
    name = type(value).__qualname__
    return f"{'an' if name[:1] in tuple('AEIOUaeiou') else 'a'} {name}"


__all__ = ["GuardedBackend", "GuardedSession", "open_guarded_backend"]
