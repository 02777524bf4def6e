"""The session door's op tables are the one definition: the hand-written Protocols
match them, every derived part (stdio requests and results, the clients, the guard,
the fixture's backend) covers every op, and the deadlines are the table's."""

from __future__ import annotations

import inspect
import math

import pytest

from conformance.adapter import (
    BACKEND,
    SESSION,
    BackendUnderTest,
    Capability,
    Op,
    RefusalKind,
    SessionImplementation,
    SessionUnderTest,
    session_call_deadline,
)
from conformance.runner.fixtures import BackendHandle
from conformance.runner.guard import GuardedBackend, GuardedImplementation, GuardedSession
from conformance.stdio import StdioBackend, StdioImplementation, StdioSession
from conformance.stdio import protocol as p
from tests.stdio.test_op_table import _assert_signature_is_the_op, _declared_methods


@pytest.mark.parametrize(
    ("protocol", "surface"), [(BackendUnderTest, BACKEND), (SessionUnderTest, SESSION)]
)
def test_each_protocol_declares_exactly_its_tables_methods_in_order(
    protocol: type, surface: object
) -> None:
    assert _declared_methods(protocol) == [op.name for op in surface.instance_ops()]  # type: ignore[attr-defined]
    assert surface.protocol is protocol  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("protocol", "op"),
    [
        *((BackendUnderTest, op) for op in BACKEND.instance_ops()),
        *((SessionUnderTest, op) for op in SESSION.instance_ops()),
    ],
    ids=lambda value: getattr(value, "op", None) or getattr(value, "__name__", ""),
)
def test_each_method_has_the_tables_signature(protocol: type, op: Op) -> None:
    _assert_signature_is_the_op(protocol, op)


def test_the_session_implementation_has_the_tables_door() -> None:
    assert _declared_methods(SessionImplementation) == [BACKEND.create.name]
    _assert_signature_is_the_op(SessionImplementation, BACKEND.create)


def test_sessions_are_opened_only_by_the_backends_two_openers() -> None:
    assert SESSION.create is None
    assert [op.name for op in BACKEND.methods if op.opens is SESSION] == [
        "create_session",
        "resume_session",
    ]
    assert all(op.opens is None for op in [*SESSION.ops(), BACKEND.create, BACKEND.close])


def test_the_refusals_and_capabilities_are_the_contracts() -> None:
    """docs/sessions.md: session ops may be refused as session_unusable (and a send as
    invalid_input), a resume (and a conversation read) as unknown_id; each op needs the
    capability the contract names."""
    for op in SESSION.methods:
        invalid = {RefusalKind.INVALID_INPUT} if op.name == "send" else set()
        assert op.refusals == {RefusalKind.SESSION_UNUSABLE, *invalid}, op.name
    assert SESSION.close.refusals == frozenset()
    unknown = [op.name for op in BACKEND.ops() if RefusalKind.UNKNOWN_ID in op.refusals]
    assert unknown == ["create_session", "resume_session", "list_conversations", "list_messages"]
    needs = {op.op: op.capability for op in (*BACKEND.ops(), *SESSION.ops())}
    assert needs["session.abort"] is Capability.SESSION_ABORT
    assert needs["session.decide"] is Capability.SESSION_APPROVALS
    assert needs["session.remove_queued"] is Capability.SESSION_QUEUE_REMOVE
    assert needs["session.state"] is Capability.SESSION_STATE
    assert needs["backend.list_conversations"] is Capability.CONVERSATIONS_API
    assert needs["backend.list_messages"] is Capability.CONVERSATIONS_API
    assert needs["session.break_connection"] is None  # drop or kill: said in its doc
    door = ["backend.open", "backend.create_session", "session.send", "session.stream"]
    assert all(needs[op] is Capability.SESSIONS for op in door)


@pytest.mark.parametrize(
    ("client", "surface", "protocol"),
    [
        (StdioBackend, BACKEND, BackendUnderTest),
        (GuardedBackend, BACKEND, BackendUnderTest),
        (BackendHandle, BACKEND, BackendUnderTest),
        (StdioSession, SESSION, SessionUnderTest),
        (GuardedSession, SESSION, SessionUnderTest),
    ],
)
def test_the_derived_clients_offer_every_method(
    client: type, surface: object, protocol: type
) -> None:
    for op in surface.instance_ops():  # type: ignore[attr-defined]
        assert inspect.iscoroutinefunction(getattr(client, op.name)), (client, op.name)
    assert isinstance(client.__new__(client), protocol)


@pytest.mark.parametrize("implementation", [StdioImplementation, GuardedImplementation])
def test_the_clients_of_an_implementation_offer_the_door(implementation: type) -> None:
    assert inspect.iscoroutinefunction(getattr(implementation, BACKEND.create.name))


def test_the_stdio_protocol_has_a_request_and_a_result_for_every_op() -> None:
    assert list(p.BACKEND_REQUESTS) == [op.op for op in BACKEND.ops()]
    assert list(p.SESSION_REQUESTS) == [op.op for op in SESSION.ops()]
    for op in BACKEND.ops():
        opens = [] if op.opens is None else ["session"]
        fields = ["op", "seq", "backend", *opens, *op.fields]
        assert list(p.BACKEND_REQUESTS[op.op].model_fields) == fields
        assert op.op in p.RESULTS
    for op in SESSION.ops():
        fields = ["op", "seq", "session", *op.fields]
        assert list(p.SESSION_REQUESTS[op.op].model_fields) == fields
        assert op.op in p.RESULTS


def test_the_deadlines_are_the_tables() -> None:
    stream = SESSION.by_op["session.stream"]
    assert session_call_deadline(stream, {"wait": 5.0}, 30, 120) == 35
    assert session_call_deadline(stream, {"wait": None}, 30, 120) == 30
    slow = [
        op.op for op in (*BACKEND.ops(), *SESSION.ops()) if session_call_deadline(op, {}, 1, 9) == 9
    ]
    assert slow == [
        "backend.open",
        "backend.create_session",
        "backend.resume_session",
        "backend.kill",
        "backend.close",
    ]


def test_a_streams_wait_is_seconds_a_request_can_carry() -> None:
    request = p.REQUESTS.validate_json(
        '{"op":"session.stream","seq":1,"session":"s1","wait":2}', strict=True
    )
    assert isinstance(request, p.SessionStreamRequest) and math.isclose(request.wait, 2.0)  # type: ignore[attr-defined]
    for wrong in ('"2"', "-1", "true"):
        with pytest.raises(ValueError, match="wait"):
            p.REQUESTS.validate_json(
                f'{{"op":"session.stream","seq":1,"session":"s1","wait":{wrong}}}', strict=True
            )
