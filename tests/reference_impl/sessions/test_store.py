"""The session runtime's directory in the session store's file: agents with their
default conversation, conversations in order, receipts settled with their turn's
checkpoint in one transaction; a schema-1 file upgraded in place; anything else refused,
typed, the file untouched."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from reference_impl.store import (
    SCHEMA_VERSION,
    AgentRecord,
    SessionFileError,
    SqliteRuntimeStore,
    UnknownRecordError,
    UnreadableRecordError,
    sqlite_runtime_store,
    sqlite_sessions,
)
from tests.store.test_sqlite_file import BAD_FILES

CHECKPOINT = '{"version": 1, "history": [{"role": "user", "text": "Hi."}], "turns": 1}'
V1_SCHEMA = (
    "CREATE TABLE turnlaw_store (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
    "INSERT INTO turnlaw_store VALUES ('format', 'turnlaw-sessions')",
    "INSERT INTO turnlaw_store VALUES ('schema', '1')",
    "CREATE TABLE turnlaw_sessions (session_id TEXT PRIMARY KEY NOT NULL, checkpoint TEXT"
    " NOT NULL, owner TEXT, revision INTEGER NOT NULL) WITHOUT ROWID",
    f"INSERT INTO turnlaw_sessions VALUES ('old', '{CHECKPOINT}', 'ann', 4)",
    "PRAGMA application_id = 1953264499",
    "PRAGMA user_version = 1",
)


def _open_and_read(path: Path) -> None:
    store = sqlite_runtime_store(path)
    try:
        store.load("s0")
    finally:
        store.close()


def _agent(n: int = 1) -> AgentRecord:
    return AgentRecord(
        id=f"agent-{n}",
        system="You take bookings.",
        memory=(("human", "Ann, vegetarian"), ("persona", "terse")),
        default_conversation=f"conv-default-{n}",
    )


def _sql(path: Path, *statements: str) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        for statement in statements:
            connection.execute(statement)


def test_an_agent_comes_with_its_default_conversation_and_keeps_its_model(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    store = sqlite_runtime_store(path)
    default = store.create_agent(_agent())
    created = store.create_conversation("conv-b", "agent-1")
    store.create_agent(_agent(2))
    store.set_model("agent-1", "bigger-model")
    store.close()
    again = sqlite_runtime_store(path)
    assert default.id == "conv-default-1"
    assert [c.id for c in again.conversations("agent-1")] == ["conv-default-1", "conv-b"]
    assert again.conversation("conv-b") == created
    record = again.agent("agent-1")
    assert record is not None and record.model == "bigger-model"
    assert record.memory == (("human", "Ann, vegetarian"), ("persona", "terse"))
    assert [a.id for a in again.agents()] == ["agent-1", "agent-2"]
    assert again.agent("agent-3") is None and again.conversation("conv-x") is None
    with pytest.raises(UnknownRecordError):
        again.create_conversation("conv-c", "agent-3")
    with pytest.raises(UnknownRecordError):
        again.set_model("agent-3", "m")
    again.close()


def test_a_turn_settles_its_receipt_in_the_transaction_that_stores_it(tmp_path: Path) -> None:
    store = sqlite_runtime_store(tmp_path / "sessions.db")
    store.create_agent(_agent())
    store.receive("msg-1", "conv-default-1", "Hi.")
    store.receive("msg-2", "conv-default-1", "Again.")
    store.receive("msg-3", "conv-default-1", "Never mind.")
    store.save_turn("conv-default-1", CHECKPOINT, ["msg-1"])
    store.settle(["msg-2"], "aborted")
    store.settle(["msg-2"], "failed")  # a settled receipt keeps what it became first
    states = [(r.id, r.state) for r in store.receipts("conv-default-1")]
    assert states == [("msg-1", "completed"), ("msg-2", "aborted"), ("msg-3", "received")]
    stored = store.load("conv-default-1")
    assert stored is not None and stored.checkpoint == CHECKPOINT
    store.close()


def test_a_failed_turn_write_settles_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    store = sqlite_runtime_store(path)
    store.create_agent(_agent())
    store.receive("msg-1", "conv-default-1", "Hi.")
    _sql(path, "UPDATE turnlaw_receipts SET state = 'received'")
    with pytest.raises(ValueError, match="checkpoint"):
        store.save_turn("conv-default-1", "[not an object]", ["msg-1"])
    assert [r.state for r in store.receipts("conv-default-1")] == ["received"]
    assert store.load("conv-default-1") is None
    store.close()


def test_a_schema_1_file_is_upgraded_in_place_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    _sql(path, *V1_SCHEMA)
    store = sqlite_runtime_store(path)
    old = store.load("old")
    assert old is not None and old.owner == "ann" and old.revision == 4
    store.create_agent(_agent())
    store.close()
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert connection.execute(
            "SELECT value FROM turnlaw_store WHERE key = 'schema'"
        ).fetchone() == ("2",)
    hosting = sqlite_sessions(path)  # the hosting store reads the upgraded file
    assert hosting.load("old") is not None
    hosting.close()


def test_a_broken_schema_1_file_is_refused_not_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    _sql(path, *V1_SCHEMA, "CREATE TABLE someone_elses (x)")
    before = path.read_bytes()
    with pytest.raises(SessionFileError) as raised:
        sqlite_runtime_store(path)
    assert raised.value.reason == "corrupt"
    assert path.read_bytes() == before


def test_a_file_newer_than_schema_2_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    sqlite_runtime_store(path).close()
    _sql(path, "PRAGMA user_version = 3")
    before = path.read_bytes()
    with pytest.raises(SessionFileError) as raised:
        sqlite_runtime_store(path)
    assert raised.value.reason == "newer-schema"
    assert path.read_bytes() == before


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_file_that_is_not_a_store_is_refused_and_untouched(tmp_path: Path, case: str) -> None:
    make, reason = BAD_FILES[case]
    path = tmp_path / "sessions.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(SessionFileError) as raised:
        _open_and_read(path)
    assert raised.value.reason == reason
    assert path.read_bytes() == before


READS: dict[str, Callable[[SqliteRuntimeStore], object]] = {
    "turnlaw_agents": lambda store: store.agent("agent-1"),
    "turnlaw_conversations": lambda store: store.conversations("agent-1"),
    "turnlaw_receipts": lambda store: store.receipts("conv-default-1"),
}


@pytest.mark.parametrize(
    ("statement", "table"),
    [
        ("UPDATE turnlaw_agents SET record = 'not json'", "turnlaw_agents"),
        ("UPDATE turnlaw_agents SET record = x'ff00'", "turnlaw_agents"),
        ("UPDATE turnlaw_receipts SET state = 'lost'", "turnlaw_receipts"),
        ("UPDATE turnlaw_receipts SET created = 'soon'", "turnlaw_receipts"),
        ("UPDATE turnlaw_conversations SET created = 0", "turnlaw_conversations"),
    ],
)
def test_a_row_this_store_did_not_write_is_unreadable_and_kept(
    tmp_path: Path, statement: str, table: str
) -> None:
    path = tmp_path / "sessions.db"
    store = sqlite_runtime_store(path)
    store.create_agent(_agent())
    store.receive("msg-1", "conv-default-1", "Hi.")
    store.close()
    _sql(path, statement)
    before = path.read_bytes()
    store = sqlite_runtime_store(path)
    with pytest.raises(UnreadableRecordError) as raised:
        READS[table](store)
    store.close()
    assert raised.value.table == table and str(path) in str(raised.value)
    assert path.read_bytes() == before
