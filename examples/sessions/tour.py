"""The sessions tour, run for real: every step of README.md, with processes.

    python examples/sessions/tour.py [--workdir DIR] [--facts FILE]

Starts the fake provider (`python -m conformance.wire serve`) on the scripted answers in
answers.json and the reference session runtime (`python -m reference_impl.sessions
serve`) on a store directory, then plays seed 003 with the client
(`reference_impl.sessions.client`): an agent with a memory block, its default
conversation and two new ones, each resumed by its conversation id, a message queued
behind a held turn, an abort, and a `kill -9` of the runtime in the middle of a turn,
a restart on the same store, a resume by id and the listed messages. After each step it
prints the session's events and, from the fake's `GET /_turnlaw/log`, what the model was
shown. `--facts` writes the key facts as JSON (tests/examples/test_sessions_tour.py
checks them, so the tour cannot rot).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from reference_impl.sessions import ResultEvent, SessionEvent
from reference_impl.sessions.client import MessageBody, Session, SessionClient, SessionUnusableError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LISTENING = "turnlaw-host listening on "
SYSTEM = "You take restaurant bookings. Be brief."
MEMORY = {"human": "Ada. Vegetarian; likes a quiet table."}
STOP_DEADLINE = 15.0
PASS_DEADLINE = 20.0
"""Seconds a pass may take: every turn here ends in well under one, so a runtime that
never ends a turn fails the tour rather than hanging it."""


def start(argv: list[str], cwd: Path, *, prefix: str = "") -> tuple[subprocess.Popen[str], str]:
    """Start a server that prints its URL first; return it and that URL."""
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        TURNLAW_API_KEY="sk-tour-never-recorded",
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


class Processes:
    """Every process the tour started, so that each is stopped however the tour ends."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[str]] = []

    async def start(
        self, argv: list[str], cwd: Path, *, prefix: str = ""
    ) -> tuple[subprocess.Popen[str], str]:
        process, url = await asyncio.to_thread(start, argv, cwd, prefix=prefix)
        self.started.append(process)
        return process, url

    async def runtime(self, workdir: Path, fake_url: str) -> tuple[subprocess.Popen[str], str]:
        argv = [sys.executable, "-m", "reference_impl.sessions", "serve",
                "--store", "store", "--provider-url", fake_url]  # fmt: skip
        return await self.start(argv, workdir, prefix=LISTENING)

    def stop_all(self) -> str:
        """Ctrl-C (SIGINT) each one still running, the last started first; SIGKILL one
        that has not exited after STOP_DEADLINE. Returns the first one's stderr (the
        fake's report)."""
        said = ""
        for process in reversed(self.started):
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
            try:
                _, said = process.communicate(timeout=STOP_DEADLINE)
            except subprocess.TimeoutExpired:
                process.kill()
                _, said = process.communicate()
        return said


class Fake:
    """The fake provider's control endpoints: its recording and its holds."""

    def __init__(self, root: str) -> None:
        self.http = httpx.AsyncClient(base_url=root, timeout=10, trust_env=False)

    async def requests(self) -> list[dict[str, Any]]:
        log: list[dict[str, Any]] = (await self.http.get("/_turnlaw/log")).json()
        return [exchange["ir"] for exchange in log]

    async def last(self) -> dict[str, Any]:
        """The last model request, as the fake parsed it (system prompt, messages, ...)."""
        return (await self.requests())[-1]

    async def wait_held(self, label: str) -> None:
        """Until the request the script holds under `label` has reached the fake."""
        deadline = time.monotonic() + 10
        while not (await self.hold(label))["arrived"]:
            if time.monotonic() > deadline:
                raise SystemExit(f"the held request {label!r} never reached the fake")
            await asyncio.sleep(0.02)

    async def hold(self, label: str) -> dict[str, bool]:
        """How the hold stands: `arrived` (its request is here), `released`."""
        standing: dict[str, bool] = (await self.http.get(f"/_turnlaw/holds/{label}")).json()
        return standing

    async def release(self, label: str) -> None:
        (await self.http.post(f"/_turnlaw/holds/{label}/release")).raise_for_status()


