"""The harness's guard around an adapter: it keeps a bad adapter from hanging the run
or smuggling garbage past the laws.

Every call gets a deadline (`--call-timeout` times `--timeout-multiplier`): a call that
misses it raises `AdapterTimeout`, reported as TIMEOUT, and the run goes on. The
deadline has one owner: the guard, unless the implementation keeps it itself
(`OwnsCallDeadline`, as a `cmd:` adapter's connector does, since only it can stop the
adapter that missed it); two owners race, and the outer one cancels the inner one's
clean-up. What comes
back is checked against the adapter protocol's types, and a checkpoint must at least be
JSON-serializable; otherwise `AdapterContractError` names the call and the field
(ERROR: the adapter is broken, the runtime was not judged). A declared capability
whose call raises `NotImplementedError` is `DeclaredButMissing`, an assertion: FAIL,
not NOT_APPLICABLE — declaring is a claim, and the law holds the runtime to it. Whatever
a call raises is noted with its door (`doors.py`), so the runner charges a missing door
to that door's law, and says which call a refusal escaping a law came from.

Whether a checkpoint is *plain* JSON data (lists, not tuples) is a law, not a contract:
that is left to the law's test to FAIL.

The session door's backends and sessions are guarded the same way. Their deadlines come
from the table (`session_call_deadline`): an op that starts or ends runtime processes
gets as many call deadlines as a host start, and `stream` gets the `wait` the law passed
on top of the call deadline. What comes back is checked against the op's result type, a
wrong one an `AdapterContractError` naming the call and the path
(`stream().events[0].text`); an instance a backend opens must have every method of its
Protocol. A `NotImplementedError` is `DeclaredButMissing` (FAIL), a `Refused` passes
through for the law to judge. Ending an instance (a backend's kill or close, a session's
close) is done once: a second end, as a fixture's teardown makes after a law ended it
itself, is a no-op, so no adapter is asked to end what it no longer has.
"""

from __future__ import annotations

from typing import Any, cast

from ..adapter import (
    AGENT,
    BACKEND,
    DAMAGE_SESSION,
    HOST,
    SESSION,
    AgentSpec,
    AgentUnderTest,
    BackendSpec,
    BackendUnderTest,
    Capability,
    HostSpec,
    HostUnderTest,
    Implementation,
    Op,
    SessionUnderTest,
    Surface,
    loopback_problem,
    session_call_deadline,
    unserializable,
)
from ..errors import AdapterContractError, DeclaredButMissing
from .doors import HOST_START_FACTOR, Door, OwnsCallDeadline, note_door, within_deadline


