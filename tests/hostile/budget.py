"""How hard each hostile target is attacked, and what the attack found.

Every fuzz test here asks `fuzz_settings()` for its Hypothesis settings, so one profile
name decides the budget of all of them: `ci` (derandomized, what CI runs), `dev` (the
default off CI) and `thorough` (at least 10,000 inputs per target, for hunting):

    pytest tests/hostile --hypothesis-profile=thorough --hostile-tally tally.json

Each input's fate is counted with `judged(target, typed=...)`: accepted, refused with a
typed error (the contract), or anything else (an untyped error, which also fails the
test). The counts are printed after the run and, with `--hostile-tally FILE`, written as
JSON: the figures a closing note quotes come from there, not from memory. A target's
pytest-timeout, unless it sets its own, comes from tests/conftest.py, by profile.
"""

from __future__ import annotations

import os
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, settings

BUDGET = {"ci": 200, "dev": 500, "thorough": 10_000}
"""Generated inputs per fuzz target, by profile."""

FATES = ("accepted", "typed", "untyped", "hang", "leak", "false_green")
"""What can become of one hostile input. The last four must stay at zero."""


def profile_name() -> str:
    """The profile in force; Hypothesis' own default counts as `ci` on CI, else `dev`."""
    name = settings.get_current_profile_name()
    if name in BUDGET:
        return name
    return "ci" if os.environ.get("CI") else "dev"


def fuzz_settings(scale: float = 1.0) -> settings:
    """Settings for one fuzz target: the profile's budget (times `scale`, for targets
    whose every input costs a real subprocess or socket), derandomized except in
    `thorough`, no deadline (CI machines are noisy), no example database."""
    name = profile_name()
    TALLY.profiles.add(name)
    return settings(
        max_examples=max(1, int(BUDGET[name] * scale)),
        derandomize=name != "thorough",
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )


class Tally:
    """Counts of each fate per target, safe to add to from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.profiles: set[str] = set()  # the profiles the targets were given their budget by

    def add(self, target: str, fate: str, n: int = 1) -> None:
        if fate not in FATES:
            raise ValueError(f"unknown fate {fate!r}; one of {FATES}")
        with self._lock:
            self.counts[target][fate] += n

    def rows(self) -> list[dict[str, int | str]]:
        with self._lock:
            return [
                {"target": target, "tried": sum(c.values()), **{f: c[f] for f in FATES}}
                for target, c in sorted(self.counts.items())
            ]


TALLY = Tally()


@contextmanager
def judged(target: str, typed: tuple[type[BaseException], ...]) -> Iterator[None]:
    """Count one input against `target`: no exception is `accepted`, one of `typed` is
    `typed` (and is swallowed: refusing garbage is the contract), anything else is
    `untyped` and propagates, failing the test."""
    try:
        yield
    except typed:
        TALLY.add(target, "typed")
    except Exception:
        TALLY.add(target, "untyped")
        raise
    else:
        TALLY.add(target, "accepted")
