"""Wire invariants are checked on every captured request and fail the test by default."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conformance.wire import InProcess, ScriptedProvider, WireVerificationError, text

CALL = {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}


async def post(provider: ScriptedProvider, path: str, body: Any) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(f"{provider.base_url}{path}", json=body)


def chat(*messages: Any) -> Any:
    return {"model": "m", "messages": list(messages)}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            chat(
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "zz", "content": "r"},
            ),
            "answers 'zz', but no earlier assistant message made that call",
        ),
        (
            chat(
                {"role": "user", "content": "x"},
                {"role": "assistant", "tool_calls": [CALL]},
                {"role": "user", "content": "new question"},
            ),
            "a new user turn follows, but tool call 'c1' from message 1 was never answered",
        ),
        (
            chat({"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [CALL]}),
            "tool call 'c1' is never answered",
        ),
    ],
)
async def test_violations_are_findings(body: Any, expected: str) -> None:
    provider = ScriptedProvider([text("answered anyway")])
    with InProcess(provider):
        response = await post(provider, "/chat/completions", body)
    assert response.status_code == 200, "an invariant finding does not change the reply"
    with pytest.raises(WireVerificationError, match="invariant") as raised:
        provider.verify()
    assert expected in str(raised.value)
    assert "request to 'm' (openai-chat):" in str(raised.value)  # the offending request
    assert "0. user: 'x'" in str(raised.value)
    assert provider.wire.exchanges[0].findings[0].seq == 1


async def test_dialect_role_rules_are_checked() -> None:
    provider = ScriptedProvider([text("ok")])
    body = {"model": "c", "max_tokens": 5, "messages": [{"role": "assistant", "content": "hi"}]}
    with InProcess(provider):
        await post(provider, "/messages", body)
    assert [f.kind for f in provider.findings] == ["invariant"]


async def test_invariants_can_be_switched_off() -> None:
    provider = ScriptedProvider([text("ok")], check_invariants=False)
    with InProcess(provider):
        await post(
            provider,
            "/chat/completions",
            chat({"role": "tool", "tool_call_id": "z", "content": "r"}),
        )
    provider.verify()


async def test_well_formed_conversation_has_no_findings() -> None:
    provider = ScriptedProvider([text("ok")])
    body = chat(
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "user", "content": "thanks"},
    )
    with InProcess(provider):
        await post(provider, "/chat/completions", body)
    provider.verify()
