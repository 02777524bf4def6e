"""The pytest arguments that run the conformance suite from a test, defined once.

Tests here judge the runner by running the real suite: nested in-process (pytester) or
as a child `python -m conformance run`, the way a user starts it.
"""

from __future__ import annotations

import pytest

from conformance import command
from conformance._run import PLUGIN, QUIET_LOOP_SCOPE

PLUGIN_ARGS = ["-o", QUIET_LOOP_SCOPE, "-p", PLUGIN, "-p", "no:cacheprovider"]
"""Load the suite's runner plugin, with no cache left behind and no asyncio warning."""

SUITE_COMMAND = command(profile="ci", options=["-q", "-p", "no:cacheprovider"])
"""Every law as a child process, in the profile CI uses."""

HANG_DEADLINE = "10"
"""`--call-timeout` for a nested run whose adapter hangs for good (an event that never
comes, so this deadline is what finds the hang). Every call that must answer in the same
run gets it too, the first call of a fresh `cmd:` adapter importing its SDKs among them:
seconds, never a sub-second budget, so a loaded machine cannot turn a PASS into a TIMEOUT.
Runs without a hang keep the suite's own default."""


def nested_suite(pytester: pytest.Pytester, **modules: str) -> pytest.Pytester:
    """A pytester set up to run the suite in-process: asyncio mode as the laws need it,
    and each module given (name=source, e.g. the implementations `--impl` names)
    importable from the run."""
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    if modules:
        pytester.makepyfile(**modules)
        pytester.syspathinsert()
    return pytester
