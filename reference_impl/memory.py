"""Episodic memory: recall, not replay.

Prior turns come back as a `<memory>` block in the system prompt — selected, budgeted
and citable — never as message turns in the window. A conversation is verbatim; recall
is a different, deliberately different, thing. Memory is scoped by a namespace
(`Identity.namespace()`), and one namespace never reads another's entries.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime
from typing import Literal, Protocol
from xml.sax.saxutils import escape

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

MEMORY_PREAMBLE = (
    "Relevant context from prior conversations. Use when it helps answer the current turn."
)


class MemoryEntry(BaseModel):
    """One remembered message: who said it, in which turn of its conversation, and when."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: str
    role: Literal["user", "assistant"]
    turn: int = Field(ge=1, description="1-based turn number in its conversation")
    text: str
    updated: AwareDatetime

    @field_validator("updated")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        # One zone in storage, so ordering and rendering never depend on the writer's.
        return value.astimezone(UTC)


class MemoryStore(Protocol):
    """Where entries live. `entries` returns one namespace's entries in insertion order."""

    async def add(self, entries: Sequence[MemoryEntry]) -> None: ...

    async def entries(self, namespace: str) -> list[MemoryEntry]: ...


class InMemoryStore:
    """A process-local store, for tests and one-process agents."""

    def __init__(self) -> None:
        self._by_namespace: dict[str, list[MemoryEntry]] = {}

    async def add(self, entries: Sequence[MemoryEntry]) -> None:
        for entry in entries:
            self._by_namespace.setdefault(entry.namespace, []).append(entry)

    async def entries(self, namespace: str) -> list[MemoryEntry]:
        return list(self._by_namespace.get(namespace, ()))


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS memory_entries ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " namespace TEXT NOT NULL,"
    " role TEXT NOT NULL,"
    " turn INTEGER NOT NULL,"
    " text TEXT NOT NULL,"
    " updated TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS memory_entries_namespace ON memory_entries (namespace, id)",
)


class SqliteMemoryStore:
    """A durable store in one SQLite file, so memory outlives the process.

    Each call opens its own connection on a worker thread: sqlite3 connections are
    bound to the thread that made them, and the event loop must not block on disk.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = os.fspath(path)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self._path)
        for statement in _SCHEMA:
            connection.execute(statement)
        return connection

    def _add(self, entries: Sequence[MemoryEntry]) -> None:
        rows = [(e.namespace, e.role, e.turn, e.text, e.updated.isoformat()) for e in entries]
        with closing(self._connect()) as connection, connection:
            connection.executemany(
                "INSERT INTO memory_entries (namespace, role, turn, text, updated)"
                " VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def _entries(self, namespace: str) -> list[MemoryEntry]:
        with closing(self._connect()) as connection:
            rows = connection.execute(
                "SELECT namespace, role, turn, text, updated FROM memory_entries"
                " WHERE namespace = ? ORDER BY id",
                (namespace,),
            ).fetchall()
        return [
            MemoryEntry(
                namespace=row[0],
                role=row[1],
                turn=row[2],
                text=row[3],
                updated=datetime.fromisoformat(row[4]),
            )
            for row in rows
        ]

    async def add(self, entries: Sequence[MemoryEntry]) -> None:
        if entries:
            await asyncio.to_thread(self._add, list(entries))

    async def entries(self, namespace: str) -> list[MemoryEntry]:
        return await asyncio.to_thread(self._entries, namespace)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


class EpisodicMemory:
    """Remembers completed turns and recalls a budgeted selection of them.

    Word overlap with the query ranks entries but does not filter them: a follow-up
    such as "Make it three." shares no word with the booking it refers to, and recency
    (the tie-break) is what brings that booking back.
    """

    def __init__(
        self,
        store: MemoryStore,
        *,
        budget_chars: int = 1200,
        max_entries: int = 8,
        now: Callable[[], datetime] = _utc_now,
    ) -> None:
        if budget_chars < 1:
            raise ValueError(f"budget_chars must be at least 1, got {budget_chars}")
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.store = store
        self.budget_chars = budget_chars
        self.max_entries = max_entries
        self._now = now

    async def recall(self, namespace: str, query: str) -> list[MemoryEntry]:
        """The selection for one turn, in chronological order.

        Entries are ranked by overlap with the query, newer first on ties, and taken
        while the count stays within `max_entries`; an entry whose text would push the
        total past `budget_chars` is skipped, so one long entry cannot starve the rest.
        """
        stored = await self.store.entries(namespace)
        query_words = _words(query)
        ranked = sorted(
            enumerate(stored),
            key=lambda item: (len(query_words & _words(item[1].text)), item[1].updated, item[0]),
            reverse=True,
        )
        chosen: list[tuple[int, MemoryEntry]] = []
        used = 0
        for index, entry in ranked:
            if len(chosen) == self.max_entries:
                break
            if used + len(entry.text) > self.budget_chars:
                continue
            chosen.append((index, entry))
            used += len(entry.text)
        chosen.sort(key=lambda item: (item[1].updated, item[0]))
        return [entry for _, entry in chosen]

    async def remember(
        self, namespace: str, turn_number: int, user_text: str, answer_text: str
    ) -> None:
        """Store a completed turn: the user's message and the answer, stamped now."""
        updated = self._now()
        await self.store.add(
            [
                MemoryEntry(
                    namespace=namespace,
                    role="user",
                    turn=turn_number,
                    text=user_text,
                    updated=updated,
                ),
                MemoryEntry(
                    namespace=namespace,
                    role="assistant",
                    turn=turn_number,
                    text=answer_text,
                    updated=updated,
                ),
            ]
        )


def _attribute(value: str) -> str:
    return escape(value, {'"': "&quot;"})


def render_memory_block(entries: Sequence[MemoryEntry]) -> str:
    """The block the model is shown: framed as context, one citable line per entry.

    Empty when nothing was recalled, so the system prompt is then left untouched.
    """
    if not entries:
        return ""
    lines = [
        f'<memory role="{_attribute(entry.role)}" turn="{entry.turn}" '
        f'updated="{_attribute(entry.updated.strftime("%Y-%m-%dT%H:%M:%SZ"))}">'
        f"{escape(entry.text)}</memory>"
        for entry in entries
    ]
    return MEMORY_PREAMBLE + "\n\n" + "\n".join(lines)


def system_with_memory(system: str, block: str) -> str:
    """The system prompt with the memory block after a blank line, when there is one."""
    if not block:
        return system
    if not system:
        return block
    return f"{system}\n\n{block}"
