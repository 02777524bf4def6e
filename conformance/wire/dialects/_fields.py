"""JSON-shape checks the dialect parsers share, each raising WireFormatError(field, problem).

One place for them so the three dialects refuse the same mistake with the same words.
A `problem` argument lets a dialect keep the wording its own tests and users already see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _strict_json as strict_json
from ..ir import ToolSpec
from ._base import WireFormatError


def obj(value: Any, field: str, problem: str = "expected an object") -> dict[str, Any]:
    """`value` as a JSON object."""
    if not isinstance(value, dict):
        raise WireFormatError(field, problem)
    return value


def request_object(body: Any) -> dict[str, Any]:
    """The whole body as a JSON object; its field path is empty."""
    return obj(body, "", "expected a JSON object as the request body")


def string(value: Any, field: str, problem: str = "expected a string") -> str:
    """`value` as a string, empty allowed."""
    if not isinstance(value, str):
        raise WireFormatError(field, problem)
    return value


def non_empty(value: Any, field: str, problem: str = "expected a non-empty string") -> str:
    """`value` as a string with at least one character (names, ids, models)."""
    if not isinstance(value, str) or not value:
        raise WireFormatError(field, problem)
    return value


def required_str(container: dict[str, Any], key: str, where: str) -> str:
    """`container[key]` as a non-empty string, reported at `where.key`."""
    return non_empty(container.get(key), f"{where}.{key}")


def optional_str(value: Any, field: str) -> str:
    """A string that may be absent or null; absent reads as empty."""
    return "" if value is None else string(value, field)


def boolean(value: Any, field: str) -> bool:
    """`value` as a JSON boolean (null refused)."""
    if not isinstance(value, bool):
        raise WireFormatError(field, "expected a boolean")
    return value


def flag(value: Any, field: str) -> bool:
    """A boolean that may be absent or null (`stream`); absent reads as false."""
    return False if value is None else boolean(value, field)


def optional_array(value: Any, field: str, problem: str = "expected an array") -> list[Any]:
    """A list that may be absent or null; absent reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise WireFormatError(field, problem)
    return value


PartText = Callable[[dict[str, Any], str, str], str | None]


def content_text(
    value: Any, field: str, read: PartText, *, array: str, part_problem: str = "expected an object"
) -> tuple[str, tuple[str, ...]]:
    """(text parts joined by newline, omitted part types) of OpenAI content, a string or an
    array of parts: `read(part, type, field)` gives a part's text, None to omit it, or refuses
    it; `array` is what the dialect calls the array when it refuses anything else."""
    if isinstance(value, str):
        return value, ()
    if not isinstance(value, list):
        raise WireFormatError(field, f"expected a string or {array} of content parts")
    texts: list[str] = []
    omitted: list[str] = []
    for j, raw_part in enumerate(value):
        where = f"{field}.{j}"
        part = obj(raw_part, where, part_problem)
        kind = string(part.get("type"), f"{where}.type", "expected a content part type string")
        text = read(part, kind, where)
        if text is None:
            omitted.append(kind)
        else:
            texts.append(text)
    return "\n".join(texts), tuple(omitted)


def json_or_raw(text: str) -> Any:
    """Parsed JSON when it is JSON a recording can keep (see `_strict_json`); the raw string
    otherwise, so a law can still see it."""
    try:
        return strict_json.loads(text)
    except strict_json.JsonRefusal:
        return text


def function_spec(spec: dict[str, Any], field: str) -> ToolSpec:
    """An OpenAI-style function tool: name, optional description and JSON Schema parameters."""
    description = optional_str(spec.get("description"), f"{field}.description")
    parameters = spec.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        raise WireFormatError(f"{field}.parameters", "expected a JSON Schema object")
    return ToolSpec(
        name=non_empty(spec.get("name"), f"{field}.name"),
        description=description,
        parameters=parameters or {},
    )
