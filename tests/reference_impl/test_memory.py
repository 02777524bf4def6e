"""Memory is recall, not replay: a block in the system prompt, never message turns."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from conformance.wire import ScriptedProvider, text
from reference_impl import (
    EpisodicMemory,
    Identity,
    InMemoryStore,
    MemoryFileError,
    MemoryWriteError,
    SqliteMemoryStore,
)

FRAMING = "Relevant context from prior conversations. Use when it helps answer the current turn."


async def test_recall_reaches_the_model_as_a_system_block(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Booked."), text("Three it is.")])
    agent = new_agent().memory(EpisodicMemory(InMemoryStore())).build()
    me = Identity(conversation_id="user-1")
    await agent.run("Book me a table for two", identity=me)
    await agent.run("Make it three.", identity=me)  # a NEW conversation: recall, not replay
    request = wire.wire.last
    assert request.turns() == [("user", "Make it three.")]
    assert request.system.startswith("You take restaurant bookings. Be brief.\n\n" + FRAMING)
    assert '<memory role="user" turn="1" updated="' in request.system
    assert ">Book me a table for two</memory>" in request.system
    assert '<memory role="assistant" turn="1"' in request.system
    assert wire.wire.requests[0].system == "You take restaurant bookings. Be brief."


async def test_recall_never_crosses_namespaces(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script([text("Noted."), text("Hello.")])
    agent = new_agent().memory(EpisodicMemory(InMemoryStore())).build()
    await agent.run("My card ends 4242", identity=Identity(conversation_id="alice"))
    await agent.run("What is my card?", identity=Identity(conversation_id="bob"))
    assert "4242" not in wire.wire.last.system
    assert "<memory" not in wire.wire.last.system


async def test_a_session_gets_recall_across_its_turns(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Noted."), text("Friday.")])
    agent = new_agent().memory(EpisodicMemory(InMemoryStore())).build()
    await agent.run("The party is on Friday", session_id="s-1")
    await agent.run("When is the party?", session_id="s-1")
    assert "The party is on Friday" in wire.wire.last.system


async def test_runs_with_no_identity_recall_nothing_from_each_other(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    wire.script([text("Noted."), text("No idea.")])
    agent = new_agent().memory(EpisodicMemory(InMemoryStore())).build()
    await agent.run("The party is on Friday")
    await agent.run("When is the party?")
    assert "<memory" not in wire.wire.last.system


async def test_sqlite_memory_survives_a_new_agent_and_store(
    wire: ScriptedProvider, new_agent: Any, tmp_path: Path
) -> None:
    wire.script([text("Noted."), text("Friday.")])
    db = tmp_path / "memory.sqlite3"
    me = Identity(conversation_id="user-1")
    first = new_agent().memory(EpisodicMemory(SqliteMemoryStore(db))).build()
    await first.run("The party is on Friday", identity=me)
    second = new_agent().memory(EpisodicMemory(SqliteMemoryStore(db))).build()
    await second.run("When is the party?", identity=me)
    assert "The party is on Friday" in wire.wire.last.system
    assert db.stat().st_size > 0


async def test_recall_is_budgeted(wire: ScriptedProvider, new_agent: Any) -> None:
    wire.script([text("ok")] * 6)
    agent = new_agent().memory(EpisodicMemory(InMemoryStore(), max_entries=3)).build()
    me = Identity(conversation_id="u")
    for i in range(5):
        await agent.run(f"fact number {i}", identity=me)
    await agent.run("which fact?", identity=me)
    assert wire.wire.last.system.count("<memory ") == 3


async def test_memory_turn_numbers_count_folded_turns(
    wire: ScriptedProvider, new_agent: Any
) -> None:
    from reference_impl import Compaction

    wire.script([text("a1"), text("a2"), text("SUMMARY"), text("a3"), text("a4")])
    store = InMemoryStore()
    agent = (
        new_agent()
        .memory(EpisodicMemory(store))
        .compaction(Compaction(trigger_turns=2, keep_recent_turns=1))
        .build()
    )
    me = Identity(conversation_id="u")
    await agent.run("m1", identity=me)
    await agent.follow_up("m2")
    await agent.follow_up("m3")  # folds m1 and m2 into one summary turn
    await agent.follow_up("m4")
    entries = await store.entries(me.namespace())
    assert [(e.role, e.turn) for e in entries if e.role == "user"] == [
        ("user", 1),
        ("user", 2),
        ("user", 3),
        ("user", 4),
    ]
    assert agent.checkpoint().turns == 4
    assert 'turn="1"' in wire.wire.last.system


async def test_a_failed_memory_write_commits_nothing_so_a_retry_is_clean(
    wire: ScriptedProvider, new_agent: Any, tmp_path: Path
) -> None:
    """The model answered, then memory refused the write (a real SQLite trigger): the
    error is typed, the agent's conversation is the one from before the turn, and the
    retry shows the model the conversation once, not with the failed turn in it."""
    wire.script([text("Noted."), text("Friday."), text("Friday, as I said.")])
    db = tmp_path / "memory.sqlite3"
    agent = new_agent().memory(EpisodicMemory(SqliteMemoryStore(db))).build()
    me = Identity(conversation_id="user-1")
    await agent.run("The party is on Friday", identity=me)
    before = agent.checkpoint()
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON memory_entries"
            " BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
        )
    with pytest.raises(MemoryWriteError, match="disk says no") as raised:
        await agent.follow_up("When is the party?")
    assert str(db) in str(raised.value)
    assert agent.checkpoint() == before, "the turn was not committed"

    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("DROP TRIGGER refuse")
    retry = await agent.follow_up("When is the party?")
    assert retry.answer == "Friday, as I said."
    assert wire.wire.last.user_texts() == ["The party is on Friday", "When is the party?"]
    assert [t.text for t in retry.checkpoint.history] == [
        "The party is on Friday",
        "Noted.",
        "When is the party?",
        "Friday, as I said.",
    ]


async def test_a_corrupt_memory_file_refuses_the_run_before_anything_is_sent(
    wire: ScriptedProvider, new_agent: Any, tmp_path: Path
) -> None:
    db = tmp_path / "memory.sqlite3"
    db.touch()  # exists, empty: not a new store
    agent = new_agent().memory(EpisodicMemory(SqliteMemoryStore(db))).build()
    with pytest.raises(MemoryFileError, match=r"\[empty\]"):
        await agent.run("hello", identity=Identity(conversation_id="u"))
    assert len(wire.wire) == 0
