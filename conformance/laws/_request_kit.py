"""What a request shows the model, read the way every law reads it.

A runtime shows the model a conversation in its own words: it may wrap a tool's output
in an object of its own, keep a checkpoint in its own shape, mint its own call ids. So a
law reads a request through these, judged on what the model was told, never on the
runtime's format.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from ..wire import Exchange, RequestIR


def _outputs_in(shown: str, depth: int = 4) -> list[Any]:
    """`shown` and what its JSON holds, nested values and JSON inside strings included (a
    runtime may wrap a tool's output: `{"result": "<output>"}`), down to `depth`."""
    found: list[Any] = [shown]
    if depth == 0:
        return found
    try:
        decoded = json.loads(shown)
    except ValueError:
        return found
    stack = [decoded]
    while stack:
        value = stack.pop()
        found.append(value)
        if isinstance(value, dict):
            stack += list(value.values())
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, str) and value != shown:
            found += _outputs_in(value, depth - 1)[1:]
    return found


def holds_output(shown: str, output: str) -> bool:
    """Does a tool result as shown to the model carry the tool's `output`: the text
    itself, or a value its JSON holds (a runtime may wrap the output in an object of its
    own)? Tool results are compared by this, in the laws and in their scripts' `when`s,
    so a runtime that wraps what its tools return is judged on what the model was told."""
    if shown == output:
        return True
    try:
        wanted: Any = json.loads(output)
    except ValueError:
        wanted = output
    return any(value in (output, wanted) for value in _outputs_in(shown))


def holds_outputs(shown: Sequence[str], outputs: Sequence[str]) -> bool:
    """`holds_output` for a list of tool results, pairwise and in order."""
    return len(shown) == len(outputs) and all(map(holds_output, shown, outputs))


def tool_results(request: RequestIR) -> list[str]:
    """Every tool result the request shows the model, as shown, in order."""
    return [m.text for m in request.messages if m.role == "tool"]


def whoami_report(shown: str) -> dict[str, Any] | None:
    """The catalog's whoami report in a tool result (`{"identity": ..., "session_id":
    ...}`), wrapped or not; None when the result holds none."""
    for value in _outputs_in(shown):
        if isinstance(value, dict) and {"identity", "session_id"} <= set(value):
            return value
    return None


def user_turns_in_a_row(request: RequestIR) -> list[int]:
    """The index of every user message that follows another user message: a turn kept
    without what answered it (a failed turn's message, or a dropped answer before it)."""
    roles = [m.role for m in request.messages]
    return [i for i in range(1, len(roles)) if roles[i] == roles[i - 1] == "user"]


def shown_anywhere(request: RequestIR, said: str, *, in_call_arguments: bool = False) -> bool:
    """Is `said` shown to the model: in the system prompt or a message's text, and with
    `in_call_arguments` also in a tool call's arguments (where a folded span may put it)."""
    return (
        said in request.system
        or any(said in m.text for m in request.messages)
        or (
            in_call_arguments
            and any(said in str(c.arguments) for m in request.messages for c in m.tool_calls)
        )
    )


def strings_in(data: Any) -> list[str]:
    """Every string anywhere in a JSON value, keys too: a runtime records a checkpoint in
    its own shape, so a law looks for what was said without knowing where it is kept."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for key, inner in data.items() for s in [str(key), *strings_in(inner)]]
    if isinstance(data, list | tuple):
        return [s for inner in data for s in strings_in(inner)]
    return []


def pairing_problems(request: RequestIR) -> list[str]:
    """Tool calls shown without their results, or results shown without their calls."""
    calls = {c.id for m in request.messages for c in m.tool_calls}
    results = {m.tool_call_id for m in request.messages if m.role == "tool"}
    return [f"call {c} without its result" for c in sorted(calls - results)] + [
        f"result for {r} without its call" for r in sorted(str(r) for r in results - calls)
    ]


def numbered_calls(exchanges: Sequence[Exchange]) -> list[Any]:
    """The raw request bodies with every tool-call id the model was shown numbered by
    first appearance: the fake mints them from its sequence number, so they differ
    between two otherwise equal conversations, and numbering them keeps the check that a
    call and its result still pair up. Everything else a runtime mints is learned from a
    control pair (`MintedValues`), not guessed."""
    names: dict[str, str] = {}
    for exchange in exchanges:
        assert exchange.ir is not None, f"request #{exchange.seq} was not a model request"
        for message in exchange.ir.messages:
            for call in message.tool_calls:
                names.setdefault(call.id, f"<call-{len(names) + 1}>")

    def value(item: Any) -> Any:
        if isinstance(item, str):
            return names.get(item, item)
        if isinstance(item, dict):
            return {key: value(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [value(inner) for inner in item]
        return item

    return [value(exchange.body) for exchange in exchanges]


def answers_to(request: RequestIR) -> Counter[str]:
    """How many tool results each call id got in one request."""
    return Counter(m.tool_call_id or "" for m in request.messages if m.role == "tool")


def is_summary_call(request: RequestIR, sent: Collection[str]) -> bool:
    """A compaction fold's model call: a request whose last user turn is not one of the
    messages the test `sent`."""
    users = request.user_texts()
    return not users or users[-1] not in sent