def describe(event: SessionEvent) -> str:
    """One event as a line: its type and what it says (run ids only counted)."""
    if event.type == "result":
        runs = "no run_ids" if event.run_ids is None else f"{len(event.run_ids)} run id(s)"
        return (
            f"result  success={event.success} stop_reason={event.stop_reason}"
            f" text={event.text!r} ({runs})"
        )
    if event.type == "queue":
        return f"queue   {event.action} {list(event.item_ids)}"
    if event.type == "assistant":
        return f"assistant {event.text!r} (run {'set' if event.run_id else 'absent'})"
    if event.type == "error":
        return f"error   {event.message}"
    return f"{event.type} {event.model_dump(exclude_none=True)}"


async def one_pass(session: Session) -> list[SessionEvent]:
    """One pass through `stream()`: the next turn's events, up to its result."""
    try:
        async with asyncio.timeout(PASS_DEADLINE):
            events = [event async for event in session.stream()]
    except TimeoutError:
        raise SystemExit(f"no result within {PASS_DEADLINE} s: the turn never ended") from None
    for event in events:
        print(f"   event  {describe(event)}")
    return events


async def turn(session: Session, text: str) -> list[SessionEvent]:
    """`send()` plus one pass: a turn."""
    print(f"   send   {text!r}")
    await session.send(text)
    return await one_pass(session)


def step(title: str) -> None:
    print(f"\n== {title}")


async def show_shown(fake: Fake, facts: dict[str, Any], name: str, *, system: bool = False) -> None:
    """Print what the model was shown on the fake's last request; keep it as a fact."""
    last = await fake.last()
    shown = [f"{m['role']}: {m['text']}" for m in last["messages"]]
    print("   the model was shown (the fake's last request):")
    if system:
        first, *rest = last["system"].splitlines()
        print(f"     system: {first}")
        print("\n".join(f"             {line}".rstrip() for line in rest))
        facts["system"] = last["system"]
    print("\n".join(f"     {line}" for line in shown))
    facts["shown"][name] = shown


def print_listed(listed: list[MessageBody]) -> None:
    for message in listed:
        receipt = f"  (receipt {message.id})" if message.id else ""
        print(f"     {message.role}: {message.text}{receipt}")


def listed_facts(listed: list[MessageBody]) -> list[str]:
    """Listed messages as lines, a receipt (a message no completed turn holds) marked."""
    return [f"{m.role}: {m.text}{' [receipt]' if m.id else ''}" for m in listed]


def ids_of(session: Session) -> dict[str, str]:
    return {
        "agent_id": session.agent_id,
        "conversation_id": session.conversation_id,
        "session_id": session.session_id,
    }


def result_of(events: list[SessionEvent]) -> dict[str, Any]:
    last = events[-1]
    assert isinstance(last, ResultEvent)
    return last.model_dump(exclude={"duration_ms", "run_ids"}) | {
        "run_ids": None if last.run_ids is None else len(last.run_ids)
    }


def kinds(events: list[SessionEvent]) -> list[str]:
    """Event types, a queue event with its action (`queue:enqueued`)."""
    return [f"queue:{e.action}" if e.type == "queue" else e.type for e in events]


