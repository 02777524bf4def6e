"""The guard's reports, word for word: verdict details are compared across runs, so the
checks derived from the op table must say exactly what the hand-written ones said."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conformance.adapter import AgentSpec, Capability, IdentityReport, RunOutcome
from conformance.errors import (
    AdapterContractError,
    AdapterFailure,
    AdapterTimeout,
    DeclaredButMissing,
)
from conformance.runner.guard import GuardedImplementation

SPEC = AgentSpec(base_url="http://127.0.0.1:1/v1", api_key="sk-x")


class _Agent:
    def __init__(self, returns: Any) -> None:
        self.returns = returns

    async def _give(self) -> Any:
        if isinstance(self.returns, BaseException):
            raise self.returns
        if self.returns == "hang":
            await asyncio.sleep(10)
        return self.returns

    async def run(self, message: str, **_: Any) -> Any:
        return await self._give()

    async def follow_up(self, message: str) -> Any:
        return await self._give()

    async def checkpoint(self) -> Any:
        return await self._give()

    async def resume(self, checkpoint: Any, decision: str) -> Any:
        return await self._give()

    async def abandon_pause(self) -> Any:
        return await self._give()

    async def can_explain(self) -> Any:
        return await self._give()

    async def last_identity(self) -> Any:
        return await self._give()

    async def close(self) -> Any:
        return await self._give()


class _Implementation:
    name = "guarded"
    capabilities = frozenset({Capability.PAUSE})

    def __init__(self, returns: Any) -> None:
        self.returns = returns

    async def create_agent(self, spec: AgentSpec) -> Any:
        return self.returns if self.returns == "not an agent" else _Agent(self.returns)


async def _call(returns: Any, method: str, *args: Any) -> Any:
    agent = await GuardedImplementation(_Implementation(returns), 0.05).create_agent(SPEC)
    return await getattr(agent, method)(*args)


BAD = object()
CASES = [
    ("run", ("hi",), {"a": 1}, "run(): returned a dict, not a RunOutcome"),
    ("follow_up", ("hi",), None, "follow_up(): returned a NoneType, not a RunOutcome"),
    (
        "resume",
        ({}, "yes"),
        RunOutcome(checkpoint={"h": [BAD]}),
        "resume(): resume().checkpoint['h'][0] (a builtins.object) is not "
        "JSON-serializable (Object of type object is not JSON serializable)",
    ),
    (
        "checkpoint",
        (),
        {"x": float("nan")},
        "checkpoint(): checkpoint()['x'] is not JSON-serializable (Out of range float "
        "values are not JSON compliant)",
    ),
    ("abandon_pause", (), ["q"], "abandon_pause(): returned a list, not a dict or None"),
    ("can_explain", (), 1, "can_explain(): returned an int, not a bool"),
    (
        "last_identity",
        (),
        {"conversation_id": "c"},
        "last_identity(): returned a dict, not an IdentityReport or None",
    ),
]


@pytest.mark.parametrize(("method", "args", "returns", "said"), CASES, ids=[c[0] for c in CASES])
async def test_a_wrong_return_is_a_contract_error_saying_what_it_always_said(
    method: str, args: tuple[Any, ...], returns: Any, said: str
) -> None:
    with pytest.raises(AdapterContractError) as raised:
        await _call(returns, method, *args)
    assert str(raised.value) == f"{said} (see conformance.adapter for the protocol)"
    assert isinstance(raised.value, TypeError | AdapterFailure)


@pytest.mark.parametrize(
    ("method", "returns"),
    [
        ("run", RunOutcome(answer="a")),
        ("abandon_pause", {"tool_name": 1}),  # the guard checks the type, not the items
        ("abandon_pause", None),
        ("can_explain", False),
        ("last_identity", IdentityReport(conversation_id="c", source="run")),
    ],
)
async def test_a_right_return_is_handed_back_as_it_is(method: str, returns: Any) -> None:
    args = ("hi",) if method == "run" else ()
    assert await _call(returns, method, *args) is returns


async def test_what_close_returns_is_ignored() -> None:
    assert await _call("anything", "close") is None


async def test_a_missed_deadline_is_the_one_adapter_timeout() -> None:
    with pytest.raises(AdapterTimeout) as raised:
        await _call("hang", "checkpoint")
    assert str(raised.value) == (
        "Timeout: the adapter's checkpoint() did not return within 0.05 s "
        "(raise --call-timeout or --timeout-multiplier if the runtime is just slow)"
    )
    assert isinstance(raised.value, TimeoutError)


async def test_a_declared_call_that_is_missing_is_an_assertion() -> None:
    with pytest.raises(DeclaredButMissing) as raised:
        await _call(NotImplementedError(), "resume", {}, "yes")
    assert str(raised.value) == (
        "resume() raised NotImplementedError, but the implementation declares ['pause']: "
        "a declared capability must work, or be left out (then its laws are NOT_APPLICABLE)"
    )
    assert isinstance(raised.value, AssertionError)


async def test_create_agent_must_return_an_agent() -> None:
    with pytest.raises(AdapterContractError, match="lacks the AgentUnderTest methods") as raised:
        await GuardedImplementation(_Implementation("not an agent"), 0.05).create_agent(SPEC)
    # the message names what is missing, so the author knows what to write
    assert "methods run, follow_up, checkpoint, resume" in str(raised.value)
