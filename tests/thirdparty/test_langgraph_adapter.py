"""Checks of the langgraph adapter itself: that it translates what langgraph does.

The suite judges the laws; these pin the adapter's own claims (its mapping of langgraph's
errors, what it sends, what it leaves out) and the langgraph behaviour its manifest
describes, against the pinned version, on the loopback fake. Run from the repository root.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import AsyncIterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from conformance.adapter import AgentSpec, IdentitySpec
from conformance.catalog import ABANDONED_RESULT, WhoamiReport
from conformance.frameworks import langgraph as adapter_module
from conformance.frameworks.langgraph import LangGraphImplementation, implementation
from conformance.wire import Hold, ScriptedProvider, text, tool_call
from conformance.wire.ir import Dialect

KEY = "sk-turnlaw-test-SECRET-0123456789"
QUESTION = "Approve a refund for order 7?"
ROOT = Path(__file__).resolve().parents[2]


OPENED: list[Any] = []
"""Agents a test made, closed after it however it ended: an open aiosqlite connection
keeps its worker thread, and the process, alive."""


@pytest.fixture(autouse=True)
async def close_what_was_opened() -> AsyncIterator[None]:
    yield
    while OPENED:
        await OPENED.pop().close()  # closing twice is harmless


async def agent(fake: ScriptedProvider, **spec: Any) -> Any:
    made = await implementation.create_agent(
        AgentSpec(base_url=fake.base_url or "", api_key=KEY, **spec)
    )
    OPENED.append(made)
    return made


def test_loading_the_package_does_not_import_a_framework() -> None:
    code = "import conformance.frameworks, sys; print('langgraph' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"


def test_tracing_is_off_once_the_adapter_is_loaded() -> None:
    assert os.environ["LANGSMITH_TRACING"] == "false"
    assert os.environ["LANGCHAIN_TRACING_V2"] == "false"


async def test_the_agent_name_travels_on_the_wire(loopback_provider: ScriptedProvider) -> None:
    """Why named_agents is declared: langgraph stamps the name on each assistant turn."""
    loopback_provider.script([text("Booked."), text("Three it is.")])
    billing = await agent(loopback_provider, id="billing")
    await billing.run("Book a table.")
    await billing.follow_up("Make it three.")
    await billing.close()
    assistant = [m for m in loopback_provider.wire.last.raw["messages"] if m["role"] == "assistant"]
    assert assistant == [{"content": "Booked.", "name": "billing", "role": "assistant"}]


async def test_identity_is_run_context_not_a_thread(loopback_provider: ScriptedProvider) -> None:
    loopback_provider.script([tool_call("whoami"), text("Done."), tool_call("whoami"), text("Ok.")])
    who = IdentitySpec(conversation_id="c-1", tenant="acme")
    recorder = await agent(loopback_provider, tools=("whoami",))
    await recorder.run("Who am I?", identity=who)
    told = [m.text for m in loopback_provider.wire.last.messages if m.role == "tool"]
    assert json.loads(told[0]) == WhoamiReport.told(who).model_dump()
    await recorder.follow_up("And now?")  # context is per invoke: the thread does not keep it
    told = [m.text for m in loopback_provider.wire.last.messages if m.role == "tool"]
    assert json.loads(told[-1]) == WhoamiReport().model_dump()
    await recorder.close()


async def test_a_message_on_a_paused_thread_is_committed_and_drops_the_pause(
    loopback_provider: ScriptedProvider,
) -> None:
    """Why INVALID_CHAT_HISTORY is not mapped to PENDING_QUESTION: langgraph 1.2.24 raises it
    from the agent node's history check before calling the model, but only after it has
    committed the new message and discarded the interrupt, so the answer can no longer be
    given. It propagates as langgraph's own ValueError."""
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION})])
    asker = await agent(loopback_provider, tools=("ask_person",))
    paused = await asker.run("Refund order 7, please.")
    assert paused.paused is not None and paused.paused.question == QUESTION
    with pytest.raises(ValueError, match="INVALID_CHAT_HISTORY"):
        await asker.follow_up("Never mind.")
    assert len(loopback_provider.wire) == 1, "the message reached the model (langgraph changed?)"
    assert await asker.abandon_pause() is None, "the pause survived (langgraph changed?)"
    said = [m["data"]["content"] for m in (await asker.checkpoint())["messages"]]
    assert said[-1] == "Never mind.", "the message was not committed (langgraph changed?)"
    with pytest.raises(ValueError, match="INVALID_CHAT_HISTORY"):
        await asker.resume(paused.checkpoint, "approved")
    assert len(loopback_provider.wire) == 1
    await asker.close()


async def test_a_follow_up_before_any_run_is_a_first_turn_on_a_fresh_thread(
    loopback_provider: ScriptedProvider,
) -> None:
    """Why follow-up.refuses-before-first-run fails: a langgraph caller always names a
    thread, and a thread nobody ran yet starts empty; the follow-up then holds it."""
    loopback_provider.script([text("Booked."), text("Three it is.")])
    booker = await agent(loopback_provider, system="You take bookings.")
    first = await booker.follow_up("Book a table.")
    assert first.answer == "Booked."
    assert loopback_provider.wire.last.turns() == [("user", "Book a table.")]
    await booker.follow_up("Make it three.")
    assert loopback_provider.wire.last.turns() == [
        ("user", "Book a table."),
        ("assistant", "Booked."),
        ("user", "Make it three."),
    ]
    assert (await booker.checkpoint())["thread_id"] == first.checkpoint["thread_id"]
    await booker.close()


