"""The Hypothesis profiles a conformance run is chosen with (`--hypothesis-profile`).

`ci` is derandomized so a CI run is reproducible; `dev` tries more; `thorough` is for
hunting. They differ in how many examples they try, whether the seed is fixed, and how
much a failing example is shrunk: a law must mean the same under every profile.

Shrinking is what makes a run against a failing runtime slow: Hypothesis replays a
failing property with real agents, hundreds of times, to make its example minimal, and
then varies it again to explain it. The minimal example helps a person read a new
failure; it changes no verdict. So the everyday profiles bound it (`SHRINK_BUDGETS`,
enforced per law test here, a plugin the runner loads) and leave the explain phase
out; `thorough` shrinks and explains fully:

- in the `ci` and `dev` profiles a failing law test may make `SHRINK_BUDGETS[profile]`
  successful shrinks, and shrink for at most `SHRINK_SECONDS` (times
  --timeout-multiplier); `thorough` shrinks fully;
- a test whose every law the manifest expects to FAIL is not shrunk at all: its failure
  is known, and its example is no news (a known failure writes no repro file either);
- `--shrink-budget N` sets the budget for the run (0: stop at the first failing example),
  `--shrink-budget full` shrinks and explains as Hypothesis does by default, whatever the
  profile, known failures included (the run loads a copy of its profile with every
  phase on: the everyday profiles leave the explain phase out).

The failing example Hypothesis reports, shrunk as far as the budget went, is a real one:
its blob goes into the repro file, and `python -m conformance replay` plays exactly it.

Hypothesis has no setting for a shrink budget (its `phases` only turn shrinking on or
off); it bounds shrinking with two module-level limits of its engine, `MAX_SHRINKS` and
`MAX_SHRINKING_SECONDS`, which it documents as the ones users may monkeypatch. They are
set for the duration of a law test's call and put back after it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import hypothesis.internal.conjecture.engine as engine
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import InvalidArgument

from ..verdicts import Outcome
from ._run_state import COLLECTOR
from .selection import law_ids

EXAMPLES = {"ci": 8, "dev": 30, "thorough": 300}
"""Examples per property law, by profile."""

SHRINK_BUDGETS: dict[str, int | None] = {"ci": 20, "dev": 20, "thorough": None}
"""Successful shrinks a failing law test may make, by profile (None: as many as
Hypothesis likes). Twenty keep the model-based test's five-door bug shrunk to its three
steps; more buy little."""

SHRINK_SECONDS = 60.0
"""However a shrink is going, a failing law test stops shrinking after this long (times
--timeout-multiplier): a bound for the runtime whose every example takes seconds."""

_BOUNDED_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
"""Every phase but explain: varying a shrunk example to say which parts matter replays
it again with real agents, and changes no verdict."""


def register_profiles() -> None:
    """Register the three profiles with Hypothesis (idempotent)."""
    for name, examples in EXAMPLES.items():
        settings.register_profile(
            name,
            derandomize=name == "ci",
            max_examples=examples,
            deadline=None,
            # The law fixtures are function-scoped on purpose: each example gets a
            # fresh fake, whose log is the evidence.
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
            print_blob=True,  # the shrunk example's blob goes into the repro file
            phases=_BOUNDED_PHASES if SHRINK_BUDGETS[name] is not None else tuple(Phase),
        )


def profile_problem(name: str) -> str | None:
    """Why `name` cannot be loaded as a Hypothesis profile here (None: it can): a run
    loads only the suite's profiles and Hypothesis' own."""
    register_profiles()
    try:
        settings.get_profile(name)
    except InvalidArgument:
        return (
            f"{name!r} is not a Hypothesis profile the suite knows "
            f"(its profiles: {', '.join(EXAMPLES)}; and Hypothesis' own 'default')"
        )
    return None


FULL = "full"

LIMITS = ("MAX_SHRINKS", "MAX_SHRINKING_SECONDS")
"""The engine's limits this module sets; a Hypothesis without them is not bounded."""

