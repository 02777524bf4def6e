"""Runtimes whose agent object *is* the conversation, for the no-false-FAIL checks.

`StatefulChat` is the kind of runtime issue 13 met in the wild: one instance keeps its
conversation across `run` (every message goes on after the last), it never refuses,
never pauses and offers no trace tools. It breaks exactly the laws that say so
(tests/harness/test_stateful_runtime.py lists them with why); every other law must PASS
or be NOT_APPLICABLE, or the suite charged a law for another one's reason.

`LeakyChat` leaks across agents: each agent is honest, but a fresh agent's first `run`
starts from the last conversation any agent of the implementation finished (a
class-level history). That is `run.no-history` broken across agents; the laws whose
Hypothesis examples build agent after agent must not be charged with it.

Built on the small openai-2.x runtime in examples/beside_openai2, which does the HTTP and
the tool loop; only where the conversation lives differs.
"""

from __future__ import annotations

from typing import Any, ClassVar

from conformance.adapter import JSON, AgentSpec, Capability, IdentitySpec, RunOutcome
from conformance.wire.ir import Dialect
from examples.beside_openai2.adapter import VERSION, ChatAgent, history_of


class StatefulChatAgent(ChatAgent):
    """One instance, one chat: `run` and `follow_up` both go on after the last turn."""

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        if identity is not None or session_id is not None:
            raise NotImplementedError("identity and session_id are not declared")
        if continue_from is not None:
            self.last = history_of(continue_from)  # loading a chat replaces the one held
        return await self._turn(self.last or [], message)

    async def follow_up(self, message: str) -> RunOutcome:
        return await self._turn(self.last or [], message)  # never refuses: a new chat

    async def checkpoint(self) -> JSON:
        return {"version": VERSION, "messages": [dict(m) for m in self.last or []]}


class StatefulChat:
    name = "stateful chat (one instance is one conversation)"
    capabilities = frozenset({Capability.FOLLOW_UP, Capability.CONTINUE_FROM})
    dialects = frozenset({Dialect.OPENAI_CHAT})

    async def create_agent(self, spec: AgentSpec) -> StatefulChatAgent:
        return StatefulChatAgent(spec)


class LeakyChatAgent(ChatAgent):
    """An honest agent, but its class remembers the last conversation any agent finished,
    and a fresh agent's first `run` starts from it instead of from nothing."""

    finished: ClassVar[list[dict[str, Any]] | None] = None

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        if continue_from is None and self.last is None and LeakyChatAgent.finished:
            return await self._turn(LeakyChatAgent.finished, message)
        return await super().run(
            message, continue_from=continue_from, identity=identity, session_id=session_id
        )

    async def _turn(self, history: list[dict[str, Any]], message: str) -> RunOutcome:
        outcome = await super()._turn(history, message)
        LeakyChatAgent.finished = self.last
        return outcome


class LeakyChat:
    name = "leaky chat (a fresh agent starts from the last agent's conversation)"
    capabilities = StatefulChat.capabilities
    dialects = StatefulChat.dialects

    async def create_agent(self, spec: AgentSpec) -> LeakyChatAgent:
        return LeakyChatAgent(spec)


stateful = StatefulChat()
leaky = LeakyChat()
