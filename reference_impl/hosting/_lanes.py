"""Who waits for whom: the session lanes (one turn per session at a time) and the agent
lanes (a shared agent's FIFO, or an agent per active session).

An agent answers one turn at a time, so a host must never hand one agent two turns; and
a session's second turn must see its first, so it must never overlap it either. These
are the two locks the host takes, always in that order (session, then agent).
"""

from __future__ import annotations

import asyncio
import inspect
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Literal

from ..agent import Agent
from ._errors import ConcurrentRunError

ConcurrentInvoke = Literal["reject", "enqueue"]
POLICIES: tuple[ConcurrentInvoke, ...] = ("reject", "enqueue")

AgentFactory = Callable[[], Agent | Awaitable[Agent]]
"""Builds one agent for one active session."""


class SessionLanes:
    """One turn per session at a time. `reject`: a second request while one runs is
    refused before anything is sent; `enqueue`: it waits until the first persisted."""

    def __init__(self, policy: ConcurrentInvoke) -> None:
        if policy not in POLICIES:
            raise ValueError(
                f"on_concurrent_invoke must be one of {', '.join(POLICIES)}, got {policy!r}"
            )
        self.policy: ConcurrentInvoke = policy
        self._active: dict[str, str] = {}
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def active_turn(self, session_id: str) -> str | None:
        """The turn the session is running (or waiting to run), if any."""
        return self._active.get(session_id)

    @asynccontextmanager
    async def hold(self, session_id: str | None, turn_id: str) -> AsyncIterator[None]:
        """The session's lane for one turn (a request without a session has none)."""
        if session_id is None:
            yield
            return
        if self.policy == "reject":
            active = self._active.get(session_id)
            if active is not None:
                raise ConcurrentRunError(session_id, active)
            self._active[session_id] = turn_id
            try:
                yield
            finally:
                del self._active[session_id]
            return
        async with self._queued(session_id):
            self._active[session_id] = turn_id
            try:
                yield
            finally:
                del self._active[session_id]

    @asynccontextmanager
    async def _queued(self, session_id: str) -> AsyncIterator[None]:
        """The session's FIFO lock, dropped once nobody holds or waits for it."""
        lock, users = self._locks.get(session_id, (asyncio.Lock(), 0))
        self._locks[session_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[session_id]
            if users == 1:
                del self._locks[session_id]
            else:
                self._locks[session_id] = (lock, users - 1)


class SharedAgentLane:
    """One agent for every session: turns go through it one at a time, first come first
    served (asyncio's lock wakes waiters in order and lets no newcomer barge)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def lease(self, session_id: str | None) -> AsyncIterator[Agent]:
        async with self._lock:
            yield self.agent


class AgentPool:
    """An agent per active session, at most `max_active` of them. A new session takes a
    free place, else the least recently used *idle* agent's place (its conversation is
    in the store, so nothing is lost), else waits for one to go idle: never refused."""

    def __init__(self, factory: AgentFactory, max_active: int) -> None:
        if max_active < 1:
            raise ValueError(f"max_active_sessions must be at least 1, got {max_active}")
        self._factory = factory
        self.max_active = max_active
        self._agents: OrderedDict[str, Agent] = OrderedDict()
        self._busy: set[str] = set()
        self._changed = asyncio.Condition()
        self.evicted: list[str] = []
        """Sessions whose agent was evicted, oldest first (for tests and operators)."""

    @property
    def sessions(self) -> list[str]:
        """Sessions with an agent now, least recently used first."""
        return list(self._agents)

    async def build(self) -> Agent:
        made = self._factory()
        return await made if inspect.isawaitable(made) else made

    @asynccontextmanager
    async def lease(self, session_id: str | None) -> AsyncIterator[Agent]:
        if session_id is None:  # answered and not stored: an agent of its own, not kept
            yield await self.build()
            return
        async with self._changed:
            while session_id not in self._agents and not self._make_room():
                await self._changed.wait()
            if session_id not in self._agents:
                self._agents[session_id] = await self.build()
            self._agents.move_to_end(session_id)
            self._busy.add(session_id)
            agent = self._agents[session_id]
        try:
            yield agent
        finally:
            async with self._changed:
                self._busy.discard(session_id)
                self._changed.notify_all()

    def _make_room(self) -> bool:
        """Whether a new session has a place, evicting the LRU idle agent if needed."""
        if len(self._agents) < self.max_active:
            return True
        for session_id in self._agents:
            if session_id not in self._busy:
                del self._agents[session_id]
                self.evicted.append(session_id)
                return True
        return False
