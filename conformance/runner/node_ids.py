"""A law test's id as every artifact of the run writes it: `conformance/laws/test_run.py::
test_x[openai-chat-stream]`, wherever the suite is installed.

pytest names a test by its file's path relative to the run's rootdir. The suite is run
from the user's project with `--pyargs conformance.laws`, so its files are usually
outside the rootdir, in a virtualenv's `site-packages`: pytest then writes
`../.venv/lib/python3.11/site-packages/conformance/laws/test_run.py::...` (or, in newer
pytest, drops the path and writes `::test_x[...]`, which no longer says which module).
Neither belongs in a record, a report or a repro file: they depend on one machine's
layout, and the second is ambiguous. The runner keeps pytest's own ids (xdist, the
terminal's progress and `--lf` key on them) and writes this one.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

import pytest

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


__all__ = ["SUITE_PREFIX", "normalized", "suite_test_id"]
