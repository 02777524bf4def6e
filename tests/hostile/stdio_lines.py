"""Hypothesis strategies for lines an adapter might write on stdout: bytes, JSON of every
shape, replies with wrong types, deep nesting, huge numbers, lone surrogates, and
replies that are right, for the waiting request, so that acceptance is tried too."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from pydantic import ValidationError

from conformance._unicode_text import unicode_text
from conformance.adapter import AGENT, AgentSpec, Capability, RefusalKind, Refused
from conformance.errors import AdapterProtocolError, AdapterReportedError
from conformance.stdio import protocol as p
from conformance.stdio._reply_line import LENIENT_RESULTS
from conformance.wire.ir import Dialect

WAITING = 7
"""The seq of the request each generated line is an answer to, or not."""

TYPED = (AdapterProtocolError, AdapterReportedError, Refused)
"""The errors a reply line may end in: the connector refusing it, or the reply's own."""

OPS = ("start", *(op.op for op in AGENT.ops()), "stop")
"""Every op a request may carry: the agent surface's table, between `start` and `stop`."""

SPEC = AgentSpec(base_url="http://127.0.0.1:9/v1", api_key="sk-not-used-0000")
"""The agent every generated request creates: the address answers nothing."""


def right_request(op: str, seq: int) -> dict[str, Any]:
    """A valid request for `op` (as JSON data), with agent `a1` open; `agent.create` opens `a2`."""
    fields: dict[str, Any] = {
        "start": {"version": 1},
        "agent.create": {"agent": "a2", "spec": SPEC.model_dump(mode="json")},
        "run": {"agent": "a1", "message": "hi"},
        "follow_up": {"agent": "a1", "message": "more"},
        "resume": {"agent": "a1", "checkpoint": {"t": 1}, "decision": "approved"},
        "stop": {},
    }
    return {"op": op, "seq": seq, **fields.get(op, {"agent": "a1"})}


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included: json.dumps writes them as NaN, Infinity
    | unicode_text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(unicode_text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)

wrong_scalars = st.sampled_from(
    ["7", 7.0, True, False, None, -1, 2**53, 10**30, "", [], {}, "ok", 1e400]
)
seqs = st.one_of(st.just(WAITING), st.integers(-3, 20), wrong_scalars)

pending = st.fixed_dictionaries(
    {
        "tool_name": unicode_text(max_size=5),
        "tool_call_id": unicode_text(max_size=5),
        "question": unicode_text(max_size=5),
    }
)
outcomes = st.fixed_dictionaries(
    {},
    optional={
        "answer": st.none() | unicode_text(max_size=10) | wrong_scalars,
        "paused": st.none() | pending | wrong_scalars,
        "checkpoint": json_values,
    },
)
starts = st.fixed_dictionaries(
    {
        "implementation": st.fixed_dictionaries(
            {"name": st.sampled_from(["x", ""]) | wrong_scalars, "language": st.just("go")}
        )
        | wrong_scalars,
        "capabilities": st.lists(st.sampled_from([c.value for c in Capability] + ["teleport", 1])),
    },
    optional={
        "dialects": st.lists(st.sampled_from([d.value for d in Dialect] + ["smoke-signals"])),
        "trace_tool": st.none() | unicode_text(max_size=5) | wrong_scalars,
    },
)
identities = st.none() | st.fixed_dictionaries(
    {
        "conversation_id": unicode_text(max_size=5) | wrong_scalars,
        "source": st.sampled_from(["explicit", "carried", "session", "run", "guess", 1]),
    }
)
results = st.one_of(
    st.none(),
    st.booleans(),
    outcomes,
    starts,
    identities,
    pending,
    json_values,
    wrong_scalars,
)


@st.composite
def replies(draw: st.DrawFn) -> dict[str, Any]:
    """A reply-shaped object, right or wrong in any of its fields."""
    status = draw(st.sampled_from(["ok", "ok", "refused", "error", "maybe", 1, None, ["ok"]]))
    reply: dict[str, Any] = {"seq": draw(seqs), "status": status}
    if status == "ok" or draw(st.booleans()):
        reply["result"] = draw(results)
    if status == "refused" or draw(st.integers(0, 4)) == 0:
        reply["kind"] = draw(st.sampled_from([k.value for k in RefusalKind] + ["nope", 3]))
    if status in ("refused", "error") or draw(st.integers(0, 4)) == 0:
        reply["message"] = draw(unicode_text(max_size=10) | wrong_scalars)
    if status == "error" and draw(st.booleans()):
        reply["traceback"] = draw(unicode_text(max_size=10) | wrong_scalars)
    if draw(st.integers(0, 5)) == 0:
        reply[draw(unicode_text(max_size=6))] = draw(json_values)  # a field v1 does not know
    for field in draw(st.lists(st.sampled_from(sorted(reply)), max_size=2)):
        reply.pop(field, None)
    return reply


def right_results(op: str) -> st.SearchStrategy[Any]:
    """A result `op` may answer with."""
    text = unicode_text(max_size=10)
    plain = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=10,
    )
    right_pending = st.fixed_dictionaries(
        {"tool_name": text, "tool_call_id": text, "question": text}
    )
    outcome = st.fixed_dictionaries(
        {"answer": st.none() | text, "paused": st.none() | right_pending, "checkpoint": plain}
    )
    by_op: dict[str, st.SearchStrategy[Any]] = {
        "start": st.fixed_dictionaries(
            {
                "implementation": st.fixed_dictionaries(
                    {"name": st.just("x"), "language": st.just("go")}
                ),
                "capabilities": st.lists(st.sampled_from(list(Capability)).map(str), unique=True),
                "dialects": st.lists(
                    st.sampled_from(list(Dialect)).map(str), min_size=1, unique=True
                ),
            }
        ),
        "run": outcome,
        "follow_up": outcome,
        "resume": outcome,
        "checkpoint": plain,
        "abandon_pause": st.none() | right_pending,
        "can_explain": st.booleans(),
        "last_identity": st.none()
        | st.fixed_dictionaries(
            {
                "conversation_id": text,
                "source": st.sampled_from(["explicit", "carried", "session", "run"]),
            }
        ),
    }
    return by_op.get(op, st.none())


