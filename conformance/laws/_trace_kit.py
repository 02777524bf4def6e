"""The trace tool, as the scripted model uses it: what a self-explain runtime declares,
calls matching the schema it offers, and consultations that read the tool's answers.

A real trace tool may answer only an informed call: the first call lists what can be
asked (run ids, section names) and a second, naming one, gets the trace. A model reads
the answer and asks again; so does `consulting`, so a law judges what the trace says,
not the script's ignorance of the arguments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from ..adapter import Capability, Implementation, declaration_of
from ..wire import React, RequestIR, Text, ToolCalls, text, tool_call

CONSULT_BUDGET = 2
"""Calls one consultation may make: the first, with the schema's defaults, then one
informed by its answer. Kept small: a runtime caps a turn's tool rounds, and a trace
tool that improvises must not run the turn into that cap instead of being judged."""


def trace_tool_of(implementation: Implementation) -> str:
    """The tool a self-explain agent offers its model; naming it is part of declaring it."""
    name = declaration_of(implementation).trace_tool
    if name is None:
        pytest.fail(
            f"{implementation.name} declares {Capability.SELF_EXPLAIN.value} but names no "
            "trace tool: set `trace_tool` on the Implementation (or in the stdio `start` "
            "reply) to the name of the tool its model calls to read the trace"
        )
    return name


def trace_activation_of(implementation: Implementation) -> str | None:
    """The tool the model calls first, in each run, before the runtime offers its trace
    tool (`trace_activation`); None when the trace tool is offered from the start."""
    return declaration_of(implementation).trace_activation


def value_for(schema: Any) -> Any:
    """A value a JSON Schema accepts, for a call the scripted model makes: a const, the
    first enum member, the default, or the least value of the type."""
    if not isinstance(schema, dict):
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return value_for(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        return "why".ljust(int(schema.get("minLength", 0)), ".")
    if kind in ("integer", "number"):
        return schema.get("minimum", 1 if "exclusiveMinimum" in schema else 0)
    if kind == "boolean":
        return False
    if kind == "array":
        return [value_for(schema.get("items", {})) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: value_for(properties.get(name, {})) for name in schema.get("required", [])}
    return None


def _schema_of(request: RequestIR, tool: str) -> dict[str, Any] | None:
    offered = next((t for t in request.tools if t.name == tool), None)
    return offered.parameters if offered is not None else None


def _defaults(schema: dict[str, Any] | None) -> dict[str, Any]:
    arguments = value_for(schema) if schema is not None else {}
    return arguments if isinstance(arguments, dict) else {}


def calling(tool: str) -> React:
    """A model step that calls `tool` with arguments matching the schema the request
    offered it with (`{}` when it takes none, or when it was not offered at all, which
    the law then reports)."""

    def call(request: RequestIR) -> ToolCalls:
        return tool_call(tool, _defaults(_schema_of(request, tool)))

    return React(fn=call, label=f"call {tool}")


def trace_results(request: RequestIR, tool: str) -> list[str]:
    """What the model was shown for each of its calls to `tool`, in call order."""
    calls = [c.id for m in request.messages for c in m.tool_calls if c.name == tool]
    shown = {m.tool_call_id: m.text for m in request.messages if m.role == "tool"}
    return [shown.get(call_id, "") for call_id in calls]


_QUOTED = re.compile(r"""["'`]([^"'`\n]{1,64})["'`]""")
_LISTED = re.compile(r":\s*([^:\n]{1,400})$", re.MULTILINE)


def offered_values(answer: str) -> list[str]:
    """What an answer offers to be asked for, in the order a reader meets it: the strings
    of a JSON answer; else the items listed after a colon ("sections: tools, router",
    "completed runs: run-3f2a") and quoted names."""
    try:
        decoded = json.loads(answer)
    except ValueError:
        decoded = None
    found: list[str] = []
    if isinstance(decoded, dict | list):
        found = _strings(decoded)
    else:
        for listed in _LISTED.findall(answer):
            found += [item.strip(" .;'\"`") for item in re.split(r"[,;]|\bor\b", listed)]
        found += _QUOTED.findall(answer)
    seen: list[str] = []
    for value in found:
        if value and len(value) <= 64 and value not in seen:
            seen.append(value)
    return seen


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *_strings(v)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _turn_calls(request: RequestIR, tool: str) -> list[tuple[dict[str, Any], str]]:
    """This turn's calls of `tool` (since the last user message), with their results."""
    start = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=-1)
    shown = {m.tool_call_id: m.text for m in request.messages[start + 1 :] if m.role == "tool"}
    return [
        (c.arguments if isinstance(c.arguments, dict) else {}, shown.get(c.id, ""))
        for m in request.messages[start + 1 :]
        for c in m.tool_calls
        if c.name == tool
    ]


def _grouped(
    calls: list[tuple[dict[str, Any], str]], until: Callable[[str], bool]
) -> list[list[tuple[dict[str, Any], str]]]:
    """Calls split into consultations: each ends at an answer `until` accepts, or after
    CONSULT_BUDGET calls."""
    groups: list[list[tuple[dict[str, Any], str]]] = [[]]
    for call in calls:
        groups[-1].append(call)
        if until(call[1]) or len(groups[-1]) == CONSULT_BUDGET:
            groups.append([])
    return groups


def consulting(tool: str, *, times: int, until: Callable[[str], bool], answer: str) -> list[React]:
    """The model consulting `tool` `times` times in one turn, then answering `answer`.

    Each consultation calls the tool with the schema's defaults; when the answer is not
    one `until` accepts, it calls again with the first argument set to a value the answer
    offered (`offered_values`), at most CONSULT_BUDGET calls in all. The
    steps returned are enough for the longest consultations; those not needed are never
    asked for, so script them with `allow_unused` and a `when` of the turn's own."""

    def step(request: RequestIR) -> Text | ToolCalls:
        groups = _grouped(_turn_calls(request, tool), until)
        current = groups[-1]
        if len(groups) - 1 >= times:
            return text(answer)
        arguments = _defaults(_schema_of(request, tool))
        if current:
            tried = {str(v) for args, _ in current for v in args.values()}
            fresh = [v for v in offered_values(current[-1][1]) if v not in tried]
            if not fresh:
                return text(answer)  # nothing left to ask for: the law judges what it got
            name = next(iter(arguments), None) or "query"
            arguments = {**arguments, name: fresh[0]}
        return tool_call(tool, arguments)

    label = f"consult {tool}"
    return [React(fn=step, label=label) for _ in range(times * CONSULT_BUDGET + 1)]


def consultations(request: RequestIR, tool: str, until: Callable[[str], bool]) -> list[str]:
    """The answer each consultation of `tool` in the request's last turn ended on: what
    the model was finally told, the one a law judges."""
    return [group[-1][1] for group in _grouped(_turn_calls(request, tool), until) if group]
