"""Which door an adapter call went through, the law each door answers to, and every
call's deadline.

The guard notes on what a call raised the door it came through (`note_door`), so the
runner can say what happened in the law's words and charge it to the right law:

- an act a law requires to succeed that the runtime refused (`Refused`) or that ended in
  a failed run (`RunFailed`), escaping the test's call uncaught, is a FAIL of the test's
  law(s) saying so: "follow_up was refused as no_conversation: ...";
- a declared door that is missing (`DeclaredButMissing`, from NotImplementedError) is a
  FAIL of the law about that door (`DOOR_LAWS`), never of a test that only used the door
  as set-up or clean-up: a resume test that abandons a pause to clean up does not FAIL
  the resume law for a missing abandon.

`DOOR_LAWS` is the one table from a door to its law. It lives here, beside the rule that
reads it, rather than in laws.toml: it is a charging rule of the runner (a law's entry
says what the law needs, not which adapter call a failure of the harness's protocol is
blamed on), and it is keyed by the op tables' doors, which laws.toml does not know.

Every door's call has a deadline, and one keeper: the guard, or an implementation that
keeps its own (`OwnsCallDeadline`: a `cmd:` adapter's connector, which alone can stop
the adapter that missed it). The guards (`guard.py`) and the fixtures' own calls share
`within_deadline`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Final, Literal, Protocol, TypeVar, runtime_checkable

from ..adapter import Refused, RunFailed
from ..errors import AdapterTimeout, DeclaredButMissing
from ..registry import SMOKE_LAW, law

_NOTE = "_turnlaw_door"
"""The attribute the guard sets on what a call raised: the door's `Door`."""


@dataclass(frozen=True)
class Door:
    """One call of the adapter protocol: its surface (agent, host, backend, session,
    implementation) and its op's name."""

    surface: str
    op: str

    @property
    def key(self) -> str:
        """`agent.follow_up`: how `DOOR_LAWS` names it."""
        return f"{self.surface}.{self.op}"


DOOR_LAWS: Final[dict[str, str]] = {
    # the agent surface (conformance.adapter.AGENT): no agent, or no run, is no turn
    "agent.create_agent": SMOKE_LAW,
    "agent.run": SMOKE_LAW,
    "agent.close": SMOKE_LAW,
    "agent.follow_up": "follow-up.shows-last-answer",
    "agent.checkpoint": "checkpoint.plain-json",
    "agent.resume": "pending.resume-continues",
    "agent.abandon_pause": "pending.abandon-returns-dropped",
    "agent.can_explain": "self-explain.not-before-a-completed-turn",
    "agent.last_identity": "identity.ladder",
    # a host of the runtime's own (HOST, DAMAGE_SESSION)
    "host.start_host": "hosting.session-continues",
    "host.stop": "hosting.session-continues",
    "host.kill": "hosting.persists-before-reply",
    "implementation.damage_session": "hosting.unreadable-is-not-absent",
    # the session door (BACKEND, SESSION; docs/sessions.md names each op's law)
    "backend.open_backend": "session.agent-has-default-conversation",
    "backend.create_agent": "session.agent-has-default-conversation",
    "backend.create_session": "session.new-session-is-new-conversation",
    "backend.resume_session": "session.resume-either-id",
    "backend.list_conversations": "conversation.inspect-without-session",
    "backend.list_messages": "conversation.inspect-without-session",
    "backend.kill": "persistence.beyond-connection",
    "backend.close": "persistence.beyond-connection",
    "session.ids": "session.ids",
    "session.send": "turn.one-result",
    "session.stream": "turn.one-result",
    "session.abort": "turn.abort-keeps-session",
    "session.decide": "approval.survives-disconnect",
    "session.remove_queued": "turn.queued-removable",
    "session.list_messages": "connection.no-replay-reconcile",
    "session.state": "connection.no-replay-reconcile",
    "session.break_connection": "connection.broken-is-unusable",
    "session.close": "persistence.beyond-connection",
}
"""door -> the law about that door: the law a missing declared door is charged to."""


