"""Addressing the places inside a JSON-like value, for strategies that break one of them."""

from __future__ import annotations

from typing import Any

JsonPath = tuple[Any, ...]
"""Keys and indexes from the top of a value down to one place in it; `()` is the value."""


def paths(value: Any, depth: int = 12) -> list[JsonPath]:
    """Every path into `value`, down to `depth` levels (mutations nest far deeper)."""
    found: list[JsonPath] = []
    pending: list[tuple[Any, JsonPath]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        found.append(path)
        if len(path) >= depth:
            continue
        if isinstance(item, dict):
            pending += [(child, (*path, key)) for key, child in item.items()]
        elif isinstance(item, list):
            pending += [(child, (*path, index)) for index, child in enumerate(item)]
    return found


def value_at(value: Any, path: JsonPath) -> Any:
    for part in path:
        value = value[part]
    return value


def replaced(value: Any, path: JsonPath, leaf: Any) -> Any:
    """`value` with the place at `path` set to `leaf` (in place; the leaf itself at `()`)."""
    if not path:
        return leaf
    value_at(value, path[:-1])[path[-1]] = leaf
    return value