async def play(url: str, fake: Fake, facts: dict[str, Any]) -> Session:
    """Steps 4 to 9 (README.md's numbers), on the first runtime process; returns the
    session left mid-turn."""
    async with SessionClient(url) as client:
        step("4. an agent with a memory block; resume_session(agent id): its default conversation")
        agent = await client.create_agent(system=SYSTEM, memory=MEMORY)
        print(f"   agent {agent.id}, default conversation {agent.default_conversation_id}")
        facts["agent"] = {"id": agent.id, "default": agent.default_conversation_id}

        main = await client.resume_session(agent.id)
        print(f"   session {main.session_id}")
        await turn(main, "Hi, I'm Ada.")
        await show_shown(fake, facts, "default", system=True)

        step("5. create_session(agent id) twice: two NEW conversations on the same agent")
        friday = await client.create_session(agent.id)
        print(f"   session {friday.session_id}")
        await turn(friday, "Book a table for two on Friday.")
        await show_shown(fake, facts, "friday")
        birthday = await client.create_session(agent.id)
        print(f"   session {birthday.session_id}")
        await turn(birthday, "A birthday dinner on Sunday: what do you have?")
        await show_shown(fake, facts, "birthday")
        facts["ids"] = {
            "main": ids_of(main),
            "friday": ids_of(friday),
            "birthday": ids_of(birthday),
        }
        conversations = [c.id for c in await client.conversations.list(agent.id)]
        print(f"   client.conversations.list(agent id): {conversations}")
        facts["conversations"] = conversations
        for session in (main, friday, birthday):
            await session.close()

        step("6. close every session; resume each conversation by its conversation id")
        main = await client.resume_session(facts["ids"]["main"]["conversation_id"])
        print(f"   session {main.session_id}")
        await turn(main, "Do you remember me?")
        await show_shown(fake, facts, "main-resumed")
        await main.close()
        friday = await client.resume_session(facts["ids"]["friday"]["conversation_id"])
        birthday = await client.resume_session(facts["ids"]["birthday"]["conversation_id"])
        print(f"   sessions {friday.session_id}\n            {birthday.session_id}")
        print("   (their turns come in steps 7 and 8)")
        facts["resumed"] = {n: ids_of(s) for n, s in (("main", main), ("friday", friday),
                                                      ("birthday", birthday))}  # fmt: skip

        step("7. a send while a turn is active: queued by the runtime, not dropped")
        first = await friday.send("Make it three.")
        await fake.wait_held("queue")
        print("   send   'Make it three.'  (the fake holds its answer: the turn is active)")
        second = await friday.send("And a high chair, please.")
        print("   send   'And a high chair, please.'  (while the first turn is active)")
        await fake.release("queue")
        print("   (the fake releases the held answer)")
        active = await one_pass(friday)
        print("   -- the next pass: the queued message's own turn")
        queued = await one_pass(friday)
        await show_shown(fake, facts, "queued")
        facts["queue"] = {
            "items": [first, second],
            "active_pass": kinds(active),
            "queued_pass": kinds(queued),
            "enqueued": [list(e.item_ids) for e in active if e.type == "queue"],
            "dequeued": [list(e.item_ids) for e in queued if e.type == "queue"],
            "results": [result_of(active), result_of(queued)],
        }

        step("8. abort() a turn: it ends with a failed result, and the session goes on")
        await birthday.send("Book the garden room for Sunday.")
        await fake.wait_held("abort")
        print("   send   'Book the garden room for Sunday.'  (held at the fake)")
        aborted = await birthday.abort()
        print(f"   abort() -> {aborted}")
        cancelled = await one_pass(birthday)
        still_held = not (await fake.hold("abort"))["released"]
        print(f"   the fake had not answered when the result came: {still_held}")
        await fake.release("abort")  # its answer has nowhere to go: the request was cancelled
        listed = await birthday.list_messages()
        print("   list_messages(): the aborted message reached the runtime; no turn completed it")
        print_listed(listed)
        await turn(birthday, "Sorry, is Saturday possible?")
        await show_shown(fake, facts, "after-abort")
        facts["abort"] = {
            "answered": aborted,
            "result": result_of(cancelled),
            "result_before_the_model_answered": still_held,
            "listed": listed_facts(listed),
        }
        await birthday.close()

        step("9. kill -9 the runtime while a turn is active (the fake holds its answer)")
        await friday.send("Is there parking?")
        await fake.wait_held("crash")
        print("   send   'Is there parking?'  (held at the fake)")
        return friday


