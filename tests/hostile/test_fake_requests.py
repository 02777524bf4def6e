"""Fuzz the fake's request path, in-process and over a real loopback socket.

Whatever arrives — garbage bytes, JSON of any shape, wrong types per dialect, odd methods,
paths and headers — gets an answer (no hang): a valid reply, or a 4xx/5xx with a finding.
And after every input the log still exports and every record validates as ExchangeRecord:
a recording is never lost to what a runtime sent.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from conformance.wire import LoopbackServer, ProviderTransport, ScriptedProvider, text
from conformance.wire.wirelog import ExchangeRecord
from tests.hostile._fake_inputs import (
    DIALECT_PATHS,
    HEADERS,
    METHODS,
    PATHS,
    RAW_BODIES,
    bodies,
)
from tests.hostile.budget import TALLY, fuzz_settings, judged

RECORDS = TypeAdapter(list[ExchangeRecord])
ROOT = "http://turnlaw.test"


class Unanswered(AssertionError):
    """The fake gave a status with no finding to explain it, or an unreadable reply."""


class Refused(Exception):
    """The fake refused the input as the contract says: a 4xx/5xx and a finding (the HTTP
    form of a typed error, so it is counted as one)."""


BATCH = 40
"""Inputs one provider sees before the next takes over: its whole log is exported and
validated after each of them (so records of earlier inputs must keep exporting too)."""


class Rotation:
    """Hand out a provider that is replaced every BATCH inputs (attached to `server`)."""

    def __init__(self, server: LoopbackServer | None = None) -> None:
        self.server = server
        self.count = 0
        self.current = self._fresh()

    def _fresh(self) -> ScriptedProvider:
        provider = ScriptedProvider([text("ok")] * BATCH, allow_unused=True)
        return self.server.attach(provider) if self.server is not None else provider

    def next(self) -> ScriptedProvider:
        self.count += 1
        if self.count % BATCH == 0:
            self.current = self._fresh()
        return self.current


def check_exchange(provider: ScriptedProvider, status: int, reply: bytes, headers: Any) -> None:
    """The latest exchange: the whole log exported and valid, and this one answered as the
    contract says; raises Refused for a refusal with its finding."""
    exported = provider.wire.export()
    exported.encode("utf-8")
    records = RECORDS.validate_json(exported)
    assert len(records) == len(provider.wire), "an exchange is missing from the export"
    findings = provider.wire.exchanges[-1].findings
    if status >= 400:
        if not findings:
            raise Unanswered(f"{status} without a finding: {reply[:200]!r}")
        json.loads(reply)  # the error body is JSON in the dialect's shape
        raise Refused(findings[0].kind)
    if status == 200:
        if "event-stream" not in headers.get("content-type", ""):
            json.loads(reply)
    else:
        raise Unanswered(f"unexpected status {status}")


@pytest.fixture(scope="module")
def loopback_server() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as client:
        yield client


@pytest.fixture(scope="module")
def in_process() -> Rotation:
    return Rotation()


@pytest.fixture(scope="module")
def over_loopback(loopback_server: LoopbackServer) -> Rotation:
    return Rotation(loopback_server)


@fuzz_settings()
@given(path=st.sampled_from(DIALECT_PATHS), data=st.data())
def test_request_bodies_in_process(in_process: Rotation, path: str, data: st.DataObject) -> None:
    body = data.draw(bodies(path))
    provider = in_process.next()
    transport = ProviderTransport(provider)
    headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
    with judged("fake: request bodies (in-process)", typed=(Refused,)):
        request = httpx2.Request("POST", f"{ROOT}/v1{path}", content=body, headers=headers)
        response = transport.handle_request(request)
        reply = response.read()
        check_exchange(provider, response.status_code, reply, response.headers)


@fuzz_settings()
@given(path=st.sampled_from(DIALECT_PATHS), data=st.data())
def test_request_bodies_over_the_loopback_server(
    loopback_server: LoopbackServer,
    over_loopback: Rotation,
    http: httpx.Client,
    path: str,
    data: st.DataObject,
) -> None:
    body = data.draw(bodies(path))
    provider = over_loopback.next()
    target = "fake: request bodies (loopback)"
    with judged(target, typed=(Refused,)):
        try:
            response = http.post(f"{provider.base_url}{path}", content=body)
        except httpx.TimeoutException:
            TALLY.add(target, "hang")
            raise
        log = http.get(f"{loopback_server.root_url}/_turnlaw/log")
        assert log.status_code == 200 and RECORDS.validate_json(log.content)
        check_exchange(provider, response.status_code, response.content, response.headers)


@fuzz_settings()
@given(method=METHODS, path=PATHS, headers=HEADERS, body=RAW_BODIES)
def test_raw_requests_over_a_socket_always_get_an_answer(
    loopback_server: LoopbackServer,
    method: str,
    path: str,
    headers: list[tuple[str, str]],
    body: bytes,
) -> None:
    """Methods, paths and headers a client library would refuse to send, on a raw socket."""
    provider = loopback_server.attach(ScriptedProvider([text("ok")], allow_unused=True))
    prefix = (provider.base_url or "").removeprefix(loopback_server.root_url).removesuffix("/v1")
    lines = [f"{method} {prefix}{path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers if name.lower() != "content-length"]
    lines.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    host, port = loopback_server.root_url.removeprefix("http://").rsplit(":", 1)
    target = "fake: raw HTTP requests (loopback socket)"
    with judged(target, typed=(Refused,)):
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(raw)
            reply = b""
            try:
                while chunk := sock.recv(65536):
                    reply += chunk
            except TimeoutError:
                TALLY.add(target, "hang")
                raise
        assert reply.startswith(b"HTTP/1.1 "), f"no HTTP answer: {reply[:100]!r}"
        status = int(reply[9:12])
        assert status == 200 or status >= 400
        exported = provider.wire.export()
        RECORDS.validate_json(exported)
        if status >= 400 and len(provider.wire):
            assert provider.findings, f"{status} without a finding"
        if status >= 400:
            raise Refused(status)  # by the fake with a finding, or by the HTTP layer
