"""A key in every placement a runtime can put it: no export of the fake may contain it.

Every combination of how the fake learns a key (each credential-bearing header, Basic auth
either way round, a cookie, a query parameter) and where the runtime echoes it (message
text, system prompt, model name, a dict key, tool arguments and results, a JSON document
inside a string, the path, a malformed body, a finding message, a recorded header), with a
plain key and one full of characters JSON and URLs escape. Each placement uses its own key,
and is checked in every form the key can take (raw, JSON-escaped, URL-encoded, Basic's
base64) in every export: `wire.export()`, `export_data()`, the live exchanges, finding
messages and the verification error in-process (through the transport `InProcess` routes
to); `GET /_turnlaw/log` and `GET /_turnlaw/findings` on the loopback server; the
`serve --log` file and the findings `serve` prints, from a real subprocess.
"""

from __future__ import annotations

import base64
import itertools
import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import httpx2
import pytest

from conformance.wire import LoopbackServer, ProviderTransport, ScriptedProvider, text
from conformance.wire.in_process import IN_PROCESS_ROOT
from tests.hostile.budget import TALLY, judged
from tests.hostile.key_forms import key_forms

TARGET = "fake: key placements"


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # after /v1
    headers: dict[str, str]
    params: dict[str, str]
    body: bytes


