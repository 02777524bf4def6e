"""Rogues that break whose conversation it is: the identity ladder, tools, memory.

Each overrides one seam of the reference (docs/reference.md lists them).
"""

from __future__ import annotations

from reference_impl import Agent, Identity, IdentitySource, Turn, TurnLoop


class LadderPrefersSession(Agent):
    """The session id outranks an identity passed to the run."""

    def identity_for(
        self,
        explicit: Identity | None,
        carried: Identity | None,
        session_id: str | None,
        run_id: str,
    ) -> tuple[Identity, IdentitySource]:
        if session_id is not None:
            return Identity(conversation_id=session_id), "session"
        return super().identity_for(explicit, carried, session_id, run_id)


class LadderDropsCarried(Agent):
    """A continued conversation's identity is not carried into the next turn."""

    def identity_for(
        self,
        explicit: Identity | None,
        carried: Identity | None,
        session_id: str | None,
        run_id: str,
    ) -> tuple[Identity, IdentitySource]:
        return super().identity_for(explicit, None, session_id, run_id)


class PublishesSynthesized(Agent):
    """Tools are told the synthesized namespace as if someone had named it."""

    def published_identity(self, identity: Identity, source: IdentitySource) -> Identity | None:
        return identity


class IdentityNeverReachesTools(Agent):
    """Tools are never told the identity, even a named one."""

    def published_identity(self, identity: Identity, source: IdentitySource) -> Identity | None:
        return None


class _MemoryAsTurnsTurn(TurnLoop):
    def present_memory(self, system: str, block: str) -> tuple[str, tuple[Turn, ...]]:
        if not block:
            return system, ()
        return system, (Turn(role="user", text=block), Turn(role="assistant", text="OK"))


class MemoryAsTurns(Agent):
    """Recalled memory is replayed as message turns instead of a system-prompt block."""

    turn_loop = _MemoryAsTurnsTurn


class MemoryIgnoresTenantAndPrincipal(Agent):
    """Memory is keyed by the conversation id alone, so it is read across tenants and
    principals that share one."""

    def memory_namespace(self, identity: Identity) -> str:
        return super().memory_namespace(Identity(conversation_id=identity.conversation_id))
