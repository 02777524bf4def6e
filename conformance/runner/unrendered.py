"""A failure whose traceback pytest cannot render is still reported, and the run goes on.

pytest renders a failing test's traceback while it makes the test's report: it parses
each frame's source (`ast.parse`) to show the failing statement. On CPython 3.11.7 that
parse can raise `SystemError: AST constructor recursion depth mismatch` (gh-106905),
which escapes the report hook: pytest stops with INTERNALERROR, and every law after the
failing test goes unjudged. The same holds for any other error while rendering.

This hook wraps pytest's own report-making (innermost, so every other wrapper, the
runner's collector among them, sees an ordinary report): when making the report of a
failed phase raises, it builds the report itself, with the failure's message (the
exception's type and text, clipped) in place of the traceback, and says why.
"""

from __future__ import annotations

from typing import Any

import pytest

MESSAGE_LIMIT = 4000
"""Characters of the exception's text kept in its place (a report, not a dump)."""


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    try:
        return (yield)
    except Exception as rendering:
        if call.excinfo is None:
            raise  # nothing failed: a bug of its own, not a failure to render
        return unrendered_report(item, call, rendering)


def unrendered_report(
    item: pytest.Item, call: pytest.CallInfo[None], rendering: BaseException
) -> pytest.TestReport:
    """The report pytest would have made of a failed phase, its traceback replaced by the
    failure's message and the reason it could not be rendered."""
    assert call.excinfo is not None
    error = call.excinfo.value
    skipped = isinstance(error, pytest.skip.Exception)
    longrepr: tuple[str, int, str] | str = (
        (str(item.path), item.location[1] or 0, _said(error))
        if skipped
        else _text(error, rendering)
    )
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "skipped" if skipped else "failed",
        longrepr,
        call.when,  # type: ignore[arg-type]  # a test phase: never "collect" here
        [(f"Captured {key} {when}", content) for when, key, content in item._report_sections],
        call.duration,
        call.start,
        call.stop,
        item.user_properties,
    )


def _text(error: BaseException, rendering: BaseException) -> str:
    lines = [f"E   {line}" for line in _said(error).splitlines() or [""]]
    lines.append(
        f"E   (turnlaw: pytest could not render this failure's traceback "
        f"({type(rendering).__name__}: {_clip(_safe_str(rendering), 300)}); the failure's "
        "own message is above)"
    )
    return "\n".join(lines)


def _said(error: BaseException) -> str:
    """`Type: message`, clipped; the type alone when even its text cannot be had."""
    name = type(error).__name__
    text = _safe_str(error)
    return f"{name}: {_clip(text, MESSAGE_LIMIT)}" if text else name


def _safe_str(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # an exception whose own __str__ fails: its type must do
        return ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more)"
