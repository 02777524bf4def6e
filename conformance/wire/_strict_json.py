"""JSON as a recording can keep it: whatever this accepts, every later stage can carry.

`json.loads` accepts input that breaks a recording later, after the request was answered:
lone surrogate escapes (`"\\ud800"`, which JavaScript runtimes emit, become a str that
cannot be written as UTF-8), NaN/Infinity (not JSON) and numbers a double cannot hold
(`1e400` becomes inf and is exported as `Infinity`), nesting deep enough that a recursive
stage (the pretty export, pydantic, a repro file, syrupy) gives up, and bytes in UTF-16 or
with UTF-8-encoded surrogates. Each is refused here with the problem and where (`$.a[0]`),
as the real APIs refuse them (Anthropic: "no low surrogate in string").

Duplicate keys keep the last value, as every mainstream parser (and so the real APIs) do.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_JSON_DEPTH = 64
"""Containers may nest this deep. Real requests nest far less (a tool's JSON Schema a dozen
levels); every later stage carries several times more (pydantic refuses past ~200)."""

_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_rejections = 0  # how many values the hooks below refused, ever: a changed count is a hint
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN_PATH = 8


class JsonRefusal(ValueError):
    """JSON that is refused: `problem` says what, `path` where (empty when unknown)."""

    def __init__(
        self, problem: str, path: tuple[str | int, ...] = (), document: Any = None
    ) -> None:
        self.problem = problem
        self.path = path
        self.document = document  # what parsed, when the problem was found after parsing
        where = f" at {format_path(path)}" if path else ""
        super().__init__(problem + where)


def format_path(path: tuple[str | int, ...]) -> str:
    """`$.messages[0].content`; keys that are not plain names are quoted; long paths elided."""
    parts = [_step(part) for part in path]
    if len(parts) > _SHOWN_PATH + 2:
        parts = [*parts[:_SHOWN_PATH], f"…({len(parts) - _SHOWN_PATH - 1} more)", parts[-1]]
    return "$" + "".join(parts)


def _step(part: str | int) -> str:
    if isinstance(part, int):
        return f"[{part}]"
    if part.isidentifier() and part.isascii():
        return "." + part
    return "[" + json.dumps(part)[:80] + "]"  # ensure_ascii: a surrogate never leaves here


class _Rejected:
    """Stands in for a value the decoder refused, until the walk finds where it is."""

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem = problem


def loads(data: bytes | str) -> Any:
    """Parse `data` (UTF-8 bytes or text) or raise JsonRefusal naming the problem.

    The common case costs one `json.loads` plus two C-speed passes over the text; the walk
    over the parsed value runs only when those, or the hooks, say it might find something.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonRefusal(f"not UTF-8: byte {error.start} cannot be decoded") from None
        suspicious = b"\\u" in data and _SURROGATE_ESCAPE_BYTES.search(data) is not None
        skeleton = data.translate(None, _NOT_BRACKETS)
    else:
        text = data
        suspicious = ("\\u" in data and _SURROGATE_ESCAPE.search(data) is not None) or (
            has_lone_surrogate(data)
        )
        skeleton = data.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    before = _rejections
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise JsonRefusal(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        raise JsonRefusal(f"not valid JSON: {error}") from None
    except ValueError as error:  # int() of a number longer than Python's digit limit
        raise JsonRefusal(f"a number that is too long: {str(error)[:80]}") from None
    suspicious = suspicious or _rejections != before  # ours, or another thread's: a walk
    if suspicious or not (_shallow_text(skeleton) or _shallow(value)):
        problem = _first_problem(value)
        if problem is not None:
            problem.document = value
            raise problem
    return value


def _constant(name: str) -> _Rejected:
    global _rejections
    _rejections += 1
    return _Rejected(f"{name} is not JSON (the real API refuses it too)")


def _float(literal: str) -> float | _Rejected:
    value = float(literal)
    if math.isinf(value):
        global _rejections
        _rejections += 1
        return _Rejected(f"number {literal[:40]} is out of range for a double")
    return value


# Built once: json.loads builds a new decoder on every call that passes hooks.
_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_float)


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a surrogate code point (a str from JSON holds only lone ones)."""
    return not text.isascii() and _LONE_SURROGATE.search(text) is not None


def _shallow_text(skeleton: bytes) -> bool:
    """True when the brackets of the text (`[]{}` only, strings not skipped) surely nest no
    deeper than MAX_JSON_DEPTH. Each pass drops at least one level and at most two (one of
    `[]`, one of `{}`), so a skeleton gone in MAX_JSON_DEPTH/2 passes is shallow enough;
    one that is not (or brackets inside strings) falls back to walking the parsed value."""
    if len(skeleton) <= MAX_JSON_DEPTH:
        return True
    for _ in range(MAX_JSON_DEPTH // 2):
        skeleton = skeleton.replace(b"[]", b"").replace(b"{}", b"")
        if not skeleton:
            return True
    return False


def _shallow(value: Any) -> bool:
    """True when no container nests deeper than MAX_JSON_DEPTH: one pass per level."""
    level = [value] if type(value) is dict or type(value) is list else []
    for _ in range(MAX_JSON_DEPTH):
        children: list[Any] = []
        for item in level:
            children.extend(item.values() if type(item) is dict else item)
        level = [c for c in children if type(c) is dict or type(c) is list]
        if not level:
            return True
    return not level


def _first_problem(value: Any) -> JsonRefusal | None:
    """The first refused value in document order, with its path (slow: error path only)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Rejected):
            return JsonRefusal(item.problem, path)
        if isinstance(item, str):
            if (found := _LONE_SURROGATE.search(item)) is not None:
                return _lone(found.group(), path)
            continue
        if not isinstance(item, dict | list):
            continue
        if len(path) >= MAX_JSON_DEPTH:
            return JsonRefusal(f"nested deeper than {MAX_JSON_DEPTH} levels", path)
        if isinstance(item, dict):
            for key in item:
                if (found := _LONE_SURROGATE.search(key)) is not None:
                    return _lone(found.group(), (*path, key))
            stack.extend((child, (*path, key)) for key, child in reversed(item.items()))
        else:
            stack.extend(
                (child, (*path, index)) for index, child in reversed(list(enumerate(item)))
            )
    return None


def _lone(char: str, path: tuple[str | int, ...]) -> JsonRefusal:
    return JsonRefusal(
        f"lone surrogate \\u{ord(char):04x} in a string (no UTF-8 form; the real API "
        "refuses it too: 'no low surrogate in string')",
        path,
    )
