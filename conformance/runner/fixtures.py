"""The fixtures a law test asks for: the guarded implementation, the fake, new agents.

Registered by the plugin (`pytest_plugins`). Law tests import their types and the
fake's key through `conformance.laws._kit`, never from here or from the plugin.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from ..adapter import AgentSpec, AgentUnderTest, Delivery, Implementation
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
