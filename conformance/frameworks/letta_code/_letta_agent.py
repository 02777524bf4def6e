"""The agent surface on Letta Code: `run` is the SDK's `prompt(message, agentId)`.

The agent laws drive `create_agent(AgentSpec)` and `run(message)`. Letta Code's own
one-turn door is the SDK's `prompt()`: `createSession(agentId)` (a new conversation on
the agent), one turn, `close()`. So an `AgentSpec` becomes a Letta agent on a store of
its own (a temporary HOME, removed at `close`), created with the spec's model and system
text, and each `run` is one turn on a new conversation of it. Nothing else of the agent
surface is declared: a Letta conversation is not a checkpoint the client holds
(continue_from, resume), and follow_up, identity, memory, window and compaction have no
counterpart on this door.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from conformance.adapter import (
    JSON,
    AgentSpec,
    BackendSpec,
    ErrorEvent,
    IdentityReport,
    IdentitySpec,
    ResultEvent,
    RunFailed,
    RunOutcome,
    SessionAgentSpec,
    SessionEvent,
    SessionOptions,
)
from conformance.wire.ir import Dialect

from ._letta_backend import LettaBackend
from ._letta_home import LettaHome, LettaInstall

_UNDECLARED = ("memory", "self_explain", "window", "compaction")


class LettaAgentUnderTest:
    """Implements `AgentUnderTest`: one Letta agent; `run` is `prompt()`."""

    def __init__(self, backend: LettaBackend, agent_id: str, spec: AgentSpec, store: Path) -> None:
        self.backend = backend
        self.agent_id = agent_id
        self.spec = spec
        self.store = store

    @classmethod
    async def create(cls, install: LettaInstall, spec: AgentSpec) -> LettaAgentUnderTest:
        asked = [field for field in _UNDECLARED if getattr(spec, field)]
        if asked or spec.dialect is not Dialect.OPENAI_CHAT:
            raise ValueError(
                f"{', '.join(asked) or spec.dialect.value}: not declared by the Letta Code "
                "adapter's agent surface (see conformance/frameworks/letta_code)"
            )
        store = Path(tempfile.mkdtemp(prefix="turnlaw-letta-agent-"))
        try:
            home = LettaHome(install, store)
            await home.connect(spec.base_url, spec.api_key)
            backend = LettaBackend(
                home,
                BackendSpec(
                    base_url=spec.base_url,
                    api_key=spec.api_key,
                    model=spec.model,
                    stream=spec.stream,
                    store=str(store),
                ),
            )
            agent_id = await backend.create_agent(SessionAgentSpec(system=spec.system))
        except BaseException:
            shutil.rmtree(store, ignore_errors=True)
            raise
        return cls(backend, agent_id, spec, store)

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        if continue_from is not None or identity is not None or session_id is not None:
            raise ValueError(
                "continue_from, identity and session_id are not declared by the Letta Code "
                "adapter: prompt() takes a message and an agent"
            )
        session = await self.backend.create_session(
            self.agent_id, SessionOptions(tools=self.spec.tools)
        )
        try:
            await session.send(message)
            passed = await session.stream()
        finally:
            await session.close()
        result = passed.result
        if result is None:
            raise RunFailed(f"the turn ended without a result ({passed.ended})")
        if not result.success:
            raise RunFailed(_failure(result, passed.events))
        return RunOutcome(answer=result.text)

    async def follow_up(self, message: str) -> RunOutcome:
        raise NotImplementedError("follow_up is not declared by the Letta Code adapter")

    async def checkpoint(self) -> JSON:
        raise NotImplementedError("a Letta conversation is not a checkpoint the client holds")

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome:
        raise NotImplementedError("pause is not declared by the Letta Code adapter")

    async def abandon_pause(self) -> dict[str, str] | None:
        return None

    async def can_explain(self) -> bool:
        return False

    async def last_identity(self) -> IdentityReport | None:
        return None

    async def close(self) -> None:
        try:
            await self.backend.close()
        finally:
            shutil.rmtree(self.store, ignore_errors=True)


def _failure(result: ResultEvent, events: tuple[SessionEvent, ...]) -> str:
    errors = [event.message for event in events if isinstance(event, ErrorEvent) and event.message]
    return "; ".join(errors) or f"stop_reason={result.stop_reason}"


__all__ = ["LettaAgentUnderTest"]
