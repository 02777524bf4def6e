"""How protocol v1 grows: a field added after the first release is never sent at its
default, is sent otherwise only to an adapter that opened it (else the law is
NOT_APPLICABLE), and adapters ignore fields they do not know. An adapter written against
the first release that rejects unknown fields keeps its verdicts."""

from __future__ import annotations

import io
import json
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
from conformance.adapter import (
    ADDED_FIELDS,
    AgentSpec,
    CompactionSpec,
    Delivery,
    RunOutcome,
    added_field,
)
from conformance.adapter._evolution import closed_fields, wire_data
from conformance.runner.guard import GuardedImplementation
from conformance.stdio import protocol as p
from conformance.stdio.serve import serve_async
from conformance.verdicts import Outcome, read_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

from .strict_adapter import unknown

SPEC = AgentSpec(base_url="http://127.0.0.1:1/v1", api_key="sk-x")
STRICT = f"cmd:{sys.executable} {Path(__file__).with_name('strict_adapter.py')}"

RELEASED: dict[str, set[str]] = {
    "AbandonPauseRequest": {"agent", "op", "seq"},
    "AgentCloseRequest": {"agent", "op", "seq"},
    "AgentCreateRequest": {"agent", "op", "seq", "spec"},
    "AgentSpec": {
        *("api_key", "base_url", "compaction", "dialect", "id", "memory", "model"),
        *("self_explain", "system", "tools", "window"),
    },
    "BackendCloseRequest": {"backend", "op", "seq"},
    "BackendCreateAgentRequest": {"backend", "op", "seq", "spec"},
    "BackendCreateSessionRequest": {"agent_id", "backend", "op", "options", "seq", "session"},
    "BackendKillRequest": {"backend", "op", "seq"},
    "BackendListConversationsRequest": {"agent_id", "backend", "op", "seq"},
    "BackendListMessagesRequest": {"backend", "conversation_id", "op", "seq"},
    "BackendOpenRequest": {"backend", "op", "seq", "spec"},
    "BackendResumeSessionRequest": {"backend", "id", "op", "options", "seq", "session"},
    "BackendSpec": {"api_key", "base_url", "dialect", "killable", "model", "store", "stream"},
    "CanExplainRequest": {"agent", "op", "seq"},
    "CheckpointRequest": {"agent", "op", "seq"},
    "CompactionSpec": {"keep_originals", "keep_recent_turns", "trigger_turns"},
    "DamageSessionRequest": {"op", "seq", "session_id", "store"},
    "FollowUpRequest": {"agent", "message", "op", "seq"},
    "HostKillRequest": {"host", "op", "seq"},
    "HostSpec": {
        *("agent", "agent_per_session", "on_concurrent_invoke", "principals"),
        *("session_cookie", "store"),
    },
    "HostStartRequest": {"host", "op", "seq", "spec"},
    "HostStopRequest": {"host", "op", "seq"},
    "IdentitySpec": {"conversation_id", "principal", "tenant"},
    "LastIdentityRequest": {"agent", "op", "seq"},
    "ResumeRequest": {"agent", "checkpoint", "decision", "op", "seq"},
    "RunRequest": {"agent", "continue_from", "identity", "message", "op", "seq", "session_id"},
    "SessionAbortRequest": {"op", "seq", "session"},
    "SessionAgentSpec": {"memory", "system"},
    "SessionBreakConnectionRequest": {"how", "op", "seq", "session"},
    "SessionCloseRequest": {"op", "seq", "session"},
    "SessionDecideRequest": {"allow", "op", "seq", "session", "tool_call_id"},
    "SessionIdsRequest": {"op", "seq", "session"},
    "SessionListMessagesRequest": {"op", "seq", "session"},
    "SessionOptions": {"model", "needs_approval", "tools"},
    "SessionRemoveQueuedRequest": {"item_id", "op", "seq", "session"},
    "SessionSendRequest": {"message", "op", "seq", "session"},
    "SessionStateRequest": {"op", "seq", "session"},
    "SessionStreamRequest": {"op", "seq", "session", "wait"},
    "StartRequest": {"op", "seq", "version"},
    "StopRequest": {"op", "seq"},
}
"""Each message's fields as released (v1's first release; the ops added since, as they
came). Never edit this to add a field: list the new field in ADDED_FIELDS instead, with
the declaration that opens it, so an adapter written before it is judged as before."""


