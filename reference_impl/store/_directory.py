"""The session runtime's directory, in the session store's own file: agents, their
conversations, and a receipt for every message that reached the runtime.

Each conversation's model history is a checkpoint in the sessions table, keyed by the
conversation id (so `continuation` restores it like any stored session); what the runtime
knows *about* conversations lives beside it, in the same SQLite file, so a turn's
checkpoint and its message's receipt commit in one transaction (`save_turn`). A receipt
is written when a message reaches the runtime and settled when its turn completes,
fails, is aborted or the message is taken off the queue: a message that reached a
runtime which then died is still there, unsettled.

Rows are validated on the way out: a row that is not what this module wrote is an
`UnreadableRecordError` naming the file, the table and the id, never a default.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from typing import Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._contract import check_session_id, check_storable
from ._errors import SessionStoreError
from ._sqlite import SqliteSessions, _roll_back
from ._sqlite_file import AGENTS, CONVERSATIONS, FAILURES, RECEIPTS, database_error

ReceiptState = Literal["received", "completed", "failed", "aborted", "removed"]
"""`received`: reached the runtime, its turn not over (or the runtime died first);
`completed`: its turn's checkpoint holds it; `failed` / `aborted`: its turn ended
without completing; `removed`: taken off the queue before its turn began."""

_T = TypeVar("_T")

SETTLED: Final = frozenset({"completed", "failed", "aborted", "removed"})


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AgentRecord(_Row):
    """An agent: the persistent entity with memory (seed 003)."""

    id: str = Field(min_length=1)
    system: str = ""
    memory: tuple[tuple[str, str], ...] = Field(
        default=(), description="memory blocks, (label, value), in the order given"
    )
    model: str | None = Field(
        default=None, description="the model a session last passed (None: the runtime's)"
    )
    default_conversation: str = Field(min_length=1)


class ConversationRecord(_Row):
    """A conversation: a thread on an agent. `order` is its creation order in the file."""

    id: str = Field(min_length=1)
    agent_id: str = Field(min_length=1)
    order: int = Field(ge=1)


class Receipt(_Row):
    """A message that reached the runtime, and what became of it."""

    id: str = Field(min_length=1)
    conversation_id: str = Field(min_length=1)
    text: str
    state: ReceiptState
    order: int = Field(ge=1)


class UnknownRecordError(SessionStoreError):
    """An agent or conversation the directory does not hold (`kind` says which)."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, kind: str, record_id: str) -> None:
        self.kind = kind
        self.record_id = record_id
        super().__init__(where, f"no {kind} {record_id!r:.120}")


