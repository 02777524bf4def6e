"""How the reference's adapter names what its runtime raised: a message it cannot take
is refused as `invalid_input`, and a failed run says whether the provider or the
runtime ended it."""

from __future__ import annotations

import httpx
import pytest

from conformance.adapter import RefusalKind, Refused, RunFailed
from conformance.frameworks.kit import refusing
from reference_impl import (
    AgentRunCheckpoint,
    InvalidMessageError,
    RunFailedError,
    ToolLoopLimitError,
)
from reference_impl.conformance_adapter import _REFUSALS, failures

EMPTY = AgentRunCheckpoint()


def test_a_message_the_runtime_cannot_take_is_refused_as_invalid_input() -> None:
    with pytest.raises(Refused) as raised, refusing(*_REFUSALS):
        raise InvalidMessageError("run", "message", "expected text, got int")
    assert raised.value.kind is RefusalKind.INVALID_INPUT


def _wrapped_provider_error() -> RunFailedError:
    try:
        raise httpx.RemoteProtocolError("peer closed connection without a response")
    except httpx.HTTPError as error:
        failed = RunFailedError(error, EMPTY)
        failed.__cause__ = error
        return failed


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (_wrapped_provider_error(), "provider"),
        (RunFailedError(KeyError("the store lost a row"), EMPTY), "runtime"),
        (ToolLoopLimitError(3, EMPTY), "runtime"),
    ],
    ids=["provider-wrapped", "runtime-wrapped", "tool-loop-limit"],
)
def test_a_failed_run_names_its_cause(error: Exception, cause: str) -> None:
    with pytest.raises(RunFailed) as raised, failures():
        raise error
    assert raised.value.cause == cause
    assert raised.value.checkpoint == EMPTY.to_data()