def _models(tp: Any, found: dict[str, type[BaseModel]]) -> dict[str, type[BaseModel]]:
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _models(typing.get_args(tp)[0], found)
    if origin is not None:
        for arg in typing.get_args(tp):
            _models(arg, found)
    elif isinstance(tp, type) and issubclass(tp, BaseModel) and tp.__name__ not in found:
        found[tp.__name__] = tp
        for info in tp.model_fields.values():
            _models(info.annotation, found)
    return found


def sent_models() -> dict[str, type[BaseModel]]:
    """Every model a request holds, at any depth: what the suite sends an adapter."""
    found: dict[str, type[BaseModel]] = {}
    for request in typing.get_args(typing.get_args(p.Request)[0]):
        _models(request, found)
    return found


def test_every_field_the_suite_sends_was_released_or_is_listed_as_added() -> None:
    for name, model in sent_models().items():
        fields = {f for f in model.model_fields if added_field(model, f) is None}
        assert fields == RELEASED.get(name), (
            f"{name} has fields {sorted(fields - RELEASED.get(name, set()))} that v1 did not "
            "release: list each in conformance.adapter.ADDED_FIELDS with the declaration "
            "that opens it (adapter-protocol.md, How v1 grows)"
        )


def test_every_added_field_has_a_default_to_leave_out() -> None:
    for added in ADDED_FIELDS:
        owner = added.owner if isinstance(added.owner, type) else None
        model = owner or p.AGENT_REQUESTS[str(added.owner)]
        assert not model.model_fields[added.name].is_required(), added.where


def test_an_added_field_at_its_default_is_left_out_at_any_depth() -> None:
    spec = SPEC.model_copy(
        update={"compaction": CompactionSpec(trigger_turns=2, keep_recent_turns=1)}
    )
    create = p.agent_request("agent.create", seq=1, agent="a1", spec=spec)
    data = wire_data(create)
    assert "stream" not in data["spec"] and "trigger_chars" not in data["spec"]["compaction"]
    assert data["spec"]["window"] is None  # a released field is sent at its default too
    assert unknown(data) is None  # what an adapter of the first release accepts
    resume = wire_data(p.agent_request("resume", seq=2, agent="a1", checkpoint={}, decision="y"))
    assert "session_id" not in resume and unknown(resume) is None


def test_an_added_field_set_otherwise_is_sent() -> None:
    whole = SPEC.model_copy(update={"stream": False})
    data = wire_data(p.agent_request("agent.create", seq=1, agent="a1", spec=whole))
    assert data["spec"]["stream"] is False
    resume = p.agent_request(
        "resume", seq=2, agent="a1", checkpoint={}, decision="y", session_id="s1"
    )
    assert wire_data(resume)["session_id"] == "s1"


class _Declares:
    def __init__(self, **declared: Any) -> None:
        self.__dict__.update(declared)


def test_an_added_field_set_otherwise_needs_the_declaration_that_opens_it() -> None:
    whole = p.agent_request(
        "agent.create", seq=1, agent="a1", spec=SPEC.model_copy(update={"stream": False})
    )
    resume = p.agent_request(
        "resume", seq=2, agent="a1", checkpoint={}, decision="y", session_id="s1"
    )
    old = _Declares()
    assert [a.where for a in closed_fields(whole, old)] == ["AgentSpec.stream"]
    assert [a.where for a in closed_fields(resume, old)] == ["resume.session_id"]
    current = _Declares(deliveries=[Delivery.STREAM, Delivery.WHOLE], revision=2)
    assert closed_fields(whole, current) == [] and closed_fields(resume, current) == []