FULL_SUFFIX = "+full-shrink"
"""The name of the copy of a profile `--shrink-budget full` runs under."""

_BUDGET = pytest.StashKey["int | str | None"]()

_PROFILE_BEFORE = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("turnlaw", "turnlaw conformance suite")
    group.addoption(
        "--shrink-budget",
        default=None,
        help="successful shrinks a failing law test may make (0: none), or 'full'; default: "
        f"the profile's ({', '.join(f'{p} {b or FULL}' for p, b in SHRINK_BUDGETS.items())}; "
        "a law the manifest expects to FAIL is not shrunk unless 'full')",
    )


@pytest.hookimpl(trylast=True)  # after Hypothesis' plugin and the runner chose the profile
def pytest_configure(config: pytest.Config) -> None:
    budget = config.stash[_BUDGET] = asked_budget(config.getoption("--shrink-budget"))
    current = settings.get_current_profile_name()
    if budget == FULL and set(settings.get_profile(current).phases) != set(Phase):
        config.stash[_PROFILE_BEFORE] = current
        settings.register_profile(
            f"{current}{FULL_SUFFIX}", parent=settings.get_profile(current), phases=tuple(Phase)
        )
        settings.load_profile(f"{current}{FULL_SUFFIX}")


def pytest_unconfigure(config: pytest.Config) -> None:
    before = config.stash.get(_PROFILE_BEFORE, None)
    if before is not None:  # an in-process nested run must not leave its profile behind
        settings.load_profile(before)


def asked_budget(option: str | None) -> int | str | None:
    """`--shrink-budget`: None when not given, FULL, or a number of shrinks."""
    if option is None or option == FULL:
        return option
    try:
        budget = int(option)
    except ValueError:
        budget = -1
    if budget < 0:
        raise pytest.UsageError(
            f"--shrink-budget {option!r}: a number of shrinks (0 or more) or {FULL!r}"
        )
    return budget


def shrink_budget(item: pytest.Item) -> int | None:
    """The successful shrinks `item` may make if it fails (None: no bound)."""
    asked = item.config.stash.get(_BUDGET, None)
    if asked == FULL:
        return None
    profile = settings.get_current_profile_name().removesuffix(FULL_SUFFIX)
    profile_budget = SHRINK_BUDGETS.get(profile)
    budget = asked if isinstance(asked, int) else profile_budget
    if asked is None and profile_budget is None:
        return None  # a profile that shrinks fully (thorough, or one of the user's own)
    collector = item.config.stash.get(COLLECTOR, None)
    laws = law_ids(item)
    if collector is not None and laws and all(_known_failure(collector, law) for law in laws):
        return 0
    return budget


def _known_failure(collector: Any, law_id: str) -> bool:
    entry = collector.expected.get(law_id)
    return entry is not None and entry.outcome is Outcome.FAIL


@contextlib.contextmanager
def bounded_shrinking(budget: int | None, seconds: float) -> Iterator[None]:
    """Hypothesis' engine limits set to `budget` shrinks and `seconds`, then put back."""
    if budget is None or not all(hasattr(engine, name) for name in LIMITS):
        yield
        return
    kept = {name: getattr(engine, name) for name in LIMITS}
    engine.MAX_SHRINKS = min(budget, kept["MAX_SHRINKS"])
    engine.MAX_SHRINKING_SECONDS = min(seconds, kept["MAX_SHRINKING_SECONDS"])
    try:
        yield
    finally:
        for name, value in kept.items():
            setattr(engine, name, value)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    if not law_ids(item):
        return (yield)
    seconds = SHRINK_SECONDS * float(item.config.getoption("--timeout-multiplier", 1.0))
    with bounded_shrinking(shrink_budget(item), seconds):
        return (yield)


__all__ = ["FULL", "asked_budget", "bounded_shrinking", "shrink_budget"]
