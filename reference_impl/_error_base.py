"""The bottom of the runtime's errors: the base class, and what loading a checkpoint raises.

They live below `checkpoint.py` so that `errors.py` can name the checkpoint its run
failures carry without an import cycle. Import them from `reference_impl.errors` (or
the package): this module is where they are defined, not where they are looked up,
so tracebacks and reprs name them `reference_impl.errors.*` as before.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of everything the runtime raises on purpose."""

    __module__ = "reference_impl.errors"


class InvalidCheckpointError(AgentError):
    """A checkpoint that cannot be continued; `field` names where it is wrong."""

    __module__ = "reference_impl.errors"

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(
            f"continue_from: invalid checkpoint at '{field}': {problem}. Pass the JSON that "
            "agent.checkpoint() produced (AgentRunCheckpoint), unmodified."
        )
