"""The agent surface's op table is the one definition: the hand-written Protocol
classes match it exactly, and every derived part (stdio requests and results, the
client, the server's dispatch, the guard) covers every op. What holds for every surface
(the refusal kinds, the protocol's requests and results, the doc's table) is checked
here over all of them; each other surface's own checks are beside its door's tests."""

from __future__ import annotations

import inspect
import re
import types
import typing
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter import (
    AGENT,
    BACKEND,
    DAMAGE_SESSION,
    HOST,
    SESSION,
    AgentUnderTest,
    Implementation,
    Op,
    RefusalKind,
)
from conformance.adapter.surface import _bare
from conformance.runner.guard import GuardedAgent
from conformance.stdio import StdioAgent
from conformance.stdio import protocol as p


def _normal(annotation: Any) -> Any:
    """`JSON | None` is JSON (Any admits None); `Annotated[T, ...]` is T."""
    annotation = _bare(annotation)
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    if union and Any in typing.get_args(annotation):
        return Any
    return annotation


def _declared_methods(protocol: type) -> list[str]:
    return [name for name, value in vars(protocol).items() if inspect.iscoroutinefunction(value)]


def _assert_signature_is_the_op(protocol: type, op: Op) -> None:
    method = getattr(protocol, op.name)
    signature = inspect.signature(method)
    hints = typing.get_type_hints(method)
    params = [p for p in signature.parameters.values() if p.name != "self"]
    assert [p.name for p in params] == list(op.fields), op.name
    for param in params:
        field = op.fields[param.name]
        if field.is_required():
            assert param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, (op.name, param)
            assert param.default is inspect.Parameter.empty, (op.name, param)
        else:
            assert param.kind is inspect.Parameter.KEYWORD_ONLY, (op.name, param)
            assert param.default == field.default, (op.name, param)
        assert _normal(hints[param.name]) == _normal(field.annotation), (op.name, param.name)
    returns = hints["return"]
    expected = type(None) if op.returns is None else op.returns
    assert _normal(returns) == _normal(expected), (op.name, returns, op.returns)


def test_the_agent_protocol_declares_exactly_the_tables_methods_in_order() -> None:
    assert _declared_methods(AgentUnderTest) == [op.name for op in AGENT.instance_ops()]
    assert AGENT.protocol is AgentUnderTest


@pytest.mark.parametrize("op", AGENT.instance_ops(), ids=lambda op: op.name)
def test_each_agent_method_has_the_tables_signature(op: Op) -> None:
    _assert_signature_is_the_op(AgentUnderTest, op)


def test_create_agent_has_the_tables_signature() -> None:
    assert _declared_methods(Implementation) == [AGENT.create.name]
    _assert_signature_is_the_op(Implementation, AGENT.create)


@pytest.mark.parametrize("client", [StdioAgent, GuardedAgent])
def test_the_derived_agents_offer_every_method(client: type) -> None:
    for op in AGENT.instance_ops():
        assert inspect.iscoroutinefunction(getattr(client, op.name)), (client, op.name)
    assert isinstance(client.__new__(client), AgentUnderTest)


SESSION_DOOR = [op.op for surface in (BACKEND, SESSION) for op in surface.ops()]


def test_the_stdio_protocol_has_a_request_and_a_result_for_every_op() -> None:
    ops = [op.op for op in AGENT.ops()]
    hosting = [*(op.op for op in HOST.ops()), DAMAGE_SESSION.op]
    assert list(p.RESULTS) == ["start", *ops, *hosting, *SESSION_DOOR, "stop"]
    assert list(p.AGENT_REQUESTS) == ops
    for op in AGENT.ops():
        model = p.AGENT_REQUESTS[op.op]
        assert list(model.model_fields) == ["op", "seq", "agent", *op.fields]
        assert model.model_fields["op"].default == op.op


def test_every_refusal_kind_is_one_some_op_may_raise() -> None:
    ops = [*AGENT.ops(), *HOST.ops(), DAMAGE_SESSION, *BACKEND.ops(), *SESSION.ops()]
    raised = {kind for op in ops for kind in op.refusals}
    assert raised == set(RefusalKind)


def test_every_op_string_is_one_ops_alone() -> None:
    """The requests are one union discriminated by `op`: no two surfaces share one."""
    ops = [*AGENT.ops(), *HOST.ops(), DAMAGE_SESSION, *BACKEND.ops(), *SESSION.ops()]
    names = [op.op for op in ops]
    assert len(names) == len(set(names)), names


def test_binding_arguments_is_pythons() -> None:
    run = AGENT.by_op["run"]
    assert run.bind(("hi",), {"session_id": "s"}) == {
        "message": "hi",
        "continue_from": None,
        "identity": None,
        "session_id": "s",
    }
    assert run.call_args(run.bind(("hi",), {})) == (
        ("hi",),
        {"continue_from": None, "identity": None, "session_id": None},
    )
    with pytest.raises(TypeError, match="unexpected keyword argument 'sesion_id'"):
        run.bind(("hi",), {"sesion_id": "s"})
    with pytest.raises(TypeError, match="missing arguments: message"):
        run.bind((), {})
    with pytest.raises(TypeError, match="positional"):
        run.bind(("hi", None), {})


def test_the_protocol_doc_lists_every_op_with_its_fields_in_order() -> None:
    """docs/adapter-protocol.md's request table is written by hand for readers; it must
    say what the table says (the ops in order, each with its request's fields)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "adapter-protocol.md").read_text()
    rows = re.findall(r"^\| `([a-z_.]+)` \| (.*?) \|", doc, flags=re.MULTILINE)
    listed = {op: re.findall(r"`([a-z_]+)`", fields) for op, fields in rows}
    hosting = [*(op.op for op in HOST.ops()), DAMAGE_SESSION.op]
    wanted = ["start", *(op.op for op in AGENT.ops()), *hosting, *SESSION_DOOR, "stop"]
    assert [op for op in listed if op in wanted] == wanted
    for surface in (AGENT, BACKEND, SESSION):
        for op in surface.ops():
            opens = [op.opens.handle] if op.opens is not None else []
            fields = [surface.handle, *opens, *op.fields]
            assert listed[op.op] == fields, f"the doc's row for {op.op} lists {listed[op.op]}"
