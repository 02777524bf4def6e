"""The loopback server cannot be held, exhausted or made to lose its recording.

Real sockets on 127.0.0.1 throughout: a client that goes away mid-upload, one that sends
too much, one that trickles its headers (slowloris), a huge export while others are being
served, and a provider retired while a late request is still on its way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from conformance.wire import InProcess, LoopbackServer, ScriptedProvider, text

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
ANSWERS = [text("first"), text("second")]


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait for something the server does on its own thread (not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.01)


def connect(server: LoopbackServer) -> socket.socket:
    host, port = server.root_url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=10)


def head(server: LoopbackServer, path: str, length: int, *extra: str) -> bytes:
    prefix = server.base_url.removeprefix(server.root_url)
    lines = [
        f"POST {prefix}{path} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {length}",
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def closed_by_server(sock: socket.socket, timeout: float = 10.0) -> bool:
    """True once the server closed the connection (EOF or reset) within `timeout`."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def read_until_closed(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def answer(provider: ScriptedProvider) -> str:
    reply = httpx.post(f"{provider.base_url}/chat/completions", json=CHAT, timeout=10)
    assert reply.status_code == 200, reply.text
    content: str = reply.json()["choices"][0]["message"]["content"]
    return content


# -- aborted uploads ---------------------------------------------------------------------


def test_an_aborted_upload_is_recorded_as_aborted_and_uses_no_step() -> None:
    provider = ScriptedProvider(list(ANSWERS), allow_unused=True)
    body = json.dumps(CHAT).encode()  # complete JSON, but fewer bytes than declared
    server = LoopbackServer(provider)
    with server:
        with connect(server) as sock:
            sock.sendall(head(server, "/chat/completions", len(body) + 500) + body)
        wait_until(lambda: len(provider.wire) == 1, "the aborted upload to be recorded")
        assert answer(provider) == "first", "the aborted upload used a step"
    aborted, answered = provider.wire.exchanges
    assert aborted.aborted is not None and "closed the connection" in aborted.aborted
    assert f"{len(body)} of {len(body) + 500}" in aborted.aborted
    assert (aborted.status, aborted.step, aborted.ir) == (0, None, None)
    assert answered.step is not None and answered.step.index == 0
    exported = provider.wire.export_data()[0]
    assert exported["aborted"] == aborted.aborted and exported["status"] == 0
    assert provider.findings == [], "an abort is the client's choice, not a wire problem"


def test_a_stalled_body_is_cut_after_the_body_timeout_and_recorded_as_aborted() -> None:
    provider = ScriptedProvider(list(ANSWERS), allow_unused=True)
    server = LoopbackServer(provider, body_timeout=0.3)
    with server:
        with connect(server) as sock:
            sock.sendall(head(server, "/chat/completions", 100) + b'{"model": ')
            assert closed_by_server(sock), "a stalled upload holds the connection forever"
        assert answer(provider) == "first"
    (stalled, _) = provider.wire.exchanges
    assert stalled.aborted is not None and "0.3s" in stalled.aborted


# -- body limit ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "shape"),
    [("/chat/completions", "openai"), ("/messages", "anthropic"), ("/responses", "openai")],
)
@pytest.mark.parametrize("transport", ["loopback", "in_process"])
def test_a_body_over_the_limit_is_a_413_in_the_dialects_shape(
    path: str, shape: str, transport: str
) -> None:
    provider = ScriptedProvider(list(ANSWERS), max_body=2_000, allow_unused=True)
    big = {**CHAT, "messages": [{"role": "user", "content": "x" * 5_000}]}
    with LoopbackServer(provider) if transport == "loopback" else InProcess(provider):
        with httpx.Client(timeout=10) as client:
            refused = client.post(f"{provider.base_url}{path}", json=big)
        assert answer(provider) == "first", "a refused body used a step"
    assert refused.status_code == 413, refused.text
    error = refused.json()
    if shape == "anthropic":
        assert error["error"]["type"] == "request_too_large"
    else:
        assert error["error"]["type"] == "invalid_request_error"
    assert "2000" in refused.text and "max_body" in refused.text
    (finding,) = provider.findings
    assert finding.kind == "too_large" and finding.seq == 1
    too_large = provider.wire.exchanges[0]
    assert (too_large.status, too_large.step, too_large.body) == (413, None, None)


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read() -> None:
    provider = ScriptedProvider(list(ANSWERS), allow_unused=True)
    server = LoopbackServer(provider, max_body=1_000)
    with server:
        with connect(server) as sock:
            sock.sendall(head(server, "/messages", 10**12, "Expect: 100-continue", "x-api-key: k"))
            reply = read_until_closed(sock)
        assert answer(provider) == "first"
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b"request_too_large" in reply and b"1000000000000 bytes declared" in reply
    assert [f.kind for f in provider.findings] == ["too_large"]


