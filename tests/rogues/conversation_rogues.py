"""Rogues that break the doors: run, follow_up, continue_from and the checkpoint."""

from __future__ import annotations

from typing import Any

from reference_impl import (
    Agent,
    AgentRunCheckpoint,
    ConversationMismatchError,
    RunResult,
    Turn,
    load_checkpoint,
)
from reference_impl.agent import Checkpointish, _Run


class RunCarriesPrevious(Agent):
    """A new run silently carries the agent's last conversation."""

    async def run(
        self, message: str, *, continue_from: Checkpointish | None = None, **kw: Any
    ) -> RunResult:
        if continue_from is None and self._conversation is not None:
            continue_from = self._conversation
        return await super().run(message, continue_from=continue_from, **kw)


class RunJoinsByConversationId(Agent):
    """Two runs that pass the same `conversation_id` are joined into one conversation."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._by_id: dict[str, AgentRunCheckpoint] = {}

    async def run(
        self, message: str, *, continue_from: Checkpointish | None = None, **kw: Any
    ) -> RunResult:
        identity = kw.get("identity")
        key = identity.conversation_id if identity is not None else None
        if continue_from is None and key in self._by_id:
            continue_from = self._by_id[key]
        result = await super().run(message, continue_from=continue_from, **kw)
        if key is not None:
            self._by_id[key] = result.checkpoint
        return result


def _without_last_answer(checkpoint: AgentRunCheckpoint) -> AgentRunCheckpoint:
    history = checkpoint.history
    if history and history[-1].role == "assistant":
        history = history[:-1]
    return checkpoint.model_copy(update={"history": history})


class FollowUpDropsLastAnswer(Agent):
    """follow_up continues the last conversation without its final answer."""

    async def follow_up(self, message: str) -> RunResult:
        self._refuse_if_busy("follow_up")
        return await self.run(message, continue_from=_without_last_answer(self.checkpoint()))


class FollowUpRestoresLess(Agent):
    """follow_up restores through its own path, which keeps only the history: the
    conversation's identity, folded spans and recording agent are lost."""

    async def follow_up(self, message: str) -> RunResult:
        self._refuse_if_busy("follow_up")
        kept = self.checkpoint()
        return await self.run(
            message, continue_from=AgentRunCheckpoint(history=kept.history, turns=kept.turns)
        )


class FollowUpWithoutConversation(Agent):
    """follow_up before any run quietly starts a new conversation instead of refusing."""

    async def follow_up(self, message: str) -> RunResult:
        if self._conversation is None:
            return await self.run(message)
        return await super().follow_up(message)


class ContinueFromPrefersOwn(Agent):
    """run(continue_from=...) continues the agent's own live conversation when it has
    one, not the conversation it was handed."""

    async def run(
        self, message: str, *, continue_from: Checkpointish | None = None, **kw: Any
    ) -> RunResult:
        if continue_from is not None and self._conversation is not None:
            continue_from = self._conversation
        return await super().run(message, continue_from=continue_from, **kw)


class CheckpointTrims(Agent):
    """checkpoint() keeps only the last two user turns (and what followed them)."""

    KEEP = 2

    def checkpoint(self) -> AgentRunCheckpoint:
        full = super().checkpoint()
        users = [i for i, turn in enumerate(full.history) if turn.role == "user"]
        if len(users) <= self.KEEP:
            return full
        return full.model_copy(update={"history": full.history[users[-self.KEEP] :]})


class _PythonModeCheckpoint(AgentRunCheckpoint):
    def to_data(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)  # tuples and models, not JSON data


class _LiveCheckpointRun(_Run):
    def checkpoint(self, pending: Any = None) -> AgentRunCheckpoint:
        return _PythonModeCheckpoint.model_validate(super().checkpoint(pending).model_dump())


class CheckpointNotPlainJson(Agent):
    """The checkpoint a run returns is a Python structure (tuples), not JSON data."""

    _run_class = _LiveCheckpointRun


class _NoFinalAnswerRun(_Run):
    def checkpoint(self, pending: Any = None) -> AgentRunCheckpoint:
        return _without_last_answer(super().checkpoint(pending))


