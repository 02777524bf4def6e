"""One model call of every kind, in memory, before the launcher forks its first child.

Importing the SDKs is not all they cost on first use: `client.chat`, `client.responses`
and `client.messages` import their resource modules then, and the first parse of a reply
or a stream builds pydantic schemas for the SDK's generic models (`ParsedChatCompletion[
...]` and friends), and every forked host would pay that again on its first turn. Done
once here, every forked host and session runtime starts with it done.

The calls go through the reference's own providers to the fake's codecs over an httpx2
transport that never opens a socket, so what is warmed is exactly what a child runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

MODEL = "turnlaw-warm-up"
ROOT = "http://turnlaw.warm-up"
KEY = "turnlaw-warm-up-key"


async def exercise() -> int:
    """Every kind of call once; how many requests the fake answered (twelve)."""
    import anthropic
    import httpx2
    import openai

    from conformance.wire import ScriptedProvider, text, tool_call
    from conformance.wire.in_process import ProviderTransport

    from ..conversation import ToolSpec, Turn
    from ..providers.anthropic_messages import AnthropicMessagesProvider
    from ..providers.openai_chat import OpenAIChatProvider
    from ..providers.openai_responses import OpenAIResponsesProvider

    answered = 0
    turns = [Turn(role="user", text="warm up")]
    tools = [ToolSpec(name="echo", parameters={"type": "object", "properties": {}})]
    for stream in (False, True):
        fake = ScriptedProvider([tool_call("echo", {}), text("warm")] * 3, check_invariants=False)
        http = httpx2.AsyncClient(transport=ProviderTransport(fake))
        providers: list[Any] = [
            OpenAIChatProvider(
                client=openai.AsyncOpenAI(
                    base_url=f"{ROOT}/v1", api_key=KEY, http_client=http, max_retries=0
                ),
                stream=stream,
            ),
            OpenAIResponsesProvider(
                client=openai.AsyncOpenAI(
                    base_url=f"{ROOT}/v1", api_key=KEY, http_client=http, max_retries=0
                ),
                stream=stream,
            ),
            AnthropicMessagesProvider(
                client=anthropic.AsyncAnthropic(
                    base_url=ROOT, api_key=KEY, http_client=http, max_retries=0
                ),
                stream=stream,
            ),
        ]
        try:
            for provider in providers:
                for _ in range(2):  # a tool call, then text
                    await provider.complete(model=MODEL, system="", turns=turns, tools=tools)
        finally:
            await http.aclose()
        fake.verify()  # a call that reached the fake malformed is not a warm-up
        answered += len(fake.wire)
    return answered


def warm_up() -> None:
    """Make each kind of call once; a failure here only means the children pay for it."""
    with contextlib.suppress(Exception):
        asyncio.run(exercise())
