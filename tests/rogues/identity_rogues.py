"""Rogues that break whose conversation it is: the identity ladder, tools, memory."""

from __future__ import annotations

from typing import Any

from reference_impl import Agent, Identity, IdentitySource, Turn
from reference_impl.agent import _Run
from reference_impl.memory import render_memory_block


class LadderPrefersSession(Agent):
    """The session id outranks an identity passed to the run."""

    def _identity(
        self,
        explicit: Identity | None,
        carried: Identity | None,
        session_id: str | None,
        run_id: str,
    ) -> tuple[Identity, IdentitySource]:
        if session_id is not None:
            return Identity(conversation_id=session_id), "session"
        return super()._identity(explicit, carried, session_id, run_id)


class LadderDropsCarried(Agent):
    """A continued conversation's identity is not carried into the next turn."""

    def _identity(
        self,
        explicit: Identity | None,
        carried: Identity | None,
        session_id: str | None,
        run_id: str,
    ) -> tuple[Identity, IdentitySource]:
        return super()._identity(explicit, None, session_id, run_id)


class PublishesSynthesized(Agent):
    """Tools are told the synthesized namespace as if someone had named it."""

    def _published(self, identity: Identity, source: IdentitySource) -> Identity | None:
        return identity


class IdentityNeverReachesTools(Agent):
    """Tools are never told the identity, even a named one."""

    def _published(self, identity: Identity, source: IdentitySource) -> Identity | None:
        return None


class _MemoryAsTurnsRun(_Run):
    async def _system(self, message: str) -> str:
        memory = self.config.memory
        self._recalled: list[Turn] = []
        if memory is not None:
            entries = await memory.recall(self.namespace.namespace(), message)
            block = render_memory_block(entries)
            if block:
                self._recalled = [Turn(role="user", text=block), Turn(role="assistant", text="OK")]
        return self.config.system

    async def _call(self, system: str, turns: Any, specs: Any) -> Any:
        return await super()._call(system, [*getattr(self, "_recalled", []), *turns], specs)


class MemoryAsTurns(Agent):
    """Recalled memory is replayed as message turns instead of a system-prompt block."""

    _run_class = _MemoryAsTurnsRun


class _ConversationOnlyNamespaceRun(_Run):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.namespace = Identity(conversation_id=self.namespace.conversation_id)


class MemoryIgnoresTenantAndPrincipal(Agent):
    """Memory is keyed by the conversation id alone, so it is read across tenants and
    principals that share one."""

    _run_class = _ConversationOnlyNamespaceRun
