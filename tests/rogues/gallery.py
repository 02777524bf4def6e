"""The gallery: each rogue's id, the laws it is built to break, and its runtime.

`--impl tests.rogues.gallery:<id with underscores>` runs the suite against one rogue;
`python -m tests.rogues` runs it against all of them and builds the kill matrix.
"""

from __future__ import annotations

from reference_impl.adapter import ReferenceImplementation
from tests.harness.second_wire import SecondWireImplementation

from . import conversation_rogues as conv
from . import coverage_rogues as cover
from . import failure_rogues as failure
from . import hosting_store_rogues as hosted
from . import hosting_wire_rogues as served
from . import identity_rogues as ident
from . import memory_rogues as memory
from . import semantics_rogues as semantics
from . import timing_rogues as timing
from . import verbatim_rogues as verbatim
from .rogue import Rogue
from .session_gallery import SESSION_ROGUES

REFERENCE_SPEC = "reference_impl.adapter:implementation"

ROGUES: tuple[Rogue, ...] = (
    Rogue("message-in-system-prompt", ("smoke.one-turn",), conv.MessageInSystemPrompt),
    Rogue("run-carries-previous", ("run.no-history",), conv.RunCarriesPrevious),
    Rogue(
        "run-joins-by-conversation-id",
        ("run.conversation-id-does-not-join",),
        conv.RunJoinsByConversationId,
    ),
    Rogue(
        "follow-up-drops-last-answer",
        ("follow-up.shows-last-answer",),
        conv.FollowUpDropsLastAnswer,
    ),
    Rogue(
        "follow-up-restores-less",
        ("follow-up.is-continue-from-checkpoint",),
        conv.FollowUpRestoresLess,
    ),
    Rogue(
        "follow-up-without-conversation",
        ("follow-up.refuses-before-first-run",),
        conv.FollowUpWithoutConversation,
    ),
    Rogue(
        "continue-from-prefers-own",
        ("continue-from.any-conversation",),
        conv.ContinueFromPrefersOwn,
    ),
    Rogue("checkpoint-trims", ("checkpoint.no-trim",), conv.CheckpointTrims),
    Rogue("checkpoint-not-plain-json", ("checkpoint.plain-json",), conv.CheckpointNotPlainJson),
    Rogue(
        "checkpoint-omits-final-answer",
        ("checkpoint.final-answer",),
        conv.CheckpointOmitsFinalAnswer,
    ),
    Rogue(
        "mismatch-refuses-default-ids",
        ("mismatch.default-id-never-refuses",),
        conv.MismatchRefusesDefaultIds,
    ),
    Rogue(
        "mismatch-never-refuses",
        ("mismatch.refuses-another-agents-conversation",),
        conv.MismatchNeverRefuses,
    ),
    Rogue(
        "mismatch-folds-case",
        ("mismatch.refuses-another-agents-conversation",),
        conv.MismatchFoldsCase,
    ),
    Rogue(
        "mismatch-decided-by-recorder",
        ("mismatch.default-id-never-refuses",),
        conv.MismatchDecidedByRecorder,
    ),
    Rogue(
        "mismatch-decided-by-receiver",
        ("mismatch.default-id-never-refuses",),
        conv.MismatchDecidedByReceiver,
    ),
    Rogue(
        "mismatch-on-changed-agent",
        ("mismatch.changed-agent-continues",),
        conv.MismatchOnChangedAgent,
    ),
    Rogue("ladder-prefers-session", ("identity.ladder",), ident.LadderPrefersSession),
    Rogue(
        "ladder-drops-carried",
        ("identity.ladder", "checkpoint.carries-identity"),
        ident.LadderDropsCarried,
    ),
    Rogue(
        "publishes-synthesized",
        ("identity.synthesized-not-published",),
        ident.PublishesSynthesized,
    ),
    Rogue(
        "identity-never-reaches-tools",
        ("identity.reaches-tools",),
        ident.IdentityNeverReachesTools,
    ),
    Rogue("memory-as-turns", ("memory.system-block-not-turns",), ident.MemoryAsTurns),
    Rogue(
        "memory-ignores-tenant-and-principal",
        ("memory.namespace-isolation",),
        ident.MemoryIgnoresTenantAndPrincipal,
    ),
    Rogue(
        "memory-cites-turns-by-position",
        ("memory.citable",),
        memory.MemoryCitesTurnsByPosition,
    ),
    Rogue("window-counts-messages", ("window.bounds-what-is-shown",), conv.WindowCountsMessages),
    Rogue(
        "trims-to-its-broken-window",
        ("checkpoint.no-trim", "window.bounds-what-is-shown"),
        conv.TrimsToItsBrokenWindow,
    ),
    Rogue("replay-capped", ("checkpoint.no-trim",), conv.ReplayCapped),
    Rogue(
        "window-notice-carries-dropped-turns",
        ("window.bounds-what-is-shown",),
        conv.WindowNoticeCarriesDroppedTurns,
    ),
    Rogue("compaction-loses-folded", ("compaction.folded-travels",), conv.CompactionLosesFolded),
    Rogue("in-flight-goes-ahead", ("in-flight.refused-before-send",), timing.InFlightGoesAhead),
    Rogue(
        "in-flight-refused-after-send",
        ("in-flight.refused-before-send",),
        timing.InFlightRefusedAfterSend,
    ),
    Rogue(
        "in-flight-refusal-corrupts-first",
        ("in-flight.first-run-intact",),
        timing.InFlightRefusalCorruptsFirst,
    ),
    Rogue(
        "pending-question-discarded",
        ("pending.refuses-new-message",),
        timing.PendingQuestionDiscarded,
    ),
    Rogue(
        "abandon-returns-nothing",
        ("pending.abandon-returns-dropped",),
        timing.AbandonReturnsNothing,
    ),
    Rogue(
        "resume-reruns-asking-tool", ("pending.resume-continues",), timing.ResumeRerunsAskingTool
    ),
    Rogue(
        "explains-before-completed-run",
        ("self-explain.not-before-a-completed-turn",),
        timing.ExplainsBeforeCompletedRun,
    ),
    Rogue(
        "explains-without-self-explain",
        ("self-explain.not-without-self-explain",),
        timing.ExplainsWithoutSelfExplain,
    ),
    Rogue(
        "trace-tool-reads-the-run-in-flight",
        ("self-explain.trace-tools-say-so",),
        timing.TraceToolReadsTheRunInFlight,
    ),
    Rogue(
        "trace-tool-never-sees-a-completed-run",
        ("self-explain.trace-tools-say-so",),
        timing.TraceToolNeverSeesACompletedRun,
    ),
    Rogue(
        "third-follow-up-after-continuation",
        ("follow-up.shows-last-answer",),
        timing.ThirdFollowUpAfterContinuation,
    ),
    # spec semantics (issue 13 §4)
    Rogue(
        "follow-up-stamps-its-own-id",
        ("follow-up.is-continue-from-checkpoint",),
        semantics.FollowUpStampsItsOwnId,
    ),
    # refusal tables (issue 13 §2)
    Rogue(
        "in-flight-guard-set-late",
        # not the kind law: where its guard is late the core broke (the kind's premise),
        # and where the guard is up it refuses with the right kind
        ("in-flight.refused-before-send", "in-flight.first-run-intact"),
        timing.InFlightGuardSetLate,
    ),
    Rogue(
        "in-flight-refused-as-no-conversation",
        ("in-flight.refusal-kind",),
        timing.InFlightRefusedAsNoConversation,
    ),
    Rogue("paused-refused-as-busy", ("pending.refusal-kind",), timing.PausedRefusedAsBusy),
    Rogue(
        "checkpoint-while-paused-drops-question",
        ("pending.refuses-new-message",),
        timing.CheckpointWhilePausedDropsQuestion,
    ),
    Rogue(
        "blank-message-slips-past-pending",
        ("pending.refuses-new-message",),
        timing.BlankMessageSlipsPastPending,
    ),
    Rogue(
        "resume-unguarded-while-in-flight",
        ("in-flight.refused-before-send", "in-flight.first-run-intact"),
        timing.ResumeUnguardedWhileInFlight,
    ),
    # coverage classes (issue 13 §3)
    Rogue(
        "resume-forgets-earlier-turns",
        ("pending.resume-continues",),
        cover.ResumeForgetsEarlierTurns,
    ),
    Rogue(
        "second-tool-round-forgets-first",
        ("checkpoint.no-trim", "continue-from.any-conversation"),
        cover.SecondToolRoundForgetsFirst,
    ),
    Rogue(
        "anonymous-runs-share-memory",
        ("memory.namespace-isolation",),
        cover.AnonymousRunsShareMemory,
    ),
    Rogue(
        "checkpoint-follows-the-turn-in-flight",
        ("failure.checkpoint-is-last-completed",),
        cover.CheckpointFollowsTheTurnInFlight,
    ),
    Rogue(
        "whole-replies-drop-last-answer",
        ("follow-up.shows-last-answer",),
        cover.WholeRepliesDropLastAnswer,
    ),
    Rogue(
        "in-flight-guard-shared-by-all-agents",
        ("in-flight.per-instance",),
        cover.InFlightGuardSharedByAllAgents,
    ),
    Rogue(
        "trace-keeps-only-the-answer",
        ("self-explain.reads-the-trace",),
        cover.TraceKeepsOnlyTheAnswer,
    ),
    Rogue(
        "identity-carried-one-hop",
        ("checkpoint.carries-identity",),
        cover.IdentityCarriedOneHop,
    ),
    # failure paths (issue 13 §1)
    Rogue(
        "failure-becomes-a-fallback-answer",
        (
            "failure.follow-up-continues-last-completed",
            "failure.checkpoint-is-last-completed",
            "failure.hands-back-last-good-checkpoint",
        ),
        failure.FailureBecomesAFallbackAnswer,
    ),
    Rogue(
        "follow-up-continues-failed-history",
        ("failure.follow-up-continues-last-completed", "failure.checkpoint-is-last-completed"),
        failure.FollowUpContinuesFailedHistory,
    ),
    Rogue(
        "failed-resume-clears-pending",
        ("failure.failed-resume-stays-pending",),
        failure.FailedResumeClearsPending,
    ),
    Rogue(
        "error-checkpoint-carries-half-work",
        ("failure.hands-back-last-good-checkpoint",),
        failure.ErrorCheckpointCarriesHalfWork,
    ),
    Rogue(
        "accepts-malformed-checkpoint",
        ("failure.malformed-checkpoint-refused",),
        failure.AcceptsMalformedCheckpoint,
    ),
    # a conversation is verbatim (issue 13 §3)
    Rogue(
        "checkpoint-drops-text-beside-calls",
        ("conversation.verbatim",),
        verbatim.CheckpointDropsTextBesideCalls,
    ),
    # served conversations: what a host stores, restores and runs under (issue 14)
    Rogue(
        "replies-before-persisting",
        ("hosting.persists-before-reply",),
        host=hosted.RepliesBeforePersisting,
    ),
    Rogue(
        "persists-half-a-turn",
        # a crash mid-turn and a run that failed both leave its stored half behind
        ("hosting.persists-before-reply", "hosting.session-continues"),
        host=hosted.PersistsHalfATurn,
    ),
    Rogue(
        "unreadable-starts-fresh",
        ("hosting.unreadable-is-not-absent",),
        host=hosted.UnreadableStartsFresh,
    ),
    Rogue(
        "one-conversation-for-all-sessions",
        ("hosting.session-continues",),
        host=hosted.OneConversationForAllSessions,
    ),
    Rogue(
        "host-rebuilds-history",
        ("hosting.through-continue-from",),
        host=hosted.HostRebuildsHistory,
    ),
    Rogue(
        "host-drops-the-answer",
        ("hosting.session-continues", "hosting.through-continue-from"),
        host=hosted.HostDropsTheAnswer,
    ),
    Rogue(
        "host-names-the-session",
        ("hosting.session-identity",),
        host=hosted.HostNamesTheSession,
    ),
    Rogue(
        "host-runs-without-the-session",
        ("hosting.session-identity",),
        host=hosted.HostRunsWithoutTheSession,
    ),
    # the served wire: session id sources, pauses, lanes, ownership (issue 14, laws-b)
    Rogue("header-before-body", ("hosting.session-id-sources",), host=served.HeaderBeforeBody),
    Rogue(
        "cookie-issued-to-carried-session",
        ("hosting.session-id-sources",),
        host=served.CookieIssuedToCarriedSession,
    ),
    Rogue(
        "sessionless-stored-under-default",
        ("hosting.session-id-sources", "hosting.pause-served"),
        host=served.SessionlessStoredUnderDefault,
    ),
    Rogue(
        "message-taken-as-decision", ("hosting.pause-served",), host=served.MessageTakenAsDecision
    ),
    Rogue("pause-dropped-on-message", ("hosting.pause-served",), host=served.PauseDroppedOnMessage),
    Rogue(
        "queued-request-answered-without-running",
        ("hosting.concurrent-enqueue",),
        host=served.QueuedRequestAnsweredWithoutRunning,
    ),
    Rogue(
        "reject-without-session-lane",
        ("hosting.concurrent-reject",),
        host=served.RejectWithoutSessionLane,
    ),
    Rogue(
        "one-agent-for-every-session",
        ("hosting.sessions-in-parallel",),
        host=served.OneAgentForEverySession,
    ),
    Rogue(
        "session-id-is-ownership",
        ("hosting.session-id-is-not-auth",),
        host=served.SessionIdIsOwnership,
    ),
    # agents, conversations and sessions: the session runtime and its client (issue 15)
    *SESSION_ROGUES,
)
# Every host rogue again, behind the second wire (issue 31 §3): the same change, on a wire
# the laws read only through its profile, must be killed by the same laws.
ROGUES = (*ROGUES, *(r.behind_the_second_wire() for r in ROGUES if r.surface == "hosting"))

BY_ID = {rogue.id: rogue for rogue in ROGUES}

__all__ = ["BY_ID", "REFERENCE_SPEC", "ROGUES", "Rogue"]


def __getattr__(name: str) -> ReferenceImplementation | SecondWireImplementation:
    """`tests.rogues.gallery:run_carries_previous` -> that rogue's implementation."""
    for rogue in ROGUES:
        if rogue.attribute == name:
            return rogue.implementation()
    raise AttributeError(name)
