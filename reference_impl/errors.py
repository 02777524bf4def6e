"""The typed errors of the reference runtime.

Every refusal says what happened and what to do instead: these messages are read by
people who just hit them, usually in a log. `AgentError` and `InvalidCheckpointError`
are defined in `_error_base` (the checkpoint raises one, and this module names the
checkpoint two others carry); they are re-exported here, where every error is named.
"""

from __future__ import annotations

from ._error_base import AgentError, InvalidCheckpointError
from .checkpoint import AgentRunCheckpoint


class NoConversationError(AgentError):
    def __init__(self) -> None:
        super().__init__(
            "follow_up: this agent has no completed run to follow up on. "
            "Start the conversation with run(message); to continue a stored one, "
            "use run(message, continue_from=checkpoint)."
        )


class ConversationMismatchError(AgentError):
    def __init__(self, recorded_by: str, handed_to: str) -> None:
        self.recorded_by = recorded_by
        self.handed_to = handed_to
        super().__init__(
            f"run: conversation recorded by agent '{recorded_by}', handed to agent "
            f"'{handed_to}'. One agent does not answer another's conversation; continue it "
            f"on an agent with id '{recorded_by}', or start a new conversation with run()."
        )


class RunInFlightError(AgentError):
    def __init__(self, method: str, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(
            f"{method}: this agent is already running (run '{run_id}'). One instance answers "
            "one turn at a time — wait for that run to finish, or build a second agent for "
            "a second conversation."
        )


class PendingQuestionError(AgentError):
    def __init__(self, method: str, tool_name: str, tool_call_id: str, question: str) -> None:
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.question = question
        super().__init__(
            f"{method}: this agent's last run paused to ask a person something and is still "
            f"waiting. '{tool_name}' (call {tool_call_id}) raised the question: {question!r}. "
            "Answer it with resume(paused_checkpoint, decision), or drop it explicitly with "
            "abandon_pause() before sending a new message."
        )


class DecisionRefusedError(PendingQuestionError):
    """`resume` was given no decision, or one it cannot send (not text, or text no JSON
    store can hold). Nothing was sent and the question is still owed: a refused
    decision is a pending question, never an answer."""

    def __init__(self, tool_name: str, tool_call_id: str, question: str, problem: str) -> None:
        super().__init__("resume", tool_name, tool_call_id, question)
        self.problem = problem
        self.args = (f"resume: {problem}; nothing was sent. {self.args[0]}",)


class InvalidMessageError(AgentError):
    """A message (or a resume decision) that cannot be sent: not text, or text a JSON
    store cannot hold. Refused before anything is sent; nothing changed."""

    def __init__(self, method: str, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{method}: invalid {field}: {problem}. Pass text (a str).")


class MemoryStoreError(AgentError):
    """Memory could not be read or written. `where` names the store (a SQLite store's
    file path); `problem` says what is wrong. Raised before the turn is committed, so
    the agent's conversation is exactly as it was before the run."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"memory store {where}: {problem}")


class MemoryFileError(MemoryStoreError):
    """The store's file cannot be used at all. `reason` is one of `unreadable`,
    `not-sqlite`, `corrupt`, `foreign` (another program's file or schema), `newer-schema`
    (written by a later version) and `empty` (an existing file with no memory schema:
    only a path that does not exist is a new store)."""

    def __init__(self, where: str, reason: str, problem: str) -> None:
        self.reason = reason
        super().__init__(where, f"{problem} [{reason}]")


class MemoryRowError(MemoryStoreError):
    """One stored entry is malformed; `row` is its id and `field` the bad column."""

    def __init__(self, where: str, row: int, field: str, problem: str) -> None:
        self.row = row
        self.field = field
        super().__init__(where, f"row {row}, {field}: {problem}")


class MemoryWriteError(MemoryStoreError):
    """Remembering a completed turn failed. The turn was NOT committed: the agent's
    checkpoint is the one from before the run, so retrying the same call is clean."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(
            where,
            f"writing the turn to memory failed: {problem}. Nothing was committed: the "
            "agent's conversation is as it was before this run, so the same call can be "
            "retried once the store is fixed",
        )


class ToolLoopLimitError(AgentError):
    """The tool loop hit its bound; `checkpoint` holds the conversation up to there."""

    def __init__(self, limit: int, checkpoint: AgentRunCheckpoint) -> None:
        self.limit = limit
        self.checkpoint = checkpoint
        super().__init__(
            f"run: the model kept calling tools for {limit} rounds without answering. "
            "Raise .max_tool_rounds(n) if that is expected, or check the tools' results."
        )


class RunFailedError(AgentError):
    """The run failed after at least one model call; `checkpoint` is the last good state,
    which `run(message, continue_from=error.checkpoint)` accepts."""

    def __init__(self, cause: BaseException, checkpoint: AgentRunCheckpoint) -> None:
        self.checkpoint = checkpoint
        super().__init__(
            f"run failed after {len(checkpoint.history)} turn(s) were recorded: {cause!r}. "
            "The conversation up to the last completed model call is in error.checkpoint; "
            "continue it with run(message, continue_from=error.checkpoint)."
        )


__all__ = [
    "AgentError",
    "ConversationMismatchError",
    "DecisionRefusedError",
    "InvalidCheckpointError",
    "InvalidMessageError",
    "MemoryFileError",
    "MemoryRowError",
    "MemoryStoreError",
    "MemoryWriteError",
    "NoConversationError",
    "PendingQuestionError",
    "RunFailedError",
    "RunInFlightError",
    "ToolLoopLimitError",
]
