"""Official SDK clients pointed at a fake provider, retries off unless asked for."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import openai
from openai.types.chat import ChatCompletion

from conformance.wire import ScriptedProvider
from tests.conftest import API_KEY


def base_url(provider: ScriptedProvider) -> str:
    assert provider.base_url, "provider is not attached to a transport"
    return provider.base_url


def openai_client(provider: ScriptedProvider, *, max_retries: int = 0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base_url(provider), api_key=API_KEY, max_retries=max_retries)


def openai_sync(provider: ScriptedProvider, *, max_retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url(provider), api_key=API_KEY, max_retries=max_retries)


def anthropic_client(
    provider: ScriptedProvider, *, max_retries: int = 0
) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=base_url(provider), api_key=API_KEY, max_retries=max_retries
    )


def ask(text: str) -> list[Any]:
    """The one-user-turn conversation most wire tests send."""
    return [{"role": "user", "content": text}]


async def chat(provider: ScriptedProvider, text: str = "x") -> ChatCompletion:
    """One plain chat turn through the official client: the request most wire tests make."""
    return await openai_client(provider).chat.completions.create(model="m", messages=ask(text))


def post_chat(url: str, content: str = "x", **options: Any) -> httpx.Response:
    """The same turn as a raw POST to `url` (a base URL), for tests that set its headers."""
    return httpx.post(
        f"{url}/chat/completions", json={"model": "m", "messages": ask(content)}, **options
    )