async def test_the_python_serve_side_ignores_fields_it_does_not_know() -> None:
    spec = {**SPEC.model_dump(mode="json"), "from_the_future": {"x": 1}}
    lines = [
        json.dumps({"op": "start", "seq": 1, "version": 1, "later": True}),
        json.dumps({"op": "agent.create", "seq": 2, "agent": "a1", "spec": spec}),
        json.dumps({"op": "run", "seq": 3, "agent": "a1", "message": "hi", "mood": "calm"}),
        p.StopRequest(seq=4).model_dump_json(),
    ]

    class _Agent:
        async def run(self, message: str, **_: Any) -> RunOutcome:
            return RunOutcome(answer=message, checkpoint={})

        async def close(self) -> None:
            return None

    class _Implementation:
        name = "lenient"
        capabilities: frozenset[Any] = frozenset()

        async def create_agent(self, spec: AgentSpec) -> _Agent:
            return _Agent()

    stdout = io.StringIO()
    info = p.ImplementationInfo(name="lenient", language="python")
    stdin = io.StringIO("\n".join(lines) + "\n")
    await serve_async(_Implementation(), info, stdin=stdin, stdout=stdout)  # type: ignore[arg-type]
    replies = [p.REPLIES.validate_json(line) for line in stdout.getvalue().splitlines()]
    assert [(r.seq, r.status) for r in replies] == [(s, "ok") for s in (1, 2, 3, 4)], replies


class _OldAgent:
    """An in-process adapter written before resume took a session id."""

    async def resume(self, checkpoint: Any, decision: str | None) -> RunOutcome:
        return RunOutcome(answer="resumed", checkpoint=checkpoint)

    async def run(self, message: str, **_: Any) -> RunOutcome:
        raise NotImplementedError

    follow_up = checkpoint = abandon_pause = can_explain = last_identity = close = run


class _OldImplementation:
    name = "old"
    capabilities: frozenset[Any] = frozenset()

    async def create_agent(self, spec: AgentSpec) -> _OldAgent:
        return _OldAgent()


async def test_an_in_process_adapter_without_a_new_parameter_is_not_asked_for_it() -> None:
    guarded = GuardedImplementation(_OldImplementation(), 5.0)  # type: ignore[arg-type]
    agent = await guarded.create_agent(SPEC)
    done = await agent.resume({"turns": 1}, "yes")  # not set: the old method takes it
    assert done.answer == "resumed"
    with pytest.raises(pytest.skip.Exception, match=r"NOT_APPLICABLE: .*resume.session_id"):
        await agent.resume({"turns": 1}, "yes", session_id="s1")


def test_a_strict_adapter_of_the_first_release_keeps_its_verdicts(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    suite = nested_suite(pytester)
    results = tmp_path / "results.jsonl"
    suite.runpytest(
        *PLUGIN_ARGS,
        "--dialects",
        "openai-chat",
        "--hypothesis-profile=ci",
        "--impl",
        STRICT,
        "--results",
        str(results),
        "--pyargs",
        # every spec (agent.create), compaction's spec, run with an identity, resume
        # with and without a session id
        "conformance.laws.test_recall",
        "conformance.laws.test_resume_door",
        "conformance.laws.test_identity",
    )
    records = read_results(results).records
    assert records
    wrong = [
        f"{r.law}: {r.outcome} {r.detail[:300]}"
        for r in records
        if r.outcome not in (Outcome.PASS, Outcome.NOT_APPLICABLE)
    ]
    assert wrong == []
    skipped = [r for r in records if r.outcome is Outcome.NOT_APPLICABLE]
    asked_for_a_new_field = [r for r in skipped if "resume.session_id" in r.detail]
    assert [r.law for r in asked_for_a_new_field] == ["identity.ladder"]
