"""The host surface's op table is the one definition: the hand-written Protocols match
it, and every derived part (stdio requests and results, the clients, the guard) covers
every op."""

from __future__ import annotations

import inspect

import pytest

from conformance.adapter import DAMAGE_SESSION, HOST, HostingImplementation, HostUnderTest, Op
from conformance.runner.guard import GuardedHost, GuardedImplementation
from conformance.stdio import StdioImplementation
from conformance.stdio import protocol as p
from conformance.stdio._host import StdioHost
from tests.stdio.test_op_table import _assert_signature_is_the_op, _declared_methods


def test_the_host_protocol_declares_exactly_the_tables_methods_in_order() -> None:
    assert _declared_methods(HostUnderTest) == [op.name for op in HOST.instance_ops()]
    assert HOST.protocol is HostUnderTest
    assert isinstance(inspect.getattr_static(HostUnderTest, "base_url"), property)


@pytest.mark.parametrize("op", HOST.instance_ops(), ids=lambda op: op.name)
def test_each_host_method_has_the_tables_signature(op: Op) -> None:
    _assert_signature_is_the_op(HostUnderTest, op)


def test_the_hosting_implementation_has_the_tables_door() -> None:
    assert _declared_methods(HostingImplementation) == [HOST.create.name, DAMAGE_SESSION.name]
    _assert_signature_is_the_op(HostingImplementation, HOST.create)
    _assert_signature_is_the_op(HostingImplementation, DAMAGE_SESSION)


@pytest.mark.parametrize("client", [StdioHost, GuardedHost])
def test_the_derived_hosts_offer_every_method(client: type) -> None:
    for op in HOST.instance_ops():
        assert inspect.iscoroutinefunction(getattr(client, op.name)), (client, op.name)


@pytest.mark.parametrize("implementation", [StdioImplementation, GuardedImplementation])
def test_the_clients_of_an_implementation_offer_the_door(implementation: type) -> None:
    for op in (HOST.create, DAMAGE_SESSION):
        assert inspect.iscoroutinefunction(getattr(implementation, op.name)), op.name


def test_the_stdio_protocol_has_a_request_and_a_result_for_every_host_op() -> None:
    assert list(p.HOST_REQUESTS) == [op.op for op in HOST.ops()]
    for op in HOST.ops():
        assert list(p.HOST_REQUESTS[op.op].model_fields) == ["op", "seq", "host", *op.fields]
        assert op.op in p.RESULTS
    fields = list(p.DamageSessionRequest.model_fields)
    assert fields == ["op", "seq", *DAMAGE_SESSION.fields]
    assert DAMAGE_SESSION.op in p.RESULTS
