"""What the provider modules share: argument decoding, and the OpenAI client set-up."""

from __future__ import annotations

import json
from typing import Any

import openai


def parse_arguments(raw: str) -> dict[str, Any]:
    """Decode a tool call's JSON arguments into the object `ToolCall` requires.

    Models sometimes emit invalid JSON or a non-object; the call is kept, not dropped, so
    the runtime can answer it with an error result: the text goes under `_raw`.
    """
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": raw}


def encode_arguments(arguments: dict[str, Any]) -> str:
    """Encode arguments for an assistant turn being replayed to an OpenAI API."""
    return json.dumps(arguments, ensure_ascii=False)


class OpenAIBackedProvider:
    """The construction both OpenAI APIs share: one SDK client, streaming by default."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        stream: bool = True,
        max_retries: int = 2,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        self.stream = stream
        self.client = client or openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key, max_retries=max_retries
        )
