"""A runtime that fails a dozen agent laws, for the benchmark of what failing costs.

The reference runtime with several of its doors broken at once, the way a framework that
never met the seed is. Some breaks show on any run (a run carries the previous
conversation, a follow-up starts one when there is none, a new run walks around a
pending question, abandoning a pause says nothing, it says it can explain before any
run); others only on inputs a property test generates, so Hypothesis finds them and
then shrinks them with real agents, which is what makes a failing run slow: a name
outside the runtime's grammar counts as no name at all, a conversation's checkpoint
keeps the tool rounds of its last three turns only, and the third follow-up after a
continuation drops the oldest exchange (only a sequence of doors finds that one).

It lives here, not in tests/rogues: benchmarks do not import the project's tests. Each
change overrides a seam of the reference (docs/reference.md lists them), as a rogue does.
"""

from __future__ import annotations

import contextlib
import re

from reference_impl import (
    Agent,
    AgentRunCheckpoint,
    ConversationMismatchError,
    Door,
    NoConversationError,
    PendingQuestion,
)
from reference_impl.adapter import ReferenceImplementation
from reference_impl.agent import Checkpointish

GRAMMAR = re.compile(r"[a-z]+")
"""The names this runtime takes for names; any other counts as none."""
KEPT_ROUNDS = 3
"""How many of the last user turns keep their tool rounds in a checkpoint."""


class FailingAgent(Agent):
    """The reference agent with a dozen laws broken."""

    follow_ups_since_continuation: int | None = None

    def _own(self) -> AgentRunCheckpoint | None:
        with contextlib.suppress(NoConversationError):
            return self.checkpoint()
        return None

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        if door == "run" and handed is None:
            return self._own()  # a new run carries the last conversation
        if door == "follow_up" and self._own() is None:
            return None  # a follow-up with nothing to follow starts a conversation
        continued = super().conversation_to_continue(door, handed)
        if door == "run" and handed is not None:
            self.follow_ups_since_continuation = 0
        elif door == "follow_up" and self.follow_ups_since_continuation is not None:
            self.follow_ups_since_continuation += 1
            checkpoint = self.checkpoint()
            users = [i for i, turn in enumerate(checkpoint.history) if turn.role == "user"]
            if self.follow_ups_since_continuation == 3 and len(users) > 1:
                return checkpoint.model_copy(update={"history": checkpoint.history[users[1] :]})
        return continued

    def mismatch(self, conversation: AgentRunCheckpoint | None) -> ConversationMismatchError | None:
        recorded_by = None if conversation is None else conversation.agent
        if recorded_by is not None and not GRAMMAR.fullmatch(recorded_by):
            return None  # not a name it knows: treated as the default agent's
        return super().mismatch(conversation)

    def checkpoint(self) -> AgentRunCheckpoint:
        full = super().checkpoint()
        users = [i for i, turn in enumerate(full.history) if turn.role == "user"]
        if len(users) <= KEPT_ROUNDS:
            return full
        recent = users[-KEPT_ROUNDS]
        kept = [
            turn
            for i, turn in enumerate(full.history)
            if i >= recent or not (turn.role == "tool" or turn.tool_calls)
        ]
        return full.model_copy(update={"history": tuple(kept)})

    def pending_refusal(
        self, door: Door, conversation: AgentRunCheckpoint
    ) -> PendingQuestion | None:
        if door == "run":
            return None
        return super().pending_refusal(door, conversation)

    def abandon_pause(self) -> dict[str, str] | None:
        super().abandon_pause()
        return None

    def can_explain(self) -> bool:
        return self.config.self_explain


implementation = ReferenceImplementation(
    name="benchmark: failing runtime", agent_class=FailingAgent
)
"""`--impl benchmarks.failing_impl:implementation`."""
