"""The fixtures a law test asks for: the guarded implementation, the fake, new agents.

Registered by the plugin (`pytest_plugins`). Law tests import their types and the
fake's key through `conformance.laws._kit`, never from here or from the plugin.

The session laws' `new_backend` is a backend of the seed's session model against the
fake (docs/sessions.md): `backend = await new_backend(killable=False, store=None,
model=None)` opens a backend through the guarded implementation, against this test's
fake, dialect and delivery, on a fresh store directory under the test's tmp_path, or on
`store=` (another backend's `store`: the same backend opened again, in another process).
Every model the backend or one of its sessions is given is listed by the fake at GET
/v1/models first, since a runtime may refuse a model its provider does not list (Letta
Code does). A test of an implementation that does not declare `sessions` is
NOT_APPLICABLE. Teardown closes every session the test opened, then ends every backend
still open (killed if it is killable, else closed).

The stateful laws run their (synchronous) Hypothesis state machines off the event loop
(`off_the_loop`), which the machine's steps call back into, on a few long-lived threads
rather than a new one per test: Hypothesis seeds the PRNG of each thread it first runs
in after a full `gc.collect()` (`register_random`), a cost over the suite's whole heap,
and `asyncio.to_thread` under pytest-asyncio's per-test loop made a new thread for every
stateful test.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

import pytest
import pytest_asyncio

from ..adapter import (
    BACKEND,
    AgentSpec,
    AgentUnderTest,
    BackendSpec,
    BackendUnderTest,
    Capability,
    Delivery,
    Implementation,
    Op,
    SessionImplementation,
    SessionOptions,
    SessionUnderTest,
)
from ..verdicts import NOT_APPLICABLE_PREFIX, needs_sentence
from ..wire import ScriptedProvider
from ..wire.ir import Dialect
from ._run_state import IMPLEMENTATION, SWEEP
from .guard import GuardedImplementation

FAKE_KEY = "sk-turnlaw-conformance-0000"
"""The API key every agent is built with. The fake accepts any key; the runner's
redactor learns this one first, so it never reaches an artifact."""

AgentFactory = Callable[..., Awaitable[AgentUnderTest]]
"""`new_agent`: `await new_agent(id=..., tools=(...), ...)` builds an agent from
AgentSpec fields, against this test's fake, in this test's dialect and delivery."""


@pytest.fixture(scope="session")
def implementation(pytestconfig: pytest.Config) -> Implementation:
    """The implementation under test, behind the harness's guard (deadlines, types)."""
    timeout = pytestconfig.getoption("--call-timeout") * pytestconfig.getoption(
        "--timeout-multiplier"
    )
    return GuardedImplementation(pytestconfig.stash[IMPLEMENTATION], timeout)


@pytest.fixture
def fake(
    loopback_provider: ScriptedProvider, request: pytest.FixtureRequest, dialect: Dialect
) -> Iterator[ScriptedProvider]:
    """The fake provider, over real HTTP: what it recorded is the evidence. It knows the
    test's dialect, so a request in another one is a finding, not a silent pass."""
    loopback_provider.dialect = dialect
    yield loopback_provider
    folder: Path | None = request.config.getoption("--record")
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid).strip("_")
        path = folder / f"{name}.json"
        path.write_text(loopback_provider.wire.export(), encoding="utf-8")
        request.config.stash[SWEEP].add(path)


@pytest_asyncio.fixture
async def new_agent(
    implementation: Implementation, fake: ScriptedProvider, dialect: Dialect, delivery: Delivery
) -> AsyncIterator[AgentFactory]:
    """`await new_agent(id=..., tools=(...), ...)` -> an agent against the fake."""
    made: list[AgentUnderTest] = []

    async def make(**fields: Any) -> AgentUnderTest:
        spec = AgentSpec(
            base_url=fake.base_url or "",
            api_key=FAKE_KEY,
            dialect=dialect,
            stream=delivery is Delivery.STREAM,
            **fields,
        )
        fake.list_model(spec.model)  # a runtime may refuse a model its provider does not list
        agent = await implementation.create_agent(spec)
        made.append(agent)
        return agent

    yield make
    for agent in made:
        await agent.close()


