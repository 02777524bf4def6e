"""`-p benchmarks.unwarmed_launcher`: the suite's hosts forked from a launcher that skips
the SDK warm-up, for the row that asks whether the warm-up pays for itself.

Loaded as a pytest plugin, it makes the reference's launcher start as this module instead
of `reference_impl._launcher`; run as `python -m benchmarks.unwarmed_launcher FD`, it is
that launcher with `warm_up` a no-op. Nothing else changes: the same preloads, the same
forks, the same children.
"""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Sequence
from typing import Any

from reference_impl import _launcher

LAUNCHER = "reference_impl._launcher"
"""The module the reference's `spawn` starts its launcher as."""
UNWARMED = "benchmarks.unwarmed_launcher"


def _popen(args: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
    argv = list(args)
    argv[argv.index(LAUNCHER)] = UNWARMED
    return subprocess.Popen(argv, **options)


def pytest_configure() -> None:
    """Point the launcher's start at this module (the suite's process, before any host)."""
    shim = types.SimpleNamespace(**vars(subprocess))
    shim.Popen = _popen
    vars(_launcher)["subprocess"] = shim


def main(argv: Sequence[str] | None = None) -> int:
    """The launcher, without its warm-up (the launcher's process)."""
    vars(_launcher)["warm_up"] = lambda: None
    return _launcher.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
