"""A checkpoint that comes back broken is refused, or at least never sent broken.

"Safe to put in Redis / Postgres / S3 / a file" means what comes back may be damaged: it
is refused before anything is sent, or accepted and nothing broken reaches the model;
never an untyped error.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Call,
    Capability,
    CompactionSpec,
    Implementation,
    RefusalKind,
    Refused,
    RequestIR,
    RunFailed,
    RunOutcome,
    ScriptedProvider,
    ToolCalls,
    declaration_of,
    declares,
    roundtrip,
    text,
    untyped,
)

pytestmark = pytest.mark.asyncio

CALL_ID = "call_turnlaw_echo_1"
"""The id the scripted model gives its tool call, so a mutation can find the call."""
ASK_ID = "call_turnlaw_ask_1"

KINDS = (
    "drop_key",
    "swap_type",
    "remove_item",
    "duplicate_item",
    "orphan_result",
    "bump",
    "behead",
)
REPLACEMENTS = ("null", "zero", "text", "list", "object", "true", "float", "huge", "deep")

_counter = itertools.count()

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Mutation:
    """One structural change, chosen abstractly (`pick` indexes the checkpoint's paths)
    so that Hypothesis can draw and shrink it before the runtime's checkpoint exists."""

    kind: str
    pick: int = 0
    replacement: str = "null"

    def apply(self, good: Any) -> tuple[Any, str] | None:
        """The mutated copy and what was done, or None when it does not apply here."""
        data = roundtrip(good)
        if self.kind == "orphan_result":
            return _orphan(data)
        if self.kind == "behead":
            return _behead(data)
        if self.kind == "bump":
            if not isinstance(data, dict):
                return None
            bumped = [k for k, v in data.items() if _is_number(v)]
            for key in bumped:
                data[key] = data[key] + 1_000_000
            return (data, f"bumped {bumped} (an unknown version)") if bumped else None
        paths = [p for p in _paths(data) if p]
        if self.kind in ("remove_item", "duplicate_item"):
            paths = [p for p in paths if isinstance(p[-1], int)]
        elif self.kind == "drop_key":
            paths = [p for p in paths if isinstance(p[-1], str)]
        if not paths:
            return None
        path = paths[self.pick % len(paths)]
        parent = _at(data, path[:-1])
        last = path[-1]
        if self.kind == "swap_type":
            value = _replacement(self.replacement)
            if type(value) is type(parent[last]):
                return None
            parent[last] = value
            return data, f"set {_dotted(path)} to {self.replacement}"
        if self.kind == "duplicate_item":
            parent.insert(last, roundtrip(parent[last]))
            return data, f"duplicated {_dotted(path)}"
        del parent[last]
        return data, f"removed {_dotted(path)}"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _replacement(name: str) -> Any:
    deep: Any = "bottom"
    for _ in range(60):
        deep = [deep]
    return {
        "null": None,
        "zero": 0,
        "text": "x",
        "list": [],
        "object": {},
        "true": True,
        "float": 1.5,
        "huge": 10**400,  # valid JSON, beyond every double and I-JSON
        "deep": deep,
    }[name]


def _paths(value: Any, prefix: Path = ()) -> list[Path]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*prefix, index))
    return found


