"""The served-conversation tour, run for real: every step of README.md, with processes.

    python examples/served_conversation/tour.py [--workdir DIR] [--facts FILE]

Starts the fake provider (`python -m conformance.wire serve`) on the scripted answers in
answers.json, starts the tour's host (host.py) on a SQLite file, talks to it over HTTP,
pauses and answers, kills the host with SIGKILL, restarts it on the same file, continues,
and prints what the fake recorded: what the model was shown. `--facts` writes the key
facts as JSON (tests/examples/test_served_tour.py checks them, so the tour cannot rot).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LISTENING = "turnlaw-host listening on "
COOKIE = "turnlaw_session"


def start(argv: list[str], cwd: Path, *, prefix: str = "") -> tuple[subprocess.Popen[str], str]:
    """Start a server that prints its URL first; return it and that URL."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    process = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 30)
    line = process.stdout.readline().strip() if ready else ""
    if not line.startswith(prefix) or not line:
        process.kill()
        raise SystemExit(f"{argv[2]} did not start: {line!r}\n{process.communicate()[1]}")
    return process, line.removeprefix(prefix)


def start_host(workdir: Path, fake_url: str) -> tuple[subprocess.Popen[str], str]:
    argv = [sys.executable, str(HERE / "host.py"), "--sessions", "sessions.db", "--port", "0",
            "--provider-url", fake_url, "--session-cookie", COOKIE]  # fmt: skip
    return start(argv, workdir, prefix=LISTENING)


def show(step: str, response: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    print(f"\n== {step}\n   {response.status_code} {json.dumps(body)}")
    return body


def shown_to_model(fake_root: str) -> list[str]:
    """The last model request the fake recorded, one line per message it was shown."""
    log = httpx.get(f"{fake_root}/_turnlaw/log").json()
    messages = log[-1]["ir"]["messages"]
    lines = []
    for message in messages:
        said = message["text"] or ", ".join(
            f"{call['name']}({json.dumps(call['arguments'])})" for call in message["tool_calls"]
        )
        lines.append(f"{message['role']}: {said}")
    return lines


def tour(workdir: Path) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    fake, fake_url = start(
        [sys.executable, "-m", "conformance.wire", "serve", "--script", str(HERE / "answers.json")],
        workdir,
    )
    fake_root = fake_url.removesuffix("/v1")
    print(f"fake provider on {fake_url} (6 scripted answers)")
    host, url = start_host(workdir, fake_url)
    print(f"host on {url}, sessions in {workdir / 'sessions.db'}")
    ada = {"x-session-id": "ada"}
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            first = client.post("/invoke", json={"input": "Hi, I'm Ada."}, headers=ada)
            said = show("1. a first turn, session id in the x-session-id header", first)
            facts["first"] = said["output"]
            paused = client.post(
                "/invoke", json={"input": "Book a table for two on Friday.", "sessionId": "ada"}
            )
            awaiting = show("2. the model calls book_table, which asks: a pause (202)", paused)
            facts["pause_status"] = paused.status_code
            facts["question"] = awaiting["awaiting"]["question"]
            owed = client.post("/invoke", json={"input": "Hello?"}, headers=ada)
            show("3. a message while the answer is owed: refused, the model not called", owed)
            facts["while_owed"] = owed.json()["code"]
            answered = client.post("/invoke", json={"decision": "yes"}, headers=ada)
            said = show("4. the person answers the question with a decision", answered)
            facts["after_decision"] = said["output"]

        host.send_signal(signal.SIGKILL)
        host.wait()
        print(f"\n== 5. kill -9 the host (exit {host.returncode}); restart it on the same file")
        host, url = start_host(workdir, fake_url)
        with httpx.Client(base_url=url, timeout=30) as client:
            stored = client.get("/sessions/ada").json()["checkpoint"]
            stored = json.loads(stored) if isinstance(stored, str) else stored
            facts["stored_turns_after_kill"] = len(stored["history"])
            print(f"   GET /sessions/ada: {len(stored['history'])} turns stored")
            question = {"input": "Who am I, and when is my table?"}
            continued = client.post("/invoke", json=question, headers=ada)
            said = show("6. continue the session on the new host process", continued)
            facts["after_restart"] = said["output"]
            shown = shown_to_model(fake_root)
            print("   the model was shown, on that request (the fake's recording):")
            print("\n".join(f"     {line}" for line in shown))
            facts["shown_after_restart"] = shown

            visitor = client.post("/invoke", json={"input": "Hello!"})
            show("7. cookie mode: no session id at all, so the host issues one", visitor)
            cookie = visitor.cookies.get(COOKIE)
            print(f"   Set-Cookie: {visitor.headers.get('set-cookie')}")
            facts["cookie_issued"] = cookie is not None
            again = client.post("/invoke", json={"input": "Did I say hello?"})
            show("8. the cookie carries the session (httpx sends it back)", again)
            facts["shown_with_cookie"] = shown_to_model(fake_root)
    finally:
        host.send_signal(signal.SIGTERM)
        host.wait(15)
        fake.send_signal(signal.SIGINT)
        _, fake_said = fake.communicate(timeout=15)
    facts["host_exit"] = host.returncode
    facts["fake_exit"] = fake.returncode
    print(f"\n== 9. stopped: host exit {host.returncode}; fake exit {fake.returncode}")
    print("   " + fake_said.strip().replace("\n", "\n   "))
    return facts


def main() -> int:
    parser = argparse.ArgumentParser(prog="tour.py")
    parser.add_argument("--workdir", type=Path, help="where sessions.db goes (default: a temp dir)")
    parser.add_argument("--facts", type=Path, help="write the key facts here as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="turnlaw-tour-") as tmp:
        workdir = args.workdir or Path(tmp)
        facts = tour(workdir)
    if args.facts is not None:
        args.facts.write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")
    return 0 if facts["fake_exit"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
