"""Checkpoint-like JSON and awkward session ids, for the battery's round trips.

A store must keep any JSON object text it is given, so the values are shaped like an
agent's checkpoint (a history of turns, nested tool arguments, unicode, big integers)
without depending on any runtime's checkpoint schema.
"""

from __future__ import annotations

import json
from typing import Any, Final

from hypothesis import strategies as st

from .._unicode_text import unicode_text

AWKWARD_IDS: Final = (
    "",
    " ",
    "ü日本語🙂",
    "x" * 10_000,
    "'; DROP TABLE sessions; --",
    '" OR 1=1 --',
    "%_*?[]\\",
    "a\x00b",
    "a",
    "../../etc/passwd",
    "line\nbreak\ttab",
    "\u202etxt.exe",
)
"""Ids a store must give back unchanged and tell apart (`a\\x00b` is not `a`): empty,
blank, non-ASCII, very long, SQL and LIKE metacharacters, an embedded NUL, paths,
control characters, a bidi override."""

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | unicode_text(max_size=40)
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(unicode_text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
_TURNS = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool"]), "content": unicode_text(max_size=200)},
    optional={
        "tool_calls": st.lists(
            st.dictionaries(unicode_text(max_size=8), JSON_VALUES, max_size=3), max_size=2
        )
    },
)
CHECKPOINTS = st.builds(
    lambda history, extra: json.dumps({"version": 1, "history": history, "extra": extra}),
    st.lists(_TURNS, max_size=8),
    st.dictionaries(unicode_text(max_size=12), JSON_VALUES, max_size=3),
)
"""JSON object text shaped like an agent checkpoint."""

SESSION_IDS = unicode_text(max_size=60)
"""Any text (surrogates aside, which are not text a file can hold)."""


def checkpoint_of(writer: str, sequence: int, padding: int = 0) -> str:
    """A checkpoint that says who wrote it and when, so a read can name its write."""
    body: dict[str, Any] = {"version": 1, "writer": writer, "sequence": sequence}
    body["history"] = [{"role": "user", "content": "p" * padding}] if padding else []
    return json.dumps(body)
