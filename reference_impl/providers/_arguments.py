"""Tool-call arguments to and from the JSON text the OpenAI APIs carry (no SDK needed)."""

from __future__ import annotations

import json
from typing import Any


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