@runtime_checkable
class RunningBackend(BackendUnderTest, Protocol):
    """One opened backend as a law holds it: the `BackendUnderTest` calls, its `spec`,
    and `store`, to open the same backend again (`BackendHandle` is what it is)."""

    spec: BackendSpec
    store: str


class BackendHandle:
    """An opened backend: the `BackendUnderTest` calls, derived from the op table (a
    model a session is opened with is listed by the fake first), its `spec` and `store`,
    and the sessions it opened, for teardown."""

    def __init__(self, inner: BackendUnderTest, spec: BackendSpec, fake: ScriptedProvider) -> None:
        self._inner = inner
        self.spec = spec
        self.store: str = spec.store
        self._fake = fake
        self.sessions: list[SessionUnderTest] = []
        """Every session this backend opened, in order (teardown closes each)."""

    async def call(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if op.opens is not None:
            options = op.bind(args, kwargs).get("options")
            if isinstance(options, SessionOptions) and options.model is not None:
                self._fake.list_model(options.model)
        result = await getattr(self._inner, op.name)(*args, **kwargs)
        if op.opens is not None:
            self.sessions.append(result)
        return result


BACKEND.derive_methods(BackendHandle, "call")

BackendFactory = Callable[..., Awaitable[RunningBackend]]
"""`new_backend`: `await new_backend(killable=False, store=None, model=None)` opens a
backend against this test's fake (`store=`: another backend's store, opened again)."""


def _not_applicable(implementation: Implementation) -> str | None:
    declared = {str(c) for c in implementation.capabilities}
    if Capability.SESSIONS.value in declared:
        return None
    return f"a backend of the session model {needs_sentence([Capability.SESSIONS.value])}"


@pytest_asyncio.fixture
async def new_backend(
    implementation: Implementation,
    fake: ScriptedProvider,
    dialect: Dialect,
    delivery: Delivery,
    tmp_path: Path,
) -> AsyncIterator[BackendFactory]:
    """`await new_backend(...)` -> an open backend of the implementation's own."""
    opened: list[BackendHandle] = []

    async def make(
        *, killable: bool = False, store: str | None = None, model: str | None = None
    ) -> RunningBackend:
        why = _not_applicable(implementation)
        if why is not None:
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}{why}")
        if store is None:
            folder = tmp_path / f"backend-store-{len(opened) + 1}"
            folder.mkdir()
            store = str(folder)
        spec = BackendSpec(
            base_url=fake.base_url or "",
            api_key=FAKE_KEY,
            dialect=dialect,
            stream=delivery is Delivery.STREAM,
            store=store,
            killable=killable,
            **({} if model is None else {"model": model}),
        )
        fake.list_model(spec.model)
        sessions: SessionImplementation = implementation  # type: ignore[assignment]
        backend = BackendHandle(await sessions.open_backend(spec), spec, fake)
        opened.append(backend)
        return cast(RunningBackend, backend)

    yield make
    await _end_all(opened)


async def _end_all(opened: list[BackendHandle]) -> None:
    """Close every session, then end every backend (the guard makes a second end a
    no-op); each is ended even when one before it fails, and the first failure is
    raised after."""
    failures: list[BaseException] = []
    ends = [session.close for backend in opened for session in backend.sessions]
    # A backend the suite may kill is killed (a crash leaves nothing running); any other
    # is closed: it may run in this process, where there is nothing to SIGKILL.
    ends += [
        getattr(cast(BackendUnderTest, backend), "kill" if backend.spec.killable else "close")
        for backend in opened
    ]
    for end in ends:
        try:
            await end()
        except Exception as error:
            failures.append(error)
    if failures:
        raise failures[0]


T = TypeVar("T")

_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="turnlaw-state-machine")
"""Several, though tests run one at a time: a machine a timed-out test left running
keeps its thread, and the next test's machine must not queue behind it."""


async def off_the_loop(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`asyncio.to_thread`, on the suite's long-lived threads: the caller's context
    variables go along, and its exception comes back."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_THREADS, call)