class CheckpointOmitsFinalAnswer(Agent):
    """The checkpoint is written before the final answer is added to it."""

    _run_class = _NoFinalAnswerRun


class _NoFoldedRun(_Run):
    def checkpoint(self, pending: Any = None) -> AgentRunCheckpoint:
        return super().checkpoint(pending).model_copy(update={"folded": ()})


class CompactionLosesFolded(Agent):
    """Compaction folds turns but does not record the span in the checkpoint."""

    _run_class = _NoFoldedRun


class _SystemOnlyRun(_Run):
    async def _call(self, system: str, turns: Any, specs: Any) -> Any:
        said = "\n".join(turn.text for turn in turns if turn.role == "user")
        return await super()._call(
            f"{system}\n{said}".strip(), [Turn(role="user", text=".")], specs
        )


class MessageInSystemPrompt(Agent):
    """The user's message is templated into the system prompt, not sent as a user turn."""

    _run_class = _SystemOnlyRun


class _MessageWindowRun(_Run):
    async def _call(self, system: str, turns: Any, specs: Any) -> Any:
        window = self.config.window
        if window is not None:  # counts messages, not user turns
            turns = list(self.history)[-2 * window.keep_recent_turns :]
        return await super()._call(system, turns, specs)


class WindowCountsMessages(Agent):
    """The window keeps the last 2·N messages, cutting tool calls from their results."""

    _run_class = _MessageWindowRun


class MismatchRefusesDefaultIds(Agent):
    """The default id counts as a chosen name, so unnamed agents refuse named ones."""

    @property
    def _named(self) -> bool:
        return True


class MismatchNeverRefuses(Agent):
    """Any agent continues any other agent's conversation."""

    def _admit(self, method: str, handed: Checkpointish | None) -> AgentRunCheckpoint:
        conversation = AgentRunCheckpoint() if handed is None else load_checkpoint(handed)
        return super()._admit(method, conversation.model_copy(update={"agent": None}))


class MismatchDecidedByRecorder(Agent):
    """Refuses whenever the recording agent's name differs from this agent's id, even
    when this agent never chose one."""

    def _admit(self, method: str, handed: Checkpointish | None) -> AgentRunCheckpoint:
        conversation = super()._admit(method, handed)
        if conversation.agent is not None and conversation.agent != self.id:
            raise ConversationMismatchError(conversation.agent, self.id)
        return conversation


class MismatchDecidedByReceiver(Agent):
    """A named agent refuses every conversation it did not record, unnamed ones too."""

    def _admit(self, method: str, handed: Checkpointish | None) -> AgentRunCheckpoint:
        conversation = super()._admit(method, handed)
        if handed is not None and self._named and conversation.agent != self.id:
            raise ConversationMismatchError(conversation.agent or "(unnamed)", self.id)
        return conversation


class _FingerprintRun(_Run):
    def checkpoint(self, pending: Any = None) -> AgentRunCheckpoint:
        base = super().checkpoint(pending)
        if base.agent is None:
            return base
        return base.model_copy(update={"agent": f"{base.agent}#{_fingerprint(self.agent)}"})


def _fingerprint(agent: Agent) -> str:
    config = agent._config
    return f"{config.model}|{config.system}|{','.join(t.name for t in config.tools)}"


class MismatchOnChangedAgent(Agent):
    """An agent's identity includes its prompt, tools and model, so a redeployed agent
    refuses its own conversations."""

    _run_class = _FingerprintRun

    @property
    def id(self) -> str:
        return f"{super().id}#{_fingerprint(self)}" if self._named else super().id


__all__ = [
    "CheckpointNotPlainJson",
    "CheckpointOmitsFinalAnswer",
    "CheckpointTrims",
    "CompactionLosesFolded",
    "ContinueFromPrefersOwn",
    "FollowUpDropsLastAnswer",
    "FollowUpRestoresLess",
    "FollowUpWithoutConversation",
    "MessageInSystemPrompt",
    "MismatchDecidedByReceiver",
    "MismatchDecidedByRecorder",
    "MismatchNeverRefuses",
    "MismatchOnChangedAgent",
    "MismatchRefusesDefaultIds",
    "RunCarriesPrevious",
    "RunJoinsByConversationId",
    "WindowCountsMessages",
]
