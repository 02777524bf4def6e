"""The reference runtime against the fake provider: every dialect, both transports."""

from __future__ import annotations

import asyncio
import itertools
import sys
from typing import Any

import pytest

from conformance.adapter import AgentSpec
from conformance.catalog import ECHO
from conformance.wire import ScriptedProvider
from conformance.wire.ir import Dialect
from reference_impl import Agent, AgentBuilder, ModelProvider, ToolContext, ask_person, tool
from reference_impl._listening import LISTENING
from reference_impl.adapter import implementation
from tests.conftest import API_KEY

DIALECTS = ["openai-chat", "openai-responses", "anthropic-messages"]
TRANSPORTS = ["in_process", "loopback"]
MODEL = "ref-model"


@pytest.fixture(
    params=list(itertools.product(DIALECTS, TRANSPORTS)), ids=lambda p: f"{p[0]}-{p[1]}"
)
def setup(request: pytest.FixtureRequest) -> tuple[str, ScriptedProvider]:
    dialect, transport = request.param
    name = "fake_provider" if transport == "in_process" else "loopback_provider"
    wire: ScriptedProvider = request.getfixturevalue(name)
    return dialect, wire


@pytest.fixture
def wire(setup: tuple[str, ScriptedProvider]) -> ScriptedProvider:
    """The fake provider; what it recorded is the evidence."""
    return setup[1]


@pytest.fixture
def llm(setup: tuple[str, ScriptedProvider]) -> ModelProvider:
    """The reference runtime's provider for this dialect, pointed at the fake: the one the
    suite's adapter builds (`make_provider`'s, on SDK clients sharing one TLS context)."""
    dialect, wire = setup
    spec = AgentSpec(base_url=wire.base_url or "", api_key=API_KEY, dialect=Dialect(dialect))
    provider: ModelProvider = implementation.provider_for(spec)
    return provider


@pytest.fixture
def new_agent(llm: ModelProvider) -> Any:
    """`new_agent(id=None)` -> a builder with the test tool catalog."""

    def build(id: str | None = None, model: str = MODEL) -> AgentBuilder:
        return (
            Agent.create(provider=llm, model=model, id=id)
            .system("You take restaurant bookings. Be brief.")
            .tool(echo, whoami, approve_refund)
        )

    return build


@tool(description=ECHO.description, parameters=ECHO.parameters_schema())
def echo(ctx: ToolContext, text: str = ECHO.default("text")) -> str:
    return text


@tool(description="What the runtime told this tool about the run.")
def whoami(ctx: ToolContext) -> dict[str, Any]:
    return {
        "identity": ctx.identity.model_dump(exclude_none=True) if ctx.identity else None,
        "session_id": ctx.session_id,
        "run_id": ctx.run_id,
    }


REFUND_CALLS: list[dict[str, Any]] = []


@tool(description="Refund an order; a person must approve it first.")
def approve_refund(ctx: ToolContext, order: int = 0) -> str:
    REFUND_CALLS.append({"order": order})
    ask_person(f"Approve a refund for order {order}?")


@pytest.fixture(autouse=True)
def _fresh_refund_log() -> None:
    REFUND_CALLS.clear()


async def serve_from_command_line(
    package: str, *args: str, **options: Any
) -> tuple[asyncio.subprocess.Process, str]:
    """`python -m <package> serve <args>` started (`options` go to the subprocess): the
    process, and the URL its first line announces."""
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", package, "serve", *args],
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        **options,
    )
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
    assert line.startswith(LISTENING), line
    return process, line.removeprefix(LISTENING).strip()
