"""A script file is data from anywhere: every odd value is a ScriptFileError naming the step
and field, and everything accepted can be served (finite, bounded, sendable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.wire import Fault, ScriptedProvider, ScriptFileError, Text, load_script_file


def write(tmp_path: Path, data: str | bytes) -> Path:
    path = tmp_path / "script.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def step(fields: str, kind: str = "text") -> str:
    extra = ', "text": "x"' if kind == "text" else ""
    return f'[{{"kind": "{kind}"{extra}, {fields}}}]'


REFUSED = [
    pytest.param(step('"delay": Infinity'), "step 0 (text), field 'delay'", id="delay-infinity"),
    pytest.param(step('"delay": NaN'), "step 0 (text), field 'delay'", id="delay-nan"),
    pytest.param(step('"delay": 1e308'), "field 'delay': Input should be less than", id="1e308"),
    pytest.param(step('"delay": 1e999'), "step 0 (text), field 'delay'", id="delay-overflow"),
    pytest.param(step('"delay": -1'), "field 'delay'", id="delay-negative"),
    pytest.param(
        step('"retry_after_ms": 100000000000000000000', "fault"),
        "field 'retry_after_ms'",
        id="retry-after-huge",
    ),
    pytest.param(step('"after_events": 1e20', "stream_error"), "after_events", id="after-events"),
    pytest.param(step('"status": 99999', "fault"), "field 'status'", id="status"),
    pytest.param(
        step('"usage": {"input_tokens": -5}'), "field 'usage.input_tokens'", id="usage-negative"
    ),
    pytest.param(
        step('"headers": {"x-a": "one\\r\\nset-cookie: evil"}', "fault"),
        "field 'headers.x-a'",
        id="header-injection",
    ),
    pytest.param(
        step('"headers": {"bad name": "v"}', "fault"), "field 'headers.bad name", id="header-name"
    ),
    pytest.param(
        step('"headers": {"x": "\u20ac"}', "fault"), "field 'headers.x'", id="header-euro"
    ),
    pytest.param(
        step('"headers": {"Content-Length": "3"}', "fault"),
        "frame the HTTP message",
        id="header-framing",
    ),
    pytest.param(step('"label": "\\ud800"'), "lone surrogate", id="label-surrogate"),
    pytest.param('[{"kind": "text", "text": "\\udc00"}]', "(text), field 'text'", id="surrogate"),
    pytest.param(
        '[{"kind": "fault", "body": ' + "[" * 100_000 + "]" * 100_000 + "}]",
        "nested deeper than 64",
        id="deep-100000",
    ),
    pytest.param(
        '[{"kind": "fault", "body": ' + "[" * 200 + "]" * 200 + "}]",
        "step 0 (fault), field 'body.0.0",
        id="deep-200",
    ),
    pytest.param('[{"kind": "fault", "status": ' + "9" * 5000 + "}]", "too long", id="big-int"),
    pytest.param(b"\xff\xfe[\x00]\x00", "not UTF-8", id="utf-16"),
    pytest.param(b'[{"kind": "text", "text": "\xed\xa0\x80"}]', "not UTF-8", id="cesu-8"),
    pytest.param("5", "file: Input should be", id="a-number"),
    pytest.param(
        '[{"kind": "hold", "label": "g", "then": {"kind": "text", "text": "a"}},'
        ' {"kind": "hold", "label": "g", "then": {"kind": "text", "text": "b"}}]',
        "script 'default', step 1 (hold): hold label 'g' is used twice (first at script "
        "'default', step 0 (hold))",
        id="hold-label-twice",
    ),
    pytest.param('{"scripts": [{"steps": {"kind": "text"}}]}', "scripts.0.steps", id="steps-dict"),
    pytest.param(
        '{"scripts": [{"name": "main", "steps": [{"kind": "text"}]}]}',
        "script 'main', step 0 (text), field 'text': Field required",
        id="text-missing",
    ),
    pytest.param(
        '{"scripts": [{"name": "ok", "steps": []}, {"name": "billing", "steps": ['
        '{"kind": "text", "text": "x", "delay": Infinity}]}]}',
        "script 'billing', step 0 (text), field 'delay'",
        id="second-script-named",
    ),
    pytest.param(
        '[{"kind": "text", "text": "ok"}, {"kind": "tool_calls", "calls": []}]',
        "script 'default', step 1 (tool_calls), field 'calls'",
        id="no-calls",
    ),
    pytest.param('[{"kind": "teleport"}]', "step 0 (teleport)", id="unknown-kind"),
    pytest.param(
        step('"status": 200', "fault"), "field 'status': Input should be greater than", id="200"
    ),
    pytest.param('{"version": 2, "scripts": []}', "version", id="version-2"),
    pytest.param("{", "not valid UTF-8 JSON", id="not-json"),
]


@pytest.mark.parametrize(("data", "says"), REFUSED)
def test_odd_values_are_a_script_file_error_naming_the_step_and_field(
    tmp_path: Path, data: str | bytes, says: str
) -> None:
    with pytest.raises(ScriptFileError) as raised:
        load_script_file(write(tmp_path, data))
    assert says in str(raised.value)


def test_a_missing_file_is_a_script_file_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptFileError, match="cannot read"):
        load_script_file(tmp_path / "missing.json")


def test_script_file_round_trip(tmp_path: Path) -> None:
    data = {
        "version": 1,
        "scripts": [
            {"name": "billing", "match": {"model": "b"}, "steps": [{"kind": "text", "text": "hi"}]},
            {"steps": [{"kind": "hold", "label": "h", "then": {"kind": "fault", "status": 429}}]},
        ],
    }
    loaded = load_script_file(write(tmp_path, json.dumps(data)))
    assert [s.name for s in loaded.scripts] == ["billing", "default"]
    provider = ScriptedProvider()
    provider.load(loaded)
    assert provider.hold("h").then.kind == "fault"
    bare = load_script_file(write(tmp_path, '[{"kind": "text", "text": "only"}]'))
    assert bare.scripts[0].steps[0].kind == "text"


def test_the_same_bounds_hold_for_steps_made_in_python() -> None:
    with pytest.raises(ValueError, match="delay"):
        Text(text="x", delay=float("inf"))
    with pytest.raises(ValueError, match="headers"):
        Fault(headers={"x": "a\r\nb"})


def test_bounded_values_still_load(tmp_path: Path) -> None:
    data = step('"delay": 600, "usage": {"input_tokens": 9007199254740991, "output_tokens": 0}')
    (spec,) = load_script_file(write(tmp_path, data)).scripts
    assert spec.steps[0].delay == 600


def test_a_file_too_large_to_be_a_script_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.wire import script

    monkeypatch.setattr(script, "MAX_SCRIPT_FILE", 10)
    with pytest.raises(ScriptFileError, match="is not a script file"):
        load_script_file(write(tmp_path, '[{"kind": "text", "text": "long enough"}]'))


@pytest.mark.parametrize("limit", [float("inf"), float("nan"), 0, -1])
def test_a_hold_limit_must_end(limit: float) -> None:
    with pytest.raises(ValueError, match="hold_limit"):
        ScriptedProvider(hold_limit=limit)