def _at(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


def _dotted(path: Path) -> str:
    return ".".join(str(part) for part in path) or "(document)"


def _orphan(data: Any) -> tuple[Any, str] | None:
    """Remove the first list item that names the tool call: in any format that keeps
    calls and results apart, that is the call, and its result is left without it."""
    for path in _paths(data):
        if path and isinstance(path[-1], int) and CALL_ID in json.dumps(_at(data, path)):
            del _at(data, path[:-1])[path[-1]]
            return data, f"removed {_dotted(path)}, the item naming call {CALL_ID!r}"
    return None


def _behead(data: Any) -> tuple[Any, str] | None:
    """Remove the first item of the list that holds the tool call: in any format that
    keeps a conversation as a list, what opened it (the user's message) is gone, and it
    now opens with what came after (Messages refuses a conversation that does not open
    with a user turn)."""
    for path in _paths(data):
        if path and isinstance(path[-1], int) and CALL_ID in json.dumps(_at(data, path)):
            if path[-1] == 0:
                return None  # the call opens its list: removing it is orphan_result
            del _at(data, path[:-1])[0]
            return data, f"removed {_dotted((*path[:-1], 0))}, the first item before the call"
    return None


def mentions(request: RequestIR, *needles: str) -> bool:
    """Does any message of `request` say one of `needles`? This example's requests are
    told apart by what they say, wherever the mutation left it."""
    return any(n in m.text for m in request.messages for n in needles)


MUTATIONS = st.builds(
    Mutation,
    kind=st.sampled_from(KINDS),
    pick=st.integers(min_value=0, max_value=10_000),
    replacement=st.sampled_from(REPLACEMENTS),
)


async def judge(
    fake: ScriptedProvider, door: str, send: Any, mutation: Mutation, good: Any
) -> None:
    """Hand the mutated checkpoint through `door` (`send(it)`) and judge what happened."""
    applied = mutation.apply(good)
    if applied is None:
        return  # this runtime's checkpoint has nothing this mutation could change
    await judge_broken(fake, door, send, *applied)


async def judge_broken(
    fake: ScriptedProvider, door: str, send: Any, broken: Any, what: str
) -> None:
    """Hand `broken` (`what` was done to it) through `door`: refused before anything was
    sent, or accepted and nothing broken sent; never an untyped error."""
    broken = roundtrip(broken)  # what a store gives back: JSON text, parsed
    sent = len(fake.wire.requests)
    found = len([f for f in fake.findings if f.kind in ("invariant", "malformed")])
    refused: Refused | None = None
    try:
        await send(broken)
    except Refused as refusal:
        refused = refusal
    except RunFailed:
        pass  # a typed failure: judged below on what it sent
    except Exception as error:
        if not untyped(error):
            raise
        raise AssertionError(
            f"{door} with a broken checkpoint ({what}) raised an untyped error "
            f"({type(error).__name__}: {error}): refuse it as invalid_checkpoint"
        ) from error
    if refused is not None:
        assert len(fake.wire.requests) == sent, (
            f"{door} with a broken checkpoint ({what}) was refused as {refused.kind.value} "
            "only after sending it to the model: refuse before anything is sent"
        )
        return
    broke = [f for f in fake.findings if f.kind in ("invariant", "malformed")][found:]
    assert not broke, (
        f"{door} accepted a broken checkpoint ({what}) and sent the model a broken "
        f"conversation: {broke[0].message}. Refuse it as "
        f"{RefusalKind.INVALID_CHECKPOINT.value} before anything is sent"
    )


@pytest.mark.law("failure.malformed-checkpoint-refused")
@given(mutation=MUTATIONS)
@settings(report_multiple_bugs=False)
@example(mutation=Mutation("orphan_result"))
@example(mutation=Mutation("bump"))
@example(mutation=Mutation("swap_type", pick=0, replacement="text"))
@example(mutation=Mutation("swap_type", pick=0, replacement="true"))
@example(mutation=Mutation("behead"))
async def test_a_broken_checkpoint_handed_to_continue_from_never_reaches_the_model_broken(
    fake: ScriptedProvider, new_agent: AgentFactory, mutation: Mutation
) -> None:
    number = next(_counter)
    opening = f"Book me a table, reference {number}."
    message = f"{THREE} Reference {number}."
    fake.script(
        [
            ToolCalls(calls=[Call(name="echo", arguments={"text": "table"}, id=CALL_ID)]),
            text("Booked."),
            text("Three it is."),
            text("Three it is."),  # spare: an accepted mutation may cost a call more
        ],
        name=f"continue_from {mutation}",
        when=lambda request: mentions(request, opening, message),
        allow_unused=True,
    )
    recorder = await new_agent(tools=("echo",))
    good = roundtrip((await recorder.run(opening)).checkpoint)
    continuer: AgentUnderTest = await new_agent(tools=("echo",))

    async def send(broken: Any) -> RunOutcome:
        return await continuer.run(message, continue_from=broken)

    await judge(fake, "run(continue_from=)", send, mutation, good)


@pytest.mark.law("failure.malformed-checkpoint-refused")
@given(mutation=MUTATIONS)
@settings(report_multiple_bugs=False)
@example(mutation=Mutation("orphan_result"))
@example(mutation=Mutation("bump"))
async def test_a_broken_paused_checkpoint_handed_to_resume_never_reaches_the_model_broken(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    mutation: Mutation,
) -> None:
    if not declares(implementation, Capability.PAUSE):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}resuming a broken checkpoint needs pause")
    number = next(_counter)
    opening = f"Refund order 7, reference {number}."
    decision = f"yes, reference {number}"
    fake.script(
        [
            ToolCalls(calls=[Call(name="echo", arguments={"text": "order 7"}, id=CALL_ID)]),
            ToolCalls(
                calls=[Call(name="ask_person", arguments={"question": "Refund?"}, id=ASK_ID)]
            ),
            text("Refunded."),
            text("Refunded."),  # spare: an accepted mutation may cost a call more
        ],
        name=f"resume {mutation}",
        when=lambda request: mentions(request, opening, decision),
        allow_unused=True,
    )
    recorder = await new_agent(tools=("echo", "ask_person"))
    paused = await recorder.run(opening)
    good = roundtrip(paused.checkpoint)
    resumer = await new_agent(tools=("echo", "ask_person"))

    async def send(broken: Any) -> RunOutcome:
        return await resumer.resume(broken, decision)

    await judge(fake, "resume", send, mutation, good)


