"""One agent of a `cmd:` adapter, as the laws see it: each call is one request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..adapter import JSON, IdentityReport, IdentitySpec, RunOutcome
from .protocol import (
    AbandonPauseRequest,
    CanExplainRequest,
    CheckpointRequest,
    FollowUpRequest,
    LastIdentityRequest,
    ResumeRequest,
    RunRequest,
)

if TYPE_CHECKING:
    from .connector import StdioImplementation


class StdioAgent:
    """conformance.adapter.AgentUnderTest, one request per call."""

    def __init__(self, implementation: StdioImplementation, handle: str) -> None:
        self._impl = implementation
        self.handle = handle

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        outcome: RunOutcome = await self._impl.call(
            lambda seq: RunRequest(
                seq=seq,
                agent=self.handle,
                message=message,
                continue_from=continue_from,
                identity=identity,
                session_id=session_id,
            )
        )
        return outcome

    async def follow_up(self, message: str) -> RunOutcome:
        outcome: RunOutcome = await self._impl.call(
            lambda seq: FollowUpRequest(seq=seq, agent=self.handle, message=message)
        )
        return outcome

    async def checkpoint(self) -> JSON:
        return await self._impl.call(lambda seq: CheckpointRequest(seq=seq, agent=self.handle))

    async def resume(self, checkpoint: JSON, decision: str) -> RunOutcome:
        outcome: RunOutcome = await self._impl.call(
            lambda seq: ResumeRequest(
                seq=seq, agent=self.handle, checkpoint=checkpoint, decision=decision
            )
        )
        return outcome

    async def abandon_pause(self) -> dict[str, str] | None:
        dropped = await self._impl.call(lambda seq: AbandonPauseRequest(seq=seq, agent=self.handle))
        if dropped is None or isinstance(dropped, dict):
            return dropped
        return {str(k): str(v) for k, v in dropped.model_dump().items()}

    async def can_explain(self) -> bool:
        answer: bool = await self._impl.call(
            lambda seq: CanExplainRequest(seq=seq, agent=self.handle)
        )
        return answer

    async def last_identity(self) -> IdentityReport | None:
        report: IdentityReport | None = await self._impl.call(
            lambda seq: LastIdentityRequest(seq=seq, agent=self.handle)
        )
        return report

    async def close(self) -> None:
        await self._impl.close_agent(self.handle)
