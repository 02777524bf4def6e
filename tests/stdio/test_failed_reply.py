"""A failed run crosses stdio as a `failed` reply and comes out as `RunFailed`, with the
runtime's checkpoint (or null) and the failure's cause intact; `resume` takes a null
decision."""

from __future__ import annotations

import io
from typing import Any

import pytest

from conformance.adapter import AgentSpec, RunFailed, RunFailureCause
from conformance.stdio import protocol as p
from conformance.stdio._channel import Delivered, outcome_of
from conformance.stdio._reply_line import read_reply
from conformance.stdio.protocol import FailedReply, agent_request
from conformance.stdio.serve import serve_async

CHECKPOINT = {"version": 1, "history": [{"role": "user", "text": "Hi."}]}


@pytest.mark.parametrize("validate", [True, False], ids=["validating", "lenient"])
@pytest.mark.parametrize("checkpoint", [CHECKPOINT, None], ids=["with-checkpoint", "none"])
@pytest.mark.parametrize("cause", ["provider", "runtime"])
def test_a_failed_reply_is_run_failed_with_its_checkpoint_and_cause(
    validate: bool, checkpoint: object, cause: RunFailureCause
) -> None:
    line = FailedReply(seq=4, message="500 after retries", checkpoint=checkpoint, cause=cause)
    reply = read_reply(line.model_dump_json().encode(), validate=validate)
    with pytest.raises(RunFailed) as raised:
        outcome_of("run", Delivered(reply))
    assert raised.value.checkpoint == checkpoint
    assert raised.value.message == "500 after retries"
    assert raised.value.cause == cause


@pytest.mark.parametrize("validate", [True, False], ids=["validating", "lenient"])
def test_a_failed_reply_without_a_cause_is_a_provider_failure(validate: bool) -> None:
    # an adapter written before `cause` existed is read as it always was
    line = b'{"seq": 4, "status": "failed", "message": "500", "checkpoint": null}'
    with pytest.raises(RunFailed) as raised:
        outcome_of("run", Delivered(read_reply(line, validate=validate)))
    assert raised.value.cause == "provider"


@pytest.mark.parametrize("cause", ["model", "", None])
def test_a_cause_outside_the_two_is_no_reply(cause: object) -> None:
    with pytest.raises(ValueError, match="cause"):
        FailedReply.model_validate({"seq": 1, "message": "x", "cause": cause})


def test_run_failed_is_a_provider_failure_unless_told_otherwise() -> None:
    assert RunFailed("500 after retries").cause == "provider"
    failure = RunFailed("the agent loop raised", {"turns": 1}, cause="runtime")
    assert (failure.cause, failure.checkpoint) == ("runtime", {"turns": 1})
    assert "runtime" in str(failure) and "the agent loop raised" in str(failure)


class _FailingAgent:
    async def run(self, message: str, **_: Any) -> Any:
        raise RunFailed("the runtime's own error event", {"turns": 0}, cause="runtime")

    async def close(self) -> None:
        return None


class _Failing:
    name = "failing"
    capabilities: frozenset[Any] = frozenset()

    async def create_agent(self, spec: AgentSpec) -> _FailingAgent:
        return _FailingAgent()


async def test_the_python_serve_side_writes_the_cause() -> None:
    spec = AgentSpec(base_url="http://127.0.0.1:1/v1", api_key="sk-test")
    requests = [
        p.StartRequest(seq=1),
        p.AgentCreateRequest(seq=2, agent="a1", spec=spec),
        p.RunRequest(seq=3, agent="a1", message="hi"),
        p.StopRequest(seq=4),
    ]
    stdin = io.StringIO("".join(r.model_dump_json() + "\n" for r in requests))
    stdout = io.StringIO()
    info = p.ImplementationInfo(name="failing", language="python")
    await serve_async(_Failing(), info, stdin=stdin, stdout=stdout)  # type: ignore[arg-type]
    replies = {r.seq: r for r in map(p.REPLIES.validate_json, stdout.getvalue().splitlines())}
    assert replies[3] == FailedReply(
        seq=3, message="the runtime's own error event", checkpoint={"turns": 0}, cause="runtime"
    )


def test_resume_takes_no_decision() -> None:
    request = agent_request("resume", seq=1, agent="a1", checkpoint=CHECKPOINT, decision=None)
    assert '"decision":null' in request.model_dump_json()