async def test_abandoning_closes_the_asking_call_through_update_state(
    loopback_provider: ScriptedProvider,
) -> None:
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION}), text("Fine.")])
    asker = await agent(loopback_provider, tools=("ask_person",))
    paused = await asker.run("Refund order 7, please.")
    assert paused.paused is not None
    dropped = await asker.abandon_pause()
    assert dropped == {
        "tool_name": "ask_person",
        "tool_call_id": paused.paused.tool_call_id,
        "question": QUESTION,
    }
    await asker.follow_up("Something else.")
    results = [
        (m.tool_call_id, m.text) for m in loopback_provider.wire.last.messages if m.role == "tool"
    ]
    assert results == [(paused.paused.tool_call_id, ABANDONED_RESULT)]
    await asker.close()


async def test_bad_input_is_named_with_plain_errors(loopback_provider: ScriptedProvider) -> None:
    """The adapter's own checks raise plain errors: a refusal is only ever langgraph's."""
    loopback_provider.allow_unused()
    with pytest.raises(ValueError, match="Chat Completions only"):
        await agent(loopback_provider, dialect=Dialect.OPENAI_RESPONSES)
    plain = await agent(loopback_provider)
    with pytest.raises(ValueError, match="session_id"):
        await plain.run("Hi.", session_id="s-1")
    with pytest.raises(ValueError, match="not a checkpoint of this adapter"):
        await plain.run("Hi.", continue_from={"history": []})
    with pytest.raises(ValueError, match="thread_id"):
        await plain.resume({"messages": []}, "approved")
    with pytest.raises(LookupError, match="no thread"):
        await plain.checkpoint()
    await plain.close()
    assert len(loopback_provider.wire) == 0
    assert not hasattr(adapter_module, "Refused"), "the adapter can raise a refusal of its own"


def test_the_version_under_test_is_the_installed_one_and_the_pinned_one() -> None:
    installed = metadata.version("langgraph")
    assert implementation.version == installed
    manifest = tomllib.loads((ROOT / "expectations" / "langgraph.toml").read_text(encoding="utf-8"))
    assert manifest["framework"] == {"package": "langgraph", "version": installed}


RESUME_ELSEWHERE = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from conformance.adapter import AgentSpec
    from conformance.frameworks.langgraph import LangGraphImplementation

    async def main(base_url, database, checkpoint):
        spec = AgentSpec(base_url=base_url, api_key="sk-child-process-key", tools=("ask_person",))
        agent = await LangGraphImplementation(Path(database)).create_agent(spec)
        done = await agent.resume(json.loads(Path(checkpoint).read_text()), "approved")
        await agent.close()
        print(done.answer)

    asyncio.run(main(*sys.argv[1:]))
    """
)


async def test_a_paused_thread_resumes_in_another_process(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    """The SQLite checkpointer is durable: another process resumes the paused thread."""
    loopback_provider.script([tool_call("ask_person", {"question": QUESTION}), text("Refunded.")])
    database = tmp_path / "checkpoints.sqlite"
    asker = await LangGraphImplementation(database).create_agent(
        AgentSpec(base_url=loopback_provider.base_url or "", api_key=KEY, tools=("ask_person",))
    )
    paused = await asker.run("Refund order 7, please.")
    await asker.close()
    assert paused.paused is not None
    checkpoint = tmp_path / "checkpoint.json"
    checkpoint.write_text(json.dumps(paused.checkpoint))
    arguments = [loopback_provider.base_url or "", str(database), str(checkpoint)]
    child = subprocess.run(
        [sys.executable, "-c", RESUME_ELSEWHERE, *arguments],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "Refunded."
    results = {
        m.tool_call_id: m.text for m in loopback_provider.wire.last.messages if m.role == "tool"
    }
    assert results == {paused.paused.tool_call_id: "approved"}


async def test_nothing_guards_a_thread_with_a_run_in_flight(
    loopback_provider: ScriptedProvider,
) -> None:
    """Why in_flight_guard is declared and its laws fail: langgraph has the concept (a
    checkpointed thread) and runs a second turn on a busy thread at once; the thread keeps
    only the run that finished last, so a turn answered and returned is lost. (Whether the
    second request also shows the first turn's message depends on whether its input
    checkpoint was written yet: it varies from run to run, so it is not asserted.)"""
    hold = Hold(then=text("First."), label="first")
    loopback_provider.script([text("Booked."), hold, text("Second.")])
    booker = await agent(loopback_provider)
    await booker.run("Book a table.")
    first = asyncio.create_task(booker.follow_up("For two."))
    await hold.arrived()
    second = await booker.follow_up("For three.")
    hold.release()
    assert (await first).answer == "First." and second.answer == "Second."
    assert len(loopback_provider.wire) == 3, "a turn on a busy thread did not reach the model"
    busy = loopback_provider.wire.requests[2]
    assert busy.user_texts()[0] == "Book a table." and busy.user_texts()[-1] == "For three."
    assert "First." not in [m.text for m in busy.messages], "the held answer was shown"
    said = [m["data"]["content"] for m in (await booker.checkpoint())["messages"]]
    assert said == ["Book a table.", "Booked.", "For two.", "First."], "langgraph changed?"
