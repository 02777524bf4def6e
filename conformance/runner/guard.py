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
from collections.abc import Awaitable
from typing import Any, Literal, Protocol, TypeVar, cast, runtime_checkable

from ..adapter import (
    AGENT,
    AgentSpec,
    AgentUnderTest,
    Capability,
    Implementation,
    Op,
    unserializable,
)
from ..errors import AdapterContractError, AdapterTimeout, DeclaredButMissing

T = TypeVar("T")


@runtime_checkable
class OwnsCallDeadline(Protocol):
    """An implementation that enforces each call's deadline itself (the same
    `--call-timeout` times `--timeout-multiplier`) and cleans up after a miss: the
    guard then sets no deadline of its own."""

    owns_call_deadline: Literal[True]


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
    """An `AgentUnderTest` that enforces deadlines and the protocol's return types.

    Its methods are derived from the op table (conformance.adapter.AGENT): each awaits
    the adapter's own method under the deadline, then checks what came back against the
    op's result type (`Op.result_problem`)."""

    def __init__(
        self, inner: AgentUnderTest, timeout: float | None, declared: frozenset[str]
    ) -> None:
        self._inner = inner
        self._timeout = timeout
        self._declared = declared

    async def call(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        method = getattr(self._inner, op.name)
        value = await within_deadline(
            op.name, method(*args, **kwargs), self._timeout, self._declared
        )
        problem = op.result_problem(value)
        if problem is not None:
            raise AdapterContractError(*problem)
        return None if op.returns is None else value  # close: its result is ignored


AGENT.derive_methods(GuardedAgent, "call")


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
            AGENT.create.name, self.inner.create_agent(spec), self.timeout, declared
        )
        if not isinstance(agent, AgentUnderTest):
            missing = [op.name for op in AGENT.instance_ops() if not hasattr(agent, op.name)]
            raise AdapterContractError(
                "create_agent()",
                f"returned a {type(agent).__qualname__}, which lacks the AgentUnderTest "
                f"methods {', '.join(missing) or '(none by name; not a Protocol match)'}: "
                "every method is required, even for a capability it does not declare (raise "
                "NotImplementedError there; the law needing it is NOT_APPLICABLE)",
            )
        # its methods come from the op table, which a test holds to the Protocol
        return cast(AgentUnderTest, GuardedAgent(agent, self.timeout, declared))


__all__ = [
    "GuardedAgent",
    "GuardedImplementation",
    "OwnsCallDeadline",
    "unserializable",
    "within_deadline",
]
