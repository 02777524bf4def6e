"""What a run runs, and what it calls it: the laws a law test checks (its `law` markers)
and those `--law` selects, the dialects and deliveries every law runs in, and a law
test's id as every artifact of the run writes it:
`conformance/laws/test_run.py::test_x[openai-chat-stream]`, wherever the suite is
installed.

pytest names a test by its file's path relative to the run's rootdir. The suite is run
from the user's project with `--pyargs conformance.laws`, so its files are usually
outside the rootdir, in a virtualenv's `site-packages`: pytest then writes
`../.venv/lib/python3.11/site-packages/conformance/laws/test_run.py::...` (or, in newer
pytest, drops the path and writes `::test_x[...]`, which no longer says which module).
Neither belongs in a record, a report or a repro file: they depend on one machine's
layout, and the second is ambiguous. The runner keeps pytest's own ids (xdist, the
terminal's progress and `--lf` key on them) and writes this one.

Every law runs once per dialect and once per delivery, the way a reply can reach the
runtime. Streamed and whole replies are separate code paths in every SDK and runtime (a
runtime that assembles deltas wrongly, or whose non-streaming branch never ran, breaks
laws the other path keeps), so, like dialects, each delivery the implementation offers
is a parametrization of every law test. A delivery asked for by name that the
implementation does not offer is NOT_APPLICABLE, shown, never silently dropped.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
from collections.abc import Collection, Sequence
from functools import cache
from pathlib import Path

import pytest

from ..adapter import Delivery, Implementation, declaration_of
from ..wire.ir import Dialect

SUITE_PREFIX = "conformance/laws/"

_TAIL = re.compile(r"(?:^|.*/)(conformance/laws/test_[A-Za-z0-9_]+\.py(?:::.*)?)$", re.DOTALL)


@cache
def _laws_folder() -> Path | None:
    """Where the installed law test modules are (None: the suite's laws are not found)."""
    spec = importlib.util.find_spec("conformance.laws")
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(places[0]).resolve() if places else None


def suite_test_id(item: pytest.Item) -> str:
    """`item`'s id as the run's artifacts write it: for a law test module of the suite,
    its path inside the package (`conformance/laws/...`) and pytest's names and
    parameters; any other test keeps pytest's id."""
    folder = _laws_folder()
    path = getattr(item, "path", None)
    if folder is None or path is None:
        return normalized(item.nodeid)
    try:
        inside = Path(path).resolve().relative_to(folder)
    except ValueError:
        return item.nodeid
    nodeid = item.nodeid
    names = nodeid[nodeid.index("::") :] if "::" in nodeid else ""
    return f"{SUITE_PREFIX}{inside.as_posix()}{names}"


def normalized(nodeid: str) -> str:
    """A node id seen without its item (an xdist controller's): one whose path ends in a
    law module of the suite loses what precedes `conformance/laws/`; any other is kept."""
    found = _TAIL.match(nodeid)
    return found.group(1) if found else nodeid


def offered_deliveries(implementation: Implementation) -> frozenset[Delivery]:
    """What the implementation declares it honours of `AgentSpec.stream`."""
    return declaration_of(implementation).deliveries


def asked_deliveries(option: str) -> frozenset[Delivery] | None:
    """`--deliveries`: None for `all` (every delivery the implementation offers), else
    the deliveries it names (a UsageError for a name that is none, or for naming nothing)."""
    if option.strip() == "all":
        return None
    names = [name.strip() for name in option.split(",") if name.strip()]
    known = ", ".join(d.value for d in Delivery)
    if not names:
        raise pytest.UsageError(f"--deliveries {option!r} names no delivery; known: all, {known}")
    unknown = [name for name in names if name not in {d.value for d in Delivery}]
    if unknown:
        raise pytest.UsageError(
            f"--deliveries: unknown delivery {unknown[0]!r}; known: all, {known}"
        )
    return frozenset(Delivery(name) for name in names)


def deliveries_to_run(
    implementation: Implementation, wanted: frozenset[Delivery] | None
) -> list[Delivery]:
    """The deliveries every law is parametrized over: all it offers, or those asked for
    (offered or not: an unoffered one is then NOT_APPLICABLE, see `not_offered`)."""
    offered = offered_deliveries(implementation)
    return [d for d in Delivery if (d in offered if wanted is None else d in wanted)]


def not_offered(implementation: Implementation, delivery: Delivery) -> str | None:
    """Why a test in `delivery` is NOT_APPLICABLE, in words, or None when it runs."""
    if delivery in offered_deliveries(implementation):
        return None
    words = {Delivery.STREAM: "streamed replies", Delivery.WHOLE: "whole (non-streamed) replies"}
    return f"the implementation does not offer {words[delivery]} (delivery {delivery.value!r})"


def law_ids(item: pytest.Item) -> list[str]:
    """The law ids an item's `law` markers name, in marker order."""
    return [str(law_id) for marker in item.iter_markers("law") for law_id in marker.args]


def asked_dialects(option: str) -> frozenset[Dialect] | None:
    """`--dialects`: None for `all`, else the dialects it names (a UsageError for a name
    that is none, or for naming nothing)."""
    if option.strip() == "all":
        return None
    names = [name.strip() for name in option.split(",") if name.strip()]
    known = ", ".join(d.value for d in Dialect)
    if not names:
        raise pytest.UsageError(f"--dialects {option!r} names no dialect; known: all, {known}")
    unknown = [name for name in names if name not in {d.value for d in Dialect}]
    if unknown:
        raise pytest.UsageError(f"--dialects: unknown dialect {unknown[0]!r}; known: all, {known}")
    return frozenset(Dialect(name) for name in names)


def dialects_to_run(
    implementation: Implementation, wanted: frozenset[Dialect] | None
) -> list[Dialect]:
    """The dialects every law runs in: those asked for that the implementation offers.
    None is a UsageError: a run with no dialect would judge no law."""
    offered = declaration_of(implementation).dialects
    chosen = [d for d in Dialect if d in offered and (wanted is None or d in wanted)]
    if not chosen:
        has = ", ".join(d.value for d in Dialect if d in offered) or "no dialect at all"
        asked = "all" if wanted is None else ", ".join(d.value for d in Dialect if d in wanted)
        raise pytest.UsageError(
            f"--impl {implementation.name!r} offers none of the dialects asked for "
            f"(--dialects {asked}); it offers {has}"
        )
    return chosen


def asked_laws(asked: Sequence[str], known: Collection[str]) -> tuple[str, ...]:
    """`--law` values, each an exact law id or a family prefix ending in `.`
    (`hosting.`), checked against the registry's ids: one that names no law is a
    UsageError naming the closest known ids (a typo must not run nothing, green)."""
    families = {law_id[: i + 1] for law_id in known for i, c in enumerate(law_id) if c == "."}
    for value in asked:
        if value in known or (value.endswith(".") and value in families):
            continue
        closest = difflib.get_close_matches(value, [*known, *sorted(families)], n=3, cutoff=0.5)
        hint = f"; closest: {', '.join(closest)}" if closest else ""
        raise pytest.UsageError(
            f"--law {value!r} names no law: give a law id (run.no-history) or a family "
            f"prefix ending in '.' (hosting.), as docs/laws.md lists them{hint}"
        )
    return tuple(asked)


def law_selected(laws: Sequence[str], asked: Sequence[str]) -> bool:
    """Does a test checking `laws` check one `--law` asked for?"""
    return any(
        law_id == value or (value.endswith(".") and law_id.startswith(value))
        for law_id in laws
        for value in asked
    )


def select_laws(config: pytest.Config, items: list[pytest.Item], known: Collection[str]) -> None:
    """`--law`: deselect every collected test that checks none of the laws asked for."""
    asked = asked_laws(config.getoption("--law", default=None) or (), known)
    if not asked:
        return
    kept = [item for item in items if law_selected(law_ids(item), asked)]
    dropped = [item for item in items if not law_selected(law_ids(item), asked)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


__all__ = [
    "SUITE_PREFIX",
    "asked_deliveries",
    "asked_dialects",
    "asked_laws",
    "deliveries_to_run",
    "dialects_to_run",
    "law_ids",
    "law_selected",
    "normalized",
    "not_offered",
    "offered_deliveries",
    "select_laws",
    "suite_test_id",
]
