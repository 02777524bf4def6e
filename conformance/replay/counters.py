"""A law test module's own counters, read before a failing test and set back before its
replay, so a deterministic runtime replays onto the same wire.

Law tests number what must stay apart (`itertools.count()` at module level: the
"Reference <n>" of each whose-conversation example, `turnlaw-stateful-<n>` model names).
In the recorded run the counter had moved through every test before the failing one;
a replay runs that test alone, so without its starting value every number differs and
the wire comparison says "differs" of a runtime that did nothing different. Only a
module-level `itertools.count` with step 1 is a counter here, and a replay only ever
resets a name that already holds one, so a repro file cannot make replay set anything
else.
"""

from __future__ import annotations

import itertools
import re
from types import ModuleType

_COUNT_REPR = re.compile(r"^count\((-?[0-9]+)\)$")


def counter_values(module: ModuleType | None) -> dict[str, int]:
    """Each module-level counter's next value, read without moving it."""
    if module is None:
        return {}
    found: dict[str, int] = {}
    for name, value in sorted(vars(module).items()):
        if isinstance(value, itertools.count):
            start = _COUNT_REPR.match(repr(value))  # the only non-consuming view of it
            if start is not None:
                found[name] = int(start.group(1))
    return found


def restore_counters(module: ModuleType | None, values: dict[str, int]) -> None:
    """Set each named counter back to its recorded next value (names that are not a
    counter of `module` are left alone)."""
    if module is None:
        return
    for name, value in values.items():
        if isinstance(getattr(module, name, None), itertools.count):
            setattr(module, name, itertools.count(value))