@st.composite
def right_replies(draw: st.DrawFn, op: str) -> dict[str, Any]:
    """A right reply to `op` (seq WAITING), sometimes with one field of the wrong type."""
    status = draw(st.sampled_from(["ok", "ok", "ok", "refused", "error"]))
    reply: dict[str, Any] = {"seq": WAITING, "status": status}
    if status == "ok":
        reply["result"] = draw(right_results(op))
    elif status == "refused":
        reply["kind"] = draw(st.sampled_from(list(RefusalKind)).map(str))
        reply["message"] = draw(unicode_text(max_size=10))
    else:
        reply["message"] = draw(unicode_text(max_size=10))
        reply["traceback"] = draw(unicode_text(max_size=10))
    if draw(st.booleans()):
        field = draw(st.sampled_from(["seq", *sorted(reply)]))  # seq: the one most at stake
        if field == "result" and isinstance(reply["result"], dict) and reply["result"]:
            inner = draw(st.sampled_from(sorted(reply["result"])))
            reply["result"] = {**reply["result"], inner: draw(wrong_scalars)}
        else:
            reply[field] = draw(wrong_scalars)
    return reply


def deep(depth: int, opener: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * depth + "0" * (opener != "[") + closer * depth


@st.composite
def deep_lines(draw: st.DrawFn) -> bytes:
    depth = draw(st.integers(190, 210) | st.sampled_from([1_000, 200_000]))
    body = deep(depth, draw(st.sampled_from(["[", '{"a":'])))
    if draw(st.booleans()):
        body = f'{{"seq": {WAITING}, "status": "ok", "result": {body}}}'
    return body.encode()


ODD_VALUES = [
    b'"\\ud800"',
    b'"\\udc00x"',
    b'"\\ud83d\\ude00"',  # a valid pair: fine
    b'"\xff\xfe"',
    b'"\xed\xa0\x80"',  # a surrogate, UTF-8 encoded: not UTF-8
    b'"a\x00b"',
    b"1e400",
    b"-1e400",
    b"NaN",
    b"Infinity",
    b"1" * 4_000,
    b"1" * 5_000,
    b"-0",
    b"1E2",
]
ODD_PLACES = [
    b'{"seq": ODD, "status": "ok", "result": null}',
    b'{"seq": 7, "status": "ok", "result": ODD}',
    b'{"seq": 7, "status": "ok", "result": {"answer": ODD, "checkpoint": [ODD]}}',
    b'{"seq": 7, "status": "error", "message": ODD}',
    b'{"seq": 7, "status": "refused", "kind": "mismatch", "message": ODD}',
]


@st.composite
def odd_text_lines(draw: st.DrawFn) -> bytes:
    """A reply whose strings or numbers cannot all be read as they are."""
    return draw(st.sampled_from(ODD_PLACES)).replace(b"ODD", draw(st.sampled_from(ODD_VALUES)))


def dumped(value: Any, ascii_only: bool) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", errors="surrogatepass")


@st.composite
def lines(draw: st.DrawFn, op: str) -> bytes:
    """One line of any of the kinds above (as an answer to `op`), sometimes cut short or
    with a byte flipped."""
    kind = draw(st.sampled_from(["bytes", "json", "reply", "right", "right", "deep", "odd"]))
    if kind == "right":
        line = dumped(draw(right_replies(op)), draw(st.booleans()))
    elif kind == "bytes":
        line = draw(st.binary(max_size=200))
    elif kind == "json":
        line = dumped(draw(json_values), draw(st.booleans()))
    elif kind == "reply":
        line = dumped(draw(replies()), draw(st.booleans()))
    elif kind == "deep":
        line = draw(deep_lines())
    else:
        line = draw(odd_text_lines())
    mutation = draw(st.sampled_from(["none"] * 6 + ["cut", "flip"]))
    if mutation == "cut" and line:
        line = line[: draw(st.integers(0, len(line) - 1))]
    elif mutation == "flip" and line:
        at = draw(st.integers(0, len(line) - 1))
        line = line[:at] + bytes([draw(st.integers(0, 255))]) + line[at + 1 :]
    return line


FIELDS = {
    "ok": {"seq", "status", "result"},
    "refused": {"seq", "status", "kind", "message"},
    "error": {"seq", "status", "message", "traceback"},
}
"""The fields of each reply (docs/adapter-protocol.md), as the oracle knows them."""


def strictly_valid(raw: bytes, op: str, validate: bool) -> bool:
    """Is `raw` a reply to `op` under the strictest reading (JSON-mode strict types)?"""
    try:
        data = json.loads(raw)
        if not validate and isinstance(data, dict) and isinstance(data.get("status"), str):
            fields = FIELDS.get(data["status"])  # lenient: unknown fields are dropped
            data = {k: v for k, v in data.items() if fields is None or k in fields}
        reply = p.REPLIES.validate_json(json.dumps(data), strict=True)
        if isinstance(reply, p.OkReply):
            results = p.RESULTS if validate else LENIENT_RESULTS
            results[op].validate_json(json.dumps(reply.result), strict=True)
    except (ValueError, ValidationError, RecursionError, TypeError):
        return False
    return reply.seq == WAITING
