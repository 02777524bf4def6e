"""Adapters that are broken in the ways real ones break. Unlike the rogues, these break
the adapter, not the runtime: the harness must survive them and report them honestly.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from conformance.adapter import (
    AgentSpec,
    Capability,
    RefusalKind,
    Refused,
    RunFailed,
    RunOutcome,
)
from conformance.wire.ir import Dialect
from reference_impl.adapter import ReferenceAgent, ReferenceImplementation


class _Faulty(ReferenceImplementation):
    agent_type: type[ReferenceAgent] = ReferenceAgent

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        agent = await super().create_agent(spec)
        return self.agent_type(agent.agent, agent._provider)


class _HangsOnFollowUp(ReferenceAgent):
    async def follow_up(self, message: str) -> RunOutcome:
        await asyncio.Event().wait()  # never set: a deadlock in the adapter
        raise AssertionError("unreachable")


class _RaisesOnFollowUp(ReferenceAgent):
    async def follow_up(self, message: str) -> RunOutcome:
        raise RuntimeError("the adapter's follow_up mapping is broken")  # not a judgment


class _RaisesOnCheckpoint(ReferenceAgent):
    async def checkpoint(self) -> Any:
        raise KeyError("history")  # a bug in the adapter's own mapping


class _GarbageCheckpoint(ReferenceAgent):
    async def checkpoint(self) -> Any:
        data = await super().checkpoint()
        data["history"][0]["text"] = object()  # a live object where JSON belongs
        return data


class _NoPause(ReferenceAgent):
    async def resume(self, checkpoint: Any, decision: str) -> RunOutcome:
        raise NotImplementedError("resume")

    async def abandon_pause(self) -> dict[str, str] | None:
        raise NotImplementedError("abandon_pause")


class _NoAbandon(ReferenceAgent):
    """Declares pause, and its resume works; only the abandon door is missing."""

    async def abandon_pause(self) -> dict[str, str] | None:
        raise NotImplementedError("abandon_pause")


class _RefusesFollowUp(ReferenceAgent):
    """Finds nothing to follow up on, ever: a runtime that never keeps its conversation."""

    async def follow_up(self, message: str) -> RunOutcome:
        raise Refused(RefusalKind.NO_CONVERSATION, "this agent keeps no conversation")


class _FollowUpRunFails(ReferenceAgent):
    """Every follow-up ends in a failed run, although the fake answered it."""

    async def follow_up(self, message: str) -> RunOutcome:
        await super().follow_up(message)
        raise RunFailed("the stream ended in an error event", checkpoint=None)


class _SilentSuccess(ReferenceAgent):
    async def run(self, message: str, **options: Any) -> RunOutcome:
        return RunOutcome(answer="Booked.", checkpoint={"history": []})


HALF_WAY_RUN = 10
"""The run `stalls_half_way` stops at: well past the smoke law's, so laws were judged."""


class _StallsHalfWay(ReferenceAgent):
    """The reference, until the run's HALF_WAY_RUN-th `run()`: that one touches the file
    named by $TURNLAW_HALF_WAY and never returns (nor does any later one), so a test can
    kill the run when it is half way, whatever the machine's speed: the file is the
    signal, and the stall keeps the run from finishing before the kill lands."""

    runs = 0

    async def run(self, message: str, **options: Any) -> RunOutcome:
        _StallsHalfWay.runs += 1
        if _StallsHalfWay.runs >= HALF_WAY_RUN:
            Path(os.environ["TURNLAW_HALF_WAY"]).touch()
            await asyncio.Event().wait()  # never set
        return await super().run(message, **options)


class _SpeaksChatForEveryDialect(_Faulty):
    """Declares Responses, then builds every agent on Chat Completions (a wrong switch)."""

    def provider_for(self, spec: AgentSpec) -> Any:
        return super().provider_for(spec.model_copy(update={"dialect": Dialect.OPENAI_CHAT}))


def _faulty(name: str, agent_type: type[ReferenceAgent], **extra: Any) -> _Faulty:
    implementation = _Faulty(name=name)
    implementation.agent_type = agent_type
    for key, value in extra.items():
        setattr(implementation, key, value)
    return implementation


hangs = _faulty("hangs on follow_up", _HangsOnFollowUp)
raises = _faulty("raises in checkpoint", _RaisesOnCheckpoint)
raises_on_follow_up = _faulty("raises in follow_up", _RaisesOnFollowUp)
chat_only = _faulty(
    "chat completions only", ReferenceAgent, dialects=frozenset({Dialect.OPENAI_CHAT})
)
declares_follow_up_only = _faulty(
    "declares follow_up only",
    ReferenceAgent,
    capabilities=frozenset({Capability.FOLLOW_UP}),
    dialects=frozenset({Dialect.OPENAI_CHAT}),
)
garbage_checkpoint = _faulty("garbage checkpoint", _GarbageCheckpoint)
declares_pause_it_lacks = _faulty("declares pause it lacks", _NoPause)
abandon_missing = _faulty("declares pause, has no abandon_pause", _NoAbandon)
refuses_follow_up = _faulty("refuses every follow-up", _RefusesFollowUp)
follow_up_run_fails = _faulty("every follow-up ends in a failed run", _FollowUpRunFails)
silent_success = _faulty("claims success, sends nothing", _SilentSuccess)
stalls_half_way = _faulty("stalls half way", _StallsHalfWay)
chat_for_every_dialect = _SpeaksChatForEveryDialect(name="speaks chat for every dialect")
unnamed_trace_tool = _faulty("self-explain without a named trace tool", ReferenceAgent)
unnamed_trace_tool.trace_tool = None  # type: ignore[assignment]
assert Capability.PAUSE in declares_pause_it_lacks.capabilities


class _DiesClosingItsFirstAgent(ReferenceAgent):
    """Ends its whole process the first time one of its agents is closed in a run (a
    segfault in a native extension, a runtime's own `os._exit`): under xdist that is a
    worker dying in a test's teardown, after its call had passed. The run's marker file
    ($TURNLAW_DIE_ONCE) keeps it to once, so the replacement worker goes on."""

    async def close(self) -> None:
        marker = os.environ.get("TURNLAW_DIE_ONCE")
        if marker:
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os._exit(3)
        await super().close()


dies_closing_its_first_agent = _faulty("dies closing its first agent", _DiesClosingItsFirstAgent)
