"""make_provider: a dialect name picks the provider, for config files and CLI flags."""

from __future__ import annotations

import pytest

from conformance.wire import ScriptedProvider, text
from reference_impl.conversation import Turn
from reference_impl.providers import (
    DIALECTS,
    AnthropicMessagesProvider,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
    make_provider,
)
from tests.conftest import API_KEY


@pytest.mark.parametrize(
    ("dialect", "cls"),
    [
        ("openai-chat", OpenAIChatProvider),
        ("openai-responses", OpenAIResponsesProvider),
        ("anthropic-messages", AnthropicMessagesProvider),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
async def test_each_dialect_reaches_the_fake(
    fake: ScriptedProvider, dialect: str, cls: type, stream: bool
) -> None:
    fake.script([text("Hello.")])
    llm = make_provider(dialect, base_url=fake.base_url, api_key=API_KEY, stream=stream)
    assert isinstance(llm, cls)
    reply = await llm.complete(
        model="m", system="", turns=[Turn(role="user", text="Hi.")], tools=[]
    )
    assert reply.text == "Hello."
    assert fake.wire.last.dialect == dialect
    assert fake.wire.last.stream is stream


def test_dialect_names_match_the_fake() -> None:
    from conformance.wire import Dialect

    assert list(DIALECTS) == [d.value for d in Dialect]


def test_unknown_dialect_names_the_choices() -> None:
    with pytest.raises(ValueError, match="openai-chat, openai-responses, anthropic-messages"):
        make_provider("gemini", base_url=None, api_key="k")
