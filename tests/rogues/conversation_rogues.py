"""Rogues that break the doors: run, follow_up, continue_from and the checkpoint.

Each overrides one seam of the reference (docs/reference.md lists them): a door's
decision on `Agent`, or a `TurnLoop` method swapped in through `Agent.turn_loop`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from typing import Any

from reference_impl import (
    Agent,
    AgentConfig,
    AgentRunCheckpoint,
    ConversationMismatchError,
    Door,
    Identity,
    ModelReply,
    NoConversationError,
    PendingQuestion,
    RunResult,
    ToolSpec,
    Turn,
    TurnLoop,
)
from reference_impl.agent import Checkpointish


def _own_conversation(agent: Agent) -> AgentRunCheckpoint | None:
    with contextlib.suppress(NoConversationError):
        return agent.checkpoint()
    return None


class RunCarriesPrevious(Agent):
    """A new run silently carries the agent's last conversation."""

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        if door == "run" and handed is None:
            return _own_conversation(self)
        return super().conversation_to_continue(door, handed)


class RunJoinsByConversationId(Agent):
    """Two runs that pass the same `conversation_id` are joined into one conversation."""

    @functools.cached_property
    def joined(self) -> dict[str, AgentRunCheckpoint]:
        """The last checkpoint of each conversation id a run was passed."""
        return {}

    async def run(
        self,
        message: str,
        *,
        continue_from: Checkpointish | None = None,
        identity: Identity | None = None,
        session_id: str | None = None,
    ) -> RunResult:
        key = identity.conversation_id if identity is not None else None
        if continue_from is None and key in self.joined:
            continue_from = self.joined[key]
        result = await super().run(
            message, continue_from=continue_from, identity=identity, session_id=session_id
        )
        if key is not None:
            self.joined[key] = result.checkpoint
        return result


def _without_last_answer(checkpoint: AgentRunCheckpoint) -> AgentRunCheckpoint:
    history = checkpoint.history
    if history and history[-1].role == "assistant":
        history = history[:-1]
    return checkpoint.model_copy(update={"history": history})


class FollowUpDropsLastAnswer(Agent):
    """follow_up continues the last conversation without its final answer."""

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        if door == "follow_up":
            return _without_last_answer(self.checkpoint())
        return super().conversation_to_continue(door, handed)


class FollowUpRestoresLess(Agent):
    """follow_up restores through its own path, which keeps only the history: the
    conversation's identity, folded spans and recording agent are lost."""

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        if door == "follow_up":
            kept = self.checkpoint()
            return AgentRunCheckpoint(history=kept.history, turns=kept.turns)
        return super().conversation_to_continue(door, handed)


class FollowUpWithoutConversation(Agent):
    """follow_up before any run quietly starts a new conversation instead of refusing."""

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        if door == "follow_up":
            return _own_conversation(self)
        return super().conversation_to_continue(door, handed)


class ContinueFromPrefersOwn(Agent):
    """run(continue_from=...) continues the agent's own live conversation when it has
    one, not the conversation it was handed."""

    def conversation_to_continue(
        self, door: Door, handed: Checkpointish | None
    ) -> Checkpointish | None:
        own = _own_conversation(self)
        if door == "run" and handed is not None and own is not None:
            return own
        return super().conversation_to_continue(door, handed)


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


class _LiveCheckpointTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        return _PythonModeCheckpoint.model_validate(super().checkpoint(pending).model_dump())


class CheckpointNotPlainJson(Agent):
    """The checkpoint a run returns is a Python structure (tuples), not JSON data."""

    turn_loop = _LiveCheckpointTurn


class _NoFinalAnswerTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        return _without_last_answer(super().checkpoint(pending))


class CheckpointOmitsFinalAnswer(Agent):
    """The checkpoint is written before the final answer is added to it."""

    turn_loop = _NoFinalAnswerTurn


class _NoFoldedTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        return super().checkpoint(pending).model_copy(update={"folded": ()})


class CompactionLosesFolded(Agent):
    """Compaction folds turns but does not record the span in the checkpoint."""

    turn_loop = _NoFoldedTurn


class _SystemOnlyTurn(TurnLoop):
    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        said = "\n".join(turn.text for turn in turns if turn.role == "user")
        return await super().call_model(
            f"{system}\n{said}".strip(), [Turn(role="user", text=".")], tools
        )


class MessageInSystemPrompt(Agent):
    """The user's message is templated into the system prompt, not sent as a user turn."""

    turn_loop = _SystemOnlyTurn


class _MessageWindowTurn(TurnLoop):
    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        window = self.input.config.window
        if window is not None:  # counts messages, not user turns
            turns = list(self.history)[-2 * window.keep_recent_turns :]
        return await super().call_model(system, turns, tools)


