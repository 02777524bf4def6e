"""The reference runtime as a `cmd:` adapter: `python -m reference_impl.adapter`.

It serves `reference_impl.adapter.implementation` (the same adapter the suite loads
in-process) over adapter protocol v1, so a run through
`--impl "cmd:python -m reference_impl.adapter"` must give the same verdict on every law
as the in-process one.
"""

from __future__ import annotations

from conformance import __version__
from conformance.stdio.protocol import ImplementationInfo
from conformance.stdio.serve import serve

from ._implementation import implementation

INFO = ImplementationInfo(name=implementation.name, language="python", version=__version__)
"""No homepage or issue tracker: the project has not published either."""


def main() -> None:
    serve(implementation, INFO)
