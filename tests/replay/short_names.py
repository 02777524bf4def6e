"""A broken implementation for the replay tests: agents whose id is at most four characters long
refuse every stored conversation as a mismatch. Only generated ids can be that short, so
the property-based test finds it and stores a shrunk example (a Hypothesis blob)."""

from __future__ import annotations

from typing import Any

from conformance.adapter import AgentSpec, RefusalKind, Refused
from reference_impl.adapter import ReferenceAgent, ReferenceImplementation


class ShortNamesRefuse(ReferenceImplementation):
    name = "short-names-refuse"

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        agent = await super().create_agent(spec)
        original = agent.run

        async def run(message: str, *, continue_from: Any = None, **kw: Any) -> Any:
            if continue_from is not None and spec.id is not None and len(spec.id) <= 4:
                raise Refused(RefusalKind.MISMATCH, f"agent {spec.id!r} refuses everything")
            return await original(message, continue_from=continue_from, **kw)

        agent.run = run  # type: ignore[method-assign]
        return agent


implementation = ShortNamesRefuse()
