"""The session laws' fixture: `new_backend`, a backend of the seed's session model
against the fake (docs/sessions.md).

`backend = await new_backend(killable=False, store=None, model=None)` opens a backend
through the guarded implementation, against this test's fake, dialect and delivery, on
a fresh store directory under the test's tmp_path, or on `store=` (another backend's
`store`: the same backend opened again, in another process). Every model the backend or
one of its sessions is given is listed by the fake at GET /v1/models first, since a
runtime may refuse a model its provider does not list (Letta Code does). A test of an
implementation that does not declare `sessions` is NOT_APPLICABLE. Teardown closes
every session the test opened, then ends every backend still open (killed if it is
killable, else closed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

import pytest
import pytest_asyncio

from ..adapter import (
    BACKEND,
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
from .fixtures import FAKE_KEY


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
