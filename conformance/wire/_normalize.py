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

# What the runtime sent is scrubbed of secrets and numbered in full; the record's own
# structure (its field names, the dialect, the step the fake chose, finding kinds, the IR's
# field names and roles) is only numbered: a secret that happens to be "messages" must not
# rewrite the shape of the record.
_RUNTIME = frozenset({"method", "path", "body", "aborted"})
_IR_TEXT = frozenset(
    {"model", "system", "text", "id", "name", "description", "tool_call_id", "omitted_parts"}
)
_IR_DATA = frozenset({"arguments", "parameters"})


class Normalizer:
    """Rewrite volatile values inside every string (and key) of a JSON-like value."""

    def __init__(self, redactor: Redactor, literals: dict[str, str]) -> None:
        self._redactor = redactor
        self._literals = sorted(literals.items(), key=lambda item: len(item[0]), reverse=True)
        self._seen: dict[str, dict[str, str]] = {kind: {} for kind, _ in _NUMBERED}

    def record(self, record: dict[str, Any]) -> dict[str, Any]:
        """One exported exchange (see `wirelog._exchange_record`), structure kept."""
        normalized: dict[str, Any] = {}
        for key, value in record.items():
            if key in _RUNTIME:
                normalized[key] = self.value(value)
            elif key == "headers":
                normalized[key] = {name: self.value(v) for name, v in value.items()}
            elif key == "ir":
                normalized[key] = self._request(value)
            elif key == "findings":
                normalized[key] = [
                    {k: self.text(v) if k == "message" else v for k, v in finding.items()}
                    for finding in value
                ]
            else:
                normalized[key] = self.value(value, secrets=False)
        return normalized

    def _request(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: self.value(v) if key in _IR_TEXT or key in _IR_DATA else self._request(v)
                for key, v in value.items()
            }
        if isinstance(value, list):
            return [self._request(v) for v in value]
        return self.value(value, secrets=False)

    def value(self, value: Any, *, secrets: bool = True) -> Any:
        if isinstance(value, str):
            return self.text(value, secrets=secrets)
        if isinstance(value, dict):
            return {
                self.text(str(k), secrets=secrets): self.value(v, secrets=secrets)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(v, secrets=secrets) for v in value]
        return value

    def text(self, text: str, *, secrets: bool = True) -> str:
        if secrets:
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
