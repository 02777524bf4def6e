"""Volatile values in a recording, rewritten so that two runs export the same bytes.

Secrets go first (the shared Redactor), then fixed literals (the provider's base URL becomes
`<provider>`), then values numbered by first appearance within one export: `<uuid-1>` is
the same id wherever it appears and `<uuid-2>` a different one, so a snapshot still shows
whether a runtime reused an id — which is often exactly what a law is about. One
Normalizer is used for one export, or for one incremental log file from its first line to
its last, so the numbering of the file and of the full export agree.
"""

from __future__ import annotations

import re
from typing import Any

from ..redaction import Redactor

_NUMBERED = [
    (
        "uuid",
        re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    ),
    (
        "timestamp",
        re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
    ),
    # dashless hex ids (uuid4().hex, run ids): 12+ hex digits with a digit and a letter
    ("hex", re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b")),
]
_PORT = re.compile(r"(?<![\w.])(127\.0\.0\.1|localhost|\[::1\]):\d{2,5}\b")


class Normalizer:
    """Rewrite volatile values inside every string (and key) of a JSON-like value."""

    def __init__(self, redactor: Redactor, literals: dict[str, str]) -> None:
        self._redactor = redactor
        self._literals = sorted(literals.items(), key=lambda item: len(item[0]), reverse=True)
        self._seen: dict[str, dict[str, str]] = {kind: {} for kind, _ in _NUMBERED}

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def text(self, text: str) -> str:
        text = self._redactor.scrub_text(text)
        for literal, replacement in self._literals:
            if literal in text:
                text = text.replace(literal, replacement)
        for kind, pattern in _NUMBERED:
            seen = self._seen[kind]

            def number(match: re.Match[str], kind: str = kind, seen: dict[str, str] = seen) -> str:
                return seen.setdefault(match.group(0), f"<{kind}-{len(seen) + 1}>")

            text = pattern.sub(number, text)
        if ":" in text:
            text = _PORT.sub(r"\1:<port>", text)
        return text
