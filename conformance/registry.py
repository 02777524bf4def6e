"""The law registry: `laws.toml` loaded and checked.

One data file is the single source of truth; everything else (test markers, the
report, docs/laws.md) refers to laws by their stable id.
"""

from __future__ import annotations

import tomllib
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
    planned: str | None = Field(default=None, description="where its tests will come from")
    retired: bool = False


class _Registry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    law: list[Law]


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
    return laws


def law(law_id: str) -> Law:
    try:
        return load_laws()[law_id]
    except KeyError:
        raise RegistryError(f"unknown law id {law_id!r}; see conformance/laws.toml") from None
