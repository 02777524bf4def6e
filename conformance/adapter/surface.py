"""An op table: one entry per call a surface of the protocol offers, and what follows.

Each `Op` says, once, the call's name, its parameters, the type it answers with, the
capability it needs and the refusals it may raise. The stdio request models, the JSON
Schema, the stdio client and server and the runner's guard are all derived from it, so
adding an op is one entry here plus each runtime's own mapping. A surface (the agent's,
the host's, the session door's backend and session) is a `Surface`: a table, the
instance it opens, and the Protocol class written for type checkers, which a test holds
to the table. An instance is opened by a method of the implementation (`create`), or by
an op of another surface's instance (`Op.opens`: the backend's `create_session` opens a
session).
"""

from __future__ import annotations

import copy
import json
import types
import typing
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from ._types import Capability, RefusalKind


@dataclass(frozen=True)
class Op:
    """One call: `name` is the Python method and, unless `stdio_op` says otherwise, the
    stdio `op`. `params` holds its parameters in order: those without a default are
    passed positionally, the rest by keyword (as the Protocol writes them). `returns` is
    the Python result type; `reply` the result as an ok reply carries it, checked as
    written under --validate-protocol (None: the reply carries nothing). `capability`
    and `refusals` document the op in the schema and the docs; the runner gates laws,
    not calls, by capability, and a refusal's kind is judged by the laws that expect it,
    so neither is enforced per call. `opens` is the surface whose instance the op
    answers with, when an instance's op opens another surface's instance (the backend's
    `create_session` opens a session): its stdio request then names the new instance's
    handle too, and every client wraps the instance as that surface's."""

    name: str
    params: type[BaseModel]
    returns: Any
    reply: Any
    capability: Capability | None = None
    refusals: frozenset[RefusalKind] = frozenset()
    doc: str = ""
    stdio_op: str = ""
    opens: Surface[Any] | None = None

    @property
    def op(self) -> str:
        """The stdio `op` string."""
        return self.stdio_op or self.name

    @property
    def fields(self) -> Mapping[str, FieldInfo]:
        return self.params.model_fields

    def positional(self) -> tuple[str, ...]:
        return tuple(n for n, f in self.fields.items() if f.is_required())

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """A call's arguments by parameter name (defaults filled in), as Python would
        bind them to the Protocol's method; TypeError as Python would raise it."""
        positional = self.positional()
        if len(args) > len(positional):
            raise TypeError(
                f"{self.name}() takes {len(positional)} positional argument"
                f"{'' if len(positional) == 1 else 's'} but {len(args)} were given"
            )
        bound = dict(zip(positional, args, strict=False))
        for key, value in kwargs.items():
            if key not in self.fields or key in bound:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {key!r}")
            bound[key] = value
        missing = [n for n in positional if n not in bound]
        if missing:
            raise TypeError(f"{self.name}() missing arguments: {', '.join(missing)}")
        for key, info in self.fields.items():
            if key not in bound:
                bound[key] = info.get_default(call_default_factory=True)
        return bound

    def handed(
        self, method: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """A call's arguments as an in-process adapter's `method` is handed them: deep
        copies. The suite hands one checkpoint to several doors (`continue_from`, then
        `resume`), so a runtime whose loader mutates the dict it is given would otherwise
        change what the next door gets, and fail a law for the adapter's aliasing; over
        stdio every request is fresh JSON. A parameter added to the protocol after
        `method` was written (it cannot take it) ends the test NOT_APPLICABLE instead of
        a TypeError (docs/adapter-protocol.md, "How v1 grows")."""
        from ._evolution import not_applicable_for, unopened_parameters

        unopened = unopened_parameters(self.op, method, kwargs)
        if unopened:
            not_applicable_for(unopened, f"the adapter's {self.name}()")
        return copy.deepcopy(args), copy.deepcopy(dict(kwargs))

    def call_args(self, values: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Parameter values -> (positional, keyword) arguments for the method."""
        positional = self.positional()
        return (
            tuple(values[n] for n in positional),
            {n: values[n] for n in self.fields if n not in positional},
        )

    def describe(self) -> str:
        """The op's documentation with what the table says of it: for the schema."""
        parts = [self.doc] if self.doc else []
        if self.capability is not None:
            parts.append(f"Needs the {self.capability.value} capability.")
        if self.refusals:
            kinds = ", ".join(sorted(kind.value for kind in self.refusals))
            parts.append(f"May be refused as: {kinds}.")
        return " ".join(parts)

    # --- the result -----------------------------------------------------------------

    def strict_results(self) -> TypeAdapter[Any]:
        """An ok reply's result, under --validate-protocol."""
        return TypeAdapter(self.reply)

    def lenient_results(self) -> TypeAdapter[Any]:
        """An ok reply's result otherwise: the Python type (unknown fields ignored); a
        reply that carries nothing is not read at all."""
        return TypeAdapter(Any if self.reply is None else self.returns)

    def result_problem(self, value: Any) -> tuple[str, str] | None:
        """Where and how an in-process adapter's return value breaks `returns`, or None.

        The check is the one the guard has always made, now read off the type: the value
        is of one of the types `returns` names (no coercion: the law sees the adapter's
        own object), a list's items are of its item type, a model holds what its fields
        say (one built without validation, `model_construct`, is checked as if it had
        been), and whatever the type leaves open (`Any`: a checkpoint, a tool call's
        arguments) can at least be written as JSON. Each problem is named by its path
        (`stream().events[0].text`). None (close) is not checked: the suite ignores it."""
        if self.returns is None:
            return None
        call = f"{self.name}()"
        members = _members(self.returns)
        if members is not None and not any(_is(value, m) for m in members):
            expected = " or ".join(_named(m) for m in members)
            return call, f"returned {_a(type(value).__qualname__)}, not {expected}"
        for member in members or ():
            if _is(value, member):
                problem = _items_problem(member, value, call) or _model_problem(value, call)
                if problem:
                    return call, problem
                break
        for where, inner in _open_parts(self.returns, value, call):
            problem = unserializable(inner, where)
            if problem:  # it names the place itself: `run().checkpoint['h'][0] ...`
                return call, problem
        return None


SurfaceCreate = TypeVar("SurfaceCreate", bound="Op | None")


@dataclass(frozen=True)
class Surface(Generic[SurfaceCreate]):
    """A table of ops on one kind of instance: `create` opens it (a method of the
    implementation, its result the instance; None for a surface whose instances only
    another surface's ops open, `Op.opens`), `methods` are the instance's calls, and
    `close` (its last method) ends it. Every request names the instance by `handle`."""

    name: str
    handle: str
    protocol: type
    create: SurfaceCreate
    methods: tuple[Op, ...]
    close: Op
    by_op: dict[str, Op] = field(init=False, repr=False, compare=False)
    """Each op by its stdio `op` string."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_op", {op.op: op for op in self.ops()})

    def ops(self) -> Iterator[Op]:
        """Every op, in the order of the protocol: create (if any), the methods, close."""
        if self.create is not None:
            yield self.create
        yield from self.methods
        yield self.close

    def instance_ops(self) -> tuple[Op, ...]:
        """The instance's methods, close included: what its Protocol class declares."""
        return (*self.methods, self.close)

    def derive_methods(self, cls: type, through: str, *, close: bool = True) -> None:
        """Give `cls` the instance's methods, each `self.<through>(op, args, kwargs)`.

        How every client of a surface (the guard, the stdio connector, the fixtures)
        gets the Protocol's methods from the table: one generic call path, and methods
        named and documented as the table says. `close=False` leaves `close` to
        a class that writes its own."""
        for op in self.instance_ops() if close else self.methods:
            setattr(cls, op.name, _method(cls.__name__, op, through))


def _method(owner: str, op: Op, through: str) -> Callable[..., Awaitable[Any]]:
    async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await getattr(self, through)(op, args, kwargs)

    call.__name__ = op.name
    call.__qualname__ = f"{owner}.{op.name}"
    call.__doc__ = op.doc
    return call


def unserializable(value: Any, path: str) -> str | None:
    """Where `value` cannot be written as JSON (the first such place, by its path), or
    None when it can."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        return f"{_first_bad(value, path) or path} is not JSON-serializable ({error})"
    return None


def _first_bad(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else path
    if isinstance(value, list | tuple):
        return next(
            (bad for i, v in enumerate(value) if (bad := _first_bad(v, f"{path}[{i}]"))), None
        )
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str | int | float | bool) and key is not None:
                return f"{path} (key {key!r})"
            if bad := _first_bad(inner, f"{path}[{key!r}]"):
                return bad
        return None
    return f"{path} (a {type(value).__module__}.{type(value).__qualname__})"


def _bare(tp: Any) -> Any:
    """`Annotated[T, ...]` -> T."""
    while get_origin(tp) is typing.Annotated:
        tp = get_args(tp)[0]
    return tp


def _members(tp: Any) -> tuple[Any, ...] | None:
    """The types a value of `tp` may be (None for `Any`: anything)."""
    tp = _bare(tp)
    if tp is Any:
        return None
    if get_origin(tp) in (Union, types.UnionType):
        return tuple(_bare(m) for m in get_args(tp))
    return (tp,)


def _is(value: Any, member: Any) -> bool:
    if member is None or member is type(None):
        return value is None
    cls = get_origin(member) or member
    return isinstance(value, cls)


def _named(member: Any) -> str:
    if member is None or member is type(None):
        return "None"
    return _a((get_origin(member) or member).__name__)


def _a(name: str) -> str:
    """`an int`, `a dict`: the messages are read by people."""
    return f"{'an' if name[:1] in tuple('AEIOUaeiou') else 'a'} {name}"


def _open_parts(tp: Any, value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """The parts of `value` its type leaves open (typed `Any`), by their path: the whole
    of it, or the `Any` fields of the models it is or holds, at any depth."""
    if _members(tp) is None:
        yield path, value
        return
    yield from _open_fields(value, path)


def _open_fields(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, BaseModel):
        for name, info in type(value).model_fields.items():
            inner = getattr(value, name, None)
            if _bare(info.annotation) is Any:
                yield f"{path}.{name}", inner
            else:
                yield from _open_fields(inner, f"{path}.{name}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _open_fields(item, f"{path}[{index}]")


def _items_problem(member: Any, value: Any, path: str) -> str | None:
    """The first item of a `list[T]` result that is no T (T a class), by its path."""
    if get_origin(member) is not list or not isinstance(value, list):
        return None
    (item_type,) = get_args(member) or (Any,)
    item_type = _bare(item_type)
    if not isinstance(item_type, type):
        return None
    for index, item in enumerate(value):
        if not isinstance(item, item_type):
            return f"{path}[{index}] is {_a(type(item).__qualname__)}, not {_named(item_type)}"
    return None


def _model_problem(value: Any, path: str) -> str | None:
    """The first field of a model (or of a list's models) that breaks its type, by its
    path: the model is dumped and validated again, so one built with `model_construct`
    (no validation) is held to its fields too."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if problem := _model_problem(item, f"{path}[{index}]"):
                return problem
        return None
    if not isinstance(value, BaseModel):
        return None
    dumped = value.model_dump(warnings=False, by_alias=True, round_trip=True)
    try:
        type(value).model_validate(dumped)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        given = repr(first.get("input"))
        given = given if len(given) <= 80 else given[:80] + "…"
        return f"{_located(path, dumped, first['loc'])}: {first['msg']} (given {given})"
    return None


def _located(path: str, data: Any, loc: tuple[int | str, ...]) -> str:
    """A validation error's location as a path into the dumped data: `[0]` for an
    index, `.name` for a field; a discriminated union's tag (which pydantic puts in the
    location, but the data does not hold) is left out."""
    for part in loc:
        if isinstance(part, int) and isinstance(data, list | tuple) and part < len(data):
            path, data = f"{path}[{part}]", data[part]
        elif isinstance(data, dict) and part in data:
            path, data = f"{path}.{part}", data[part]
        elif isinstance(data, dict) and data.get("type") == part:
            continue  # the tag of the union member the item was read as
        else:
            path, data = f"{path}.{part}", None
    return path
