"""Episodic memory: recall, not replay.

Prior turns come back as a `<memory>` block in the system prompt — selected, budgeted
and citable — never as message turns in the window. A conversation is verbatim; recall
is a different, deliberately different, thing. Memory is scoped by a namespace
(`Identity.namespace()`), and one namespace never reads another's entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Literal, Protocol
from xml.sax.saxutils import escape

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from .conversation import PlainText

MEMORY_PREAMBLE = (
    "Relevant context from prior conversations. Use when it helps answer the current turn."
)


class MemoryEntry(BaseModel):
    """One remembered message: who said it, in which turn of its conversation, and when."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: PlainText
    role: Literal["user", "assistant"]
    turn: int = Field(
        ge=1, le=2**53 - 1, strict=True, description="1-based turn number in its conversation"
    )
    text: PlainText
    updated: AwareDatetime

    @field_validator("updated")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        # One zone in storage, so ordering and rendering never depend on the writer's.
        return value.astimezone(UTC)


class MemoryStore(Protocol):
    """Where entries live. `entries` returns one namespace's entries in insertion order.

    `add` writes all of its entries or none; a store that cannot read or write raises a
    MemoryStoreError (anything else a store raises on `add` is wrapped in one)."""

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
