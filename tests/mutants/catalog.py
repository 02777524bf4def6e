"""The mutant catalog: `mutants.toml` read into `Mutant`s, and what keeps it sound.

A mutant is a snippet replacement, not a line diff, so it keeps applying while
reference_impl/ changes around it; `catalog_problems` is what notices when an edit
moved the snippet away (it no longer occurs exactly once) or two mutants became one.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from conformance.registry import load_laws

ROOT = Path(__file__).resolve().parents[2]
CATALOG = Path(__file__).with_name("mutants.toml")

AGENT_DOORS = frozenset(
    {"run", "follow_up", "run(continue_from=)", "resume", "abandon_pause", "checkpoint()"}
)
"""Seed 000's doors, plus the adapter's checkpoint()."""
SESSION_DOORS = frozenset(
    {
        "send",
        "stream",
        "abort",
        "decide",
        "remove_queued",
        "list_messages",
        "resume_session",
        "break_connection",
    }
)
"""Seed 003's session surface (the suite's `SessionUnderTest` and `BackendUnderTest`)."""
HOSTING_DOORS = frozenset(
    {
        "POST /invoke",
        "POST /invoke (decision)",
        "POST /invoke (stream)",
        "GET /sessions/{id}",
        "restart",
    }
)
"""Seed 000's served wire, as the suite's `HostClient` reaches it: a message, a decision,
either as a stream, reading a stored session back, and a host killed and started again on
its store (`restart`: what survives it is what was persisted)."""
DOORS = AGENT_DOORS | SESSION_DOORS | HOSTING_DOORS
"""The doors a wrong behaviour can show through."""
LAWS_PACKAGE = "conformance.laws"

GAP_CLASSES: dict[str, str] = {
    "resume-door": "the resume door: what a resumed turn sends, counts and remembers",
    "one-hop": "one hop / one round: laws script one tool round, one call per batch",
    "combination": "combinations of identity, session, memory and door no law crosses",
    "live-references": "no live references: nothing edits what a door handed out",
    "streaming": "streaming vs non-streaming: the adapter always streams",
    "odd-input": "empty or odd messages, checkpoints and answers at the refusals",
    "unit-only": "scenarios tests/reference_impl checks but no law does",
    "translation": "a dialect's translation no law looks at (error flags, text beside calls)",
    "failure-path": "failure paths: no law makes a run fail (the fake's Fault and StreamError"
    " steps are not in conformance/laws/_kit.py)",
    "unchecked": "a detail neither a law nor tests/reference_impl reads",
    "protocol": "the adapter protocol cannot express it (no door, or no failing store)",
}
"""The classes a survivor's gap falls into (issue 13 §3 names most of them)."""

Impl = Literal["in-process", "stdio"]


@dataclass(frozen=True, slots=True)
class Mutant:
    """One behaviour of reference_impl changed by replacing one snippet of one file."""

    id: str
    file: str
    old: str
    new: str
    family: str
    door: str
    behaviour: str
    equivalent: str | None = None
    """Why no request or outcome can differ; None for a mutant that should be killed."""
    gap: str | None = None
    """For a mutant the suite lets survive: `<class>: why no law sees it`."""
    outside_seed: str | None = None
    """Why what this mutant does is something the seeds do not forbid (requests can
    differ, but no quoted statement says they must not): a miswritten mutant, kept and
    run so a law that starts to forbid it is noticed, but out of the rate."""
    near_rogue: str | None = None
    """`<rogue id>: how this mutant differs`, for one close to a shipped rogue (none may
    copy one: a mutant measures what the rogues do not already show)."""
    impl: Impl = "in-process"
    dialects: str = "openai-chat"
    """The dialects its suite run uses: one, as for the rogues, for a change to runtime
    logic (which no dialect's wire format sees differently); the mutated provider's own
    dialect for a change to a translation."""
    modules: tuple[str, ...] = ()
    """The law modules its suite run is narrowed to, by name or glob (`test_sessions_*`):
    every module whose tests can reach the mutated code, so nothing that could kill it is
    left out (a mutant of `reference_impl/sessions/` can only be reached through the
    session door, whose laws are the `test_sessions_*` modules). Empty: the whole suite."""

    @property
    def targets(self) -> tuple[str, ...]:
        """What its suite run collects (`pytest --pyargs` arguments)."""
        if not self.modules:
            return (LAWS_PACKAGE,)
        return tuple(f"{LAWS_PACKAGE}.{module}" for module in law_modules(self.modules))

    @property
    def module(self) -> str:
        """The dotted module the mutated file is (`reference_impl.providers.openai_chat`)."""
        return self.file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")

    @property
    def counted(self) -> bool:
        """Whether it belongs in the kill rate: it does something the seeds forbid."""
        return self.equivalent is None and self.outside_seed is None

    @property
    def gap_class(self) -> str | None:
        return None if self.gap is None else self.gap.split(":", 1)[0].strip()

    def mutated_source(self, root: Path = ROOT) -> str:
        """The file's text with the snippet replaced; ValueError unless it occurs once."""
        source = (root / self.file).read_text(encoding="utf-8")
        count = source.count(self.old)
        if count != 1:
            raise ValueError(f"{self.id}: `old` occurs {count} times in {self.file}, not once")
        return source.replace(self.old, self.new)


