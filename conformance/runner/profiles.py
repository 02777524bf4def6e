"""The Hypothesis profiles a conformance run is chosen with (`--hypothesis-profile`).

`ci` is derandomized so a CI run is reproducible; `dev` tries more; `thorough` is for
hunting. They differ in how many examples they try, whether the seed is fixed, and how
much a failing example is shrunk: a law must mean the same under every profile.

Shrinking is what makes a run against a failing runtime slow: Hypothesis replays a
failing property with real agents, hundreds of times, to make its example minimal, and
then varies it again to explain it. The everyday profiles bound that (`SHRINK_BUDGETS`,
enforced per law test by `shrinking.py`) and leave the explain phase out; `thorough`
shrinks and explains fully.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import InvalidArgument

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