def chat(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": messages, **extra}


def user(content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


def with_tool(arguments: str, result: str) -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return [
        *user("x"),
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": result},
    ]


def basic(user_part: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user_part}:{password}".encode()).decode()


# How the fake learns the key: (headers, query parameters).
SOURCES: dict[str, Callable[[str], tuple[dict[str, str], dict[str, str]]]] = {
    "authorization-bearer": lambda k: ({"Authorization": f"Bearer {k}"}, {}),
    "basic-password": lambda k: ({"Authorization": basic("turnlaw-user", k)}, {}),
    "basic-user": lambda k: ({"Authorization": basic(k, "")}, {}),
    "proxy-authorization": lambda k: ({"Proxy-Authorization": f"Bearer {k}"}, {}),
    "x-api-key": lambda k: ({"x-api-key": k}, {}),
    "api-key": lambda k: ({"api-key": k}, {}),
    "cookie": lambda k: ({"Cookie": f"theme=dark; session={k}"}, {}),
    "openai-organization": lambda k: ({"OpenAI-Organization": k}, {}),
    "openai-project": lambda k: ({"OpenAI-Project": k}, {}),
    "x-goog-api-key": lambda k: ({"x-goog-api-key": k}, {}),
    "x-auth-token": lambda k: ({"X-Auth-Token": k}, {}),
    "query-api-key": lambda k: ({}, {"api-key": k}),
    "query-key": lambda k: ({}, {"key": k}),
    "query-access-token": lambda k: ({}, {"access_token": k}),
}


def posted(
    body: dict[str, Any], path: str = "/chat/completions", headers: dict[str, str] | None = None
) -> tuple[str, str, dict[str, str], bytes]:
    return "POST", path, headers or {}, json.dumps(body).encode()


ANTHROPIC = {"anthropic-version": "2023-06-01"}

# Where the runtime echoes it: (method, path after /v1, extra headers, body).
ECHOES: dict[str, Callable[[str], tuple[str, str, dict[str, str], bytes]]] = {
    "message": lambda k: posted(chat(user(f"key {k}!"))),
    "system": lambda k: posted(chat([{"role": "system", "content": f"use {k}"}, *user("x")])),
    "model": lambda k: posted({**chat(user("x")), "model": k}),
    "dict-key": lambda k: posted(chat(user("x"), metadata={k: "v", "n": {k: [k]}})),
    "tool-arguments": lambda k: posted(chat(with_tool(json.dumps({"api_key": k, k: 1}), "ok"))),
    "tool-result": lambda k: posted(chat(with_tool("{}", f"the key is {k}"))),
    "json-in-a-string": lambda k: posted(chat(user(json.dumps({"config": {"api_key": k}})))),
    "path": lambda k: ("POST", f"/{quote(k, safe='')}/chat/completions", {}, b"{}"),
    "malformed-body": lambda k: ("POST", "/chat/completions", {}, f'{{"model": "{k}'.encode()),
    "exhausted-finding": lambda k: posted(chat(user(f"last words {k}"))),
    "recorded-header": lambda k: posted(
        {"model": "c", "max_tokens": 5, "messages": user("x")},
        "/messages",
        {**ANTHROPIC, "anthropic-beta": k},
    ),
    "anthropic-system": lambda k: posted(
        {"model": "c", "max_tokens": 5, "system": k, "messages": user("x")}, "/messages", ANTHROPIC
    ),
}
EXHAUSTS = {"exhausted-finding"}  # answered by a provider with no steps left


def key_for(number: int, special: bool) -> str:
    if special:  # every character JSON or a URL escapes, and a Basic separator
        return f'tlk{number:03d}+Zq/8X"w2L\\p0=Rk:4V%m6'
    return f"tlk{number:03d}Zq8Xw2Lp0Rk4Vm6Nb1Hc3"


@dataclass(frozen=True)
class Placement:
    name: str
    key: str
    request: Request
    exhausts: bool

    def forms(self) -> set[str]:
        """Every form of the key a leak could take, Basic's base64 included."""
        basic = [
            v.removeprefix("Basic ")
            for v in self.request.headers.values()
            if v.startswith("Basic ")
        ]
        return {*key_forms(self.key), *basic}


def placements() -> list[Placement]:
    made = []
    for number, (source, echo, special) in enumerate(
        itertools.product(SOURCES, ECHOES, (False, True))
    ):
        key = key_for(number, special)
        headers, params = SOURCES[source](key)
        method, path, extra, body = ECHOES[echo](key)
        style = "special" if special else "plain"
        made.append(
            Placement(
                f"{source}/{echo}/{style}",
                key,
                Request(method, path, {**headers, **extra}, params, body),
                echo in EXHAUSTS,
            )
        )
    return made


PLACEMENTS = placements()


def leaks(placement: Placement, exports: dict[str, str]) -> list[str]:
    forms = placement.forms()
    return [
        f"{placement.name}: {where}"
        for where, exported in exports.items()
        if any(form in exported for form in forms)
    ]


def send(client: httpx.Client | httpx2.Client, base_url: str, request: Request) -> None:
    client.request(
        request.method,
        base_url + request.path,
        headers={"content-type": "application/json", **request.headers},
        params=request.params,
        content=request.body,
    )


def provider_for(placement: Placement) -> ScriptedProvider:
    return ScriptedProvider([] if placement.exhausts else [text("ok")], allow_unused=True)


def in_process_exports(placement: Placement) -> dict[str, str]:
    provider = provider_for(placement)
    provider.base_url = IN_PROCESS_ROOT + "/v1"
    with httpx2.Client(transport=ProviderTransport(provider)) as client:  # respx's route
        send(client, provider.base_url, placement.request)
    try:
        provider.verify()
        verified = ""
    except AssertionError as error:
        verified = str(error)
    return {
        "wire.export()": provider.wire.export(),
        "export_data()": json.dumps(provider.wire.export_data()),
        "live exchanges": repr(provider.wire.exchanges)
        + "".join(
            json.dumps([e.body, e.headers, e.path, e.method])
            + (e.ir.model_dump_json() if e.ir is not None else "")  # the raw body too
            for e in provider.wire.exchanges
        ),
        "findings": repr(provider.findings),
        "verify()": verified,
    }


def judge(placement: Placement, exports: Callable[[Placement], dict[str, str]]) -> list[str]:
    with judged(TARGET, typed=()):
        found = leaks(placement, exports(placement))
    if found:
        TALLY.add(TARGET, "leak")
    return found


def test_no_placement_leaks_in_process() -> None:
    found = [leak for placement in PLACEMENTS for leak in judge(placement, in_process_exports)]
    assert not found, f"{len(found)} leak(s):\n" + "\n".join(found[:40])


def test_no_placement_leaks_over_the_loopback_server() -> None:
    server = LoopbackServer()
    server.start()
    try:
        with httpx.Client(timeout=10) as client:

            def exports(placement: Placement) -> dict[str, str]:
                provider = server.attach(provider_for(placement))
                send(client, provider.base_url or "", placement.request)
                root = server.root_url
                return {
                    "GET /_turnlaw/log": client.get(f"{root}/_turnlaw/log").text,
                    "GET /_turnlaw/findings": client.get(f"{root}/_turnlaw/findings").text,
                }

            found = [leak for placement in PLACEMENTS for leak in judge(placement, exports)]
    finally:
        server.stop()
    assert not found, f"{len(found)} leak(s):\n" + "\n".join(found[:40])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str], Path]]:
    script = tmp_path / "script.json"
    steps = [{"kind": "text", "text": "ok"}] * len(PLACEMENTS)
    script.write_text(json.dumps({"scripts": [{"steps": steps, "allow_unused": True}]}))
    log = tmp_path / "wire.jsonl"
    command = [sys.executable, "-m", "conformance.wire", "serve", "--script", str(script)]
    process = subprocess.Popen(
        [*command, "--log", str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), process, log
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_no_placement_leaks_into_the_serve_log_file_or_its_findings(
    served: tuple[str, subprocess.Popen[str], Path],
) -> None:
    """One real `serve` process for every placement (each has its own key), so the file
    and the findings it prints at exit are checked for every key at once."""
    url, process, log = served
    findings = ""
    with httpx.Client(timeout=10) as client:
        for placement in PLACEMENTS:
            if not placement.exhausts:  # one script for all: an exhaustion would shift steps
                send(client, url, placement.request)
        findings = client.get(url.removesuffix("/v1") + "/_turnlaw/findings").text
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    written = log.read_text(encoding="utf-8")
    outputs = {"serve --log file": written, "GET /_turnlaw/findings": findings, "stderr": stderr}
    found = [
        leak
        for placement in PLACEMENTS
        if not placement.exhausts
        for leak in judge(placement, lambda _: outputs)
    ]
    assert written.count("\n") >= len(PLACEMENTS) - len(SOURCES) * 2, "requests were not logged"
    assert not found, f"{len(found)} leak(s):\n" + "\n".join(found[:40])
