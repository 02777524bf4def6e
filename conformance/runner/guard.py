"""The harness's guard around an adapter: it keeps a bad adapter from hanging the run
or smuggling garbage past the laws.

Every call gets a deadline (`--call-timeout` times `--timeout-multiplier`): a call that
misses it raises `AdapterTimeout`, reported as TIMEOUT, and the run goes on. The
deadline has one owner: the guard, unless the implementation keeps it itself
(`OwnsCallDeadline`, as a `cmd:` adapter's connector does, since only it can stop the
adapter that missed it); two owners race, and the outer one cancels the inner one's
clean-up. What comes
back is checked against the adapter protocol's types, and a checkpoint must at least be
JSON-serializable; otherwise `AdapterContractError` names the call and the field
(ERROR: the adapter is broken, the runtime was not judged). A declared capability
whose call raises `NotImplementedError` is `DeclaredButMissing`, an assertion: FAIL,
not NOT_APPLICABLE — declaring is a claim, and the law holds the runtime to it.

Whether a checkpoint is *plain* JSON data (lists, not tuples) is a law, not a contract:
that is left to the law's test to FAIL.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from ..adapter import (
    AgentSpec,
    AgentUnderTest,
    Capability,
    IdentityReport,
    Implementation,
    RunOutcome,
)

T = TypeVar("T")


@runtime_checkable
class OwnsCallDeadline(Protocol):
    """An implementation that enforces each call's deadline itself (the same
    `--call-timeout` times `--timeout-multiplier`) and cleans up after a miss: the
    guard then sets no deadline of its own."""

    owns_call_deadline: Literal[True]


class AdapterTimeout(TimeoutError):
    """An adapter call did not return within its deadline."""


class AdapterContractError(TypeError):
    """An adapter returned something the protocol does not allow, at a named field."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem} (see conformance.adapter for the protocol)")
        self.where = where
        self.problem = problem


class DeclaredButMissing(AssertionError):
    """A call the implementation's declared capabilities promise raised NotImplementedError."""


def unserializable(value: Any, path: str) -> str | None:
    """Where `value` cannot be written as JSON (the first such place, by its path), or
    None when it can."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        return f"{_first_bad(value, path) or path} is not JSON-serializable ({error})"
    return None


def _first_bad(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else path
    if isinstance(value, list | tuple):
        return next(
            (bad for i, v in enumerate(value) if (bad := _first_bad(v, f"{path}[{i}]"))), None
        )
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str | int | float | bool) and key is not None:
                return f"{path} (key {key!r})"
            if bad := _first_bad(inner, f"{path}[{key!r}]"):
                return bad
        return None
    return f"{path} (a {type(value).__module__}.{type(value).__qualname__})"


async def within_deadline(
    name: str, call: Awaitable[T], timeout: float | None, declared: frozenset[str]
) -> T:
    """Await one adapter call under its deadline (None: the implementation keeps it),
    translating the two ways it can fail that are the harness's business."""
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


class GuardedAgent:
    """An `AgentUnderTest` that enforces deadlines and the protocol's return types."""

    def __init__(
        self, inner: AgentUnderTest, timeout: float | None, declared: frozenset[str]
    ) -> None:
        self._inner = inner
        self._timeout = timeout
        self._declared = declared

    async def _call(self, name: str, call: Awaitable[T]) -> T:
        return await within_deadline(name, call, self._timeout, self._declared)

    async def _outcome(self, name: str, call: Awaitable[RunOutcome]) -> RunOutcome:
        outcome = await self._call(name, call)
        if not isinstance(outcome, RunOutcome):
            raise AdapterContractError(
                f"{name}()", f"returned a {type(outcome).__qualname__}, not a RunOutcome"
            )
        problem = unserializable(outcome.checkpoint, f"{name}().checkpoint")
        if problem:
            raise AdapterContractError(f"{name}().checkpoint", problem)
        return outcome

    async def run(self, message: str, **options: Any) -> RunOutcome:
        return await self._outcome("run", self._inner.run(message, **options))

    async def follow_up(self, message: str) -> RunOutcome:
        return await self._outcome("follow_up", self._inner.follow_up(message))

    async def resume(self, checkpoint: Any, decision: str) -> RunOutcome:
        return await self._outcome("resume", self._inner.resume(checkpoint, decision))

    async def checkpoint(self) -> Any:
        value = await self._call("checkpoint", self._inner.checkpoint())
        problem = unserializable(value, "checkpoint()")
        if problem:
            raise AdapterContractError("checkpoint()", problem)
        return value

    async def abandon_pause(self) -> dict[str, str] | None:
        dropped = await self._call("abandon_pause", self._inner.abandon_pause())
        if dropped is not None and not isinstance(dropped, dict):
            raise AdapterContractError(
                "abandon_pause()", f"returned a {type(dropped).__qualname__}, not a dict or None"
            )
        return dropped

    async def can_explain(self) -> bool:
        answer = await self._call("can_explain", self._inner.can_explain())
        if not isinstance(answer, bool):
            raise AdapterContractError(
                "can_explain()", f"returned a {type(answer).__qualname__}, not a bool"
            )
        return answer

    async def last_identity(self) -> IdentityReport | None:
        report = await self._call("last_identity", self._inner.last_identity())
        if report is not None and not isinstance(report, IdentityReport):
            raise AdapterContractError(
                "last_identity()",
                f"returned a {type(report).__qualname__}, not an IdentityReport or None",
            )
        return report

    async def close(self) -> None:
        await self._call("close", self._inner.close())


class GuardedImplementation:
    """The implementation under test, handing out guarded agents."""

    def __init__(self, inner: Implementation, timeout: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.capabilities: frozenset[Capability] = inner.capabilities
        self.timeout: float | None = None if isinstance(inner, OwnsCallDeadline) else timeout

    def __getattr__(self, name: str) -> Any:  # dialects, version, anything else it offers
        return getattr(self.inner, name)

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        declared = frozenset(str(c) for c in self.capabilities)
        agent = await within_deadline(
            "create_agent", self.inner.create_agent(spec), self.timeout, declared
        )
        if not isinstance(agent, AgentUnderTest):
            raise AdapterContractError(
                "create_agent()",
                f"returned a {type(agent).__qualname__}, which lacks the AgentUnderTest methods",
            )
        return GuardedAgent(agent, self.timeout, declared)


__all__ = [
    "AdapterContractError",
    "AdapterTimeout",
    "DeclaredButMissing",
    "GuardedAgent",
    "GuardedImplementation",
    "OwnsCallDeadline",
    "within_deadline",
]
