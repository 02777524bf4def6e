"""The law registry: `laws.toml` loaded and checked.

One data file is the single source of truth; everything else (test markers, the
report, docs/laws.md) refers to laws by their stable id.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from enum import StrEnum
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .adapter import Capability


class Level(StrEnum):
    MUST = "MUST"
    SHOULD = "SHOULD"
    MAY = "MAY"


class Law(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$")
    level: Level
    source: str
    quote: str
    requires: tuple[Capability, ...] = ()
    requires_any: tuple[Capability, ...] = Field(
        default=(),
        description="the law applies as soon as one of these is declared: a law about the "
        "safety of what the instance keeps, whichever door keeps it",
    )
    assumes: tuple[str, ...] = Field(
        default=(), description="laws this law's tests rest on: their set-up needs them to hold"
    )
    planned: str | None = Field(default=None, description="where its tests will come from")
    retired: bool = False
    notes: str = Field(
        default="",
        description="what a reader of its tests needs beyond the clause: design decisions, "
        "what a scene stands for, why a case is in the table",
    )

    def missing(self, declared: Collection[str]) -> tuple[list[str], list[str]]:
        """What keeps the law from applying to a runtime declaring `declared`: the
        `requires` it lacks, and `requires_any` whole when it declares none of them.
        Two empty lists: the law applies."""
        lacking = [c.value for c in self.requires if c.value not in declared]
        any_of = [c.value for c in self.requires_any]
        return lacking, [] if set(any_of) & set(declared) or not any_of else any_of


class CapabilityEntry(BaseModel):
    """The audit of one capability: what declaring it means, and why the seed lets a
    runtime lack it. A capability names a feature the seed makes optional (or the one
    means a law has of seeing its scene), never the safety of a door the runtime has."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Capability
    means: str = Field(min_length=1)
    optional: str = Field(min_length=1, description="why the seed allows lacking it")


class _Registry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    law: list[Law]
    capability: list[CapabilityEntry] = Field(default_factory=list)


class RegistryError(ValueError):
    """laws.toml is unusable; the message says which entry and why."""


@cache
def load_laws() -> dict[str, Law]:
    """Every law by id, in file order."""
    text = resources.files("conformance").joinpath("laws.toml").read_text(encoding="utf-8")
    try:
        registry = _Registry.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as error:
        raise RegistryError(f"conformance/laws.toml: {error}") from error
    laws: dict[str, Law] = {}
    for law in registry.law:
        if law.id in laws:
            raise RegistryError(f"conformance/laws.toml: law id {law.id!r} appears twice")
        laws[law.id] = law
    problem = assumption_problem(laws) or _capability_problem(registry.capability)
    if problem:
        raise RegistryError(f"conformance/laws.toml: {problem}")
    return laws


@cache
def load_capabilities() -> dict[Capability, CapabilityEntry]:
    """The capability audit, in file order (every Capability has exactly one entry)."""
    text = resources.files("conformance").joinpath("laws.toml").read_text(encoding="utf-8")
    registry = _Registry.model_validate(tomllib.loads(text))
    return {entry.id: entry for entry in registry.capability}


def _capability_problem(entries: list[CapabilityEntry]) -> str | None:
    seen = [entry.id for entry in entries]
    twice = sorted({c.value for c in seen if seen.count(c) > 1})
    if twice:
        return f"capabilities audited twice: {', '.join(twice)}"
    unaudited = [c.value for c in Capability if c not in seen]
    if unaudited:
        return f"capabilities without an audit entry ([[capability]]): {', '.join(unaudited)}"
    return None


SMOKE_LAW = "smoke.one-turn"
"""Every law rests on one turn working, and a failing smoke law stops the run before any
other is judged: so it is assumed by all and listed by none."""


def assumption_problem(laws: dict[str, Law]) -> str | None:
    """What is wrong with the `assumes` lists, if anything: an unknown id, a law assuming
    itself, the smoke law listed (it is everyone's premise), or a cycle (two laws that
    each rest on the other could each blame the other for one failure)."""
    for law in laws.values():
        for assumed in law.assumes:
            if assumed not in laws:
                return f"law {law.id!r} assumes unknown law {assumed!r}"
            if assumed == law.id:
                return f"law {law.id!r} assumes itself"
            if assumed == SMOKE_LAW:
                return f"law {law.id!r} lists {SMOKE_LAW!r}: every law assumes it, list none"
    state: dict[str, str] = {}

    def visit(law_id: str, path: list[str]) -> str | None:
        if state.get(law_id) == "done":
            return None
        if state.get(law_id) == "open":
            loop = [*path[path.index(law_id) :], law_id]
            return "laws assume each other in a cycle: " + " -> ".join(loop)
        state[law_id] = "open"
        for assumed in laws[law_id].assumes:
            found = visit(assumed, [*path, law_id])
            if found:
                return found
        state[law_id] = "done"
        return None

    for law_id in laws:
        found = visit(law_id, [])
        if found:
            return found
    return None


def law(law_id: str) -> Law:
    try:
        return load_laws()[law_id]
    except KeyError:
        raise RegistryError(f"unknown law id {law_id!r}; see conformance/laws.toml") from None