def test_serve_holds_a_bounded_amount_of_memory_for_a_huge_body(tmp_path: object) -> None:
    """A body over the limit is drained, not kept: what the server holds does not grow with it."""
    from pathlib import Path

    from tests.wire.test_cli import serve, stop

    folder = Path(str(tmp_path))
    with serve(folder, [{"kind": "text", "text": "ok"}], "--max-body", "1000000") as (
        url,
        process,
    ):
        before = _peak_rss_kb(process.pid)
        chunk = b"x" * (1 << 20)

        def body() -> Iterator[bytes]:
            yield b'{"model": "m", "messages": [{"role": "user", "content": "'
            for _ in range(150):
                yield chunk
            yield b'"}]}'

        # the server may close once it has drained enough: the 413 is recorded anyway
        with contextlib.suppress(httpx.TransportError):
            httpx.post(f"{url}/chat/completions", content=body(), timeout=30)
        peak = _peak_rss_kb(process.pid)
        findings = httpx.get(url.removesuffix("/v1") + "/_turnlaw/findings").json()
        stop(process)
    assert [f["kind"] for f in findings][:1] == ["too_large"]
    assert peak - before < 60_000, f"the server grew by {(peak - before) // 1024} MB for one body"


def _peak_rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


# -- connection timeouts -----------------------------------------------------------------


def test_a_connection_that_sends_nothing_is_closed() -> None:
    server = LoopbackServer(ScriptedProvider(), header_timeout=0.3)
    with server, connect(server) as sock:
        assert closed_by_server(sock), "an idle connection is held forever"


def test_slowloris_headers_are_cut_after_the_header_timeout() -> None:
    provider = ScriptedProvider(list(ANSWERS), allow_unused=True)
    server = LoopbackServer(provider, header_timeout=0.5)
    with server:
        with connect(server) as sock:
            closed = threading.Event()

            def trickle() -> None:  # one byte every 50 ms: a keep-alive timer never fires
                for byte in head(server, "/chat/completions", 10):
                    if closed.is_set():
                        return
                    try:
                        sock.send(bytes([byte]))
                    except OSError:
                        return
                    time.sleep(0.05)

            thread = threading.Thread(target=trickle, daemon=True)
            thread.start()
            try:
                assert closed_by_server(sock), "a slowloris client holds the connection forever"
            finally:
                closed.set()
                thread.join(5)
        assert answer(provider) == "first"
    assert len(provider.wire) == 1, "the cut request is not a request"


def test_keep_alive_clients_still_work_across_the_header_timeout() -> None:
    """The header deadline counts from a request's first byte, not from connection idle."""
    provider = ScriptedProvider(list(ANSWERS))
    server = LoopbackServer(provider, header_timeout=0.3, idle_timeout=5)
    with server as served, httpx.Client(timeout=10) as client:
        url = f"{served.base_url}/chat/completions"
        assert client.post(url, json=CHAT).status_code == 200
        time.sleep(0.6)  # idle longer than the header deadline, shorter than keep-alive
        assert client.post(url, json=CHAT).status_code == 200
    provider.verify()


# -- export off the event loop -------------------------------------------------------------


async def test_exporting_the_log_does_not_stop_the_server_answering() -> None:
    """The export waits, inside, until another client has been answered: on the event loop
    that could never happen (it used to block every client for as long as it took)."""
    provider = ScriptedProvider([text("ok")] * 3, allow_unused=True)
    exporting, answered = threading.Event(), threading.Event()
    answered_during_export: list[bool] = []
    export_data = provider.wire.export_data

    def slow_export() -> list[dict[str, object]]:
        exporting.set()
        answered_during_export.append(answered.wait(10))
        return export_data()

    provider.wire.export_data = slow_export  # type: ignore[method-assign]
    server = LoopbackServer(provider)
    with server as served:
        async with httpx.AsyncClient(timeout=60) as client:
            export = asyncio.create_task(client.get(f"{server.root_url}/_turnlaw/log"))
            assert await asyncio.to_thread(exporting.wait, 10), "the export never started"
            small = await client.post(f"{served.base_url}/chat/completions", json=CHAT)
            answered.set()
            log = await export
    assert small.status_code == 200 and log.status_code == 200
    assert answered_during_export == [True], "the export blocked every other client"
    assert len(log.json()) == 1


