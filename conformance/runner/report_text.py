"""How a law's outcome reads in a report a person opens: a failure's own message, whole,
and text that survives a Markdown table cell.

The results record keeps pytest's `E` lines, clipped the same way on every machine; a
report shows instead what the check said, because that is the sentence that explains
the verdict (a clipped one ends mid-word, before the part that says which message
reached the model).
"""

from __future__ import annotations

from typing import Any

import pytest


def failure_message(excinfo: Any) -> str:
    """What the failed check said: an assertion's message (with pytest's explanation of
    the compared values), a `pytest.fail`'s reason, or any other error's type and text
    (a fake's refusal the runtime raised as its own error). Empty without an error."""
    error = getattr(excinfo, "value", None)
    if not isinstance(error, BaseException):
        return ""
    if isinstance(error, pytest.fail.Exception):
        return str(error.msg)
    if isinstance(error, AssertionError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def markdown_cell(text: str) -> str:
    """`text` inside one cell of a Markdown table: its lines kept as `<br>`, and nothing a
    renderer would take for markup (a `|` ends the cell; a `<...>` repr is an HTML tag a
    renderer hides)."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = escaped.replace("|", "\\|")
    lines = [line.rstrip() for line in escaped.strip().splitlines()]
    return "<br>".join(line for line in lines if line)