# --- numbers off by one ------------------------------------------------------------------

SUMMARY = "Summary: a table for two on Friday was booked."


def renumberings(good: Any) -> list[tuple[Any, str]]:
    """`good` with each of its integers set, in turn, to the length of each of its lists
    and to -1: the index one past the end, the count one too many, the way a damaged or
    hand-edited store gets a number wrong. A format's numbers are its own, so every one
    is tried against every length the document holds."""
    data = roundtrip(good)
    paths = [p for p in _paths(data) if p]
    lengths = sorted({len(_at(data, p)) for p in paths if isinstance(_at(data, p), list)} | {-1})
    found: list[tuple[Any, str]] = []
    for path in paths:
        value = _at(data, path)
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        for length in lengths:
            if length != value:
                changed = roundtrip(data)
                _at(changed, path[:-1])[path[-1]] = length
                found.append((changed, f"set {_dotted(path)} from {value} to {length}"))
    return found


def last_user(request: RequestIR) -> str:
    return (request.user_texts() or [""])[-1]


@pytest.mark.law("failure.malformed-checkpoint-refused")
@pytest.mark.parametrize("conversation", ["one-turn", "compacted"])
async def test_a_checkpoint_with_a_number_off_by_one_never_reaches_the_model_broken(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    conversation: str,
) -> None:
    compacted = conversation == "compacted"
    if compacted:
        honoured = declaration_of(implementation).compaction_triggers
        if not declares(implementation, Capability.COMPACTION) or "turns" not in honoured:
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}a compacted checkpoint needs compaction by turns")
        if not declares(implementation, Capability.FOLLOW_UP):
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}a compacted checkpoint needs follow_up")
    number = next(_counter)
    opening = f"Book me a table, reference {number}."
    second = f"For two, reference {number}."
    message = f"{THREE} Reference {number}."
    ours = (opening, second, message)
    fake.script(
        [text("Booked."), text("For two it is.")],
        name="recorded",
        when=lambda r: last_user(r) in ours[:2],
        allow_unused=True,
    )
    fake.script(
        [text(SUMMARY)], name="summary", when=lambda r: last_user(r) not in ours, allow_unused=True
    )
    recorder = await new_agent(
        compaction=CompactionSpec(trigger_turns=1, keep_recent_turns=1) if compacted else None
    )
    await recorder.run(opening)
    if compacted:
        await recorder.follow_up(second)
    # whether it folded is compaction.folded-travels' to judge: its checkpoint is tried
    good = roundtrip(await recorder.checkpoint())
    attempts = renumberings(good)
    fake.script(
        [text("Three it is.")] * (len(attempts) + 1),
        name="continued",
        when=lambda r: last_user(r) == message,
        allow_unused=True,
    )
    for broken, what in attempts:
        continuer = await new_agent()

        async def send(it: Any, continuer: AgentUnderTest = continuer) -> RunOutcome:
            return await continuer.run(message, continue_from=it)

        await judge_broken(fake, "run(continue_from=)", send, broken, what)