def _mutant(entry: dict[str, Any]) -> Mutant:
    known = set(Mutant.__dataclass_fields__)
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ValueError(f"mutant {entry.get('id')!r}: unknown fields {unknown}")
    if "modules" in entry:  # a TOML array: kept as a tuple, so a Mutant stays hashable
        entry = {**entry, "modules": tuple(entry["modules"])}
    return Mutant(**entry)


def load_mutants(path: Path = CATALOG) -> list[Mutant]:
    """Every mutant in the catalog, in its order."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return [_mutant(entry) for entry in data.get("mutant", [])]


SESSION_SEED = "003_"
"""The seed of the session model: its laws are broken by the session rogues of the kill
run (tests/rogues/session_*_rogues.py), not by mutants of the agent library."""


def law_families(*, sessions: bool = True) -> set[str]:
    """The families of the registry's laws: the part of a law id before the dot (without
    `sessions`, only the families of seed 000's laws)."""
    return {
        law_id.split(".", 1)[0]
        for law_id, law in load_laws().items()
        if sessions or not law.source.startswith(SESSION_SEED)
    }


def rogue_ids() -> set[str]:
    """The shipped rogues' ids (tests/rogues/gallery.py)."""
    from tests.rogues.gallery import ROGUES  # the gallery builds runtimes: load it lazily

    return {rogue.id for rogue in ROGUES}


def law_modules(patterns: Sequence[str], root: Path = ROOT) -> list[str]:
    """The law modules (`test_*.py` of conformance/laws/) the names or globs match, sorted."""
    folder = root.joinpath(*LAWS_PACKAGE.split("."))
    found = {path.stem for pattern in patterns for path in folder.glob(f"{pattern}.py")}
    return sorted(name for name in found if name.startswith("test_"))


def catalog_problems(mutants: list[Mutant], root: Path = ROOT) -> list[str]:
    """Everything that makes the catalog unsound, in words (empty: sound)."""
    found: list[str] = []
    families = law_families()
    seen: set[str] = set()
    sources: dict[tuple[str, str], str] = {}
    for mutant in mutants:
        where = f"{mutant.id}:"
        if mutant.id in seen:
            found.append(f"{where} the id is used twice")
        seen.add(mutant.id)
        if not (root / mutant.file).is_file():
            found.append(f"{where} {mutant.file} does not exist")
            continue
        if mutant.old == mutant.new:
            found.append(f"{where} `new` is `old`")
        if mutant.family not in families:
            found.append(f"{where} family {mutant.family!r} is no law family")
        if mutant.door not in DOORS:
            found.append(f"{where} door {mutant.door!r} is none of {sorted(DOORS)}")
        if mutant.gap is not None and mutant.gap_class not in GAP_CLASSES:
            found.append(f"{where} gap class {mutant.gap_class!r} is none of {list(GAP_CLASSES)}")
        if mutant.gap is not None and mutant.equivalent is not None:
            found.append(f"{where} an equivalent mutant is no gap")
        if mutant.outside_seed is not None and (mutant.gap or mutant.equivalent):
            found.append(f"{where} a mutant outside the seed is neither a gap nor equivalent")
        missing = [m for m in mutant.modules if not law_modules([m])]
        if missing:
            found.append(f"{where} modules {missing} match no law module of {LAWS_PACKAGE}")
        if mutant.near_rogue is not None:
            rogue = mutant.near_rogue.split(":", 1)[0].strip()
            if rogue not in rogue_ids():
                found.append(f"{where} near_rogue names {rogue!r}, which is no rogue")
        try:
            source = mutant.mutated_source(root)
        except ValueError as error:
            found.append(str(error))
            continue
        twin = sources.setdefault((mutant.file, source), mutant.id)
        if twin != mutant.id:
            found.append(f"{where} produces the same source as {twin}")
    return found
