"""The hosting laws' fixture: `new_host`, a host of the runtime's own against the fake.

`await new_host(tools=..., session_cookie=..., ...)` takes AgentSpec and HostSpec fields
by keyword and starts a host through the guarded implementation, against this test's
fake, dialect and delivery, on a fresh store under the test's tmp_path (or `store=`, to
start the same host again after a kill: a restart). `host.caller()` is a caller with its
own cookie jar: the seed-wire caller reading replies through the host's wire profile
(the one `start_host` handed back, validated here, else the default), or the
implementation's own `host_client` for a host whose wire is not HTTP+JSON. How the
profile differs from the default, and every reply of the right kind said otherwise
than the law asked, is the test's information (`INFORMATION` user properties, carried
into its results records outside the score). Teardown kills every host still running
and closes every caller. Hosts' base URLs and the cookie values they issue are minted
per run, so the session's redactor learns them: they never reach a result or a snapshot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pydantic import ValidationError

from ..adapter import (
    DEFAULT_PROFILE,
    AgentSpec,
    Capability,
    Delivery,
    HostingImplementation,
    HostSpec,
    HostUnderTest,
    HostWireProfile,
    Implementation,
    profile_differences,
)
from ..errors import AdapterContractError
from ..hosting import HostClient, HostClientFactory, HostReply, SeedWireCaller
from ..redaction import session_redactor
from ..verdicts import INFORMATION, NOT_APPLICABLE_PREFIX, needs_sentence
from ..wire import ScriptedProvider
from ..wire.ir import Dialect
from .doors import within_deadline
from .fixtures import FAKE_KEY

HOST_FIELDS = frozenset(HostSpec.model_fields) - {"agent"}


def wire_profile(host: HostUnderTest) -> HostWireProfile:
    """The profile a started host handed back (None or absent: the default one); one
    that is not a HostWireProfile is the adapter's contract broken (an ERROR)."""
    given = getattr(host, "wire_profile", None)
    if given is None or isinstance(given, HostWireProfile):
        return given or DEFAULT_PROFILE
    try:
        return HostWireProfile.model_validate(given)
    except ValidationError as error:
        problems = "; ".join(
            f"{'/'.join(str(p) for p in e['loc']) or 'profile'}: {e['msg']}"
            for e in error.errors(include_url=False)[:3]
        )
        raise AdapterContractError(
            "start_host().wire_profile", f"not a HostWireProfile: {problems}"
        ) from None


class RunningHost:
    """One started host as a law holds it: where it serves, where it stores, its end."""

    def __init__(
        self,
        inner: HostUnderTest,
        spec: HostSpec,
        implementation: Implementation,
        caller_options: dict[str, Any],
        note: Callable[[str], None],
    ) -> None:
        self._inner = inner
        self.spec = spec
        self.base_url: str = inner.base_url
        self.store: str = spec.store
        self.alive = True
        self.profile = wire_profile(inner)
        self._implementation = implementation
        self._caller_options = caller_options
        self._callers: list[HostClient] = []
        self.note = note
        for difference in profile_differences(self.profile):
            note(f"host wire: {difference}")

    async def kill(self) -> None:
        """Hard: SIGKILL, nothing flushed (a crash)."""
        if self.alive:
            self.alive = False
            await self._inner.kill()

    async def stop(self) -> None:
        """Graceful: running turns finish and persist."""
        if self.alive:
            self.alive = False
            await self._inner.stop()

    def caller(self, token: str | None = None) -> HostClient:
        """A new caller with its own cookie jar; `token` is sent as `Authorization:
        Bearer <token>` on every request."""
        factory: HostClientFactory | None = getattr(self._implementation, "host_client", None)
        made: HostClient
        if factory is not None:
            own = factory(self.base_url, self.spec, token=token)
            made = GuardedHostClient(own, self._caller_options["timeout"], self._declared())
        else:
            made = SeedWireCaller(
                self.base_url,
                session_cookie=self.spec.session_cookie,
                token=token,
                profile=self.profile,
                note=self.note,
                **self._caller_options,
            )
        self._callers.append(made)
        return made

    def _declared(self) -> frozenset[str]:
        return frozenset(str(c) for c in self._implementation.capabilities)

    async def damage(self, session_id: str) -> None:
        """Make `session_id`'s stored conversation unreadable (the implementation's
        `damage_session`, hosting_damage); the host must be killed or stopped first."""
        if Capability.HOSTING_DAMAGE.value not in self._declared():
            words = needs_sentence([Capability.HOSTING_DAMAGE.value])
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}damaging a stored session {words}")
        if self.alive:
            raise RuntimeError("damage a store only while no host runs on it: kill() first")
        hosting: HostingImplementation = self._implementation  # type: ignore[assignment]
        await hosting.damage_session(self.store, session_id)

    async def close_callers(self) -> None:
        for made in self._callers:
            await made.aclose()
        self._callers.clear()


