"""The sessions tour runs, and shows what its README says it shows.

It starts real processes (the fake, the session runtime twice, with a SIGKILL between),
so it is a single test; its facts are the README's claims, read from the fake's
recording first: which messages each model request showed (each conversation only its
own, the queued message after the active turn, the aborted message never, the history
after the kill and restart), the ids, the queue events, the aborted turn's failed result,
the broken session's error and failed result, the listed messages, and the fake ending
with every scripted answer used, every hold released and nothing found.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "examples" / "sessions" / "tour.py"

HI = ["user: Hi, I'm Ada."]
FRIDAY = ["user: Book a table for two on Friday."]
BIRTHDAY = ["user: A birthday dinner on Sunday: what do you have?"]
FRIDAY_DONE = [
    *FRIDAY,
    "assistant: Booked: two, Friday, a quiet table.",
    "user: Make it three.",
    "assistant: Three it is, on Friday.",
    "user: And a high chair, please.",
    "assistant: A high chair is noted.",
]
BIRTHDAY_DONE = [*BIRTHDAY, "assistant: Sunday: the garden room seats eight."]


def run_tour(tmp_path: Path) -> tuple[dict[str, Any], str]:
    facts_file = tmp_path / "facts.json"
    done = subprocess.run(
        [sys.executable, str(TOUR), "--workdir", str(tmp_path), "--facts", str(facts_file)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,  # real processes, started one after another: minutes when busy
    )
    assert done.returncode == 0, done.stdout + done.stderr
    facts: dict[str, Any] = json.loads(facts_file.read_text(encoding="utf-8"))
    return facts, done.stdout


def assert_ids(facts: dict[str, Any]) -> None:
    agent, default = facts["agent"]["id"], facts["agent"]["default"]
    assert agent.startswith("agent-") and default.startswith("conv-")
    ids = facts["ids"]
    assert ids["main"]["conversation_id"] == default, "resume_session(agent id) is the default"
    conversations = [ids[name]["conversation_id"] for name in ("main", "friday", "birthday")]
    assert len(set(conversations)) == 3 and all(c.startswith("conv-") for c in conversations)
    assert facts["conversations"] == conversations, "listed: the default, then the created"
    for opened in [*ids.values(), *facts["resumed"].values(), facts["after_restart_ids"]]:
        assert opened["agent_id"] == agent
        assert opened["session_id"] == f"{agent}:{opened['conversation_id']}"
    for name in ("main", "friday", "birthday"):
        assert facts["resumed"][name] == ids[name], f"resuming {name} by id changed its ids"
    assert facts["after_restart_ids"] == ids["friday"]


@pytest.mark.timeout(300)  # the tour's own deadline (240 s) fires first
def test_the_tour_shows_what_its_readme_claims(tmp_path: Path) -> None:
    facts, out = run_tour(tmp_path)
    assert_ids(facts)

    # What each model request showed, in order (the fake's recording).
    assert (
        facts["wire"]
        == [
            HI,
            FRIDAY,  # a new conversation: the agent's talk with Ada is not in it
            BIRTHDAY,
            [*HI, "assistant: Hello Ada. What can I do for you?", "user: Do you remember me?"],
            [*FRIDAY_DONE[:3]],  # the active turn, held: the queued message is not in it
            [*FRIDAY_DONE[:5]],  # the queued message, after the active turn's answer
            [*BIRTHDAY_DONE, "user: Book the garden room for Sunday."],  # aborted while held
            [*BIRTHDAY_DONE, "user: Sorry, is Saturday possible?"],  # never the aborted message
            [*FRIDAY_DONE, "user: Is there parking?"],  # held when the runtime was killed
            [*FRIDAY_DONE, "user: Is there parking? My last message got no answer."],
        ]
    )
    assert facts["memory_in_every_system_prompt"] is True
    assert "<memory_blocks>" in facts["system"]
    assert (
        '<block label="human">\nAda. Vegetarian; likes a quiet table.\n</block>'
        in (facts["system"])
    )

    queue = facts["queue"]
    first, second = queue["items"]
    assert first.startswith("message-") and second.startswith("message-") and first != second
    assert queue["active_pass"] == ["queue:enqueued", "assistant", "result"]
    assert queue["queued_pass"] == ["queue:dequeued", "assistant", "result"]
    assert queue["enqueued"] == queue["dequeued"] == [[second]]
    assert [r["text"] for r in queue["results"]] == [
        "Three it is, on Friday.",
        "A high chair is noted.",
    ]
    assert all(r["success"] and r["run_ids"] == 1 for r in queue["results"])

    abort = facts["abort"]
    assert abort["answered"] is True
    assert abort["result"]["success"] is False
    assert abort["result"]["stop_reason"] == "cancelled"
    assert abort["result_before_the_model_answered"] is True
    assert abort["listed"] == [*BIRTHDAY_DONE, "user: Book the garden room for Sunday. [receipt]"]

    kill = facts["kill"]
    assert kill["exit"] == -9
    assert kill["pass"] == ["error", "result"]
    assert kill["result"]["success"] is False and kill["result"]["stop_reason"] == (
        "connection_closed"
    )
    assert kill["reuse"] == "SessionUnusableError"
    assert facts["listed"] == [*FRIDAY_DONE, "user: Is there parking? [receipt]"]
    assert facts["after_restart_pass"] == ["assistant", "result"], "nothing missed was replayed"

    assert facts["runtime_exit"] == 0
    assert facts["fake_exit"] == 0
    assert "turnlaw: served 10 request(s)" in out
    assert "runtime exit -9" in out
