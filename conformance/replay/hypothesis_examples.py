"""Hypothesis' shrunk example: taken from a failure, and played back on replay.

With `print_blob` on (the runner's profiles set it), Hypothesis attaches to the failing
exception the steps of the minimal example and a `@reproduce_failure(version, blob)`
line. The blob is Hypothesis' own encoding of that example's choices, so decorating the
test with it replays exactly that example, deterministically, and nothing else; when the
example no longer fails Hypothesis raises DidNotReproduce, which a replay reports as a
pass. (The example database is no help here: the `ci` profile is derandomized, which
turns the database off.)
"""

from __future__ import annotations

import ast
import re
from typing import Any, TypeVar

import hypothesis
from hypothesis import reproduce_failure
from hypothesis.core import decode_failure

from .model import ShrunkExample

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
"""Object reprs in Hypothesis' notes carry memory addresses: noise in a stored file."""
_BLOB = re.compile(r"@reproduce_failure\('([^']+)', (b'[^']*'|b\"[^\"]*\")\)")
_ATTRIBUTE = "_hypothesis_internal_use_reproduce_failure"
"""Where `@reproduce_failure` leaves its argument; read when the test runs."""

T = TypeVar("T")
_active: ShrunkExample | None = None


def extract_example(error: BaseException) -> ShrunkExample | None:
    """The shrunk example Hypothesis noted on `error` (or on an error it groups)."""
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        notes = [str(n) for n in getattr(current, "__notes__", [])]
        for index, note in enumerate(notes):
            found = _BLOB.search(note)
            if found:
                blob = ast.literal_eval(found.group(2))
                steps = [_ADDRESS.sub("", n.strip()) for n in notes[:index] if n.strip()]
                return ShrunkExample(
                    hypothesis_version=found.group(1), blob=blob.decode("ascii"), steps=steps
                )
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
    return None


def example_problem(example: ShrunkExample) -> str | None:
    """Why Hypothesis could not play `example` here (None: it can): a blob from another
    Hypothesis version (it refuses those outright), or one it cannot decode. Asked
    before a replay starts, so the file is refused as unusable rather than every law of
    the replay being an ERROR with Hypothesis' traceback."""
    if example.hypothesis_version != hypothesis.__version__:
        return (
            f"its example was stored by Hypothesis {example.hypothesis_version} and this is "
            f"{hypothesis.__version__}: Hypothesis plays a stored example only on the version "
            "that stored it. Rerun the failing test here for a fresh repro file, or replay "
            f"this one where hypothesis=={example.hypothesis_version} is installed"
        )
    try:
        decode_failure(example.blob.encode("ascii"))
    except Exception as error:  # InvalidArgument, and whatever a damaged blob raises
        return f"its stored example (example.blob) cannot be read: {str(error)[:300]}"
    return None


def activate(example: ShrunkExample | None) -> None:
    """Make `reproducing` replay this example (None: replay nothing special)."""
    global _active
    _active = example


def active() -> ShrunkExample | None:
    return _active


def reproducing(test: T) -> T:
    """`test` (a @given test or a state machine class) set to replay the active example,
    or unchanged when no replay is active. The model-based law test wraps its machine in
    this, since the machine is built inside the test where no plugin can reach it."""
    if _active is None:
        return test
    decorate: Any = reproduce_failure(_active.hypothesis_version, _active.blob.encode("ascii"))
    reproduced: T = decorate(test)
    return reproduced


def set_on_given_test(test: Any, example: ShrunkExample) -> bool:
    """Set a collected @given test to replay `example`; False if it is not one."""
    if not getattr(test, "is_hypothesis_test", False):
        return False
    setattr(test, _ATTRIBUTE, (example.hypothesis_version, example.blob.encode("ascii")))
    return True
