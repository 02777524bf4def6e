"""How protocol v1 grows without changing what an old adapter is judged on.

The rule (docs/adapter-protocol.md, "How v1 grows"): an adapter ignores fields it does
not know; the suite never sends a field added after v1's first release while the field
holds its default, so an adapter written before the field sees exactly the messages it
was written for; and it sends such a field with another value only to an adapter that
opened the field's gate, a declaration that came with the field (the `whole` delivery
for `stream`, the `chars` trigger for `trigger_chars`) or, for an op's parameter, the
revision of v1 that added it (a `cmd:` adapter's `revision`; an in-process adapter's
method that takes the parameter). A law that needs a field an adapter has not opened is
NOT_APPLICABLE for that adapter, and says so: the adapter cannot be told what the law
would judge.

`ADDED_FIELDS` is the record; a test holds every model that crosses the protocol to the
first release's fields plus this record, so a new field cannot be sent to old adapters
unnoticed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from pydantic import BaseModel

from ._declaration import declaration_of
from ._types import AgentSpec, CompactionSpec, Delivery

FIRST_REVISION = 1
"""v1 as first released: what an adapter that declares no `revision` was written for."""

REVISION = 2
"""The revision of protocol v1 this suite speaks. Revision 2 added `AgentSpec.stream`
(with the `deliveries` declaration), `CompactionSpec.trigger_chars` (with
`compaction_triggers`), `resume`'s `session_id`, and the `start` reply's optional
declarations."""


def _declares_whole(implementation: Any) -> bool:
    return Delivery.WHOLE in declaration_of(implementation).deliveries


def _declares_chars(implementation: Any) -> bool:
    return "chars" in declaration_of(implementation).compaction_triggers


def revision_of(implementation: Any) -> int:
    """The revision of v1 an implementation declares it was written for (a `cmd:`
    adapter's `start` reply; an in-process one is read by its methods instead)."""
    revision = declaration_of(implementation).revision
    return FIRST_REVISION if revision is None else revision


@dataclass(frozen=True)
class AddedField:
    """A field added to v1 after its first release: `owner`'s `name`, in `revision`. The
    owner is a model (`AgentSpec`) or, for an op's parameter, the op's stdio name
    (`"resume"`). `opened` says whether an implementation's declarations let the suite
    send it a value other than the default; `gate` names that declaration in words."""

    owner: type[BaseModel] | str
    name: str
    revision: int
    gate: str
    opened: Callable[[Any], bool]

    @property
    def where(self) -> str:
        owner = self.owner if isinstance(self.owner, str) else self.owner.__name__
        return f"{owner}.{self.name}"


def _from_revision(revision: int) -> Callable[[Any], bool]:
    return lambda implementation: revision_of(implementation) >= revision


ADDED_FIELDS: tuple[AddedField, ...] = (
    AddedField(AgentSpec, "stream", 2, "the whole delivery (`deliveries`)", _declares_whole),
    AddedField(
        CompactionSpec,
        "trigger_chars",
        2,
        "the chars compaction trigger (`compaction_triggers`)",
        _declares_chars,
    ),
    AddedField("resume", "session_id", 2, "protocol v1 revision 2 (`revision`)", _from_revision(2)),
)
"""Every field added to v1 after its first release. A field added from now on is listed
here, with the declaration that comes with it (a test fails until it is)."""

_ADDED: dict[tuple[type[BaseModel] | str, str], AddedField] = {
    (added.owner, added.name): added for added in ADDED_FIELDS
}


def added_field(model: type[BaseModel], name: str, op: str | None = None) -> AddedField | None:
    """`name` of `model` (or of op `op`'s parameters), if it was added after v1's first
    release. A request model names its op in its `op` field."""
    for cls in model.__mro__:
        found = _ADDED.get((cls, name))
        if found is not None:
            return found
    if op is None:
        field = model.model_fields.get("op")
        op = field.default if field is not None and isinstance(field.default, str) else None
    return _ADDED.get((op, name)) if op is not None else None


def _at_default(model: BaseModel, name: str) -> bool:
    info = type(model).model_fields[name]
    return bool(getattr(model, name) == info.get_default(call_default_factory=True))


def wire_data(message: BaseModel) -> dict[str, Any]:
    """`message` as JSON data for the wire: every added field that holds its default is
    left out, at any depth, so an adapter written before it never sees it."""
    data = message.model_dump(mode="json")
    _prune(message, data)
    return data


def _prune(model: BaseModel, data: dict[str, Any]) -> None:
    for name in type(model).model_fields:
        if name not in data:
            continue
        if added_field(type(model), name) is not None and _at_default(model, name):
            del data[name]
            continue
        inner = getattr(model, name)
        if isinstance(inner, BaseModel) and isinstance(data[name], dict):
            _prune(inner, data[name])


def _set_fields(model: BaseModel) -> Iterator[AddedField]:
    """The added fields `model` sets to something else than their default, at any depth."""
    for name in type(model).model_fields:
        added = added_field(type(model), name)
        if added is not None and not _at_default(model, name):
            yield added
        inner = getattr(model, name)
        if isinstance(inner, BaseModel):
            yield from _set_fields(inner)


def closed_fields(message: BaseModel, implementation: Any) -> list[AddedField]:
    """The added fields `message` sets that `implementation` has not opened."""
    return [added for added in _set_fields(message) if not added.opened(implementation)]


def not_applicable_for(closed: list[AddedField], who: str) -> NoReturn:
    """End the law test NOT_APPLICABLE: the adapter cannot be told what it needs."""
    import pytest

    from ..verdicts._outcomes import NOT_APPLICABLE_PREFIX  # the module: no import cycle

    named = ", ".join(f"{added.where} (opened by {added.gate})" for added in closed)
    pytest.skip(
        f"{NOT_APPLICABLE_PREFIX}this test sets {named}, added to the adapter protocol "
        f"after {who} was written: the adapter cannot be told it (adapter-protocol.md, "
        "How v1 grows)"
    )


def unopened_parameters(
    op: str, method: Callable[..., Any], kwargs: Mapping[str, Any]
) -> list[AddedField]:
    """The added parameters of op `op` a call sets (to anything but None) that an
    in-process adapter's `method` cannot take: it was written before them."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return []
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return []
    return [
        added
        for name, value in kwargs.items()
        if value is not None
        and name not in parameters
        and (added := _ADDED.get((op, name))) is not None
    ]