class UnreadableRecordError(SessionStoreError):
    """A directory row exists but is not one this store wrote; it is kept as it is."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, table: str, record_id: str, problem: str) -> None:
        self.table = table
        self.record_id = record_id
        super().__init__(where, f"{table} row {record_id!r:.120} cannot be read: {problem}")


class SqliteRuntimeStore(SqliteSessions):
    """The session store (checkpoints by conversation id) plus the runtime's directory.

    It is a `SessionStore` too: `continuation` loads and saves checkpoints through it."""

    def create_agent(self, record: AgentRecord) -> ConversationRecord:
        """The agent and its default conversation, in one transaction."""
        _storable(self._path, record.id, record.default_conversation, record.model_dump_json())

        def write(connection: sqlite3.Connection) -> ConversationRecord:
            order = _next(connection, AGENTS)
            connection.execute(
                f"INSERT INTO {AGENTS} (agent_id, record, created) VALUES (?, ?, ?)",
                (record.id, record.model_dump_json(), order),
            )
            return _insert_conversation(connection, record.default_conversation, record.id)

        return self._transaction(write)

    def agent(self, agent_id: str) -> AgentRecord | None:
        check_session_id(self._path, agent_id)
        rows = self._read(f"SELECT record FROM {AGENTS} WHERE agent_id = ?", (agent_id,))
        return None if not rows else self._agent_of(agent_id, rows[0][0])

    def agents(self) -> list[AgentRecord]:
        """Every agent, in creation order."""
        rows = self._read(f"SELECT agent_id, record FROM {AGENTS} ORDER BY created", ())
        return [self._agent_of(_text(self._path, AGENTS, "?", key), value) for key, value in rows]

    def set_model(self, agent_id: str, model: str) -> AgentRecord:
        """Record a session's model update on the agent (it persists beyond the session)."""
        check_session_id(self._path, model)

        def write(connection: sqlite3.Connection) -> AgentRecord:
            row = connection.execute(
                f"SELECT record FROM {AGENTS} WHERE agent_id = ?", (agent_id,)
            ).fetchone()
            if row is None:
                raise UnknownRecordError(self._path, "agent", agent_id)
            updated = self._agent_of(agent_id, row[0]).model_copy(update={"model": model})
            connection.execute(
                f"UPDATE {AGENTS} SET record = ? WHERE agent_id = ?",
                (updated.model_dump_json(), agent_id),
            )
            return updated

        return self._transaction(write)

    def create_conversation(self, conversation_id: str, agent_id: str) -> ConversationRecord:
        """A new conversation on an existing agent."""
        _storable(self._path, conversation_id, agent_id)

        def write(connection: sqlite3.Connection) -> ConversationRecord:
            known = connection.execute(
                f"SELECT 1 FROM {AGENTS} WHERE agent_id = ?", (agent_id,)
            ).fetchone()
            if known is None:
                raise UnknownRecordError(self._path, "agent", agent_id)
            return _insert_conversation(connection, conversation_id, agent_id)

        return self._transaction(write)

    def conversation(self, conversation_id: str) -> ConversationRecord | None:
        check_session_id(self._path, conversation_id)
        rows = self._read(
            f"SELECT conversation_id, agent_id, created FROM {CONVERSATIONS}"
            " WHERE conversation_id = ?",
            (conversation_id,),
        )
        return None if not rows else self._conversation_of(rows[0])

    def conversations(self, agent_id: str) -> list[ConversationRecord]:
        """The agent's conversations in creation order (its default first)."""
        check_session_id(self._path, agent_id)
        rows = self._read(
            f"SELECT conversation_id, agent_id, created FROM {CONVERSATIONS}"
            " WHERE agent_id = ? ORDER BY created",
            (agent_id,),
        )
        return [self._conversation_of(row) for row in rows]

    def receive(self, receipt_id: str, conversation_id: str, text: str) -> Receipt:
        """A message reached the runtime: its receipt, unsettled."""
        _storable(self._path, receipt_id, conversation_id, text)

        def write(connection: sqlite3.Connection) -> Receipt:
            order = _next(connection, RECEIPTS)
            connection.execute(
                f"INSERT INTO {RECEIPTS} (receipt_id, conversation_id, text, state, created)"
                " VALUES (?, ?, ?, 'received', ?)",
                (receipt_id, conversation_id, text, order),
            )
            return Receipt(
                id=receipt_id,
                conversation_id=conversation_id,
                text=text,
                state="received",
                order=order,
            )

        return self._transaction(write)

    def settle(self, receipt_ids: Sequence[str], state: ReceiptState) -> None:
        """The messages' turn is over without a checkpoint to store (failed, aborted) or
        they were removed from the queue."""
        self._transaction(lambda connection: _settle(connection, receipt_ids, state))

    def save_turn(self, conversation_id: str, checkpoint: str, settled: Sequence[str]) -> None:
        """A completed turn: its checkpoint and its messages' receipts, in one transaction
        (a crash leaves both or neither)."""
        check_storable(self._path, conversation_id, checkpoint)

        def write(connection: sqlite3.Connection) -> None:
            self._write(connection, conversation_id, checkpoint, None)
            _settle(connection, settled, "completed", only_received=False)

        self._transaction(write)

    def receipts(self, conversation_id: str) -> list[Receipt]:
        """The conversation's receipts in arrival order."""
        check_session_id(self._path, conversation_id)
        rows = self._read(
            f"SELECT receipt_id, conversation_id, text, state, created FROM {RECEIPTS}"
            " WHERE conversation_id = ? ORDER BY created",
            (conversation_id,),
        )
        return [self._receipt_of(row) for row in rows]

    # -- inside a call ---------------------------------------------------------------

    def _transaction(self, write: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._lock:
            connection = self._open()
            try:
                connection.execute("BEGIN IMMEDIATE")
            except FAILURES as error:
                raise database_error(self._path, error) from error
            try:
                value = write(connection)
                connection.execute("COMMIT")
            except SessionStoreError:
                _roll_back(connection)
                raise
            except FAILURES as error:
                _roll_back(connection)
                raise database_error(self._path, error) from error
            return value

    def _read(self, query: str, parameters: tuple[str, ...]) -> list[tuple[object, ...]]:
        with self._lock:
            connection = self._open()
            try:
                return list(connection.execute(query, parameters).fetchall())
            except FAILURES as error:
                raise database_error(self._path, error) from error

    def _agent_of(self, agent_id: str, value: object) -> AgentRecord:
        text = _text(self._path, AGENTS, agent_id, value)
        try:
            record = AgentRecord.model_validate_json(text)
        except ValidationError as error:
            problem = error.errors(include_url=False)[0]["msg"]
            raise UnreadableRecordError(self._path, AGENTS, agent_id, problem) from error
        if record.id != agent_id:
            raise UnreadableRecordError(self._path, AGENTS, agent_id, "its record names another")
        return record

    def _conversation_of(self, row: tuple[object, ...]) -> ConversationRecord:
        conversation_id = _text(self._path, CONVERSATIONS, "?", row[0])
        agent_id = _text(self._path, CONVERSATIONS, conversation_id, row[1])
        order = _count(self._path, CONVERSATIONS, conversation_id, row[2])
        return ConversationRecord(id=conversation_id, agent_id=agent_id, order=order)

    def _receipt_of(self, row: tuple[object, ...]) -> Receipt:
        receipt_id = _text(self._path, RECEIPTS, "?", row[0])
        try:
            return Receipt(
                id=receipt_id,
                conversation_id=_text(self._path, RECEIPTS, receipt_id, row[1]),
                text=_text(self._path, RECEIPTS, receipt_id, row[2]),
                state=_text(self._path, RECEIPTS, receipt_id, row[3]),  # type: ignore[arg-type]
                order=_count(self._path, RECEIPTS, receipt_id, row[4]),
            )
        except ValidationError as error:
            problem = error.errors(include_url=False)[0]["msg"]
            raise UnreadableRecordError(self._path, RECEIPTS, receipt_id, problem) from error


def _storable(where: str, *values: str) -> None:
    """Text a file can hold and give back unchanged (no lone surrogate), or refused."""
    for value in values:
        check_session_id(where, value)


def _next(connection: sqlite3.Connection, table: str) -> int:
    """The next creation order in `table` (read under the transaction's write lock)."""
    row = connection.execute(f"SELECT coalesce(max(created), 0) + 1 FROM {table}").fetchone()
    return int(row[0])


def _insert_conversation(
    connection: sqlite3.Connection, conversation_id: str, agent_id: str
) -> ConversationRecord:
    order = _next(connection, CONVERSATIONS)
    connection.execute(
        f"INSERT INTO {CONVERSATIONS} (conversation_id, agent_id, created) VALUES (?, ?, ?)",
        (conversation_id, agent_id, order),
    )
    return ConversationRecord(id=conversation_id, agent_id=agent_id, order=order)


def _settle(
    connection: sqlite3.Connection,
    receipt_ids: Sequence[str],
    state: str,
    *,
    only_received: bool = True,
) -> None:
    """Settle receipts still `received` (a settled one keeps what it became first), but
    `completed` always wins: the checkpoint holding the message committed with it, so an
    abort that lost the race to the store write cannot leave the message listed twice."""
    guard = " AND state = 'received'" if only_received else ""
    for receipt_id in receipt_ids:
        connection.execute(
            f"UPDATE {RECEIPTS} SET state = ? WHERE receipt_id = ?{guard}", (state, receipt_id)
        )


def _text(where: str, table: str, record_id: str, value: object) -> str:
    """A text column (the connection reads text as bytes, so a bad one can be named)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnreadableRecordError(
                where, table, record_id, f"a column is not UTF-8 ({error.reason})"
            ) from error
    if isinstance(value, str):
        return value
    raise UnreadableRecordError(where, table, record_id, f"a column is {type(value).__name__}")


def _count(where: str, table: str, record_id: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UnreadableRecordError(where, table, record_id, f"its order is {value!r:.40}")
    return value


def sqlite_runtime_store(path: str | os.PathLike[str]) -> SqliteRuntimeStore:
    """The session runtime's store in the SQLite file at `path` (created when nothing is
    there; a schema-1 session store is upgraded); a file that is not a usable store
    raises SessionFileError naming it, the file untouched."""
    return SqliteRuntimeStore(path)
