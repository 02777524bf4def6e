"""turnlaw's reference agent runtime: small, real, and obedient to every conversation law.

    agent = Agent.create(provider=OpenAIChatProvider(base_url=...), model="m").build()
    first = await agent.run("Book me a table for two on Friday.")   # ONE turn
    await agent.follow_up("Make it three.")                          # this agent's last
    await agent.run("Make it three.", continue_from=stored)          # any conversation

The conformance suite is exercised against it, and implementers read it. See
docs/reference.md for the choices made where the law is silent.
"""

from typing import TYPE_CHECKING, Any

from ._sqlite_memory import SqliteMemoryStore
from ._turn import AgentConfig, MemoryWrite, TurnInput, TurnLoop, TurnOutcome
from .agent import DEFAULT_AGENT_ID, Agent, AgentBuilder, Door, RunResult, RunState
from .checkpoint import (
    CHECKPOINT_VERSION,
    AgentRunCheckpoint,
    FoldedSpan,
    PendingQuestion,
    load_checkpoint,
)
from .context import Compaction, Window
from .conversation import Identity, IdentitySource, ToolCall, ToolSpec, Turn
from .errors import (
    AgentError,
    ConversationMismatchError,
    DecisionRefusedError,
    InvalidCheckpointError,
    InvalidMessageError,
    MemoryFileError,
    MemoryRowError,
    MemoryStoreError,
    MemoryWriteError,
    NoConversationError,
    PendingQuestionError,
    RunFailedError,
    RunInFlightError,
    ToolLoopLimitError,
)
from .memory import EpisodicMemory, InMemoryStore, MemoryEntry, MemoryStore
from .providers import ModelProvider, ModelReply, make_provider
from .self_explain import NO_COMPLETED_RUN, TRACE_TOOL_NAME
from .tools import AskPerson, Tool, ToolContext, ask_person, tool

if TYPE_CHECKING:
    from .providers import AnthropicMessagesProvider, OpenAIChatProvider, OpenAIResponsesProvider

_LAZY_PROVIDERS = ("AnthropicMessagesProvider", "OpenAIChatProvider", "OpenAIResponsesProvider")


def __getattr__(name: str) -> Any:
    """A provider class, imported with its SDK on first use (see `providers`)."""
    if name not in _LAZY_PROVIDERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import providers

    value = getattr(providers, name)
    globals()[name] = value
    return value


__all__ = [
    "CHECKPOINT_VERSION",
    "DEFAULT_AGENT_ID",
    "NO_COMPLETED_RUN",
    "TRACE_TOOL_NAME",
    "Agent",
    "AgentBuilder",
    "AgentConfig",
    "AgentError",
    "AgentRunCheckpoint",
    "AnthropicMessagesProvider",
    "AskPerson",
    "Compaction",
    "ConversationMismatchError",
    "DecisionRefusedError",
    "Door",
    "EpisodicMemory",
    "FoldedSpan",
    "Identity",
    "IdentitySource",
    "InMemoryStore",
    "InvalidCheckpointError",
    "InvalidMessageError",
    "MemoryEntry",
    "MemoryFileError",
    "MemoryRowError",
    "MemoryStore",
    "MemoryStoreError",
    "MemoryWrite",
    "MemoryWriteError",
    "ModelProvider",
    "ModelReply",
    "NoConversationError",
    "OpenAIChatProvider",
    "OpenAIResponsesProvider",
    "PendingQuestion",
    "PendingQuestionError",
    "RunFailedError",
    "RunInFlightError",
    "RunResult",
    "RunState",
    "SqliteMemoryStore",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolLoopLimitError",
    "ToolSpec",
    "Turn",
    "TurnInput",
    "TurnLoop",
    "TurnOutcome",
    "Window",
    "ask_person",
    "load_checkpoint",
    "make_provider",
    "tool",
]
