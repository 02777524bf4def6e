"""The bytes both variants exchange, defined once so that bare and turnlaw see the same."""

from __future__ import annotations

import json

MODEL = "gpt-4o"
REPLY_TEXT = "hi"
API_KEY = "k"
CHAT_PATH = "/v1/chat/completions"

CHAT_REQUEST: bytes = json.dumps(
    {"model": MODEL, "messages": [{"role": "user", "content": "hello"}]},
    separators=(",", ":"),
).encode()
"""A minimal, valid chat request: one user message."""


def _rendered_reply() -> bytes:
    """The exact body turnlaw renders for this exchange (its first), so the baseline's
    SDK parses the same shape and the ratio measures the fake, not a smaller body."""
    from conformance.wire.dialects import OPENAI_CHAT
    from conformance.wire.dialects._base import ReplyIds
    from conformance.wire.ir import AssistantReply, Usage

    request = OPENAI_CHAT.parse_request(json.loads(CHAT_REQUEST))
    reply = AssistantReply(text=REPLY_TEXT, usage=Usage(input_tokens=1, output_tokens=1))
    body = OPENAI_CHAT.render_json(reply, request, ReplyIds(seq=1, created=1_700_000_000))
    return json.dumps(body, separators=(",", ":")).encode()


BARE_REPLY: bytes = _rendered_reply()
"""A pre-serialized `chat.completion`, byte for byte what turnlaw sends, for the baselines."""

REPLY_MARKER: bytes = b'"content":"' + REPLY_TEXT.encode() + b'"'
"""Present in every correct reply body, bare or turnlaw: the cheap per-response check."""