async def after_crash(
    friday: Session, runtime: subprocess.Popen[str], processes: Processes, workdir: Path,
    fake_url: str, fake: Fake, facts: dict[str, Any],
) -> subprocess.Popen[str]:  # fmt: skip
    """Steps 9 and 10: the kill, what the client sees, the restart, the resume by id."""
    runtime.send_signal(signal.SIGKILL)
    await asyncio.to_thread(runtime.wait)
    print(f"   runtime exit {runtime.returncode}")
    broken = await one_pass(friday)
    try:
        await friday.send("Hello?")
        reuse = "accepted"
    except SessionUnusableError as error:
        reuse = type(error).__name__
    print(f"   send on the broken session -> {reuse}")
    await fake.release("crash")  # its answer has nowhere to go: the runtime is gone
    facts["kill"] = {"exit": runtime.returncode, "pass": kinds(broken), "reuse": reuse}
    facts["kill"]["result"] = result_of(broken)

    step("10. restart the runtime on the same store; resume the conversation by its id")
    runtime, url = await processes.runtime(workdir, fake_url)
    print(f"   runtime on {url}, store {workdir / 'store'}")
    async with SessionClient(url) as client:
        again = await client.resume_session(facts["ids"]["friday"]["conversation_id"])
        print(f"   session {again.session_id}")
        facts["after_restart_ids"] = ids_of(again)
        listed = await again.list_messages()
        print("   list_messages(): what the runtime holds (nothing is replayed; reconcile here)")
        print_listed(listed)
        facts["listed"] = listed_facts(listed)

        print("   the message sent before the kill is listed, unanswered: ask again, knowingly")
        first_pass = await turn(again, "Is there parking? My last message got no answer.")
        facts["after_restart_pass"] = kinds(first_pass)
        await show_shown(fake, facts, "after-restart")
        await again.close()
    return runtime


async def tour(workdir: Path) -> dict[str, Any]:
    facts: dict[str, Any] = {"shown": {}}
    processes = Processes()
    try:
        fake_argv = [sys.executable, "-m", "conformance.wire", "serve", "--script",
                     str(HERE / "answers.json")]  # fmt: skip
        fake_process, fake_url = await processes.start(fake_argv, workdir)
        print(f"fake provider on {fake_url} (10 scripted answers, 3 of them held)")
        runtime, url = await processes.runtime(workdir, fake_url)
        print(f"session runtime on {url}, store {workdir / 'store'}")
        fake = Fake(fake_url.removesuffix("/v1"))
        try:
            friday = await play(url, fake, facts)
            runtime = await after_crash(friday, runtime, processes, workdir, fake_url, fake, facts)
            requests = await fake.requests()
        finally:
            await fake.http.aclose()
    finally:
        fake_said = await asyncio.to_thread(processes.stop_all)
    facts["wire"] = [[f"{m['role']}: {m['text']}" for m in r["messages"]] for r in requests]
    facts["memory_in_every_system_prompt"] = all(MEMORY["human"] in r["system"] for r in requests)
    facts["runtime_exit"] = runtime.returncode
    facts["fake_exit"] = fake_process.returncode
    step(f"11. stopped: runtime exit {runtime.returncode}; fake exit {fake_process.returncode}")
    print("   " + fake_said.strip().replace("\n", "\n   "))
    return facts


def main() -> int:
    parser = argparse.ArgumentParser(prog="tour.py")
    parser.add_argument("--workdir", type=Path, help="where the store goes (default: a temp dir)")
    parser.add_argument("--facts", type=Path, help="write the key facts here as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="turnlaw-sessions-tour-") as tmp:
        facts = asyncio.run(tour(args.workdir or Path(tmp)))
    if args.facts is not None:
        args.facts.write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")
    return 0 if facts["fake_exit"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
