"""`python -m conformance.wire serve`: a real subprocess any language can talk to."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import openai
import pytest

from conformance.wire import read_log_file
from tests.wire.clients import ask, post_chat

SCRIPT = {
    "scripts": [
        {
            "steps": [
                {"kind": "hold", "label": "gate", "then": {"kind": "text", "text": "released"}},
                {"kind": "text", "text": "second"},
            ]
        }
    ]
}


def command(tmp_path: Path, script: object, *extra: str) -> list[str]:
    """`python -m conformance.wire serve` on `script`, written to a file first."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return [sys.executable, "-m", "conformance.wire", "serve", "--script", str(path), *extra]


@contextmanager
def serve(
    tmp_path: Path, script: object, *extra: str
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    process = subprocess.Popen(
        command(tmp_path, script, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1"), url
        yield url, process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)


def refused(tmp_path: Path, script: object, *extra: str) -> subprocess.CompletedProcess[str]:
    """`serve` that must not start: it exits with what it said, never serving."""
    return subprocess.run(
        command(tmp_path, script, *extra),
        capture_output=True,
        text=True,
        timeout=30,
    )


def stop(process: subprocess.Popen[str], how: int = signal.SIGINT) -> tuple[int, str]:
    process.send_signal(how)
    _, stderr = process.communicate(timeout=10)
    return process.returncode, stderr


def test_serve_answers_records_and_exits_clean(tmp_path: Path) -> None:
    log = tmp_path / "wire.json"
    with serve(tmp_path, SCRIPT, "--log", str(log)) as (url, process):
        root = url.removesuffix("/v1")
        client = openai.OpenAI(base_url=url, api_key="sk-cli-SECRET-123456", max_retries=0)
        with httpx.Client(base_url=root) as control:
            assert control.get("/_turnlaw/holds/gate").json() == {
                "arrived": False,
                "released": False,
            }
            assert control.post("/_turnlaw/holds/gate/release").json()["released"] is True
            first = client.chat.completions.create(model="m", messages=ask("one"))
            second = client.chat.completions.create(model="m", messages=ask("two"))
            recorded = control.get("/_turnlaw/log").json()
            assert control.get("/_turnlaw/findings").json() == []
        code, stderr = stop(process)
    assert (first.choices[0].message.content, second.choices[0].message.content) == (
        "released",
        "second",
    )
    assert [e["ir"]["messages"][0]["text"] for e in recorded] == ["one", "two"]
    assert code == 0, stderr
    assert "served 2 request(s)" in stderr
    written = log.read_text()
    assert [json.loads(line) for line in written.splitlines()] == recorded  # JSON Lines
    assert "sk-cli-SECRET" not in written


def test_serve_exits_1_with_findings(tmp_path: Path) -> None:
    with serve(tmp_path, [{"kind": "text", "text": "unused"}]) as (url, process):
        httpx.post(f"{url}/nowhere", json={})
        code, stderr = stop(process)
    assert code == 1
    assert "[unknown_endpoint]" in stderr and "[unused_steps]" in stderr


def test_serve_refuses_an_invalid_script(tmp_path: Path) -> None:
    result = refused(tmp_path, [{"kind": "text"}])
    assert result.returncode == 2
    assert "step 0 (text), field 'text': Field required" in result.stderr


def test_sigterm_stops_cleanly_and_keeps_the_log(tmp_path: Path) -> None:
    log = tmp_path / "wire.json"
    with serve(tmp_path, [{"kind": "text", "text": "one"}], "--log", str(log)) as (url, process):
        for _ in range(2):  # the second request exhausts the script: a finding
            post_chat(url)
        code, stderr = stop(process, signal.SIGTERM)
    assert code == 1
    assert "[exhausted]" in stderr
    assert [e.status for e in read_log_file(log)] == [200, 400]


def test_a_killed_server_keeps_every_answered_request_in_its_log(tmp_path: Path) -> None:
    """SIGKILL, no shutdown at all: every request answered before it is on disk."""
    log = tmp_path / "wire.jsonl"
    steps = [{"kind": "text", "text": "one"}, {"kind": "text", "text": "two"}]
    with serve(tmp_path, steps, "--log", str(log)) as (url, process):
        for _ in range(3):  # the third is exhausted: a refusal is recorded too
            post_chat(url)
        process.kill()
        process.wait(10)
    records = read_log_file(log)
    assert [(r.seq, r.status) for r in records] == [(1, 200), (2, 200), (3, 400)]


def test_the_log_file_and_the_export_number_volatile_values_alike(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    ids = ["3f2b8c1e-0d4a-4b7e-9c6f-2a1b3c4d5e6f", "00000000-1111-4222-8333-444455556666"]
    with serve(tmp_path, [{"kind": "text", "text": "a"}] * 3, "--log", str(log)) as (
        url,
        process,
    ):
        for content in (ids[0], ids[1], ids[0]):
            post_chat(url, content)
        exported = httpx.get(url.removesuffix("/v1") + "/_turnlaw/log").json()
        stop(process)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines == exported
    said = [line["body"]["messages"][0]["content"] for line in lines]
    assert said == ["<uuid-1>", "<uuid-2>", "<uuid-1>"]


def test_an_unwritable_log_is_refused_before_serving(tmp_path: Path) -> None:
    result = refused(tmp_path, [], "--log", str(tmp_path / "no" / "dir.json"))
    assert result.returncode == 2
    assert "cannot write the log" in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--port", "99999", "a port is 0..65535"),
        ("--port", "http", "not a port number"),
        ("--max-body", "-1", "a byte count is"),
        ("--body-timeout", "inf", "seconds must be > 0"),
        ("--header-timeout", "nan", "seconds must be > 0"),
        ("--idle-timeout", "0", "seconds must be > 0"),
    ],
)
def test_odd_options_are_refused_by_name(
    tmp_path: Path, option: str, value: str, says: str
) -> None:
    result = refused(tmp_path, [], option, value)
    assert result.returncode == 2
    assert says in result.stderr and "Traceback" not in result.stderr


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        result = refused(tmp_path, [], "--port", str(taken.getsockname()[1]))
    assert result.returncode == 2
    assert "cannot listen on 127.0.0.1" in result.stderr and "Traceback" not in result.stderr


def test_a_reply_cut_off_by_shutdown_is_a_finding(tmp_path: Path) -> None:
    """A delayed reply the server never sent is not a clean exit."""
    import threading

    steps = [{"kind": "text", "text": "slow", "delay": 120}]
    with serve(tmp_path, steps) as (url, process):

        def post_unanswered() -> None:
            with contextlib.suppress(httpx.HTTPError):
                post_chat(url, timeout=60)

        threading.Thread(target=post_unanswered, daemon=True).start()
        with httpx.Client(base_url=url.removesuffix("/v1")) as control:
            while not control.get("/_turnlaw/log").json():
                pass
        code, stderr = stop(process)
    assert code == 1, stderr
    assert "[unanswered]" in stderr
