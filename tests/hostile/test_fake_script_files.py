"""Fuzz `load_script_file`: a ScriptFileError, or a script that can be served.

Generated files are near-misses of real scripts (every step kind, every field, with
hostile values: non-finite and huge numbers, lone surrogates, header injection, deep
nesting, wrong types), whole random JSON documents and raw bytes. Whatever loads is then
played: each step answers a request, and every reply's status, headers and body must be
sendable as they are — a loaded script never fails at serving time.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.wire import ScriptedProvider, ScriptFileError, load_script_file
from conformance.wire._plan import RawRequest
from tests.hostile._fake_inputs import JSON_VALUES, NUMBERS, TEXTS
from tests.hostile.budget import fuzz_settings, judged

TARGET = "fake: load_script_file"
KINDS = ["text", "tool_calls", "fault", "stream_error", "hold", "react", "teleport"]
FIELDS = [
    "text",
    "delay",
    "label",
    "usage",
    "stop_reason",
    "calls",
    "status",
    "message",
    "body",
    "headers",
    "retry_after_ms",
    "after_events",
    "mode",
    "then",
]
HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
REQUEST = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]}).encode()

FIELD_VALUES = st.one_of(
    JSON_VALUES,
    NUMBERS,
    TEXTS,
    st.dictionaries(TEXTS, TEXTS, max_size=3),  # headers-like
    st.lists(st.fixed_dictionaries({"name": TEXTS, "arguments": JSON_VALUES}), max_size=2),
    st.fixed_dictionaries({"input_tokens": NUMBERS, "output_tokens": NUMBERS}),
)


VALID = [
    {"kind": "text", "text": "ok"},
    {"kind": "tool_calls", "calls": [{"name": "f", "arguments": {"a": 1}}]},
    {"kind": "fault", "status": 429, "headers": {"x-why": "scripted"}},
    {"kind": "stream_error", "mode": "event", "after_events": 1},
    {"kind": "hold", "then": {"kind": "text", "text": "held"}},
]
BOUNDARIES = {
    "delay": [0, 600, 600.5, 1e308, -0.0, 1e-300],
    "status": [399, 400, 599, 600, 200],
    "after_events": [0, 1_000_000, 1_000_001],
    "retry_after_ms": [None, 0, 600_000, 600_001],
    "headers": [{"x": "a\r\nb"}, {"Content-Length": "1"}, {"ok-name": "\u00e9"}, {"": "v"}],
    "usage": [{"input_tokens": 2**53 - 1}, {"input_tokens": 2**53}, {"output_tokens": -1}],
    "label": ["gate", "\ud800", ""],
}


@st.composite
def near_valid(draw: st.DrawFn) -> dict[str, Any]:
    """A valid step with one field set to a boundary or a hostile value."""
    step = json.loads(json.dumps(draw(st.sampled_from(VALID))))
    if draw(st.booleans()):
        name = draw(st.sampled_from(sorted(BOUNDARIES)))
        step[name] = draw(st.sampled_from(BOUNDARIES[name]))
    elif draw(st.booleans()):
        step[draw(st.sampled_from(FIELDS))] = draw(FIELD_VALUES)
    return step


@st.composite
def steps(draw: st.DrawFn, depth: int = 0) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON_VALUES)
    if draw(st.booleans()):
        return draw(near_valid())
    step: dict[str, Any] = {"kind": draw(st.sampled_from(KINDS))}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        if name == "then" and depth < 2:
            step[name] = draw(steps(depth + 1))
        else:
            step[name] = draw(FIELD_VALUES)
    if step["kind"] == "text" and "text" not in step and draw(st.booleans()):
        step["text"] = draw(TEXTS)
    return step


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.binary(max_size=80))
    if kind == 1:  # nesting deep enough to break a recursive parser
        depth = draw(st.integers(0, 3000))
        return ('[{"kind": "fault", "body": ' + "[" * depth + "]" * depth + "}]").encode()
    listed = draw(st.lists(steps(), max_size=4))
    if kind == 2:
        document: Any = listed
    elif kind == 3:
        document = {
            "version": draw(st.one_of(st.just(1), JSON_VALUES)),
            "scripts": [
                {
                    "name": draw(TEXTS),
                    "steps": listed,
                    "allow_unused": draw(st.booleans()),
                    "match": draw(st.one_of(st.just({}), JSON_VALUES)),
                }
            ],
        }
    else:
        document = draw(JSON_VALUES)
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


def play(path: Path) -> None:
    """Load, then answer one request per step; every reply must be sendable as it is."""
    script = load_script_file(path)
    provider = ScriptedProvider(allow_unused=True)
    provider.load(script)
    for _ in range(sum(len(spec.steps) for spec in script.scripts)):
        plan = provider.respond(RawRequest("POST", "/v1/chat/completions", [], REQUEST))
        assert 200 <= plan.status <= 599
        for name, value in plan.headers:
            assert HEADER_NAME.match(name), name
            value.encode("latin-1")
            assert "\r" not in value and "\n" not in value
        assert all(isinstance(chunk, bytes) for chunk in plan.chunks)
        assert 0 <= plan.delay <= 600
        internal = [f for f in provider.findings if f.kind in ("internal", "react_failed")]
        assert not internal, internal
    provider.release_all()
    json.loads(provider.wire.export())


@fuzz_settings()
@given(document=documents())
def test_script_files_load_typed_or_serve(document: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "script.json"
        path.write_bytes(document)
        with judged(TARGET, typed=(ScriptFileError,)):
            play(path)
