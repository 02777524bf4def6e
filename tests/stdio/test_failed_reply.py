"""A failed run crosses stdio as a `failed` reply and comes out as `RunFailed`, with the
runtime's checkpoint (or null) intact; `resume` takes a null decision."""

from __future__ import annotations

import pytest

from conformance.adapter import RunFailed
from conformance.stdio._channel import Delivered, outcome_of
from conformance.stdio._reply_line import read_reply
from conformance.stdio.protocol import FailedReply, agent_request

CHECKPOINT = {"version": 1, "history": [{"role": "user", "text": "Hi."}]}


@pytest.mark.parametrize("validate", [True, False], ids=["validating", "lenient"])
@pytest.mark.parametrize("checkpoint", [CHECKPOINT, None], ids=["with-checkpoint", "none"])
def test_a_failed_reply_is_run_failed_with_its_checkpoint(
    validate: bool, checkpoint: object
) -> None:
    line = FailedReply(seq=4, message="500 after retries", checkpoint=checkpoint)
    reply = read_reply(line.model_dump_json().encode(), validate=validate)
    with pytest.raises(RunFailed) as raised:
        outcome_of("run", Delivered(reply))
    assert raised.value.checkpoint == checkpoint
    assert raised.value.message == "500 after retries"


def test_resume_takes_no_decision() -> None:
    request = agent_request("resume", seq=1, agent="a1", checkpoint=CHECKPOINT, decision=None)
    assert '"decision":null' in request.model_dump_json()
