"""The served-conversation tour runs, and shows what its README says it shows.

It starts real processes (the fake, the host twice, with a SIGKILL between), so it is a
single test; its facts are the README's claims: a pause is a 202 carrying the question,
a message while it is owed is refused, a killed host's restart continues the session with
the whole conversation shown to the model, cookie mode issues a session, and the fake ends
with every scripted answer used and nothing found.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "examples" / "served_conversation" / "tour.py"


@pytest.mark.timeout(300)  # the tour's own deadline (240 s) fires first
def test_the_tour_shows_what_its_readme_claims(tmp_path: Path) -> None:
    facts_file = tmp_path / "facts.json"
    done = subprocess.run(
        [sys.executable, str(TOUR), "--workdir", str(tmp_path), "--facts", str(facts_file)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,  # real processes, started one after another: minutes when busy
    )
    assert done.returncode == 0, done.stdout + done.stderr
    facts = json.loads(facts_file.read_text(encoding="utf-8"))
    assert facts["pause_status"] == 202
    assert facts["question"] == "Book a table for 2 on Friday?"
    assert facts["while_owed"] == "ERR_AWAITING_DECISION"
    assert facts["after_decision"] == "Done: a table for two on Friday."
    assert facts["shown_after_restart"] == [
        "user: Hi, I'm Ada.",
        "assistant: Hello Ada. What can I do for you?",
        "user: Book a table for two on Friday.",
        'assistant: book_table({"people": 2, "day": "Friday"})',
        "tool: yes",
        "assistant: Done: a table for two on Friday.",
        "user: Who am I, and when is my table?",
    ]
    assert facts["cookie_issued"] is True
    assert facts["shown_with_cookie"][0] == "user: Hello!"
    assert facts["host_exit"] == 0
    assert facts["fake_exit"] == 0
    assert "turnlaw: served 6 request(s)" in done.stdout
    assert "kill -9 the host (exit -9)" in done.stdout