# -- late requests (defence in depth for a timed-out adapter) -----------------------------


def test_a_request_to_a_retired_provider_never_reaches_the_next_one() -> None:
    server = LoopbackServer()
    server.start()
    try:
        first = server.attach(ScriptedProvider([text("for the first test")]))
        assert answer(first) == "for the first test"
        late_url = first.base_url
        second = server.attach(ScriptedProvider([text("for the second test")]))
        late = httpx.post(f"{late_url}/chat/completions", json=CHAT, timeout=10)
        assert late.status_code == 410, late.text
        assert "retired" in late.json()["error"]["message"]
        assert len(second.wire) == 0, "a late request was recorded by the next test's provider"
        assert answer(second) == "for the second test"
        assert len(first.wire) == 1
        assert server.late_requests == 1
    finally:
        server.stop()
    first.verify()
    second.verify()


def test_each_attached_provider_records_the_same_paths_and_export() -> None:
    """Serving each provider under its own prefix changes nothing in its recording."""
    exports = []
    for attach in (False, True):
        provider = ScriptedProvider([text("same")])
        server = LoopbackServer(None if attach else provider)
        server.start()
        try:
            if attach:
                server.attach(provider)
            assert answer(provider) == "same"
        finally:
            server.stop()
        exports.append(provider.wire.export())
    assert exports[0] == exports[1]
    assert json.loads(exports[0])[0]["path"] == "/v1/chat/completions"


def test_a_late_call_after_its_test_ended_lands_nowhere(pytester: pytest.Pytester) -> None:
    """Two real tests on the session server: the first leaves a request in flight that
    arrives after it ended; the second must not see it (nor lose a step to it)."""
    pytester.makepyfile(
        """
        import threading
        import httpx
        from conformance.wire import text

        CHAT = {"model": "m", "messages": [{"role": "user", "content": "late"}]}
        SECOND = threading.Event()
        SENT = threading.Event()
        LATE = {}

        def test_first(loopback_provider):
            loopback_provider.allow_unused()
            url = loopback_provider.base_url

            def late_call():
                SECOND.wait(60)  # the first test is over: the second one has begun
                LATE["reply"] = httpx.post(url + "/chat/completions", json=CHAT, timeout=10)
                SENT.set()

            threading.Thread(target=late_call, daemon=True).start()

        def test_second(loopback_provider):
            loopback_provider.script([text("mine")])
            SECOND.set()
            assert SENT.wait(60)
            assert LATE["reply"].status_code == 410
            assert len(loopback_provider.wire) == 0
            reply = httpx.post(loopback_provider.base_url + "/chat/completions", json=CHAT)
            assert reply.json()["choices"][0]["message"]["content"] == "mine"
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*refused 1 late request(s)*POST /turnlaw/*/chat/completions*"])


# -- out of file descriptors -----------------------------------------------------------


def test_running_out_of_file_descriptors_is_said_once_and_survived(tmp_path: object) -> None:
    """accept() failing for want of descriptors used to log a traceback every second."""
    import os
    import resource
    import signal
    from pathlib import Path

    from tests.wire.test_cli import serve

    steps = [{"kind": "text", "text": "ok"}]
    with serve(Path(str(tmp_path)), steps, "--header-timeout", "30") as (url, process):
        host, port = url.removeprefix("http://").split("/")[0].split(":")
        assert httpx.get(f"{url}/models", timeout=20).status_code == 200  # serving by now
        in_use = len(os.listdir(f"/proc/{process.pid}/fd"))
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (in_use + 3, hard))
        held = []
        try:
            for _ in range(20):
                held.append(socket.create_connection((host, int(port)), timeout=10))
            time.sleep(3.5)  # several of asyncio's one-second accept retries
        finally:
            for sock in held:
                sock.close()
        resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (hard, hard))
        reply = httpx.post(f"{url}/chat/completions", json=CHAT, timeout=20)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
    assert reply.status_code == 200, "the server did not recover"
    lines = [line for line in stderr.splitlines() if line.strip()]
    noisy = [line for line in lines if "accept" in line or "Traceback" in line]
    assert len(noisy) <= 1, "\n".join(lines[:30])
