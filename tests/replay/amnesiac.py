"""A broken implementation for the replay tests: the reference runtime, except that
run() always continues the agent's last conversation (it breaks run.no-history, and the
model-based test finds it with a shrunk sequence)."""

from __future__ import annotations

from typing import Any

from conformance.adapter import AgentSpec
from reference_impl.adapter import ReferenceAgent, ReferenceImplementation


class Amnesiac(ReferenceImplementation):
    name = "amnesiac (run() continues the last conversation)"

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        agent = await super().create_agent(spec)
        original = agent.run

        async def run(message: str, *, continue_from: Any = None, **kw: Any) -> Any:
            if continue_from is None and agent.agent._conversation is not None:
                continue_from = agent.agent.checkpoint().to_data()
            return await original(message, continue_from=continue_from, **kw)

        agent.run = run  # type: ignore[method-assign]
        return agent


implementation = Amnesiac()