def note_door(error: BaseException, door: Door) -> None:
    """Say on `error` which door raised it (the first guard to see it decides)."""
    if getattr(error, _NOTE, None) is None:
        # an exception type with __slots__ takes no note: nothing is said of it
        with contextlib.suppress(AttributeError):
            setattr(error, _NOTE, door)


def door_of(error: BaseException | None) -> Door | None:
    """The door `error` came through, if a guard noted one."""
    found = getattr(error, _NOTE, None)
    return found if isinstance(found, Door) else None


def refused_act(error: BaseException | None) -> str | None:
    """What an act that a law needed to succeed did instead, in the law's words, when a
    runtime's refusal or failed run escaped the test uncaught: "follow_up was refused as
    no_conversation: ..."; None for anything else (or an error no guard saw)."""
    door = door_of(error)
    if door is None:
        return None
    if isinstance(error, Refused):
        return f"{door.op} was refused as {error.kind.value}: {error.message}"
    if isinstance(error, RunFailed):
        cause = getattr(error, "cause", "provider")
        how = "ended in the runtime's own error" if cause == "runtime" else "failed"
        return f"{door.op} {how}: {error.message}"
    return None


def missing_door_law(error: BaseException | None, declared: frozenset[str]) -> str | None:
    """The law a missing declared door is charged to: the law about that door, when the
    error is a `DeclaredButMissing` a guard noted and that law applies to this runtime
    (its capabilities are declared); None: the test's own laws are charged, as before."""
    if not isinstance(error, DeclaredButMissing):
        return None
    door = door_of(error)
    law_id = DOOR_LAWS.get(door.key) if door is not None else None
    if law_id is None:
        return None
    if any(law(law_id).missing(declared)):
        return None
    return law_id


T = TypeVar("T")


@runtime_checkable
class OwnsCallDeadline(Protocol):
    """An implementation that enforces each call's deadline itself (the same
    `--call-timeout` times `--timeout-multiplier`) and cleans up after a miss: the
    guard then sets no deadline of its own."""

    owns_call_deadline: Literal[True]


async def within_deadline(
    name: str,
    call: Awaitable[T],
    timeout: float | None,
    declared: frozenset[str],
    *,
    door: Door | None = None,
) -> T:
    """Await one adapter call under its deadline (None: the implementation keeps it),
    translating the two ways it can fail that are the harness's business. What it
    raises is noted with `door` (doors.py), so the runner can say which call a refusal
    or a missing door came from."""
    try:
        return await _within(name, call, timeout, declared)
    except Exception as error:
        if door is not None:
            note_door(error, door)
        raise


async def _within(
    name: str, call: Awaitable[T], timeout: float | None, declared: frozenset[str]
) -> T:
    try:
        return await asyncio.wait_for(call, timeout)
    except TimeoutError as error:
        if isinstance(error, AdapterTimeout) or timeout is None:
            raise  # already a deadline's own report (the implementation's, if it keeps it)
        raise AdapterTimeout(
            f"Timeout: the adapter's {name}() did not return within {timeout:g} s "
            "(raise --call-timeout or --timeout-multiplier if the runtime is just slow)"
        ) from None
    except NotImplementedError as error:
        raise DeclaredButMissing(
            f"{name}() raised NotImplementedError, but the implementation declares "
            f"{sorted(declared)}: a declared capability must work, or be left out "
            "(then its laws are NOT_APPLICABLE)"
        ) from error


HOST_START_FACTOR = 4
"""A host start gets this many call deadlines: it is a process of its own, importing as
much as an adapter does (a stdio connector gives it its start-up deadline likewise)."""


__all__ = [
    "DOOR_LAWS",
    "HOST_START_FACTOR",
    "Door",
    "OwnsCallDeadline",
    "door_of",
    "missing_door_law",
    "note_door",
    "refused_act",
    "within_deadline",
]
