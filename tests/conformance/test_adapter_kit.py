"""conformance.adapters._kit: what every adapter does alike, here the refusal renaming."""

from __future__ import annotations

import pytest

from conformance.adapter import RefusalKind, Refused
from conformance.adapters._kit import Refusal, refusing

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
