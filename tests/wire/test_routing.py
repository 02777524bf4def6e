"""Every path the fake answers, and what it answers for paths and methods it does not.

Driven straight through the ASGI app (no socket), one fresh provider per case, so each row
pins one status and one body. A path served with another method is a 405 with an `Allow`
header, not a 404.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.wire import Hold, ProviderApp, ScriptedProvider, text

CHAT = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]}).encode()
RESPONSES = json.dumps({"model": "m", "input": "x"}).encode()
MESSAGES = json.dumps(
    {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
).encode()
SERVED = "served: GET /v1/models, POST /v1/chat/completions, POST /v1/responses, POST /v1/messages"


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    status: int
    body: bytes = b""
    says: str = ""  # a fragment of the reply body
    finding: str | None = None  # the kind of the one finding recorded, if any
    recorded: bool = True  # whether the provider's log holds the request
    prefixed: bool = False  # the app serves its provider under a per-test prefix


def _unknown(method: str, path: str, status: int = 404) -> Case:
    recorded = path.split("?")[0].removeprefix("/turnlaw/2") or "/"
    message = f"no endpoint {method} {recorded}; {SERVED}"
    return Case(method, path, status, says=message, finding="unknown_endpoint")


def _control_miss(method: str, path: str, status: int = 404) -> Case:
    return Case(method, path, status, says=f"no control endpoint {method} {path}", recorded=False)


PROVIDER_CASES = [
    Case("GET", "/v1/models", 200, says='"turnlaw-fake"'),
    Case("GET", "/v1/models/", 200, says='"turnlaw-fake"'),
    Case("GET", "/models", 200, says='"turnlaw-fake"'),
    Case("GET", "/v1/v1/models", 200, says='"turnlaw-fake"'),
    Case("GET", "/v1/models?limit=5", 200, says='"turnlaw-fake"'),
    Case("POST", "/v1/chat/completions", 200, CHAT, says='"chat.completion"'),
    Case("POST", "/chat/completions", 200, CHAT, says='"chat.completion"'),
    Case("POST", "/v1/chat/completions/", 200, CHAT, says='"chat.completion"'),
    Case("POST", "/v1/chat/completions?api-version=1", 200, CHAT, says='"chat.completion"'),
    Case("POST", "/v1/responses", 200, RESPONSES, says='"response"'),
    Case("POST", "/v1/messages", 200, MESSAGES, says='"message"'),
    Case("POST", "/v1/v1/messages", 200, MESSAGES, says='"message"'),
    Case("POST", "/messages", 200, MESSAGES, says='"message"'),
    _unknown("GET", "/v1/chat/completions", 405),
    _unknown("PUT", "/v1/chat/completions", 405),
    _unknown("DELETE", "/v1/responses", 405),
    _unknown("GET", "/v1/messages", 405),
    _unknown("POST", "/v1/models", 405),
    _unknown("DELETE", "/v1/models", 405),
    _unknown("HEAD", "/v1/models", 405),
    _unknown("POST", "/v1/embeddings"),
    _unknown("GET", "/v1/embeddings"),
    _unknown("POST", "/v1/chat/completions/extra"),
    _unknown("GET", "/"),
    _unknown("GET", "/v1"),
    _unknown("POST", "/v2/chat/completions"),
    _unknown("GET", "/_turnlaw_not/log"),
]

CONTROL_CASES = [
    Case("GET", "/_turnlaw/log", 200, says="[]", recorded=False),
    Case("GET", "/_turnlaw/log/", 200, says="[]", recorded=False),
    Case("GET", "/_turnlaw/log?x=1", 200, says="[]", recorded=False),
    Case("GET", "/_turnlaw/findings", 200, says='"unused_steps"', recorded=False),
    Case("GET", "/_turnlaw/holds/h", 200, says='"released":false', recorded=False),
    Case("POST", "/_turnlaw/holds/h", 200, says='"released":false', recorded=False),
    Case("GET", "/_turnlaw/holds/h/release", 200, says='"released":false', recorded=False),
    Case("POST", "/_turnlaw/holds/h/release", 200, says='"released":true', recorded=False),
    Case("POST", "/_turnlaw/holds/h/release/", 200, says='"released":true', recorded=False),
    Case("GET", "/_turnlaw/holds/nope", 404, says="no hold labelled 'nope'", recorded=False),
    Case(
        "POST", "/_turnlaw/holds/nope/release", 404, says="no hold labelled 'nope'", recorded=False
    ),
    _control_miss("POST", "/_turnlaw/log", 405),
    _control_miss("DELETE", "/_turnlaw/findings", 405),
    _control_miss("DELETE", "/_turnlaw/holds/h", 405),
    _control_miss("PUT", "/_turnlaw/holds/h/release", 405),
    _control_miss("DELETE", "/_turnlaw/holds/nope", 405),  # no such hold
    _control_miss("GET", "/_turnlaw/holds/h/other"),
    _control_miss("GET", "/_turnlaw/holds/nope/other"),  # a miss, not "no hold labelled"
    _control_miss("GET", "/_turnlaw/holds"),
    _control_miss("GET", "/_turnlaw/"),
    _control_miss("GET", "/_turnlaw/other"),
    _control_miss("GET", "/_turnlaw//log"),
]

RETIRED = "is not served any more"
PREFIX_CASES = [
    Case("POST", "/turnlaw/2/v1/chat/completions", 200, CHAT, says='"chat.completion"'),
    Case("POST", "/turnlaw/2/chat/completions", 200, CHAT, says='"chat.completion"'),
    Case("GET", "/turnlaw/2/v1/models", 200, says='"turnlaw-fake"'),
    Case("GET", "/_turnlaw/log", 200, says="[]", recorded=False),
    _unknown("GET", "/turnlaw/2/v1/chat/completions", 405),
    _unknown("POST", "/turnlaw/2/v1/embeddings"),
    _unknown("GET", "/turnlaw/2"),
    _unknown("GET", "/turnlaw/2/"),
    Case("POST", "/turnlaw/1/v1/chat/completions", 410, CHAT, says='"invalid_request_error"'),
    Case("POST", "/turnlaw/1/v1/messages", 410, MESSAGES, says='"type":"error"'),
    Case("GET", "/turnlaw/1/v1/messages", 410, says='"type":"error"'),
    Case("POST", "/turnlaw/1/v1/embeddings", 410, says='{"error":{"message":"turnlaw: '),
    Case("POST", "/v1/chat/completions", 410, CHAT, says='"type":"invalid_request_error"'),
    Case("POST", "/turnlaw/20/v1/chat/completions", 410, CHAT, says=RETIRED),
    Case("POST", "/turnlaw/22/v1/chat/completions", 410, CHAT, says=RETIRED),
    Case("GET", "/turnlaw/1/v1/models?key=1", 410, says="/turnlaw/1/v1/models is not"),
    Case("GET", "/", 410, says=RETIRED),
    Case("GET", "/turnlaw", 410, says=RETIRED),
]
for _case in PREFIX_CASES:
    object.__setattr__(_case, "prefixed", True)
for _case in PREFIX_CASES[-10:]:
    object.__setattr__(_case, "recorded", False)


async def _call(app: ProviderApp, case: Case) -> tuple[int, dict[str, str], bytes]:
    path, _, query = case.path.partition("?")
    scope: dict[str, Any] = {
        "type": "http",
        "method": case.method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(b"content-type", b"application/json")],
    }
    pending = [{"type": "http.request", "body": case.body, "more_body": False}]
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


def _fresh(prefixed: bool) -> tuple[ProviderApp, ScriptedProvider]:
    provider = ScriptedProvider([Hold(then=text("ok"), label="h")])
    app = ProviderApp(provider)
    if prefixed:
        app.serve(ScriptedProvider())  # /turnlaw/1, then retired
        app.serve(provider)  # /turnlaw/2
    return app, provider


def answer(case: Case) -> tuple[int, dict[str, str], bytes, ScriptedProvider, ProviderApp]:
    app, provider = _fresh(case.prefixed)

    async def run() -> tuple[int, dict[str, str], bytes]:
        if case.method == "POST" and case.status == 200 and case.body:
            provider.hold("h").release()  # the scripted step is a hold: let it answer
        return await _call(app, case)

    status, headers, body = asyncio.run(run())
    provider.release_all()
    return status, headers, body, provider, app


@pytest.mark.parametrize(
    "case",
    [*PROVIDER_CASES, *CONTROL_CASES, *PREFIX_CASES],
    ids=lambda c: f"{'prefixed ' if c.prefixed else ''}{c.method} {c.path}",
)
def test_every_route_and_every_miss(case: Case) -> None:
    status, headers, body, provider, app = answer(case)
    assert status == case.status, body
    assert headers["content-type"] == "application/json"
    assert case.says in body.decode(), body
    if status == 405:  # RFC 9110: a 405 names the methods the path does serve
        assert headers["allow"] and case.method not in headers["allow"].split(", ")
    else:
        assert "allow" not in headers
    recorded = [(e.method, e.path, e.status) for e in provider.wire]
    if case.recorded:
        path = case.path.split("?")[0].removeprefix("/turnlaw/2") or "/"
        assert recorded == [(case.method, path, status)]
        kinds = [f.kind for e in provider.wire for f in e.findings]
        assert kinds == ([case.finding] if case.finding else [])
    else:
        assert recorded == []
    assert app.late_requests == (1 if status == 410 else 0)


def test_the_retired_reply_names_the_path_and_is_counted() -> None:
    case = PREFIX_CASES[-5]
    status, _, body, _, app = answer(case)
    message = json.loads(body)["error"]["message"]
    assert status == 410
    assert message.startswith("turnlaw: /turnlaw/20/v1/chat/completions is not served any more")
    assert list(app.late) == ["POST /turnlaw/20/v1/chat/completions"]


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/chat/completions", CHAT), ("/v1/responses", RESPONSES), ("/v1/messages", MESSAGES)],
)
def test_a_request_in_another_dialect_is_answered_and_a_finding(path: str, body: bytes) -> None:
    """The suite tells the fake the test's dialect: a runtime that sends another dialect's
    request still gets its answer (so the run goes on), but the test cannot pass."""
    from conformance.wire._plan import RawRequest
    from conformance.wire.ir import Dialect

    for asked in Dialect:
        provider = ScriptedProvider([text("ok")])
        provider.dialect = asked
        plan = provider.respond(
            RawRequest("POST", path, [("content-type", "application/json")], body)
        )
        (exchange,) = provider.wire
        kinds = [finding.kind for finding in exchange.findings]
        assert plan.status == 200
        if exchange.dialect is asked:
            assert kinds == []
        else:
            assert kinds == ["wrong_dialect"]
            assert asked.value in exchange.findings[0].message
