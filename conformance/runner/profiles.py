"""The Hypothesis profiles a conformance run is chosen with (`--hypothesis-profile`).

`ci` is derandomized so a CI run is reproducible; `dev` tries more; `thorough` is for
hunting. They differ only in how many examples they try and whether the seed is
fixed: a law must mean the same under every profile.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis.errors import InvalidArgument

EXAMPLES = {"ci": 8, "dev": 30, "thorough": 300}
"""Examples per property law, by profile."""


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
