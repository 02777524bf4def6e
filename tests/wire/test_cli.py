"""`python -m conformance.wire serve`: a real subprocess any language can talk to."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import openai

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


@contextmanager
def serve(
    tmp_path: Path, script: object, *extra: str
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance.wire", "serve", "--script", str(path), *extra],
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
            first = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "one"}]
            )
            second = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "two"}]
            )
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
    assert json.loads(written) == recorded
    assert "sk-cli-SECRET" not in written


def test_serve_exits_1_with_findings(tmp_path: Path) -> None:
    with serve(tmp_path, [{"kind": "text", "text": "unused"}]) as (url, process):
        httpx.post(f"{url}/nowhere", json={})
        code, stderr = stop(process)
    assert code == 1
    assert "[unknown_endpoint]" in stderr and "[unused_steps]" in stderr


def test_serve_refuses_an_invalid_script(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"kind": "text"}]))
    result = subprocess.run(
        [sys.executable, "-m", "conformance.wire", "serve", "--script", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "step 0 (text), field 'text': Field required" in result.stderr


def test_sigterm_stops_cleanly_and_keeps_the_log(tmp_path: Path) -> None:
    log = tmp_path / "wire.json"
    with serve(tmp_path, [{"kind": "text", "text": "one"}], "--log", str(log)) as (url, process):
        for _ in range(2):  # the second request exhausts the script: a finding
            httpx.post(
                f"{url}/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            )
        code, stderr = stop(process, signal.SIGTERM)
    assert code == 1
    assert "[exhausted]" in stderr
    assert [e["status"] for e in json.loads(log.read_text())] == [200, 400]


def test_an_unwritable_log_is_refused_before_serving(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text("[]")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance.wire",
            "serve",
            "--script",
            str(path),
            "--log",
            str(tmp_path / "no" / "dir.json"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "cannot write the log" in result.stderr