class WindowCountsMessages(Agent):
    """The window keeps the last 2·N messages, cutting tool calls from their results."""

    turn_loop = _MessageWindowTurn


class TrimsToItsBrokenWindow(Agent):
    """The window counts messages (2·N, cutting calls from results), and what is stored is
    trimmed to the window too: two divergences at once, the trim hidden behind the other."""

    turn_loop = _MessageWindowTurn

    def checkpoint(self) -> AgentRunCheckpoint:
        full = super().checkpoint()
        window = self.config.window
        users = [i for i, turn in enumerate(full.history) if turn.role == "user"]
        if window is None or len(users) <= window.keep_recent_turns:
            return full
        kept = full.history[users[-window.keep_recent_turns] :]
        return full.model_copy(update={"history": kept})


class _SmugglingNoticeTurn(TurnLoop):
    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        shown = {id(turn) for turn in turns}
        dropped = [t.text for t in self.history if t.role == "user" and id(t) not in shown]
        if self.input.config.window is not None and dropped:
            notice = Turn(role="user", text="Earlier, I said: " + " / ".join(dropped))
            turns = [notice, *turns]
        return await super().call_model(system, turns, tools)


class WindowNoticeCarriesDroppedTurns(Agent):
    """Where the window drops turns, a user-role notice quotes what they said: the window
    counts right, and the dropped words are shown anyway."""

    turn_loop = _SmugglingNoticeTurn


class _CappedReplayTurn(TurnLoop):
    CAP = 3

    async def call_model(
        self, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        users = [i for i, turn in enumerate(turns) if turn.role == "user"]
        if self.input.config.window is None and len(users) > self.CAP:
            turns = list(turns)[users[-self.CAP] :]  # a default no window was asked for
        return await super().call_model(system, turns, tools)


class ReplayCapped(Agent):
    """With no window asked for, every model call shows only the last three user turns:
    the checkpoint holds everything, the replay silently caps it."""

    turn_loop = _CappedReplayTurn


class MismatchRefusesDefaultIds(Agent):
    """The default id counts as a chosen name, so unnamed agents refuse named ones."""

    @property
    def named(self) -> bool:
        return True


class MismatchNeverRefuses(Agent):
    """Any agent continues any other agent's conversation."""

    def mismatch(self, conversation: AgentRunCheckpoint | None) -> ConversationMismatchError | None:
        return None


class MismatchFoldsCase(Agent):
    """Agent ids are compared without their case: an agent named `Billing` continues the
    conversation `billing` recorded."""

    def mismatch(self, conversation: AgentRunCheckpoint | None) -> ConversationMismatchError | None:
        recorded_by = None if conversation is None else conversation.agent
        if recorded_by is not None and recorded_by.casefold() == self.id.casefold():
            return None
        return super().mismatch(conversation)


class MismatchDecidedByRecorder(Agent):
    """Refuses whenever the recording agent's name differs from this agent's id, even
    when this agent never chose one."""

    def mismatch(self, conversation: AgentRunCheckpoint | None) -> ConversationMismatchError | None:
        recorded_by = None if conversation is None else conversation.agent
        if recorded_by is not None and recorded_by != self.id:
            return ConversationMismatchError(recorded_by, self.id)
        return None


class MismatchDecidedByReceiver(Agent):
    """A named agent refuses every conversation it did not record, unnamed ones too."""

    def mismatch(self, conversation: AgentRunCheckpoint | None) -> ConversationMismatchError | None:
        refusal = super().mismatch(conversation)
        if refusal is not None or conversation is None or not self.named:
            return refusal
        if conversation.agent != self.id:
            return ConversationMismatchError(conversation.agent or "(unnamed)", self.id)
        return None


class _FingerprintTurn(TurnLoop):
    def checkpoint(self, pending: PendingQuestion | None = None) -> AgentRunCheckpoint:
        base = super().checkpoint(pending)
        if base.agent is None:
            return base
        fingerprint = _fingerprint(self.input.config)
        return base.model_copy(update={"agent": f"{base.agent}#{fingerprint}"})


def _fingerprint(config: AgentConfig) -> str:
    return f"{config.model}|{config.system}|{','.join(t.name for t in config.tools)}"


class MismatchOnChangedAgent(Agent):
    """An agent's identity includes its prompt, tools and model, so a redeployed agent
    refuses its own conversations."""

    turn_loop = _FingerprintTurn

    @property
    def id(self) -> str:
        return f"{super().id}#{_fingerprint(self.config)}" if self.named else super().id


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
    "MismatchFoldsCase",
    "MismatchNeverRefuses",
    "MismatchOnChangedAgent",
    "MismatchRefusesDefaultIds",
    "RunCarriesPrevious",
    "RunJoinsByConversationId",
    "WindowCountsMessages",
]
