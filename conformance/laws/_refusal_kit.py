"""The refusal tables' scene: try a door where it must refuse, then judge core and kind.

A run in flight and a question pending are two laws of one shape: a door tried at the
wrong moment reaches nothing of the model (the core), and is refused as that moment's
kind (the kind). The two are judged by separate tests, and the kind's test rests on the
core: a broken core is the core's FAIL and the kind's unmet premise, never a FAIL of the
kind, so a runtime refusing with another kind fails that law alone, and says where.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass

import pytest

from ..adapter import AgentUnderTest, Capability, Implementation, RefusalKind, Refused, RunOutcome
from ..verdicts import NOT_APPLICABLE_PREFIX, LawViolation, PremiseNotMet

DOORS = ("run", "follow_up", "run(continue_from=)", "resume")
"""Every door a second message can take into an agent."""


@dataclass
class Came:
    """What one door did when tried where it must refuse."""

    kind: RefusalKind | None = None
    other: str | None = None  # what came instead of a refusal

    def said(self) -> str:
        return f"was refused as {self.kind.value}" if self.kind else (self.other or "")


def door_call(
    agent: AgentUnderTest, door: str, message: str, handed: object
) -> Awaitable[RunOutcome]:
    """One door of `DOORS`, with the message (resume: as the decision) and what it is
    handed (the checkpoint of `run(continue_from=)` and `resume`)."""
    if door == "run":
        return agent.run(message)
    if door == "follow_up":
        return agent.follow_up(message)
    if door == "run(continue_from=)":
        return agent.run(message, continue_from=handed)
    return agent.resume(handed, message)


async def attempt(call: Awaitable[RunOutcome], waited: float | None = None) -> Came:
    """Try a door; anything but a refusal is reported, not raised, so the wire judges.
    With `waited`, a door that has not answered after that many seconds is waiting its
    turn, not refusing (a refusal happens before anything is sent)."""
    try:
        outcome = await (call if waited is None else asyncio.wait_for(call, waited))
    except Refused as refused:
        return Came(kind=refused.kind)
    except TimeoutError as error:
        if waited is None:
            return Came(other=f"raised {type(error).__name__}: {str(error)[:200]}")
        return Came(other=f"neither refused nor returned within {waited:g}s (it waited)")
    except Exception as error:
        return Came(other=f"raised {type(error).__name__}: {str(error)[:200]}")
    return Came(other=f"went ahead and returned {outcome.answer!r}")


def skip_cell_without(
    implementation: Implementation, needs: Mapping[str, Capability], *names: str
) -> None:
    """A cell whose door or moment (`names`, looked up in `needs`) needs an undeclared
    capability is NOT_APPLICABLE, said in words."""
    declared = {str(c) for c in implementation.capabilities}
    for name in names:
        needed = needs.get(name)
        if needed is not None and str(needed) not in declared:
            pytest.skip(
                f"{NOT_APPLICABLE_PREFIX}{name} needs the {needed.value} capability"
                + (" (the call_service tool)" if needed is Capability.CALL_SERVICE else "")
            )


def judge_refusals(
    cell: str,
    came: Sequence[tuple[str, Came]],
    broken: str | None,
    laws: tuple[str, str | None],
    accepted: frozenset[RefusalKind],
    refused_as: str,
) -> None:
    """The core law, then (when `laws` names a kind law) the kind, in `cell`'s words.
    `broken` says how the core broke (something reached the model), or is None; `came`
    is what each door tried did, and each must have been refused as one of `accepted`."""
    core, kind = laws
    if broken is not None:
        # The kind's test rests on the core: a broken core is the core's FAIL (its own
        # test says so) and this test's unmet premise, never a FAIL of the kind.
        if kind is not None:
            raise PremiseNotMet(core, broken)
        raise LawViolation(core, broken)
    if kind is None:
        return
    for what, door_came in came:
        if door_came.kind not in accepted:
            raise LawViolation(kind, f"{cell}: {what} {door_came.said()}, not as {refused_as}")
