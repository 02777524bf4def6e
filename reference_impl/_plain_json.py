"""Plain JSON: the values a stored conversation may hold, and reading them from text.

A checkpoint must survive any JSON store and come back equal, in this process or in
another language's. So its values follow I-JSON (RFC 7493) where that matters here:
text is valid Unicode (no lone surrogates, which UTF-8 cannot carry), numbers are
finite (JSON has no NaN or Infinity; a store writes them as null), an object names
each member once, and the only containers are objects and arrays. Two limits keep a
hostile document from costing more than it is worth: nesting (`MAX_DEPTH`) and the
size of an integer (`MAX_INT_BITS`, under what Python's own JSON codec will write).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, Final

MAX_DEPTH: Final = 64
"""Containers nested inside one document, the document itself included. A checkpoint's
own structure uses seven levels; the rest is for tool arguments."""

MAX_INT_BITS: Final = 14_000
"""About 4,200 decimal digits: below the 4,300 digits Python's int/str conversion (and
so `json`) refuses, on both sides of the wire."""

Path = tuple[str | int, ...]


class PlainJsonError(ValueError):
    """A value that is not plain JSON; `path` names where (keys and indexes)."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{dotted(path)}: {problem}")


def dotted(path: Path) -> str:
    return ".".join(str(part) for part in path) or "(document)"


def unicode_problem(text: str) -> str | None:
    """Why `text` cannot be written as UTF-8 (a lone surrogate), or None when it can."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"a lone surrogate (U+{ord(text[error.start]):04X}) at character {error.start}"
    return None


def check_plain(value: Any, path: Path = (), depth: int = 0) -> None:
    """Raise PlainJsonError at the first part of `value` that is not plain JSON.

    Iterative, so a value nested far past any limit costs a loop, not the stack.
    Tuples count as arrays: a model dumped in Python mode holds them. Every checkpoint
    a follow-up continues passes through here, so a quick pass over exact built-in
    types comes first; only a value it is unsure of gets the walk that names paths.
    """
    if type(value) in (dict, list, tuple) and _surely_plain(value, depth):
        return
    pending: list[tuple[Any, Path, int]] = [(value, path, depth)]
    while pending:
        item, where, level = pending.pop()
        if isinstance(item, str):
            problem = unicode_problem(item)
            if problem is not None:
                raise PlainJsonError(where, f"not valid Unicode text: {problem}")
        elif item is None or isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if item.bit_length() > MAX_INT_BITS:
                raise PlainJsonError(where, f"an integer over {MAX_INT_BITS} bits")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise PlainJsonError(where, f"{item} is not a JSON number")
        elif isinstance(item, dict | list | tuple):
            if level + 1 > MAX_DEPTH:
                raise PlainJsonError(where, f"nested deeper than {MAX_DEPTH} levels")
            pending.extend(reversed(list(_children(item, where, level + 1))))
        else:
            raise PlainJsonError(where, f"not a JSON value (a {type(item).__name__})")


_SCALARS: Final = frozenset({bool, type(None)})


def _surely_plain(value: Any, depth: int) -> bool:
    """True when `value` is plain JSON made of exact built-in types; False when unsure."""
    pending: list[tuple[Any, int]] = [(value, depth)]
    while pending:
        item, level = pending.pop()
        if level >= MAX_DEPTH:
            return False
        children = item.values() if type(item) is dict else item
        if type(item) is dict:
            for key in item:
                if type(key) is not str or (not key.isascii() and unicode_problem(key)):
                    return False
        for child in children:
            kind = type(child)
            if kind is str:
                if not child.isascii() and unicode_problem(child) is not None:
                    return False
            elif kind is dict or kind is list or kind is tuple:
                pending.append((child, level + 1))
            elif kind is int:
                if child.bit_length() > MAX_INT_BITS:
                    return False
            elif kind is float:
                if not math.isfinite(child):
                    return False
            elif kind not in _SCALARS:
                return False
    return True


def _children(item: Any, where: Path, level: int) -> Iterator[tuple[Any, Path, int]]:
    if isinstance(item, dict):
        for key, child in item.items():
            if not isinstance(key, str):
                raise PlainJsonError(where, f"an object key must be text, got {key!r}")
            problem = unicode_problem(key)
            if problem is not None:
                raise PlainJsonError(where, f"an object key is not valid Unicode: {problem}")
            yield child, (*where, key), level
    else:
        for index, child in enumerate(item):
            yield child, (*where, index), level


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for key, value in pairs:
        if key in members:
            raise PlainJsonError((), f"an object names the member {key!r} twice")
        members[key] = value
    return members


def parse_plain(text: str | bytes) -> Any:
    """JSON text (bytes must be UTF-8) to Python values, or PlainJsonError saying why not.

    NaN and Infinity literals are read as floats so `check_plain` can name where they
    are; a duplicate member, bad bytes, a huge integer literal or nesting deep enough
    to exhaust the parser's stack are refused here, for the whole document.
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text, object_pairs_hook=_unique_members)
    except PlainJsonError:
        raise
    except RecursionError as error:
        raise PlainJsonError((), f"nested deeper than {MAX_DEPTH} levels") from error
    except UnicodeDecodeError as error:
        problem = f"not UTF-8 text ({error.reason} at byte {error.start})"
        raise PlainJsonError((), problem) from error
    except ValueError as error:  # JSONDecodeError, and int literals past Python's limit
        raise PlainJsonError((), f"not valid JSON ({error})") from error
