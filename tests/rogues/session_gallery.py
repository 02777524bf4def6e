"""The session rogues of the gallery: the laws of seed 003 (docs/sessions.md), at least
one rogue each, every one the reference session runtime (or its client) with one change.

A session rogue declares the session capabilities and no hosting; its kill job runs only
the session law modules holding a test of a law it is built to break, in one delivery.
"""

from __future__ import annotations

from . import session_connection_rogues as broken
from . import session_conversation_rogues as threads
from . import session_turn_rogues as turns
from .rogue import Rogue

SESSION_ROGUES: tuple[Rogue, ...] = (
    # which conversation an id opens
    Rogue(
        "default-is-the-latest-conversation",
        ("session.agent-has-default-conversation",),
        session_runtime=threads.DefaultIsTheLatestConversation,
    ),
    Rogue(
        "agent-id-opens-a-new-conversation",
        ("session.agent-has-default-conversation",),
        session_runtime=threads.AgentIdOpensANewConversation,
    ),
    Rogue(
        "created-session-joins-the-default",
        ("session.new-session-is-new-conversation",),
        session_runtime=threads.CreatedSessionJoinsTheDefault,
    ),
    Rogue(
        "created-conversation-forks-the-default",
        ("session.new-session-is-new-conversation",),
        session_runtime=threads.CreatedConversationForksTheDefault,
    ),
    Rogue(
        "conversation-id-resumes-the-default",
        ("session.resume-either-id",),
        session_runtime=threads.ConversationIdResumesTheDefault,
    ),
    Rogue(
        "default-left-out-of-the-list",
        ("conversation.inspect-without-session",),
        session_runtime=threads.DefaultLeftOutOfTheList,
    ),
    # the ids a session shows
    Rogue(
        "session-id-is-the-agent-id",
        ("session.ids",),
        session_runtime=threads.SessionIdIsTheAgentId,
    ),
    Rogue(
        "bare-uuid-conversation-ids",
        ("session.id-shapes",),
        session_runtime=threads.BareUuidConversationIds,
    ),
    # what outlives a connection, and whose it is
    Rogue(
        "history-kept-in-memory",
        ("persistence.beyond-connection",),
        session_runtime=threads.HistoryKeptInMemory,
    ),
    Rogue(
        "memory-blocks-kept-in-memory",
        ("persistence.beyond-connection",),
        session_runtime=threads.MemoryBlocksKeptInMemory,
    ),
    Rogue(
        "memory-only-in-the-default-conversation",
        ("agent.memory-in-every-conversation",),
        session_runtime=threads.MemoryOnlyInTheDefaultConversation,
    ),
    Rogue(
        "model-update-kept-by-session",
        ("persistence.model-update",),
        session_runtime=threads.ModelUpdateKeptBySession,
    ),
    Rogue(
        "client-tools-remembered-by-conversation",
        ("session.scope-ends-with-session",),
        session_runtime=threads.ClientToolsRememberedByConversation,
    ),
    Rogue(
        "approval-policy-remembered-by-conversation",
        ("session.scope-ends-with-session",),
        session_runtime=threads.ApprovalPolicyRememberedByConversation,
    ),
    # a turn: its result, its runs, the queue, abort
    Rogue("result-without-text", ("turn.one-result",), session_runtime=turns.ResultWithoutText),
    Rogue("result-lists-no-runs", ("turn.run-ids",), session_runtime=turns.ResultListsNoRuns),
    Rogue(
        "queue-is-last-in-first-out",
        ("turn.queued-not-dropped",),
        session_runtime=turns.QueueIsLastInFirstOut,
    ),
    Rogue(
        "queued-message-runs-at-once",
        ("turn.queued-not-dropped",),
        session_runtime=turns.QueuedMessageRunsAtOnce,
    ),
    Rogue(
        "send-while-busy-is-dropped",
        ("turn.queued-not-dropped",),
        session_runtime=turns.SendWhileBusyIsDropped,
    ),
    Rogue(
        "removed-message-still-plays",
        ("turn.queued-removable",),
        session_runtime=turns.RemovedMessageStillPlays,
    ),
    Rogue(
        "abort-tells-no-result",
        ("turn.abort-keeps-session",),
        session_runtime=turns.AbortTellsNoResult,
    ),
    Rogue(
        "abort-waits-the-turn-out",
        ("turn.abort-keeps-session",),
        session_runtime=turns.AbortWaitsTheTurnOut,
    ),
    Rogue(
        "abort-closes-the-session",
        ("turn.abort-keeps-session",),
        session_client=turns.AbortClosesTheSessionClient,
    ),
    # a broken connection, and the approvals that wait on a person
    Rogue(
        "broken-session-reconnects",
        ("connection.broken-is-unusable",),
        session_client=broken.ReconnectingClient,
    ),
    Rogue(
        "break-told-nothing",
        ("connection.broken-is-unusable",),
        session_client=broken.BreakToldNothingClient,
    ),
    Rogue(
        "missed-events-replayed",
        ("connection.no-replay-reconcile",),
        session_runtime=broken.MissedEventsReplayed,
    ),
    Rogue(
        "receipts-not-listed",
        ("connection.no-replay-reconcile",),
        session_runtime=broken.ReceiptsNotListed,
    ),
    Rogue(
        "approved-call-runs-twice",
        ("approval.survives-disconnect",),
        session_runtime=broken.ApprovedCallRunsTwice,
    ),
    Rogue(
        "denied-call-runs-anyway",
        ("approval.survives-disconnect",),
        session_runtime=broken.DeniedCallRunsAnyway,
    ),
    Rogue(
        "pending-approval-ends-with-its-client",
        ("approval.survives-disconnect",),
        session_runtime=broken.PendingApprovalEndsWithItsClient,
    ),
)
