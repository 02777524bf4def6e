"""What can go wrong across the process boundary: the adapter failures of
`conformance.errors` (this module's old home, kept so its imports keep working), and a
`cmd:` spec that cannot be run.

The runner reports them as ERROR (a reply timeout as TIMEOUT) with a label first in the
detail: `CRASH:`, `PROTOCOL:` or `TIMEOUT:` (see `AdapterFailure.label`), so a report
reader sees at once that the adapter, not a law, is what failed.
"""

from __future__ import annotations

from ..errors import (
    AdapterCrashed,
    AdapterFailure,
    AdapterGaveUp,
    AdapterProtocolError,
    AdapterReportedError,
    AdapterStopped,
    AdapterTimeout,
)


class CommandSpecError(ValueError):
    """`--impl cmd:...` that cannot be split into a command line."""


__all__ = [
    "AdapterCrashed",
    "AdapterFailure",
    "AdapterGaveUp",
    "AdapterProtocolError",
    "AdapterReportedError",
    "AdapterStopped",
    "AdapterTimeout",
    "CommandSpecError",
]
