"""Self-explain: answer "why did you…" from the trace, not the transcript.

The conversation carries what was said; the trace carries what was done. Evidence binds
at the end of a run, never to the one in flight, so the trace tool reports the last
*completed* run — and says so plainly when there is none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .tools import Tool, ToolContext

NO_COMPLETED_RUN = "No completed run is available yet"
TRACE_TOOL_NAME = "explain_last_run"


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One tool the run called: name, arguments, result."""

    tool: str
    arguments: dict[str, Any]
    result: str


@dataclass(frozen=True, slots=True)
class RunTrace:
    run_id: str
    steps: tuple[TraceStep, ...]
    answer: str

    def to_data(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "tools_called": [
                {"tool": s.tool, "arguments": s.arguments, "result": s.result} for s in self.steps
            ],
            "answer": self.answer,
        }


def trace_tool(last_trace: Callable[[], RunTrace | None]) -> Tool:
    """The tool the model calls to read the last completed run's trace."""

    def explain_last_run(ctx: ToolContext) -> str:
        trace = last_trace()
        return NO_COMPLETED_RUN if trace is None else json.dumps(trace.to_data())

    return Tool(
        name=TRACE_TOOL_NAME,
        fn=explain_last_run,
        description=(
            "What the last completed run did: the tools it called, with their arguments "
            "and results, and its answer. Use it to answer questions about why you did "
            "something."
        ),
        parameters={"type": "object", "properties": {}},
    )
