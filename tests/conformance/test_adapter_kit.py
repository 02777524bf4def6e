"""conformance.frameworks.kit: what every adapter does alike, here the refusal renaming
and the failed runs' causes."""

from __future__ import annotations

import httpx
import pytest

import conformance.frameworks
from conformance.adapter import RefusalKind, Refused, RunFailed
from conformance.frameworks import kit
from conformance.frameworks.kit import Refusal, refusing, reporting_failures

FOREIGN = Refusal(ValueError, RefusalKind.MISMATCH, says="not yours")
UNREADABLE = Refusal(ValueError, RefusalKind.INVALID_CHECKPOINT)


def test_the_first_matching_refusal_names_the_kind_and_keeps_the_message() -> None:
    with pytest.raises(Refused) as raised, refusing(FOREIGN, UNREADABLE):
        raise ValueError("this state is not yours")
    assert raised.value.kind is RefusalKind.MISMATCH
    assert raised.value.message == "this state is not yours"
    assert isinstance(raised.value.__cause__, ValueError)


def test_a_refusal_that_says_nothing_matches_any_message_of_its_type() -> None:
    with pytest.raises(Refused) as raised, refusing(FOREIGN, UNREADABLE):
        raise ValueError("garbled")
    assert raised.value.kind is RefusalKind.INVALID_CHECKPOINT


def test_any_other_error_propagates_as_it_was() -> None:
    with pytest.raises(KeyError), refusing(FOREIGN, UNREADABLE):
        raise KeyError("thread")
    with refusing(FOREIGN):
        pass  # nothing raised, nothing renamed


class LoopLimitError(Exception):
    """A runtime's own error: its agent loop gave up (no provider fault)."""


def _loop_limit(error: BaseException) -> bool:
    return isinstance(error, LoopLimitError)


def _framework_error() -> RuntimeError:
    """A framework's own error whose cause is the provider's."""
    wrapped = RuntimeError("the model call failed")
    wrapped.__cause__ = httpx.RemoteProtocolError("peer closed connection")
    return wrapped


def test_a_provider_error_is_a_failed_run_the_provider_caused() -> None:
    error = _framework_error()
    with pytest.raises(RunFailed) as raised, reporting_failures(lambda error: {"turns": 1}):
        raise error
    assert (raised.value.cause, raised.value.checkpoint) == ("provider", {"turns": 1})


def test_a_runtime_error_it_recognises_is_a_failed_run_the_runtime_caused() -> None:
    with pytest.raises(RunFailed) as raised, reporting_failures(runtime_failed=_loop_limit):
        raise LoopLimitError("10 tool rounds without an answer")
    assert raised.value.cause == "runtime"
    assert "10 tool rounds" in raised.value.message
    with pytest.raises(LoopLimitError), reporting_failures():
        raise LoopLimitError("unrecognised: propagates, an ERROR")


def test_the_kit_is_public_and_re_exported_by_its_package() -> None:
    assert set(kit.__all__) <= set(conformance.frameworks.__all__)
    assert conformance.frameworks.reporting_failures is reporting_failures