class GuardedHostClient:
    """An implementation's own `HostClient`, held to the call deadline, its
    NotImplementedError a declared capability that does not work (FAIL), as for agents."""

    def __init__(self, inner: HostClient, timeout: float, declared: frozenset[str]) -> None:
        self._inner = inner
        self._timeout = timeout
        self._declared = declared

    async def _call(self, name: str, call: Awaitable[HostReply]) -> HostReply:
        return await within_deadline(f"host_client.{name}", call, self._timeout, self._declared)

    async def send(self, message: str, **where: Any) -> HostReply:
        return await self._call("send", self._inner.send(message, **where))

    async def decide(self, decision: str, **where: Any) -> HostReply:
        return await self._call("decide", self._inner.decide(decision, **where))

    async def read_session(self, session_id: str) -> HostReply | None:
        reading = self._inner.read_session(session_id)
        return await within_deadline(
            "host_client.read_session", reading, self._timeout, self._declared
        )

    async def raw(self, body: bytes, *, headers: Mapping[str, str] | None = None) -> HostReply:
        return await self._call("raw", self._inner.raw(body, headers=headers))

    async def aclose(self) -> None:
        closing = self._inner.aclose()
        await within_deadline("host_client.aclose", closing, self._timeout, self._declared)


HostFactory = Callable[..., Awaitable[RunningHost]]
"""`new_host`: `await new_host(tools=(...), session_cookie=..., store=...)` starts a host
from AgentSpec and HostSpec fields, against this test's fake."""

_NEEDS: dict[str, Callable[[Any], bool]] = {
    Capability.HOSTING_ENQUEUE.value: lambda spec: spec.on_concurrent_invoke == "enqueue",
    Capability.HOSTING_FACTORY.value: lambda spec: spec.agent_per_session,
    Capability.HOSTING_IDENTITY.value: lambda spec: spec.principals is not None,
}


def _not_applicable(implementation: Implementation, spec: HostSpec) -> str | None:
    """The capabilities this host needs that the implementation does not declare."""
    declared = {str(c) for c in implementation.capabilities}
    wanted = [Capability.HOSTING.value] + [c for c, needs in _NEEDS.items() if needs(spec)]
    missing = [c for c in wanted if c not in declared]
    return f"this host {needs_sentence(missing)}" if missing else None


@pytest_asyncio.fixture
async def new_host(
    implementation: Implementation,
    fake: ScriptedProvider,
    dialect: Dialect,
    delivery: Delivery,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    pytestconfig: pytest.Config,
) -> AsyncIterator[HostFactory]:
    """`await new_host(...)` -> a running host of the implementation's own."""
    started: list[RunningHost] = []
    redactor = session_redactor(request.config)

    def note(text: str) -> None:
        """Information about the host's wire, once per test, its minted values masked."""
        said = (INFORMATION, redactor.scrub_text(text))
        if said not in request.node.user_properties:
            request.node.user_properties.append(said)

    timeout = pytestconfig.getoption("--call-timeout") * pytestconfig.getoption(
        "--timeout-multiplier"
    )

    async def make(*, store: str | None = None, **fields: Any) -> RunningHost:
        host_fields = {k: v for k, v in fields.items() if k in HOST_FIELDS}
        agent = AgentSpec(
            base_url=fake.base_url or "",
            api_key=FAKE_KEY,
            dialect=dialect,
            stream=delivery is Delivery.STREAM,
            **{k: v for k, v in fields.items() if k not in HOST_FIELDS},
        )
        path = store or str(tmp_path / f"host-store-{len(started) + 1}.db")
        spec = HostSpec(agent=agent, store=path, **host_fields)
        why = _not_applicable(implementation, spec)
        if why is not None:
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}{why}")
        hosting: HostingImplementation = implementation  # type: ignore[assignment]
        inner = await hosting.start_host(spec)
        redactor.learn(inner.base_url)
        try:
            host = RunningHost(
                inner, spec, implementation, {"timeout": timeout, "learn": redactor.learn}, note
            )
        except AdapterContractError:
            await inner.kill()
            raise
        started.append(host)
        return host

    yield make
    for host in started:
        await host.close_callers()
    for host in started:
        await host.kill()
