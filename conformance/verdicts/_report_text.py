"""How a law's outcome reads: in a record, a report's text clipped the same on every
machine; in a report a person opens, a failure's own message, whole, and text that
survives a Markdown table cell.

The results record keeps pytest's `E` lines, clipped the same way on every machine; a
report shows instead what the check said, because that is the sentence that explains
the verdict (a clipped one ends mid-word, before the part that says which message
reached the model).
"""

from __future__ import annotations

from typing import Any


def markdown_cell(text: str) -> str:
    """`text` inside one cell of a Markdown table: its lines kept as `<br>`, and nothing a
    renderer would take for markup (a `|` ends the cell; a `<...>` repr is an HTML tag a
    renderer hides)."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = escaped.replace("|", "\\|")
    lines = [line.rstrip() for line in escaped.strip().splitlines()]
    return "<br>".join(line for line in lines if line)


def report_reason(longrepr: Any) -> str:
    """A report's text; a skip's is pytest's `(path, line, reason)`, of which only the
    reason belongs in a results file: the path is this machine's checkout, and the line
    moves with every edit of the plugin."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def clipped_failure(longrepr: str, head: int = 4, tail: int = 4) -> str:
    """A FAIL's evidence: the assertion's own message first, then the report's end.

    The message leads the `E` lines and Hypothesis' falsifying example closes them. The
    middle (a diff) is dropped here rather than by pytest, whose own truncation is off
    under CI: the record must read the same on a laptop and in CI.
    """
    lines = [line for line in longrepr.splitlines() if line.strip()]
    picked = [line for line in lines if line.lstrip().startswith("E ")] or lines
    if len(picked) <= head + tail:
        return "\n".join(picked)
    elided = f"E       ... {len(picked) - head - tail} lines elided (see pytest's own report)"
    return "\n".join([*picked[:head], elided, *picked[-tail:]])
