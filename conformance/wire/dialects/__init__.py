"""Provider wire formats: each parses requests into the IR and renders scripted replies."""

from __future__ import annotations

from ..ir import Dialect
from ._base import DialectCodec, ReplyIds, SseEvent, WireFormatError
from .anthropic_messages import CODEC as ANTHROPIC_MESSAGES
from .openai_chat import CODEC as OPENAI_CHAT
from .openai_responses import CODEC as OPENAI_RESPONSES

CODECS: tuple[DialectCodec, ...] = (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC_MESSAGES)
_BY_PATH = {codec.path: codec for codec in CODECS}
_BY_DIALECT = {codec.dialect: codec for codec in CODECS}


def by_path(path: str) -> DialectCodec | None:
    """The codec serving `path` (already normalized to start with /v1/)."""
    return _BY_PATH.get(path)


def by_dialect(dialect: Dialect) -> DialectCodec:
    return _BY_DIALECT[dialect]


def paths() -> list[str]:
    return [codec.path for codec in CODECS]


__all__ = [
    "ANTHROPIC_MESSAGES",
    "CODECS",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "DialectCodec",
    "ReplyIds",
    "SseEvent",
    "WireFormatError",
    "by_dialect",
    "by_path",
    "paths",
]
