"""Protocol v1: every message survives a JSON round trip, the committed schema is the
models', and the Python serve side answers what it is asked, in any order."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from conformance.__main__ import _schemas
from conformance.adapter import (
    AgentSpec,
    Capability,
    IdentitySpec,
    RefusalKind,
    Refused,
    RunOutcome,
)
from conformance.stdio import protocol as p
from conformance.stdio.serve import serve_async

SPEC = AgentSpec(id="billing", base_url="http://127.0.0.1:1/v1", api_key="sk-x", tools=("echo",))
MESSAGES: list[BaseModel] = [
    p.StartRequest(seq=0),
    p.AgentCreateRequest(seq=1, agent="a1", spec=SPEC),
    p.RunRequest(
        seq=2,
        agent="a1",
        message="Book a table.",
        continue_from={"history": [{"role": "user", "text": "hi"}]},
        identity=IdentitySpec(conversation_id="c-1", tenant="acme"),
        session_id="s-1",
    ),
    p.FollowUpRequest(seq=3, agent="a1", message="Make it three."),
    p.CheckpointRequest(seq=4, agent="a1"),
    p.ResumeRequest(seq=5, agent="a1", checkpoint={"x": [1, 2]}, decision="approved"),
    p.AbandonPauseRequest(seq=6, agent="a1"),
    p.CanExplainRequest(seq=7, agent="a1"),
    p.LastIdentityRequest(seq=8, agent="a1"),
    p.AgentCloseRequest(seq=9, agent="a1"),
    p.StopRequest(seq=10),
    p.OkReply(seq=2, result={"answer": "Booked.", "paused": None, "checkpoint": {"t": 1}}),
    p.RefusedReply(seq=3, kind=RefusalKind.NO_CONVERSATION, message="nothing to follow up"),
    p.ErrorReply(seq=4, message="KeyError: 'x'", traceback="Traceback ...\nKeyError: 'x'"),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_survives_a_json_round_trip(message: BaseModel) -> None:
    line = message.model_dump_json()
    assert "\n" not in line, "one message, one line"
    parsed = (p.REPLIES if "status" in json.loads(line) else p.REQUESTS).validate_json(line)
    assert parsed == message


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"op": "run", "seq": 1, "agent": "a1"}', "message"),
        ('{"op": "launch", "seq": 1}', "does not match any of the expected tags"),
        ('{"op": "start", "seq": -1}', "greater than or equal to 0"),
        ('{"op": "start", "seq": 1, "version": 2}', "Input should be 1"),
        ('{"op": "checkpoint", "seq": 1, "agent": "a1", "extra": 1}', "Extra inputs"),
    ],
)
def test_bad_requests_are_refused_naming_the_field(line: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        p.REQUESTS.validate_json(line)


def test_results_are_checked_per_op() -> None:
    p.RESULTS["run"].validate_python({"answer": "a", "paused": None, "checkpoint": None})
    p.RESULTS["last_identity"].validate_python({"conversation_id": "c", "source": "run"})
    with pytest.raises(ValidationError):
        p.RESULTS["last_identity"].validate_python({"conversation_id": "c", "source": "guess"})
    with pytest.raises(ValidationError):
        p.RESULTS["start"].validate_python({"implementation": {"name": "x"}, "capabilities": []})


@pytest.mark.parametrize("name", ["adapter", "host-wire-profile", "repro-file"])
def test_committed_schemas_are_current(name: str) -> None:
    committed = Path(__file__).parents[2] / "schemas" / f"{name}-v1.json"
    assert json.loads(committed.read_text()) == _schemas()[name](), (
        f"schemas/{name}-v1.json is stale: "
        f"python -m conformance schema {name} > schemas/{name}-v1.json"
    )


class _Agent:
    async def run(self, message: str, **_: Any) -> RunOutcome:
        return RunOutcome(answer=message.upper(), checkpoint={"said": message})

    async def follow_up(self, message: str) -> RunOutcome:
        raise Refused(RefusalKind.NO_CONVERSATION, "no run yet")

    async def checkpoint(self) -> Any:
        raise RuntimeError("the store is down")

    async def close(self) -> None:
        return None


class _Implementation:
    name = "echoing"
    capabilities = frozenset({Capability.FOLLOW_UP})

    async def create_agent(self, spec: AgentSpec) -> _Agent:
        return _Agent()


async def test_the_python_serve_side_answers_each_request_with_its_seq() -> None:
    requests = [
        p.StartRequest(seq=1),
        p.AgentCreateRequest(seq=2, agent="a1", spec=SPEC),
        p.RunRequest(seq=3, agent="a1", message="hi"),
        p.FollowUpRequest(seq=4, agent="a1", message="more"),
        p.CheckpointRequest(seq=5, agent="a1"),
        p.RunRequest(seq=6, agent="nobody", message="hi"),
    ]
    lines = [r.model_dump_json() for r in requests] + ['{"op": "fly", "seq": 7}', "not json"]
    stdin = io.StringIO("\n".join([*lines, p.StopRequest(seq=8).model_dump_json()]) + "\n")
    stdout = io.StringIO()
    info = p.ImplementationInfo(name="echoing", language="python")
    await serve_async(_Implementation(), info, stdin=stdin, stdout=stdout)  # type: ignore[arg-type]
    replies = {r.seq: r for r in map(p.REPLIES.validate_json, stdout.getvalue().splitlines())}
    assert sorted(replies) == [1, 2, 3, 4, 5, 6, 7, 8]  # "not json" has no seq to echo
    started = p.StartResult.model_validate(replies[1].result)  # type: ignore[union-attr]
    assert started.capabilities == [Capability.FOLLOW_UP]
    assert replies[3] == p.OkReply(
        seq=3, result={"answer": "HI", "paused": None, "checkpoint": {"said": "hi"}}
    )
    assert replies[4] == p.RefusedReply(
        seq=4, kind=RefusalKind.NO_CONVERSATION, message="no run yet"
    )
    assert isinstance(replies[5], p.ErrorReply) and "the store is down" in replies[5].message
    assert "RuntimeError" in replies[5].traceback
    assert isinstance(replies[6], p.ErrorReply) and "no open agent 'nobody'" in replies[6].message
    assert (
        isinstance(replies[7], p.ErrorReply) and "not a protocol v1 request" in replies[7].message
    )


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"seq": "1", "status": "ok", "result": null}', "valid integer"),
        ('{"seq": 1.0, "status": "ok", "result": null}', "valid integer"),
        ('{"seq": true, "status": "ok", "result": null}', "valid integer"),
        ('{"seq": 9007199254740992, "status": "ok"}', "less than or equal"),
        ('{"seq": 1, "status": "refused", "kind": "run_in_flight", "message": 7}', "string"),
    ],
)
def test_reply_types_are_strict(line: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        p.REPLIES.validate_json(line)


async def test_the_python_serve_side_reads_requests_with_strict_types() -> None:
    spec = SPEC.model_dump(mode="json")
    lines = [
        json.dumps({"op": "start", "seq": "1"}),  # no usable seq: nothing to echo
        json.dumps({"op": "agent.create", "seq": 2, "agent": "a1", "spec": {**spec, "memory": 1}}),
        json.dumps({"op": "start", "seq": 3, "version": True}),
        "[" * 100_000,  # deep garbage: no RecursionError in the serve side either
        p.StopRequest(seq=4).model_dump_json(),
    ]
    stdout = io.StringIO()
    info = p.ImplementationInfo(name="echoing", language="python")
    stdin = io.StringIO("\n".join(lines) + "\n")
    await serve_async(_Implementation(), info, stdin=stdin, stdout=stdout)  # type: ignore[arg-type]
    replies = {r.seq: r for r in map(p.REPLIES.validate_json, stdout.getvalue().splitlines())}
    assert sorted(replies) == [2, 3, 4]
    assert isinstance(replies[2], p.ErrorReply) and "spec.memory" in replies[2].message
    assert isinstance(replies[3], p.ErrorReply) and "version" in replies[3].message
