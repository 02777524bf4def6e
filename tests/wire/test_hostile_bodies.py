"""Bodies that parse as JSON but could not be recorded faithfully are refused, by name.

Lone surrogates (`"\\ud800"`, which JavaScript runtimes emit), nesting deeper than every
later stage can carry, and numbers a double cannot hold all parsed once and then broke the
export: the whole recording was lost. Each is now a 400 that names the problem and where,
recorded with the body kept as text, and the log still exports after it.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from pydantic import TypeAdapter

from conformance.wire import InProcess, LoopbackServer, ScriptedProvider, text
from conformance.wire.wirelog import ExchangeRecord

RECORDS = TypeAdapter(list[ExchangeRecord])
GOOD = {"model": "m", "messages": [{"role": "user", "content": "still alive"}]}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def chat(content: str = '"x"', extra: str = "") -> bytes:
    body = '{"model": "m", "messages": [{"role": "user", "content": ' + content + "}]" + extra + "}"
    return body.encode()


def tool_arguments(arguments: str) -> bytes:
    """A chat body whose assistant turn calls a tool with this (JSON-encoded) argument string."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    return json.dumps({"model": "m", "messages": messages}).encode()


def assert_exports(provider: ScriptedProvider) -> list[ExchangeRecord]:
    """Every export form still works and validates, byte-for-byte UTF-8."""
    exported = provider.wire.export()
    exported.encode("utf-8")  # a lone surrogate fails exactly here
    json.dumps(provider.wire.export_data(), ensure_ascii=False).encode("utf-8")
    return RECORDS.validate_json(exported)


REFUSED = [
    pytest.param(chat('"\\ud800"'), "lone surrogate", id="lone-high-surrogate"),
    pytest.param(chat('"ok \\udc00 then"'), "lone surrogate", id="lone-low-surrogate"),
    pytest.param(chat('"x"', ', "\\ud83d": 1'), "lone surrogate", id="surrogate-in-a-key"),
    pytest.param(chat('"x"', ', "metadata": ' + nested(450)), "nested deeper", id="depth-450"),
    pytest.param(chat('"x"', ', "metadata": ' + nested(900)), "nested deeper", id="depth-900"),
    pytest.param(chat('"x"', ', "metadata": ' + nested(5000)), "nested deeper", id="depth-5000"),
    pytest.param(chat('"x"', ', "temperature": 1e400'), "out of range", id="float-overflow"),
    pytest.param(chat('"x"', ', "temperature": Infinity'), "not JSON", id="infinity"),
]


@pytest.mark.parametrize(("body", "why"), REFUSED)
async def test_a_body_the_log_cannot_hold_is_refused_by_name_and_the_log_survives(
    body: bytes, why: str
) -> None:
    provider = ScriptedProvider([text("still alive")])
    with LoopbackServer(provider):
        async with httpx.AsyncClient(base_url=provider.base_url or "") as client:
            refused = await client.post("/chat/completions", content=body)
            fine = await client.post("/chat/completions", json=GOOD)
            log = await client.get(provider.base_url.removesuffix("/v1") + "/_turnlaw/log")  # type: ignore[union-attr]
    assert refused.status_code == 400, refused.text
    assert why in refused.json()["error"]["message"]
    assert fine.status_code == 200
    assert log.status_code == 200, log.text
    records = assert_exports(provider)
    assert [r.status for r in records] == [400, 200]
    assert isinstance(records[0].body, str), "the refused body is kept as text"
    assert [f.kind for f in provider.findings] == ["malformed"]


async def test_the_refusal_says_where() -> None:
    provider = ScriptedProvider([], allow_unused=True)
    with InProcess(provider):
        async with httpx.AsyncClient() as client:
            deep = await client.post(
                f"{provider.base_url}/chat/completions",
                content=chat('"x"', ', "metadata": {"a": ' + nested(100) + "}"),
            )
            lone = await client.post(
                f"{provider.base_url}/chat/completions",
                content=chat('"ok"', ', "user": ["fine", "\\ud800"]'),
            )
    assert "64" in deep.json()["error"]["message"]
    assert "$.metadata.a[0][0]" in deep.json()["error"]["message"]
    assert "$.user[1]" in lone.json()["error"]["message"]


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param('{"a": "\\ud800"}', id="surrogate"),
        pytest.param(nested(700), id="deep"),
        pytest.param('{"a": NaN}', id="nan"),
        pytest.param('{"a": 1e999}', id="overflow"),
    ],
)
async def test_tool_arguments_that_json_cannot_carry_are_kept_as_their_string(
    arguments: str,
) -> None:
    """OpenAI sends tool arguments as a JSON string: the IR parses it, strictly, and keeps
    the string itself when it is not JSON that can be recorded (as for any non-JSON)."""
    provider = ScriptedProvider([text("ok")])
    with InProcess(provider):
        async with httpx.AsyncClient() as client:
            reply = await client.post(
                f"{provider.base_url}/chat/completions", content=tool_arguments(arguments)
            )
    assert reply.status_code == 200, reply.text
    (call,) = provider.wire.last.messages[1].tool_calls
    assert call.arguments == arguments
    assert_exports(provider)


async def test_nesting_at_the_limit_is_accepted_and_exported() -> None:
    """The limit is well inside what the export, pydantic and a repro file can carry."""
    from conformance.wire import MAX_JSON_DEPTH

    provider = ScriptedProvider([text("ok")])
    body = chat('"x"', ', "metadata": ' + nested(MAX_JSON_DEPTH - 1))
    with InProcess(provider):
        async with httpx.AsyncClient() as client:
            reply = await client.post(f"{provider.base_url}/chat/completions", content=body)
    assert reply.status_code == 200, reply.text
    (record,) = assert_exports(provider)
    assert record.status == 200
    from conformance.replay.model import ReproFile

    fields = ReproFile.model_fields
    assert "wire" in fields  # a repro file embeds export_data(): it must serialize too
    TypeAdapter(list[dict[str, object]]).dump_json(provider.wire.export_data())


def test_serve_log_survives_a_lone_surrogate(tmp_path: Path) -> None:
    from tests.wire.test_cli import serve, stop

    log = tmp_path / "wire.jsonl"
    with serve(tmp_path, [{"kind": "text", "text": "ok"}], "--log", str(log)) as (url, process):
        refused = httpx.post(f"{url}/chat/completions", content=chat('"\\ud800"'))
        fine = httpx.post(f"{url}/chat/completions", json=GOOD)
        code, stderr = stop(process)
    assert (refused.status_code, fine.status_code) == (400, 200)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["status"] for line in lines] == [400, 200], stderr
    assert code == 1  # the refusal is a finding


@pytest.mark.parametrize("opener", ["[", '{"a": ', '[{"a": '])
def test_the_depth_limit_is_exact_for_every_kind_of_nesting(opener: str) -> None:
    from conformance.wire import MAX_JSON_DEPTH, JsonRefusal
    from conformance.wire._strict_json import loads

    closer = {"[": "]", '{"a": ': "}", '[{"a": ': "}]"}[opener]
    levels = 2 if opener == '[{"a": ' else 1

    def document(depth: int) -> bytes:
        repeat = depth // levels
        return (opener * repeat + "1" + closer * repeat).encode()

    loads(document(MAX_JSON_DEPTH))
    with pytest.raises(JsonRefusal, match="nested deeper than 64"):
        loads(document(MAX_JSON_DEPTH + levels))
    assert loads(b'["[[[[[[[[' + b"[" * 100 + b'"]') == ["[" * 108], "brackets in strings"