class GuardedAgent:
    """An `AgentUnderTest` that enforces deadlines and the protocol's return types.

    Its methods are derived from the op table (conformance.adapter.AGENT): each awaits
    the adapter's own method under the deadline, then checks what came back against the
    op's result type (`Op.result_problem`)."""

    def __init__(
        self, inner: AgentUnderTest, timeout: float | None, declared: frozenset[str]
    ) -> None:
        self._inner = inner
        self._timeout = timeout
        self._declared = declared

    async def call(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        method = getattr(self._inner, op.name)
        args, kwargs = op.handed(method, args, kwargs)  # its own copies; new fields gated
        value = await within_deadline(
            op.name,
            method(*args, **kwargs),
            self._timeout,
            self._declared,
            door=Door(AGENT.name, op.name),
        )
        problem = op.result_problem(value)
        if problem is not None:
            raise AdapterContractError(*problem)
        return None if op.returns is None else value  # close: its result is ignored


AGENT.derive_methods(GuardedAgent, "call")


class GuardedImplementation:
    """The implementation under test, handing out guarded agents, hosts and backends
    (the session door's guard: `session_guard.py`)."""

    def __init__(self, inner: Implementation, timeout: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.capabilities: frozenset[Capability] = inner.capabilities
        self.timeout: float | None = None if isinstance(inner, OwnsCallDeadline) else timeout

    def __getattr__(self, name: str) -> Any:  # dialects, version, anything else it offers
        return getattr(self.inner, name)

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        declared = frozenset(str(c) for c in self.capabilities)
        agent = await within_deadline(
            AGENT.create.name,
            self.inner.create_agent(spec),
            self.timeout,
            declared,
            door=Door(AGENT.name, AGENT.create.name),
        )
        if not isinstance(agent, AgentUnderTest):
            missing = [op.name for op in AGENT.instance_ops() if not hasattr(agent, op.name)]
            raise AdapterContractError(
                "create_agent()",
                f"returned a {type(agent).__qualname__}, which lacks the AgentUnderTest "
                f"methods {', '.join(missing) or '(none by name; not a Protocol match)'}: "
                "every method is required, even for a capability it does not declare (raise "
                "NotImplementedError there; the law needing it is NOT_APPLICABLE)",
            )
        # its methods come from the op table, which a test holds to the Protocol
        return cast(AgentUnderTest, GuardedAgent(agent, self.timeout, declared))

    async def start_host(self, spec: HostSpec) -> HostUnderTest:
        declared = frozenset(str(c) for c in self.capabilities)
        return await start_guarded_host(self.inner, spec, self.timeout, declared)

    async def damage_session(self, store: str, session_id: str) -> None:
        declared = frozenset(str(c) for c in self.capabilities)
        await damage_guarded(self.inner, store, session_id, self.timeout, declared)

    async def open_backend(self, spec: BackendSpec) -> BackendUnderTest:
        declared = frozenset(str(c) for c in self.capabilities)
        return await open_guarded_backend(self.inner, spec, self.timeout, declared)


class GuardedHost:
    """A `HostUnderTest` whose kill and stop keep the call deadline; its `base_url`
    was checked once, when it started (a host does not move), and its `wire_profile`
    (how its replies say each outcome) is handed on as the host gave it."""

    def __init__(
        self, inner: HostUnderTest, base_url: str, timeout: float | None, declared: frozenset[str]
    ) -> None:
        self._inner = inner
        self.base_url = base_url
        self.wire_profile: object = getattr(inner, "wire_profile", None)
        self._timeout = timeout
        self._declared = declared

    async def call(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        method = getattr(self._inner, op.name)
        door = Door(HOST.name, op.name)
        await within_deadline(
            op.name, method(*args, **kwargs), self._timeout, self._declared, door=door
        )


HOST.derive_methods(GuardedHost, "call")


async def start_guarded_host(
    inner: Implementation, spec: HostSpec, timeout: float | None, declared: frozenset[str]
) -> HostUnderTest:
    """`inner.start_host(spec)` under the deadline, its host held to the protocol: an
    object with kill and stop, serving at an http loopback URL. A host that answered
    wrongly is killed before the contract error is raised, so it serves nothing after."""
    start = getattr(inner, HOST.create.name, None)
    door = Door(HOST.name, HOST.create.name)
    if start is None:
        absent = DeclaredButMissing(
            f"{type(inner).__qualname__} declares {Capability.HOSTING.value} but has no "
            f"{HOST.create.name}(): a declared capability must work, or be left out"
        )
        note_door(absent, door)
        raise absent
    starting = None if timeout is None else timeout * HOST_START_FACTOR
    host = await within_deadline(HOST.create.name, start(spec), starting, declared, door=door)
    missing = [op.name for op in HOST.instance_ops() if not callable(getattr(host, op.name, None))]
    if missing:
        raise AdapterContractError(
            f"{HOST.create.name}()",
            f"returned a {type(host).__qualname__}, which lacks the HostUnderTest methods "
            f"{', '.join(missing)}",
        )
    problem = loopback_problem(getattr(host, "base_url", None))
    if problem is not None:
        await within_deadline("kill", host.kill(), timeout, declared)
        raise AdapterContractError(f"{HOST.create.name}()", problem)
    url = str(host.base_url).rstrip("/")
    return cast(HostUnderTest, GuardedHost(host, url, timeout, declared))


async def damage_guarded(
    inner: Implementation,
    store: str,
    session_id: str,
    timeout: float | None,
    declared: frozenset[str],
) -> None:
    """`inner.damage_session(store, session_id)` under the deadline."""
    damage = getattr(inner, DAMAGE_SESSION.name, None)
    door = Door("implementation", DAMAGE_SESSION.name)
    if damage is None:
        absent = DeclaredButMissing(
            f"{type(inner).__qualname__} declares {Capability.HOSTING_DAMAGE.value} but "
            f"has no {DAMAGE_SESSION.name}(): a declared capability must work, or be left out"
        )
        note_door(absent, door)
        raise absent
    await within_deadline(
        DAMAGE_SESSION.name, damage(store, session_id), timeout, declared, door=door
    )


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


__all__ = [
    "HOST_START_FACTOR",
    "GuardedAgent",
    "GuardedBackend",
    "GuardedHost",
    "GuardedImplementation",
    "GuardedSession",
    "OwnsCallDeadline",
    "damage_guarded",
    "open_guarded_backend",
    "start_guarded_host",
    "unserializable",
    "within_deadline",
]
