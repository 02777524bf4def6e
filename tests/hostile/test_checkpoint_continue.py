"""What load_checkpoint accepts is continuable: against the real fake, in every dialect.

For ANY value load_checkpoint accepts, `agent.run(msg, continue_from=value)` — and, when
the value is paused, `agent.resume(value, decision)` — sends a request the fake records
with no finding (no invariant broken, nothing malformed) and never raises an untyped
error. The fake's invariants (conformance/wire/invariants.py and each dialect's role
rules) are the oracle; the SDKs are the real ones, talking to the fake through its
in-process transport. Each accepted input costs a request, so this target runs at a
quarter of the budget (2,500 inputs in `thorough`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.wire import ScriptedProvider, text
from conformance.wire.in_process import IN_PROCESS_ROOT, ProviderTransport
from reference_impl import (
    Agent,
    AnthropicMessagesProvider,
    InvalidCheckpointError,
    ModelProvider,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
    PendingQuestionError,
    ToolContext,
    ask_person,
    load_checkpoint,
    tool,
)
from tests.conftest import API_KEY
from tests.hostile.budget import fuzz_settings, judged
from tests.hostile.test_checkpoint_loading import CHECKPOINT_VALUES, conversations, mutated

pytestmark = pytest.mark.timeout(1200)  # thorough: 2,500 inputs, each a request

TARGET = "checkpoint: continue_from against the fake"
SCALE = 0.25
DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages")


@tool(description="Look something up.")
def lookup(ctx: ToolContext, **arguments: Any) -> str:
    return "found"


@tool(description="Needs a person's approval.")
def approve(ctx: ToolContext, **arguments: Any) -> str:
    ask_person("May I?")


class Fake:
    """One SDK client per dialect, all answered by whichever provider is current."""

    def __init__(self) -> None:
        self.transport = ProviderTransport(ScriptedProvider())
        base_url = IN_PROCESS_ROOT + "/v1"
        opened = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=API_KEY,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(transport=self.transport),
        )
        messages = anthropic.AsyncAnthropic(
            base_url=base_url,
            api_key=API_KEY,
            max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(transport=self.transport),
        )
        self.providers: dict[str, ModelProvider] = {
            "openai-chat": OpenAIChatProvider(client=opened),
            "openai-responses": OpenAIResponsesProvider(client=opened),
            "anthropic-messages": AnthropicMessagesProvider(client=messages),
        }

    def fresh(self) -> ScriptedProvider:
        provider = ScriptedProvider([text("Continued.")], allow_unused=True)
        self.transport.provider = provider
        return provider


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    yield running
    running.close()


@pytest.fixture(scope="module")
def fake(loop: asyncio.AbstractEventLoop) -> Fake:
    async def build() -> Fake:
        return Fake()

    return loop.run_until_complete(build())


async def continue_it(fake: Fake, dialect: str, value: Any) -> None:
    """The property for one input; raises on any breach."""
    provider = fake.fresh()
    agent = Agent.create(provider=fake.providers[dialect], model="m").tool(lookup, approve).build()
    checkpoint = load_checkpoint(value)  # refused: InvalidCheckpointError, and nothing sent
    try:
        await agent.run("And now?", continue_from=value)
    except PendingQuestionError:
        assert checkpoint.pending is not None
        await agent.resume(value, "yes")
    findings = provider.findings
    assert not findings, [f"{f.kind}: {f.message}" for f in findings]
    for exchange in provider.wire:
        assert exchange.status == 200, exchange.status


INPUTS = st.one_of(conversations(), conversations(), mutated(conversations()), CHECKPOINT_VALUES)


@fuzz_settings(scale=SCALE)
@given(value=INPUTS, dialect=st.sampled_from(DIALECTS))
def test_what_load_checkpoint_accepts_the_fake_accepts(
    value: Any, dialect: str, fake: Fake, loop: asyncio.AbstractEventLoop
) -> None:
    with judged(TARGET, typed=(InvalidCheckpointError,)):
        loop.run_until_complete(continue_it(fake, dialect, value))
